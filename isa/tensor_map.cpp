#include "isa/tensor_map.hpp"

#include <fmt/format.h>

#include <algorithm>
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

uint32_t swizzle_bytes(tma_swizzle s) {
    switch (s) {
    case tma_swizzle::b32: return 32;
    case tma_swizzle::b64: return 64;
    case tma_swizzle::none: return 0;
    default: return 128;
    }
}

// The driver's swizzle enumeration from the span and atomicity fields;
// nullopt for a pair it has no value for (only 128B has atomicities).
std::optional<tma_swizzle> swizzle_of(uint8_t span, uint8_t atomicity) {
    if (span > 3 || atomicity > 3) return std::nullopt;
    if (span < 3) return atomicity ? std::nullopt : std::optional(static_cast<tma_swizzle>(span));
    static constexpr tma_swizzle with_128[] = {tma_swizzle::b128, tma_swizzle::b128_atom_32b, tma_swizzle::b128_atom_32b_flip_8b,
                                               tma_swizzle::b128_atom_64b};
    return with_128[atomicity];
}

// The parameters both encoders take; the mode-specific ones are filled by the caller.
std::string common(tensor_map& m, tma_type type, uint32_t rank, uint64_t global_address, const uint64_t* global_dims,
                   const uint64_t* global_strides, const uint32_t* element_strides, tma_interleave interleave, tma_swizzle swizzle,
                   tma_l2_promotion l2, tma_oob_fill oob) {
    if (static_cast<uint8_t>(type) > static_cast<uint8_t>(tma_type::u6x16_16b)) return "unknown tensor data type";
    if (rank < 1 || rank > 5) return fmt::format("tensor rank {} is outside 1 to 5", rank);
    if (static_cast<uint8_t>(interleave) > 2 || static_cast<uint8_t>(swizzle) > 6 || static_cast<uint8_t>(l2) > 3 ||
        static_cast<uint8_t>(oob) > 1)
        return "unknown interleave, swizzle, L2 promotion or fill mode";
    m.address = global_address;
    m.type = type;
    m.rank = rank;
    m.interleave = interleave;
    m.swizzle = swizzle;
    m.swizzle_span = static_cast<uint8_t>(std::min<uint32_t>(static_cast<uint8_t>(swizzle), 3));
    m.swizzle_atomicity = static_cast<uint8_t>(swizzle) > 3 ? static_cast<uint8_t>(swizzle) - 3 : 0;
    m.l2 = l2;
    m.oob = oob;
    for (uint32_t i = 0; i < rank; ++i) {
        m.dims[i] = global_dims[i];
        m.element_strides[i] = element_strides[i];
    }
    m.strides[0] = m.element_bytes();
    for (uint32_t i = 1; i < rank; ++i) m.strides[i] = global_strides[i - 1];
    return {};
}

tensor_map_bytes pack(const tensor_map& m) {
    tensor_map_bytes out{};
    put(out, 0, m.address);
    put(out, 8, magic);
    out[12] = static_cast<uint8_t>(m.type);
    out[13] = static_cast<uint8_t>(m.rank);
    out[14] = static_cast<uint8_t>(m.interleave);
    out[15] = m.swizzle_span;
    out[16] = static_cast<uint8_t>(m.l2);
    out[17] = static_cast<uint8_t>(m.oob);
    out[18] = static_cast<uint8_t>(m.mode);
    out[19] = m.swizzle_atomicity;
    if (m.mode == tma_mode::tiled) {
        for (uint32_t i = 0; i < 5; ++i) put(out, 20 + 4 * i, m.box[i]);
    } else {
        put(out, 20, m.channels_per_pixel);
        put(out, 24, m.pixels_per_column);
        for (uint32_t i = 0; i < 3; ++i) {
            put(out, 28 + 2 * i, static_cast<int16_t>(m.lower[i]));
            put(out, 34 + 2 * i, static_cast<int16_t>(m.upper[i]));
        }
    }
    for (uint32_t i = 0; i < 5; ++i) {
        put(out, 40 + 8 * i, m.dims[i]);
        if (i < 4) put(out, 80 + 8 * i, m.strides[i + 1]);
        out[112 + i] = static_cast<uint8_t>(m.element_strides[i]);
    }
    return out;
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
    if (mode == tma_mode::im2col) return n * channels_per_pixel * pixels_per_column;
    for (uint32_t i = 0; i < rank; ++i) n *= box_elements(i);
    return n;
}

