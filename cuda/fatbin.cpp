#include "cuda/fatbin.hpp"

#include <algorithm>
#include <cstring>

#include <lz4.h>
#include <zstd.h>

#include <fmt/format.h>

namespace ptxsim::cuda {
namespace {

// Container header: magic, version 1, header size, size of the entries.
struct container_header {
    uint32_t magic;
    uint16_t version;
    uint16_t header_size;
    uint64_t entries_size;
};
static_assert(sizeof(container_header) == 16);

// Entry header (version 0x101): field names are ours; offsets as nvcc writes them.
struct entry_header {
    uint16_t kind;            // 1 PTX, 2 ELF
    uint16_t version;
    uint32_t header_size;
    uint32_t payload_size;    // bytes after the header (padded when compressed)
    uint32_t reserved0;
    uint32_t compressed_size; // exact compressed length, 0 when not compressed
    uint32_t reserved1;
    uint32_t reserved2;
    uint32_t sm;
    uint32_t bits;            // address width
    uint32_t reserved3;
    uint64_t flags;
    uint64_t reserved4;
    uint64_t uncompressed_size;
};
static_assert(sizeof(entry_header) == 64);

constexpr uint64_t flag_lz4 = 0x2000, flag_zstd = 0x8000, flag_arch_specific = 0x100000;
constexpr uint64_t max_payload = 1ull << 31;

bool decompress(const entry_header& h, const uint8_t* src, fatbin_entry& e, std::string& error) {
    size_t csize = h.compressed_size ? h.compressed_size : h.payload_size;
    if (h.flags & flag_zstd) {
        e.compression = "zstd";
        unsigned long long n = ZSTD_getFrameContentSize(src, csize);
        if (n == ZSTD_CONTENTSIZE_ERROR) {
            error = "a Zstandard-compressed entry is not a Zstandard frame";
            return false;
        }
        if (n == ZSTD_CONTENTSIZE_UNKNOWN) n = h.uncompressed_size;
        if (n > max_payload) {
            error = fmt::format("a compressed entry claims {} bytes uncompressed", n);
            return false;
        }
        e.payload.resize(n);
        size_t got = ZSTD_decompress(e.payload.data(), e.payload.size(), src, csize);
        if (ZSTD_isError(got)) {
            error = fmt::format("a Zstandard-compressed entry does not decompress: {}", ZSTD_getErrorName(got));
            return false;
        }
        e.payload.resize(got);
        return true;
    }
    e.compression = "lz4";
    if (h.uncompressed_size > max_payload || csize > uint64_t(INT32_MAX)) {
        error = fmt::format("a compressed entry claims {} bytes uncompressed", h.uncompressed_size);
        return false;
    }
    e.payload.resize(h.uncompressed_size);
    int got = LZ4_decompress_safe(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(e.payload.data()),
                                  int(csize), int(e.payload.size()));
    if (got < 0) {
        error = "an LZ4-compressed entry does not decompress";
        return false;
    }
    e.payload.resize(size_t(got));
    return true;
}

// Parses one container at `p` with at most `avail` bytes; sets `used`.
bool parse_container(const uint8_t* p, size_t avail, std::vector<fatbin_entry>& entries, size_t& used,
                     std::string& error) {
    container_header c;
    if (avail < sizeof c) {
        error = "truncated fatbinary header";
        return false;
    }
    std::memcpy(&c, p, sizeof c);
    if (c.magic != fatbin_magic) {
        error = fmt::format("not a fatbinary (magic {:#x}, expected {:#x})", c.magic, fatbin_magic);
        return false;
    }
    if (c.header_size < sizeof c || c.header_size > avail || c.entries_size > avail - c.header_size) {
        error = fmt::format("fatbinary header claims {} bytes of entries, {} available", c.entries_size,
                            avail - std::min<size_t>(avail, c.header_size));
        return false;
    }
    used = c.header_size + c.entries_size;
    const uint8_t* q = p + c.header_size;
    const uint8_t* end = q + c.entries_size;
    while (size_t(end - q) >= sizeof(entry_header)) {
        entry_header h;
        std::memcpy(&h, q, sizeof h);
        if (h.header_size < sizeof h || h.header_size > size_t(end - q)) {
            error = fmt::format("fatbinary entry header of {} bytes does not fit", h.header_size);
            return false;
        }
        size_t body = std::max<size_t>(h.payload_size, h.compressed_size);
        if (body > size_t(end - q) - h.header_size) {
            error = fmt::format("fatbinary entry of {} bytes runs past its container", body);
            return false;
        }
        fatbin_entry e;
        e.kind = h.kind == 1 ? fatbin_entry::kind_t::ptx
               : h.kind == 2 ? fatbin_entry::kind_t::elf
                             : fatbin_entry::kind_t::other;
        e.sm = h.sm;
        e.arch_specific = (h.flags & flag_arch_specific) != 0;
        const uint8_t* src = q + h.header_size;
        if (h.flags & (flag_lz4 | flag_zstd)) {
            if (!decompress(h, src, e, error)) return false;
        } else {
            e.payload.assign(src, src + h.payload_size);
        }
        if (e.kind == fatbin_entry::kind_t::ptx)
            while (!e.payload.empty() && e.payload.back() == 0) e.payload.pop_back();
        entries.push_back(std::move(e));
        q += h.header_size + body;
    }
    return true;
}

} // namespace

std::string fatbin_entry::arch_name() const {
    std::string base = kind == kind_t::ptx ? "compute_" : "sm_";
    return base + std::to_string(sm) + (arch_specific ? "a" : "");
}

bool parse_fatbin(const uint8_t* data, size_t size, std::vector<fatbin_entry>& entries, std::string& error) {
    std::vector<std::vector<fatbin_entry>> containers;
    const bool ok = parse_fatbin_containers(data, size, containers, error);
    for (auto& c : containers) entries.insert(entries.end(), std::make_move_iterator(c.begin()), std::make_move_iterator(c.end()));
    return ok;
}

bool parse_fatbin_containers(const uint8_t* data, size_t size, std::vector<std::vector<fatbin_entry>>& containers,
                             std::string& error) {
    size_t pos = 0;
    bool any = false;
    while (pos + sizeof(container_header) <= size) {
        uint32_t magic;
        std::memcpy(&magic, data + pos, 4);
        if (magic != fatbin_magic) {
            // Containers are 8-byte aligned; the section pads between them.
            if (!any) {
                error = fmt::format("not a fatbinary (magic {:#x}, expected {:#x})", magic, fatbin_magic);
                return false;
            }
            pos += 8;
            continue;
        }
        size_t used = 0;
        containers.emplace_back();
        if (!parse_container(data + pos, size - pos, containers.back(), used, error)) return false;
        any = true;
        pos += (used + 7) & ~size_t(7);
    }
    if (!any) {
        error = "no fatbinary container";
        return false;
    }
    return true;
}

bool parse_fatbin_at(const void* header, std::vector<fatbin_entry>& entries, std::string& error) {
    container_header c;
    std::memcpy(&c, header, sizeof c);
    if (c.magic != fatbin_magic) {
        error = fmt::format("not a fatbinary (magic {:#x}, expected {:#x})", c.magic, fatbin_magic);
        return false;
    }
    if (c.entries_size > max_payload) {
        error = fmt::format("fatbinary header claims {} bytes", c.entries_size);
        return false;
    }
    size_t used = 0;
    return parse_container(static_cast<const uint8_t*>(header), c.header_size + c.entries_size, entries, used, error);
}

std::optional<size_t> choose_ptx(const std::vector<fatbin_entry>& entries, uint32_t sm, bool arch_specific) {
    std::optional<size_t> best;
    auto rank = [&](const fatbin_entry& e) {
        // exact arch-specific match first, then exact generic, then the newest older generic one
        if (e.sm == sm) return (e.arch_specific == arch_specific ? 3000u : 2000u) + e.sm;
        return 1000u + e.sm;
    };
    for (size_t i = 0; i < entries.size(); ++i) {
        const auto& e = entries[i];
        if (e.kind != fatbin_entry::kind_t::ptx || e.sm > sm) continue;
        if (e.arch_specific && (e.sm != sm || !arch_specific)) continue;
        if (!best || rank(e) > rank(entries[*best])) best = i;
    }
    return best;
}

std::string describe(const std::vector<fatbin_entry>& entries) {
    std::vector<std::string> seen;
    for (const auto& e : entries) {
        std::string one = e.arch_name() + (e.kind == fatbin_entry::kind_t::ptx   ? " PTX"
                                           : e.kind == fatbin_entry::kind_t::elf ? " SASS"
                                                                                 : " other");
        if (std::find(seen.begin(), seen.end(), one) == seen.end()) seen.push_back(one);
    }
    std::string out;
    for (const auto& one : seen) out += (out.empty() ? "" : ", ") + one;
    return out.empty() ? "nothing" : out;
}

bool fatbin_entry::has_kernels() const {
    if (kind == kind_t::ptx) return text().find(".entry") != std::string::npos;
    if (kind != kind_t::elf) return false;
    // A cubin holds each kernel's code in a section ".text.<kernel>".
    auto read = [&](size_t at, size_t n) -> uint64_t {
        uint64_t v = 0;
        if (at + n <= payload.size()) std::memcpy(&v, payload.data() + at, n);
        return v;
    };
    if (payload.size() < 64 || read(0, 4) != 0x464c457f || payload[4] != 2) return true;  // not ELF64: assume code
    const uint64_t shoff = read(0x28, 8), shentsize = read(0x3a, 2), shnum = read(0x3c, 2), shstrndx = read(0x3e, 2);
    if (shstrndx >= shnum || shentsize < 64) return true;
    const uint64_t strtab = read(shoff + shstrndx * shentsize + 0x18, 8);
    for (uint64_t i = 0; i < shnum; ++i) {
        const uint64_t name = strtab + read(shoff + i * shentsize, 4);
        if (name + 6 < payload.size() && std::memcmp(payload.data() + name, ".text.", 6) == 0) return true;
    }
    return false;
}

} // namespace ptxsim::cuda
