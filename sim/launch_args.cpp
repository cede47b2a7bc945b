#include "sim/launch_args.hpp"

#include "isa/tensor_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace ptxsim::sim {
namespace {

// The 128 bytes of a {"tensormap"} value (cuTensorMapEncodeTiled or
// cuTensorMapEncodeIm2col over the buffer's address), or why the driver
// would refuse the parameters.
std::string encode_tensormap(const tensormap_spec& t, uint64_t address, const arg_addresses& at, std::vector<uint8_t>& out) {
    const uint32_t rank = static_cast<uint32_t>(t.dims.size());
    if (!t.im2col && t.box.size() != rank) return fmt::format("\"box\" has {} entries for {} dimensions", t.box.size(), rank);
    if (t.im2col && (rank < 3 || rank > 5)) return fmt::format("an im2col tensor map has rank 3, 4 or 5 (not {})", rank);
    if (t.im2col && (t.lower_corner.size() + 2 != rank || t.upper_corner.size() + 2 != rank))
        return fmt::format("\"lower_corner\" and \"upper_corner\" each need one entry per dimension but C and N ({} for {} dimensions)",
                           rank - 2, rank);
    if (!t.element_strides.empty() && t.element_strides.size() != rank)
        return fmt::format("\"element_strides\" has {} entries for {} dimensions", t.element_strides.size(), rank);
    if (!t.strides.empty() && t.strides.size() + 1 != rank)
        return fmt::format("\"strides\" has {} entries; a rank-{} tensor has {} (dimension 1 and up)", t.strides.size(), rank, rank - 1);
    tensormap_params p;
    p.type = *isa::tma_type_named(t.type);
    p.rank = rank;
    p.address = address;
    p.dims = t.dims;
    isa::tensor_map probe;
    probe.type = p.type;
    p.strides = t.strides;
    if (p.strides.empty()) // dense: each dimension follows the previous one
        for (uint32_t i = 1; i < rank; ++i) p.strides.push_back((i == 1 ? probe.element_bytes() : p.strides.back()) * t.dims[i - 1]);
    p.element_strides = t.element_strides;
    p.element_strides.resize(rank, 1);
    p.box.assign(t.box.begin(), t.box.end());
    p.im2col = t.im2col;
    p.lower_corner = t.lower_corner;
    p.upper_corner = t.upper_corner;
    p.channels_per_pixel = t.channels_per_pixel;
    p.pixels_per_column = t.pixels_per_column;
    p.swizzle = *isa::tma_swizzle_named(t.swizzle);
    p.l2 = static_cast<isa::tma_l2_promotion>(t.l2_promotion);
    p.oob = t.nan_fill ? isa::tma_oob_fill::nan_request_zero_fma : isa::tma_oob_fill::zero;
    if (at.tensormap) return at.tensormap(p, out);
    isa::tensor_map_bytes bytes;
    std::string problem =
        p.im2col ? isa::encode_im2col(bytes, p.type, rank, address, p.dims.data(), p.strides.data(), p.lower_corner.data(),
                                      p.upper_corner.data(), p.channels_per_pixel, p.pixels_per_column, p.element_strides.data(),
                                      isa::tma_interleave::none, p.swizzle, p.l2, p.oob)
                 : isa::encode_tiled(bytes, p.type, rank, address, p.dims.data(), p.strides.data(), p.box.data(), p.element_strides.data(),
                                     isa::tma_interleave::none, p.swizzle, p.l2, p.oob);
    out.assign(bytes.begin(), bytes.end());
    return problem;
}

void put_u64(std::vector<uint8_t>& out, uint64_t v) {
    out.resize(8);
    std::memcpy(out.data(), &v, 8);
}

// The address a pointer names: a buffer's or a module variable's.
std::optional<uint64_t> target_address(bool symbol, const std::string& name, const arg_addresses& at) {
    if (symbol) return at.symbol ? at.symbol(name) : std::nullopt;
    auto b = at.buffers.find(name);
    return b == at.buffers.end() ? std::nullopt : std::optional<uint64_t>(b->second);
}

} // namespace

std::string apply_pointers(const std::vector<pointer_patch>& pointers, const arg_addresses& at, std::vector<uint8_t>& bytes) {
    for (const pointer_patch& p : pointers) {
        if (p.at > bytes.size() || bytes.size() - p.at < 8)
            return fmt::format("{}: \"at\" {} is past the end of the {} bytes it points into", p.where, p.at, bytes.size());
        auto base = target_address(p.symbol, p.target, at);
        if (!base)
            return fmt::format("{}: no {} '{}'", p.where, p.symbol ? "module variable in global or constant memory" : "buffer", p.target);
        const uint64_t v = *base + p.offset;
        std::memcpy(bytes.data() + p.at, &v, 8);
    }
    return "";
}

std::string encode_arg(const arg_spec& a, const arg_addresses& at, encoded_arg& out) {
    out.bytes = a.bytes;
    out.align = 1;
    switch (a.k) {
    case arg_spec::kind::scalar:
        out.align = static_cast<uint32_t>(a.bytes.size());
        return "";
    case arg_spec::kind::bytes:
        return apply_pointers(a.pointers, at, out.bytes);
    case arg_spec::kind::symbol: {
        auto base = target_address(true, a.buffer, at);
        if (!base) return fmt::format("{}: no module variable '{}' in global or constant memory", a.where, a.buffer);
        put_u64(out.bytes, *base + a.offset);
        out.align = 8;
        return "";
    }
    case arg_spec::kind::buffer:
    case arg_spec::kind::multicast:
        put_u64(out.bytes, (a.k == arg_spec::kind::buffer ? at.buffers.at(a.buffer) : at.multicasts.at(a.buffer)) + a.offset);
        out.align = 8;
        return "";
    case arg_spec::kind::texture:
    case arg_spec::kind::surface:
        put_u64(out.bytes, at.objects.at({a.k == arg_spec::kind::texture ? isa::object_kind::texture : isa::object_kind::surface, a.buffer}));
        out.align = 8;
        return "";
    case arg_spec::kind::tensormap:
        out.align = 128; // CUDA 13 declares CUtensorMap alignas(128)
        if (std::string problem = encode_tensormap(a.tmap, at.buffers.at(a.buffer) + a.offset, at, out.bytes); !problem.empty())
            return a.where + ": " + problem;
        return "";
    case arg_spec::kind::structure: {
        // C layout: each field at the next multiple of its alignment, the
        // struct's size a multiple of the largest (or of the given `align`).
        out.bytes.clear();
        out.align = a.align;
        for (const arg_spec& field : a.fields) {
            encoded_arg e;
            if (std::string problem = encode_arg(field, at, e); !problem.empty()) return problem;
            size_t at_offset = (out.bytes.size() + e.align - 1) / e.align * e.align;
            out.bytes.resize(at_offset, 0);
            out.bytes.insert(out.bytes.end(), e.bytes.begin(), e.bytes.end());
            out.align = std::max(out.align, e.align);
        }
        out.bytes.resize((out.bytes.size() + out.align - 1) / out.align * out.align, 0);
        return "";
    }
    }
    return "";
}

} // namespace ptxsim::sim
