#pragma once
// Launch files (docs/launch-file.md): JSON that names the PTX modules, the
// buffers to create and fill, the kernel launches with their arguments, the
// buffers to write out and the results to expect. Reading one checks every
// field and reports problems with the file, line and JSON path.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/sem/texture_object.hpp"
#include "parser/diagnostics.hpp"
#include "sim/launch_types.hpp"

namespace ptxsim::sim {

// A tensor map argument: cuTensorMapEncodeTiled's parameters over a buffer,
// or with `im2col` cuTensorMapEncodeIm2col's.
struct tensormap_spec {
    std::string type;                          // "bf16", "f32", ... (isa::tma_type_named)
    std::vector<uint64_t> dims, strides;       // innermost first; strides: dims 1.. in bytes (default dense)
    std::vector<uint32_t> box, element_strides; // box: tiled maps only
    bool im2col = false;
    std::vector<int32_t> lower_corner, upper_corner; // im2col: dims 1 .. rank-2 (W, H, D)
    uint32_t channels_per_pixel = 0, pixels_per_column = 0;
    std::string swizzle = "none";              // none, 32B, 64B, 128B
    uint32_t l2_promotion = 0;                 // 0 none, 1 64B, 2 128B, 3 256B
    bool nan_fill = false;                     // CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
};

// A device address written into file contents (`"pointers"`) once every
// buffer and module variable has one: data that holds pointers, as
// `ptxsim exec --record` writes it.
struct pointer_patch {
    uint64_t at = 0;         // byte offset in the contents; 8 bytes are written
    bool symbol = false;     // the target is a module variable, else a buffer
    std::string target;
    uint64_t offset = 0;     // added to the target's address
    std::string where;       // "buffers.a3.init.pointers[2]" for messages
};

// A kernel argument, a symbol's value or a struct buffer's contents.
struct arg_spec {
    enum class kind { scalar, buffer, bytes, multicast, tensormap, texture, surface, structure, symbol } k = kind::scalar;
    tensormap_spec tmap;     // kind::tensormap (over `buffer` + `offset`)
    std::vector<uint8_t> bytes;  // scalar value or raw bytes (given, or read from a file)
    std::vector<pointer_patch> pointers;  // kind::bytes: addresses written into `bytes`
    std::string buffer;          // the buffer, multicast object, texture, surface or module variable named
    uint64_t offset = 0;
    std::string where;       // "launches[0].args[2]" for messages
    // kind::structure: the fields of a C struct, each at its alignment
    // (scalars their size, pointers and handles 8, tensor maps 128), the
    // whole padded to the largest alignment or to `align` when larger.
    std::vector<arg_spec> fields;
    uint32_t align = 1;
};

struct buffer_spec {
    std::string name;
    std::string type;        // u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64
    uint32_t elem_bytes = 0;
    uint64_t count = 0;
    uint64_t address = 0;    // where the buffer must be (a recording's address); 0: anywhere
    enum class init_kind { none, fill, iota, random, file, structure } init = init_kind::none;
    double fill = 0, start = 0, step = 1, min = 0, max = 1;
    uint64_t seed = 0;
    std::string file;        // resolved path
    std::vector<pointer_patch> pointers;  // init_kind::file: addresses written over the file's bytes
    // init_kind::structure: written once every buffer exists, so pointers
    // and tensor maps may name any buffer (a CUtensorMap array in global memory).
    arg_spec structure;
};

// A texture or surface object over a buffer ("textures", "surfaces").
struct texture_spec {
    std::string name, buffer;
    uint64_t offset = 0;         // bytes from the buffer's start to texel (0, 0, 0)
    isa::texture_object object;  // base 0: the buffer's address + offset is added when it exists
};

// A multicast object bound to buffers that stand for the copies on the
// GPUs of a multicast group (memory/multicast.hpp).
struct multicast_spec {
    std::string name;
    std::vector<std::string> members; // buffer names, all of one byte size
};

struct launch_spec {
    std::string kernel;
    dim3 grid, block;
    uint32_t shared_bytes = 0;
    std::optional<uint64_t> malloc_heap_bytes, stack_bytes; // launch_options defaults when absent
    uint32_t registers_per_thread = 0;                        // 0: the kernel's .maxnreg, if any
    bool cooperative = false;                                 // cudaLaunchCooperativeKernel
    std::vector<uint32_t> sms;                                // SMs the launch may use (empty: all)
    uint32_t stream = 0;                                      // launches of different streams may overlap in time
    dim3 cluster{0, 0, 0};                                    // cudaLaunchAttributeClusterDimension; x == 0: none given
    bool non_portable_cluster_size = false;                   // cudaFuncAttributeNonPortableClusterSizeAllowed
    std::vector<arg_spec> args;
    std::string where;
};

struct expect_spec {
    std::string buffer;
    std::string file;                  // resolved path, or empty
    std::vector<double> values;        // when no file
    uint64_t max_ulp = 0;
    // Float buffers: an element also passes when |got - want| <= max_abs or
    // <= max_rel * |want| (0: not used), for results that are not bit-exact
    // by design (approximate functions, unspecified summation order).
    double max_abs = 0, max_rel = 0;
};

// A module variable set before the first launch, as cudaMemcpyToSymbol does.
struct symbol_spec {
    std::string name;
    arg_spec value;
};

struct launch_file {
    std::string path;
    std::vector<std::string> modules;  // resolved paths
    std::vector<buffer_spec> buffers;
    std::vector<multicast_spec> multicasts;
    std::vector<texture_spec> textures; // textures and surfaces (object.kind)
    std::vector<symbol_spec> symbols;
    std::vector<launch_spec> launches;
    std::vector<std::pair<std::string, std::string>> outputs; // buffer -> resolved path
    std::vector<expect_spec> expects;
};

std::optional<launch_file> read_launch_file(const std::string& path, parser::diagnostics& d);

// Bytes of a buffer's initial contents (documented generators); nullopt and
// a diagnostic when a data file is missing or has the wrong size.
std::optional<std::vector<uint8_t>> initial_contents(const buffer_spec& b, parser::diagnostics& d);

// Bytes per element of a launch-file type name; 0 when the name is unknown.
uint32_t type_bytes(const std::string& type);
// The bits of `value` in a launch-file type (floats rounded to nearest-even,
// integers wrapped to the type's width).
uint64_t encode_value(const std::string& type, double value);
// The value of the bits of one element, for messages and comparisons.
double decode_value(const std::string& type, uint64_t bits);

} // namespace ptxsim::sim
