#pragma once
// Warp-level intrinsic semantics: activemask, redux, shfl, vote, match, each within aligned 32-lane groups.

#include <algorithm>
#include <bit>
#include <cstdint>

#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/semantics/operands.hpp>

namespace gpuarch::func::semantics {

// ---- warp-level intrinsics (per aligned 32-lane group) ---------------------------------------------------

// activemask: each executing lane gets the mask of the executing lanes of its 32-lane group.
inline void activemask(const Context& c) {
    std::uint64_t* dst = dst_row(c);
    lanes(c, [&](unsigned l) { dst[l] = c.exec.group32(l / 32); });
}

// The 32-bit membermask operand `index` as lane `lane` reads it; all lanes when the instruction has none.
inline std::uint32_t member_mask(const Context& c, unsigned index, unsigned lane) {
    if (c.d.num_sources <= index) return 0xffffffffU;
    return static_cast<std::uint32_t>(source(c, index)[lane]);
}

// redux.sync (PTX ISA 9.0, Sec. 9.7.13.10): every executing lane of a 32-lane group that is in membermask gets
// the reduction of `a` over those lanes: .add wraps modulo 2^32, .min/.max compare as .u32 or .s32,
// .and/.or/.xor are bitwise on .b32.
inline void reduce(const Context& c) {
    const detail::Source a = source(c, 0);
    std::uint64_t* dst = dst_row(c);
    const ir::AtomOp op = c.d.inst->atom_op;
    const bool is_signed = is_signed_int(c.d.type);
    const unsigned groups = c.launch.width / 32;
    for (unsigned g = 0; g < groups; ++g) {
        const std::uint32_t executing = c.exec.group32(g);
        if (executing == 0) continue;
        const unsigned first = g * 32 + static_cast<unsigned>(std::countr_zero(executing));
        const std::uint32_t part = executing & member_mask(c, 1, first);
        std::uint32_t result = 0;
        bool seen = false;
        for (std::uint32_t bits = part; bits != 0; bits &= bits - 1) {
            const auto v = static_cast<std::uint32_t>(a[g * 32 + static_cast<unsigned>(std::countr_zero(bits))]);
            if (!seen) {
                result = v;
                seen = true;
                continue;
            }
            switch (op) {
            case ir::AtomOp::add: result += v; break;
            case ir::AtomOp::min:
                result = is_signed ? (static_cast<std::int32_t>(v) < static_cast<std::int32_t>(result) ? v : result)
                                   : std::min(v, result);
                break;
            case ir::AtomOp::max:
                result = is_signed ? (static_cast<std::int32_t>(v) > static_cast<std::int32_t>(result) ? v : result)
                                   : std::max(v, result);
                break;
            case ir::AtomOp::and_: result &= v; break;
            case ir::AtomOp::or_: result |= v; break;
            case ir::AtomOp::xor_: result ^= v; break;
            default: unsupported(c);
            }
        }
        for (std::uint32_t bits = executing; bits != 0; bits &= bits - 1)
            dst[g * 32 + static_cast<unsigned>(std::countr_zero(bits))] = result;
    }
}

// shfl.sync (PTX ISA, shfl.sync pseudo-code): c packs the clamp value (bits 4:0) and the segment mask
// (bits 12:8); a lane whose computed source is out of its segment reads its own value and gets p = false.
inline void shuffle(const Context& c) {
    const detail::Source a = source(c, 0), b = source(c, 1), cc = source(c, 2);
    std::uint64_t* copy = c.cta.shuffle.data();
    for (unsigned l = 0; l < c.launch.width; ++l) copy[l] = a[l]; // every lane's value before any write
    std::uint64_t* dst = dst_row(c);
    std::uint64_t* p = c.d.dst2 == ir::no_reg ? nullptr : c.w.row(c.d.dst2);
    const ir::ShflMode mode = c.d.inst->shfl_mode;
    const std::uint64_t mask = low_mask(std::max(32U, size_bytes(c.d.type) * 8));
    lanes(c, [&](unsigned l) {
        const int lane = static_cast<int>(l & 31U);
        const int bval = static_cast<int>(b[l] & 31U);
        const int cval = static_cast<int>(cc[l] & 31U);
        const int segmask = static_cast<int>((cc[l] >> 8) & 31U);
        const int max_lane = (lane & segmask) | (cval & ~segmask);
        const int min_lane = lane & segmask;
        int j = lane;
        bool valid = false;
        switch (mode) {
        case ir::ShflMode::up:
            j = lane - bval;
            valid = j >= max_lane;
            break;
        case ir::ShflMode::down:
            j = lane + bval;
            valid = j <= max_lane;
            break;
        case ir::ShflMode::bfly:
            j = lane ^ bval;
            valid = j <= max_lane;
            break;
        case ir::ShflMode::idx:
            j = min_lane | (bval & ~segmask);
            valid = j <= max_lane;
            break;
        case ir::ShflMode::none: unsupported(c);
        }
        if (!valid) j = lane;
        dst[l] = copy[(l & ~31U) + static_cast<unsigned>(j)] & mask;
        if (p != nullptr) p[l] = valid ? 1 : 0;
    });
}

// vote.sync over the lanes of each 32-lane group that execute it and are in membermask.
inline void vote(const Context& c) {
    const detail::Source pred = source(c, 0);
    std::uint64_t* dst = dst_row(c);
    const ir::VoteMode mode = c.d.inst->vote_mode;
    const unsigned groups = c.launch.width / 32;
    for (unsigned g = 0; g < groups; ++g) {
        const std::uint32_t executing = c.exec.group32(g);
        if (executing == 0) continue;
        const unsigned first = g * 32 + static_cast<unsigned>(std::countr_zero(executing));
        const std::uint32_t part = executing & member_mask(c, 1, first);
        std::uint32_t ballot = 0;
        for (std::uint32_t bits = part; bits != 0; bits &= bits - 1) {
            const unsigned i = static_cast<unsigned>(std::countr_zero(bits));
            if (pred.pred(g * 32 + i)) ballot |= 1U << i;
        }
        std::uint64_t result = 0;
        switch (mode) {
        case ir::VoteMode::ballot: result = ballot; break;
        case ir::VoteMode::all: result = ballot == part ? 1 : 0; break;
        case ir::VoteMode::any: result = ballot != 0 ? 1 : 0; break;
        case ir::VoteMode::uni: result = (ballot == 0 || ballot == part) ? 1 : 0; break;
        case ir::VoteMode::none: unsupported(c);
        }
        for (std::uint32_t bits = executing; bits != 0; bits &= bits - 1)
            dst[g * 32 + static_cast<unsigned>(std::countr_zero(bits))] = result;
    }
}

// match.any / match.all over the lanes of each 32-lane group that execute it and are in membermask.
inline void match(const Context& c) {
    const detail::Source a = source(c, 0);
    std::uint64_t* dst = dst_row(c);
    std::uint64_t* p = c.d.dst2 == ir::no_reg ? nullptr : c.w.row(c.d.dst2);
    const std::uint64_t mask = low_mask(size_bytes(c.d.type) * 8);
    const bool all = c.d.inst->vote_mode == ir::VoteMode::all;
    const unsigned groups = c.launch.width / 32;
    for (unsigned g = 0; g < groups; ++g) {
        const std::uint32_t executing = c.exec.group32(g);
        if (executing == 0) continue;
        const unsigned first = g * 32 + static_cast<unsigned>(std::countr_zero(executing));
        const std::uint32_t part = executing & member_mask(c, 1, first);
        for (std::uint32_t bits = executing; bits != 0; bits &= bits - 1) {
            const unsigned l = g * 32 + static_cast<unsigned>(std::countr_zero(bits));
            std::uint32_t same = 0;
            for (std::uint32_t others = part; others != 0; others &= others - 1) {
                const unsigned k = static_cast<unsigned>(std::countr_zero(others));
                if ((a[g * 32 + k] & mask) == (a[l] & mask)) same |= 1U << k;
            }
            if (all) {
                const bool equal = same == part;
                dst[l] = equal ? part : 0;
                if (p != nullptr) p[l] = equal ? 1 : 0;
            } else {
                dst[l] = same;
            }
        }
    }
}

} // namespace gpuarch::func::semantics
