#pragma once
// The bundled H800 model, loaded once, for the timing tests.
#include <stdexcept>
#include <string>

#include "models/model.hpp"

namespace ptxsim::test {

inline const models::gpu_model& h800() {
    static const models::gpu_model m = [] {
        parser::diagnostics d;
        auto m = models::load_model(std::string(PTXSIM_SOURCE_DIR) + "/models/h800.json", d);
        if (!m) throw std::runtime_error("h800.json does not load");
        return *m;
    }();
    return m;
}

} // namespace ptxsim::test
