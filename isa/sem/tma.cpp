// cp.async.bulk.tensor (TMA), 1d-5d: a box of a tensor in global memory
// (tiled mode), or a column of pixels of a batch of images (im2col mode,
// 3d-5d, isa/sem/tma_im2col.cpp), described by a 128-byte tensor map
// (isa/tensor_map.hpp), copied to or from shared memory.
//
// Load (global -> shared::cluster, .mbarrier::complete_tx::bytes): in tiled
// mode the box element at index (i0 .. i4) comes from tensor coordinate c_k
// + i_k * elementStride_k; coordinates outside the tensor read as zero (or,
// for float types with the NaN fill mode, as a NaN). In shared memory the
// box is dense, innermost dimension first; a swizzle mode then moves each
// 16-byte chunk within its 128-byte row by XOR-ing address bits 4-6 with
// bits 7-9 (128B; 64B uses bits 4-5, 32B bit 4), on the absolute shared
// address, which is why swizzled buffers are aligned to 1024 bytes. The
// whole box's bytes count towards the mbarrier's tx-count, out-of-bounds
// ones included. With .multicast::cluster the same bytes land at the same
// offset in every CTA of ctaMask, each completing on its own mbarrier.
// Store (shared::cta -> global, .bulk_group; tiled or .im2col_no_offs): the
// reverse; elements outside the tensor are not written.
// Writes land when the copy completes, as for every asynchronous copy
// (isa/sem/async_copy.cpp).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "isa/sem/mbarrier.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/tma_box.hpp"

namespace ptxsim::isa::sem {
namespace {

// ins.flags bit 0: .multicast::cluster (ctaMask after the mbarrier, or after
// the im2col offsets); bit 1: im2col mode (offsets at ops[4]).
constexpr uint8_t multicast_flag = 1, im2col_flag = 2;

// [dst], [tmap, {coords}], [mbar]{, {im2col offsets}}{, ctaMask}
void load_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool im2col = ins.flags & im2col_flag, multicast = ins.flags & multicast_flag;
    for_lanes(mask, [&](uint32_t lane) {
        tensor_map m;
        int32_t coord[5] = {};
        uint32_t offsets[3] = {};
        if (!tma::read_map(c, ins.ops[1], lane, im2col ? tma_mode::im2col : tma_mode::tiled, m) ||
            !tma::coordinates(c, ins, ins.ops[2], lane, m, coord) || (im2col && !tma::im2col_offsets(c, ins.ops[4], lane, m, offsets)))
            return;
        uint64_t dst = address(c, ins.ops[0], lane);
        if (ins.sp == space::generic) dst = c.from_generic(space::shared, dst, lane);
        if (dst % 128) {
            c.fault(fault_kind::misaligned, lane, dst, "a tensor copy's shared-memory address must be 128-byte aligned");
            return;
        }
        const uint64_t bytes = m.box_bytes();
        pending_write w{space::shared, dst, std::vector<uint8_t>(bytes)};
        const uint32_t esize = m.element_bytes();
        bool ok = true;
        auto element = [&](uint64_t offset, uint64_t g) {
            if (!ok) return;
            uint64_t at = tma::swizzled(dst + offset, m.swizzle) - dst;
            if (at + esize > w.data.size()) w.data.resize(at + esize); // a partial last 128-byte row, swizzled
            if (g == tma::outside) tma::fill(m, w.data.data() + at);
            else ok = c.load(space::global, g, esize, lane, w.data.data() + at);
        };
        c.note(sync_note::async_proxy_begin, 1u << lane, 0, static_cast<uint32_t>(bytes)); // the tensor copy reads its source through the async proxy
        // A row whose inside part one allocation holds is copied 16-byte
        // piece by piece (the swizzle moves whole pieces); elements outside
        // the tensor, and everything under an observer (span gives nothing:
        // each element is an event), go element by element.
        auto row = [&](uint64_t offset, uint64_t g, uint32_t first, uint32_t end) {
            const uint32_t n0 = m.box_elements(0);
            const uint8_t* src = ok && end > first ? c.span(space::global, g + uint64_t{first} * esize, g + uint64_t{end} * esize, false) : nullptr;
            for (uint32_t i = 0; i < n0; ++i) {
                const bool in = i >= first && i < end;
                if (in && src) continue;
                element(offset + uint64_t{i} * esize, in ? g + uint64_t{i} * esize : tma::outside);
            }
            if (!src || !ok) return;
            const uint64_t from = uint64_t{first} * esize, to = uint64_t{end} * esize;
            for (uint64_t b = from; b < to;) {
                const uint64_t a = dst + offset + b, piece = std::min<uint64_t>(16 - a % 16, to - b);
                const uint64_t at = tma::swizzled(a, m.swizzle) - dst;
                if (at + piece > w.data.size()) w.data.resize(at + piece);
                std::memcpy(w.data.data() + at, src + (b - from), piece);
                b += piece;
            }
        };
        if (im2col) tma::for_im2col(m, coord, offsets, element);
        else if (m.traversal_stride(0) == 1) tma::for_tile_rows(m, coord, row);
        else tma::for_tile(m, coord, element);
        c.note(sync_note::async_proxy_end, 1u << lane);
        if (!ok) return;
        uint64_t off;
        if (!mbar::locate(c, space::shared, address(c, ins.ops[3], lane), lane, off)) return;
        // One destination, or with .multicast::cluster the same offsets in
        // every CTA of ctaMask, each completing on its own mbarrier there.
        uint64_t cta_mask = multicast ? read(c, ins.ops[im2col ? 5 : 4], lane) & 0xFFFFu : 0;
        if (cta_mask && !mbar::cta_mask_fits(c, cta_mask, "cp.async.bulk.tensor .multicast::cluster", lane)) return;
        for (uint32_t rank = 0; rank < 16; ++rank) {
            uint64_t rdst = dst, roff = off;
            if (multicast) {
                if (!((cta_mask >> rank) & 1)) continue;
                if (!c.map_shared_rank(dst, false, rank, lane, rdst) || !c.map_shared_rank(off, false, rank, lane, roff)) return;
            }
            std::vector<uint8_t> scratch(16); // the destination exists: probe it now (at once where one look-up lends it all)
            const bool whole = c.span(space::shared, rdst, rdst + w.data.size(), true) != nullptr;
            for (uint64_t at = 0; !whole && at < w.data.size(); at += 16)
                if (!c.probe(space::shared, rdst + at, static_cast<uint32_t>(std::min<uint64_t>(16, w.data.size() - at)), lane,
                             scratch.data()))
                    return;
            pending_write copy{space::shared, rdst, w.data};
            copy.tag = c.async_write_issued(space::shared, rdst, w.data.size(), lane);
            if (!mbar::defer(c, roff, std::move(copy), lane)) return;
            mbar::state before;
            if (!mbar::update(c, roff, lane, mbar::add_tx, bytes, /*complete_tx*/ 1, before)) return;
            if (!multicast) return;
        }
    });
}

// [tmap, {coords}], [src]
void store_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        tensor_map m;
        int32_t coord[5] = {};
        if (!tma::read_map(c, ins.ops[0], lane, ins.flags & im2col_flag ? tma_mode::im2col : tma_mode::tiled, m) ||
            !tma::coordinates(c, ins, ins.ops[1], lane, m, coord))
            return;
        uint64_t src = address(c, ins.ops[2], lane);
        if (ins.sub == static_cast<uint8_t>(space::generic)) src = c.from_generic(space::shared, src, lane);
        tma::store_box(c, m, coord, src, lane, nullptr);
    });
}

