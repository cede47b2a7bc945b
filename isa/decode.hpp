#pragma once
// Decoding a validated AST function into its executable form: register
// slots per scope, labels to instruction indices, symbols to addresses,
// modifiers (through the table's groups) to enum fields and a handler.
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "isa/exec.hpp"
#include "parser/ast.hpp"
#include "parser/diagnostics.hpp"

namespace ptxsim::isa {

// Where a module-level name lives, as the loader laid it out.
struct symbol_address {
    space sp = space::global;
    uint64_t address = 0;   // global address, or offset in shared/param/local space
    bool is_function = false;
};

struct decode_inputs {
    const parser::module* module = nullptr;
    const parser::function* function = nullptr;
    // Module-level variables and functions; nullopt when unknown.
    std::function<std::optional<symbol_address>(std::string_view)> resolve;
    uint32_t shared_base = 0;   // bytes of shared memory the module's own variables use
    // Function names to ids for `call` (a builtin's negative id for vprintf,
    // __assertfail ...); nullopt when the module has no such function.
    std::function<std::optional<int32_t>(std::string_view)> function_id;
};

struct decoded_function {
    exec_function fn;
    uint32_t shared_static_bytes = 0; // module statics + this function's .shared
};

// Problems are diagnostics (a construct the decoder cannot place); an
// instruction ptxsim cannot execute yet decodes to a handler that faults
// with its location when it runs.
std::optional<decoded_function> decode(const decode_inputs& in, parser::diagnostics& d);

} // namespace ptxsim::isa
