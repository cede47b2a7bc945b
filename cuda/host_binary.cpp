#include "cuda/host_binary.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

namespace ptxsim::cuda {
namespace {

template <class T>
bool at(const std::vector<uint8_t>& f, uint64_t off, T& out) {
    if (off > f.size() || sizeof(T) > f.size() - off) return false;
    std::memcpy(&out, f.data() + off, sizeof(T));
    return true;
}

std::string c_string(const std::vector<uint8_t>& f, uint64_t off) {
    std::string s;
    while (off < f.size() && f[off]) s += char(f[off++]);
    return s;
}

} // namespace

bool host_binary::shared_runtime() const {
    for (const auto& n : needed)
        if (n.rfind("libcudart.so", 0) == 0) return true;
    return false;
}

bool host_binary::driver_linked() const {
    for (const auto& n : needed)
        if (n.rfind("libcuda.so", 0) == 0) return true;
    return false;
}

bool read_host_binary(const std::string& path, host_binary& out, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = fmt::format("{}: cannot open: {}", path, std::strerror(errno));
        return false;
    }
    std::vector<uint8_t> f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Elf64_Ehdr eh;
    if (!at(f, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
        error = fmt::format("{}: not an ELF program", path);
        return false;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64) {
        error = fmt::format("{}: not a 64-bit x86-64 ELF program", path);
        return false;
    }
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
        error = fmt::format("{}: an ELF file but not an executable (type {})", path, eh.e_type);
        return false;
    }
    // Program headers: the interpreter and the dynamic section.
    uint64_t dyn_off = 0, dyn_size = 0;
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        if (!at(f, eh.e_phoff + uint64_t(i) * eh.e_phentsize, ph)) break;
        if (ph.p_type == PT_INTERP) out.dynamic = true;
        if (ph.p_type == PT_DYNAMIC) dyn_off = ph.p_offset, dyn_size = ph.p_filesz;
    }
    // Sections: names, .dynstr and .nv_fatbin.
    std::vector<Elf64_Shdr> sh(eh.e_shnum);
    for (unsigned i = 0; i < eh.e_shnum; ++i)
        if (!at(f, eh.e_shoff + uint64_t(i) * eh.e_shentsize, sh[i])) sh.resize(i);
    uint64_t names = eh.e_shstrndx < sh.size() ? sh[eh.e_shstrndx].sh_offset : 0;
    uint64_t dynstr = 0;
    for (const auto& s : sh) {
        std::string name = names ? c_string(f, names + s.sh_name) : "";
        if (name == ".dynstr") dynstr = s.sh_offset;
        if (name == ".nv_fatbin" && s.sh_type != SHT_NOBITS) {
            out.has_fatbin = true;
            if (s.sh_offset > f.size() || s.sh_size > f.size() - s.sh_offset)
                out.fatbin_error = "the .nv_fatbin section runs past the end of the file";
            else
                parse_fatbin(f.data() + s.sh_offset, s.sh_size, out.fatbin, out.fatbin_error);
        }
        if (name == "__nv_relfatbin" && s.sh_type != SHT_NOBITS) {
            if (s.sh_offset > f.size() || s.sh_size > f.size() - s.sh_offset)
                out.relocatable_error = "the __nv_relfatbin section runs past the end of the file";
            else
                parse_fatbin_containers(f.data() + s.sh_offset, s.sh_size, out.relocatable, out.relocatable_error);
        }
    }
    for (uint64_t o = dyn_off; dynstr && o + sizeof(Elf64_Dyn) <= dyn_off + dyn_size; o += sizeof(Elf64_Dyn)) {
        Elf64_Dyn d;
        if (!at(f, o, d) || d.d_tag == DT_NULL) break;
        if (d.d_tag == DT_NEEDED) out.needed.push_back(c_string(f, dynstr + d.d_un.d_val));
    }
    return true;
}

std::vector<const fatbin_entry*> host_binary::relocatable_ptx(uint32_t sm) const {
    std::vector<const fatbin_entry*> out;
    for (const auto& c : relocatable)
        if (auto pick = choose_ptx(c, sm, true)) out.push_back(&c[*pick]);
    return out;
}

} // namespace ptxsim::cuda
