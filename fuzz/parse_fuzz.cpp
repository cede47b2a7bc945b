// libFuzzer target: any byte string must parse, validate and print without
// a crash, hang or sanitizer report; a module that parsed cleanly must print
// to text that parses cleanly again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "isa/validate.hpp"
#include "parser/parser.hpp"
#include "parser/printer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ptxsim::parser;
    diagnostics diags;
    module m = parse("fuzz.ptx", std::string(reinterpret_cast<const char*>(data), size), diags);
    ptxsim::isa::validate(m, diags);
    std::string printed = print(m);
    if (!diags.has_errors()) {
        diagnostics again;
        module m2 = parse("printed.ptx", printed, again);
        if (again.has_errors()) std::abort(); // the printer wrote something the parser rejects
    }
    return 0;
}