std::string check_tensor_map(const tensor_map& m) {
    if (static_cast<uint8_t>(m.type) > static_cast<uint8_t>(tma_type::u6x16_16b)) return "unknown tensor data type";
    if (m.rank < 1 || m.rank > 5) return fmt::format("tensor rank {} is outside 1 to 5", m.rank);
    if (static_cast<uint8_t>(m.interleave) > 2 || static_cast<uint8_t>(m.l2) > 3 || static_cast<uint8_t>(m.oob) > 1)
        return "unknown interleave, L2 promotion or fill mode";
    if (!swizzle_of(m.swizzle_span, m.swizzle_atomicity))
        return m.swizzle_span > 3 || m.swizzle_atomicity > 3 ? "unknown swizzle mode"
                                                              : "a swizzle atomicity other than 16 bytes needs the 128-byte swizzle";
    const bool im2col = m.mode == tma_mode::im2col;
    if (im2col && (m.rank < 3 || m.rank > 5)) return fmt::format("an im2col tensor map has rank 3, 4 or 5 (not {})", m.rank);
    if (m.interleave != tma_interleave::none && m.rank < 3) return "an interleaved tensor map needs rank 3 or more";
    if (m.interleave == tma_interleave::b32 && m.swizzle != tma_swizzle::b32) return "the 32-byte interleave needs the 32-byte swizzle";
    const bool packed16 = m.type == tma_type::u4x16_16b || m.type == tma_type::u6x16_16b;
    const uint64_t align = m.interleave == tma_interleave::b32 || packed16 ? 32 : 16;
    if (m.address % align) return fmt::format("the global address must be {}-byte aligned", align);
    if (m.oob == tma_oob_fill::nan_request_zero_fma && !m.is_float()) return "the NaN fill mode needs a floating-point data type";
    for (uint32_t i = 0; i < m.rank; ++i) {
        if (m.dims[i] == 0 || m.dims[i] > (uint64_t(1) << 32))
            return fmt::format("global dimension {} is {}; it must be from 1 to 2^32", i, m.dims[i]);
        if (!im2col && (m.box[i] == 0 || m.box[i] > 256))
            return fmt::format("box dimension {} is {}; it must be from 1 to 256", i, m.box[i]);
        if (m.element_strides[i] == 0 || m.element_strides[i] > 8)
            return fmt::format("element stride {} is {}; it must be from 1 to 8", i, m.element_strides[i]);
    }
    for (uint32_t i = 1; i < m.rank; ++i) {
        uint64_t s = m.strides[i];
        if (s % 16 || s >= (uint64_t(1) << 40)) return fmt::format("global stride {} is {}; it must be a multiple of 16 below 2^40", i, s);
        if (s % 32 && align == 32) return fmt::format("global stride {} is {}; this map needs multiples of 32", i, s);
    }
    const uint32_t esize = m.element_bytes();
    uint64_t inner = uint64_t(im2col ? m.channels_per_pixel : m.box[0]) * esize;
    if (im2col) {
        // Each corner is a signed field whose width depends on the rank.
        const int32_t limit = m.rank == 3 ? 1 << 15 : m.rank == 4 ? 1 << 7 : 1 << 4;
        for (uint32_t k = 0; k + 2 < m.rank; ++k) {
            for (int32_t v : {m.lower[k], m.upper[k]})
                if (v < -limit || v >= limit)
                    return fmt::format("a {}-d im2col map's bounding-box corners lie in [{}, {}]; dimension {} has {}", m.rank, -limit,
                                       limit - 1, k + 1, v);
            if (int64_t(m.lower[k]) > int64_t(m.dims[k + 1]) - 1 + m.upper[k])
                return fmt::format("the bounding box is empty in dimension {} ({} to {} - 1 + {})", k + 1, m.lower[k], m.dims[k + 1],
                                   m.upper[k]);
        }
        if (m.channels_per_pixel == 0 || m.channels_per_pixel > 256)
            return fmt::format("channelsPerPixel is {}; it must be from 1 to 256", m.channels_per_pixel);
        if (m.pixels_per_column == 0 || m.pixels_per_column > 1024)
            return fmt::format("pixelsPerColumn is {}; it must be from 1 to 1024", m.pixels_per_column);
    } else if (m.interleave == tma_interleave::none && inner % 16) {
        return fmt::format("the box's inner dimension is {} bytes; it must be a multiple of 16", inner);
    }
    if (m.interleave == tma_interleave::none)
        if (uint32_t span = swizzle_bytes(m.swizzle); span && inner > span)
            return fmt::format("the {} inner dimension is {} bytes; the {}-byte swizzle allows at most {}", im2col ? "bounding box's" : "box's",
                               inner, span, span);
    return {};
}