std::string dec_tensor(const matched_instruction& m, exec_instruction& out) {
    std::string_view mode = m.get("mode");
    if (m.has("ctagroup")) return "cp.async.bulk.tensor .cta_group is not implemented yet";
    out.vec = static_cast<uint8_t>(m.get("dim")[0] - '0');
    space dst = space_of(m.get("space", 0));
    if (dst == space::global) {
        if (!mode.empty() && mode != "tile" && mode != "im2col_no_offs")
            return "cp.async.bulk.tensor store ." + std::string(mode) + " is not implemented yet (.tile and .im2col_no_offs are)";
        out.sub = static_cast<uint8_t>(space_of(m.get("space", 1)));
        out.flags = mode == "im2col_no_offs" ? im2col_flag : 0;
        if (out.nops < 3 || out.ops[1].kind != opnd::vec) return "cp.async.bulk.tensor store: [tensorMap, {coordinates}], [src]";
        out.run = store_handler;
        return {};
    }
    if (!mode.empty() && mode != "tile" && mode != "im2col")
        return "cp.async.bulk.tensor ." + std::string(mode) + " is not implemented yet (.tile and .im2col are)";
    out.sp = dst;
    if (m.get("completion") != "mbarrier::complete_tx::bytes") return "cp.async.bulk.tensor to shared memory completes through an mbarrier";
    if (out.nops < 4 || out.ops[2].kind != opnd::vec || out.ops[3].kind != opnd::addr)
        return "cp.async.bulk.tensor load: [dst], [tensorMap, {coordinates}], [mbar]";
    const bool im2col = mode == "im2col";
    out.flags = (m.has("multicast") ? multicast_flag : 0) | (im2col ? im2col_flag : 0);
    if (im2col && (out.vec < 3 || out.nops < 5 || out.ops[4].kind != opnd::vec || out.ops[4].count + 2 != out.vec))
        return fmt::format("cp.async.bulk.tensor.{}d .im2col needs a 3d to 5d copy and a vector of {} im2col offsets", out.vec,
                           out.vec >= 3 ? out.vec - 2 : 1);
    if ((out.flags & multicast_flag) && out.nops < (im2col ? 6 : 5))
        return "cp.async.bulk.tensor .multicast::cluster needs its ctaMask operand";
    out.run = load_handler;
    return {};
}

constexpr entry entries[] = {{"cp.async.bulk.tensor", dec_tensor}};

} // namespace

std::span<const entry> tma_entries() { return entries; }

} // namespace ptxsim::isa::sem
