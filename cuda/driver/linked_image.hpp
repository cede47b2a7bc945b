#pragma once
// The image cuLinkComplete hands out for several PTX inputs. ptxsim runs
// PTX, so linking is done when the image is loaded: the inputs are loaded
// as one module whose calls and .extern variables resolve by name across
// them, as for nvcc -rdc=true's translation units. The image is opaque to
// the program (it passes it to cuModuleLoadData): a tag, the number of
// inputs, then each input's length and text.
#include <string>
#include <vector>

namespace ptxsim::cuda::driver {

std::string make_linked_image(const std::vector<std::string>& ptx);
// The inputs when `image` is such an image (false otherwise: a fatbinary,
// PTX text, a cubin).
bool read_linked_image(const void* image, std::vector<std::string>& ptx);

} // namespace ptxsim::cuda::driver
