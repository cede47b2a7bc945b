#include "isa/tensor_map.hpp"

#include <fmt/format.h>

#include <cstring>

namespace ptxsim::isa {
namespace {

constexpr uint32_t magic = 0x54585450; // "PTXT"

template <class T>
void put(tensor_map_bytes& b, size_t at, T v) {
    std::memcpy(b.data() + at, &v, sizeof v);
}
template <class T>
T get(const tensor_map_bytes& b, size_t at) {
    T v;
    std::memcpy(&v, b.data() + at, sizeof v);
    return v;
}

uint32_t swizzle_span(tma_swizzle s) {
    switch (s) {
    case tma_swizzle::b32: return 32;
    case tma_swizzle::b64: return 64;
    case tma_swizzle::none: return 0;
    default: return 128;
    }
}

} // namespace

uint32_t tensor_map::element_bytes() const {
    switch (type) {
    case tma_type::u8: return 1;
    case tma_type::u16: case tma_type::f16: case tma_type::bf16: return 2;
    case tma_type::u64: case tma_type::s64: case tma_type::f64: return 8;
    case tma_type::u4x16_8b: return 8;
    case tma_type::u4x16_16b: case tma_type::u6x16_16b: return 16;
    default: return 4;
    }
}

bool tensor_map::is_float() const {
    switch (type) {
    case tma_type::f16: case tma_type::f32: case tma_type::f64: case tma_type::bf16: case tma_type::f32_ftz: case tma_type::tf32:
    case tma_type::tf32_ftz: return true;
    default: return false;
    }
}

uint64_t tensor_map::box_bytes() const {
    uint64_t n = element_bytes();
    for (uint32_t i = 0; i < rank; ++i) n *= box_elements(i);
    return n;
}

std::string encode_tiled(tensor_map_bytes& out, tma_type type, uint32_t rank, uint64_t global_address, const uint64_t* global_dims,
                         const uint64_t* global_strides, const uint32_t* box_dims, const uint32_t* element_strides,
                         tma_interleave interleave, tma_swizzle swizzle, tma_l2_promotion l2, tma_oob_fill oob) {
    tensor_map m;
    m.type = type;
    m.rank = rank;
    if (static_cast<uint8_t>(type) > static_cast<uint8_t>(tma_type::u6x16_16b)) return "unknown tensor data type";
    if (rank < 1 || rank > 5) return fmt::format("tensor rank {} is outside 1 to 5", rank);
    if (interleave != tma_interleave::none && rank < 3) return "an interleaved tensor map needs rank 3 or more";
    if (static_cast<uint8_t>(interleave) > 2 || static_cast<uint8_t>(swizzle) > 6 || static_cast<uint8_t>(l2) > 3 ||
        static_cast<uint8_t>(oob) > 1)
        return "unknown interleave, swizzle, L2 promotion or fill mode";
    uint64_t align = interleave == tma_interleave::b32 ? 32 : 16;
    if (global_address % align) return fmt::format("the global address must be {}-byte aligned", align);
    const uint32_t esize = m.element_bytes();
    for (uint32_t i = 0; i < rank; ++i) {
        if (global_dims[i] == 0 || global_dims[i] > (uint64_t(1) << 32))
            return fmt::format("global dimension {} is {}; it must be from 1 to 2^32", i, global_dims[i]);
        if (box_dims[i] == 0 || box_dims[i] > 256) return fmt::format("box dimension {} is {}; it must be from 1 to 256", i, box_dims[i]);
        if (element_strides[i] == 0 || element_strides[i] > 8)
            return fmt::format("element stride {} is {}; it must be from 1 to 8", i, element_strides[i]);
        m.dims[i] = global_dims[i];
        m.box[i] = box_dims[i];
        m.element_strides[i] = element_strides[i];
    }
    m.strides[0] = esize;
    for (uint32_t i = 1; i < rank; ++i) {
        uint64_t s = global_strides[i - 1];
        if (s % 16 || s >= (uint64_t(1) << 40)) return fmt::format("global stride {} is {}; it must be a multiple of 16 below 2^40", i, s);
        m.strides[i] = s;
    }
    if (interleave == tma_interleave::none) {
        uint64_t inner = uint64_t(box_dims[0]) * esize;
        if (inner % 16) return fmt::format("the box's inner dimension is {} bytes; it must be a multiple of 16", inner);
        if (uint32_t span = swizzle_span(swizzle); span && inner > span)
            return fmt::format("the box's inner dimension is {} bytes; the {}-byte swizzle allows at most {}", inner, span, span);
    }
    out.fill(0);
    put(out, 0, global_address);
    put(out, 8, magic);
    out[12] = static_cast<uint8_t>(type);
    out[13] = static_cast<uint8_t>(rank);
    out[14] = static_cast<uint8_t>(interleave);
    out[15] = static_cast<uint8_t>(swizzle);
    out[16] = static_cast<uint8_t>(l2);
    out[17] = static_cast<uint8_t>(oob);
    for (uint32_t i = 0; i < 5; ++i) {
        put(out, 20 + 4 * i, m.box[i]);
        put(out, 40 + 8 * i, m.dims[i]);
        if (i < 4) put(out, 80 + 8 * i, m.strides[i + 1]);
        out[112 + i] = static_cast<uint8_t>(m.element_strides[i]);
    }
    return {};
}

std::optional<tensor_map> decode_tensor_map(const tensor_map_bytes& b) {
    if (get<uint32_t>(b, 8) != magic || b[13] < 1 || b[13] > 5 || b[12] > 15 || b[15] > 6) return std::nullopt;
    tensor_map m;
    m.address = get<uint64_t>(b, 0);
    m.type = static_cast<tma_type>(b[12]);
    m.rank = b[13];
    m.interleave = static_cast<tma_interleave>(b[14]);
    m.swizzle = static_cast<tma_swizzle>(b[15]);
    m.l2 = static_cast<tma_l2_promotion>(b[16]);
    m.oob = static_cast<tma_oob_fill>(b[17]);
    m.strides[0] = m.element_bytes();
    for (uint32_t i = 0; i < 5; ++i) {
        m.box[i] = get<uint32_t>(b, 20 + 4 * i);
        m.dims[i] = get<uint64_t>(b, 40 + 8 * i);
        if (i < 4) m.strides[i + 1] = get<uint64_t>(b, 80 + 8 * i);
        m.element_strides[i] = b[112 + i] ? b[112 + i] : 1;
    }
    return m;
}

std::optional<tma_type> tma_type_named(const std::string& n) {
    static const char* names[] = {"u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16", "f32_ftz", "tf32", "tf32_ftz"};
    for (size_t i = 0; i < std::size(names); ++i)
        if (n == names[i]) return static_cast<tma_type>(i);
    return std::nullopt;
}

std::optional<tma_swizzle> tma_swizzle_named(const std::string& n) {
    if (n == "none") return tma_swizzle::none;
    if (n == "32B") return tma_swizzle::b32;
    if (n == "64B") return tma_swizzle::b64;
    if (n == "128B") return tma_swizzle::b128;
    return std::nullopt;
}

} // namespace ptxsim::isa
