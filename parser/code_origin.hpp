#pragma once
// Where the instructions of a module came from, for checkers whose rules
// differ between CUDA C++ and PTX (racecheck's reading of `volatile`).
//
// nvcc (NVVM) and clang (LLVM's NVPTX back end) write a header comment
// naming themselves, and bracket every inline-asm statement they copy into
// the module with `// begin inline asm` ... `// end inline asm`. A module
// with such a header is compiled code except inside those brackets; a module
// without one was written by hand and is PTX throughout.
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxsim::parser {

enum class code_origin : uint8_t {
    ptx,        // a hand-written module
    compiled,   // emitted by a compiler from CUDA C++ (or another language)
    inline_asm, // PTX a programmer wrote inside compiled code
};

class code_origins {
public:
    // Finds the compiler header (in the comment block before the first
    // directive) and the inline-asm brackets of a whole source text.
    static code_origins scan(std::string_view text);

    bool compiled() const { return compiled_; }
    // The origin of the byte at `offset` of the text that was scanned.
    code_origin at(uint32_t offset) const;
    // [begin, end) byte ranges of inline asm, ascending (compiled modules only).
    const std::vector<std::pair<uint32_t, uint32_t>>& inline_asm() const { return asm_; }

private:
    bool compiled_ = false;
    std::vector<std::pair<uint32_t, uint32_t>> asm_;
};

} // namespace ptxsim::parser