std::string encode_tiled(tensor_map_bytes& out, tma_type type, uint32_t rank, uint64_t global_address, const uint64_t* global_dims,
                         const uint64_t* global_strides, const uint32_t* box_dims, const uint32_t* element_strides,
                         tma_interleave interleave, tma_swizzle swizzle, tma_l2_promotion l2, tma_oob_fill oob) {
    tensor_map m;
    if (auto e = common(m, type, rank, global_address, global_dims, global_strides, element_strides, interleave, swizzle, l2, oob);
        !e.empty())
        return e;
    for (uint32_t i = 0; i < rank; ++i) m.box[i] = box_dims[i];
    if (auto e = check_tensor_map(m); !e.empty()) return e;
    out = pack(m);
    return {};
}

std::string encode_im2col(tensor_map_bytes& out, tma_type type, uint32_t rank, uint64_t global_address, const uint64_t* global_dims,
                          const uint64_t* global_strides, const int32_t* pixel_box_lower_corner, const int32_t* pixel_box_upper_corner,
                          uint32_t channels_per_pixel, uint32_t pixels_per_column, const uint32_t* element_strides,
                          tma_interleave interleave, tma_swizzle swizzle, tma_l2_promotion l2, tma_oob_fill oob) {
    if (rank < 3 || rank > 5) return fmt::format("an im2col tensor map has rank 3, 4 or 5 (not {})", rank);
    tensor_map m;
    m.mode = tma_mode::im2col;
    if (auto e = common(m, type, rank, global_address, global_dims, global_strides, element_strides, interleave, swizzle, l2, oob);
        !e.empty())
        return e;
    for (uint32_t k = 0; k + 2 < rank; ++k) {
        m.lower[k] = pixel_box_lower_corner[k];
        m.upper[k] = pixel_box_upper_corner[k];
    }
    m.channels_per_pixel = channels_per_pixel;
    m.pixels_per_column = pixels_per_column;
    if (auto e = check_tensor_map(m); !e.empty()) return e;
    out = pack(m);
    return {};
}

std::optional<tensor_map> decode_tensor_map(const tensor_map_bytes& b) {
    if (get<uint32_t>(b, 8) != magic || b[18] > 1) return std::nullopt;
    tensor_map m;
    m.address = get<uint64_t>(b, 0);
    m.type = static_cast<tma_type>(b[12]);
    m.rank = b[13];
    m.interleave = static_cast<tma_interleave>(b[14]);
    m.swizzle_span = b[15];
    m.swizzle_atomicity = b[19];
    m.swizzle = swizzle_of(b[15], b[19]).value_or(tma_swizzle::none); // check_tensor_map refuses the pairs without a value
    m.l2 = static_cast<tma_l2_promotion>(b[16]);
    m.oob = static_cast<tma_oob_fill>(b[17]);
    m.mode = static_cast<tma_mode>(b[18]);
    m.strides[0] = m.element_bytes();
    if (m.mode == tma_mode::tiled) {
        for (uint32_t i = 0; i < 5; ++i) m.box[i] = get<uint32_t>(b, 20 + 4 * i);
    } else {
        m.channels_per_pixel = get<uint32_t>(b, 20);
        m.pixels_per_column = get<uint32_t>(b, 24);
        for (uint32_t i = 0; i < 3; ++i) {
            m.lower[i] = get<int16_t>(b, 28 + 2 * i);
            m.upper[i] = get<int16_t>(b, 34 + 2 * i);
        }
    }
    for (uint32_t i = 0; i < 5; ++i) {
        m.dims[i] = get<uint64_t>(b, 40 + 8 * i);
        if (i < 4) m.strides[i + 1] = get<uint64_t>(b, 80 + 8 * i);
        m.element_strides[i] = b[112 + i];
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
