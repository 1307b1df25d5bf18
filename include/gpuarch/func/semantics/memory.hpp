#pragma once
// Memory semantics: address resolution (generic windows, bounds, alignment, read-only spaces), ld, st, atom,
// red, cp.async and prefetch, and what each tells the timing model through StepResult.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include <gpuarch/core/lane_values.hpp>
#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/float_ops.hpp>
#include <gpuarch/func/semantics/operands.hpp>

namespace gpuarch::func::semantics {

template <class Describe>
inline std::uint8_t* local_bytes(const Context& c, unsigned lane, std::uint64_t offset, unsigned bytes,
                                 std::uint64_t address, Describe&& describe) {
    const std::uint64_t frame = c.cta.local_frame_bytes;
    if (offset > frame || bytes > frame - offset)
        fault(c, static_cast<int>(lane),
              "out-of-bounds " + describe() + ": each thread has " + std::to_string(frame) + " bytes of local memory",
              address, KernelErrorKind::illegal_address);
    return c.cta.local_frame(std::uint64_t{c.w.first_thread} + lane) + offset;
}

// resolve's full path: generic windows, every state space, and the fault messages.
[[gnu::noinline]] inline std::uint8_t* resolve_checked(const Context& c, unsigned lane, std::uint64_t address,
                                                       unsigned bytes, bool write, ir::StateSpace& space,
                                                       std::uint64_t& space_address) {
    space = c.d.space;
    space_address = address;
    if (space == ir::StateSpace::generic) {
        space = ir::StateSpace::global;
        for (ir::StateSpace s :
             {ir::StateSpace::shared, ir::StateSpace::local, ir::StateSpace::constant, ir::StateSpace::param}) {
            const std::uint64_t base = generic_window_base(s);
            if (address >= base && address - base < generic_window_bytes) {
                space = s;
                space_address = address - base;
                break;
            }
        }
    }
    const char* what = c.d.op == ir::Opcode::ld         ? "load"
                       : c.d.op == ir::Opcode::st       ? "store"
                       : c.d.op == ir::Opcode::cp_async ? "cp.async read"
                                                        : "atomic";
    auto describe = [&] {
        return std::string(ir::name(space)) + " " + what + " of " + std::to_string(bytes) + " bytes";
    };
    if (space_address % bytes != 0)
        fault(c, static_cast<int>(lane),
              "misaligned " + describe() + " (the address must be a multiple of " + std::to_string(bytes) + ")",
              address, KernelErrorKind::misaligned_address);
    auto in_bounds = [&](std::uint64_t size) { return space_address <= size && bytes <= size - space_address; };
    switch (space) {
    case ir::StateSpace::global: {
        std::uint8_t* p = c.launch.device->translate(space_address, bytes);
        if (p == nullptr)
            fault(c, static_cast<int>(lane),
                  "out-of-bounds " + describe() + ": " + c.launch.device->describe_fault(space_address, bytes), address,
                  KernelErrorKind::illegal_address);
        return p;
    }
    case ir::StateSpace::shared:
        if (!in_bounds(c.cta.shared.size()))
            fault(c, static_cast<int>(lane),
                  "out-of-bounds " + describe() + ": the CTA has " + std::to_string(c.cta.shared.size()) +
                      " bytes of shared memory",
                  address, KernelErrorKind::illegal_address);
        return c.cta.shared.data() + space_address;
    case ir::StateSpace::local: return local_bytes(c, lane, space_address, bytes, address, describe);
    case ir::StateSpace::constant:
        if (write)
            fault(c, static_cast<int>(lane), describe() + ": constant memory is read-only", address,
                  KernelErrorKind::illegal_address);
        if (!in_bounds(c.launch.variables->constant.size()))
            fault(c, static_cast<int>(lane),
                  "out-of-bounds " + describe() + ": the module has " +
                      std::to_string(c.launch.variables->constant.size()) + " bytes of constant memory",
                  address, KernelErrorKind::illegal_address);
        return c.launch.variables->constant.data() + space_address;
    case ir::StateSpace::param:
        if (space_address >= call_param_base)
            return local_bytes(c, lane, space_address - call_param_base, bytes, address, describe);
        if (write)
            fault(c, static_cast<int>(lane), describe() + ": kernel parameters are read-only", address,
                  KernelErrorKind::illegal_address);
        if (!in_bounds(c.launch.params.size()))
            fault(c, static_cast<int>(lane),
                  "out-of-bounds " + describe() + ": the kernel has " + std::to_string(c.launch.params.size()) +
                      " bytes of parameters",
                  address, KernelErrorKind::illegal_address);
        return c.launch.params.data() + space_address;
    default: break;
    }
    fault(c, static_cast<int>(lane), describe() + ": unsupported state space", address,
          KernelErrorKind::illegal_address);
}

// Maps a lane's address to host bytes, resolving generic addresses to their window. Faults on misalignment,
// out-of-bounds and writes to read-only spaces.
inline std::uint8_t* resolve(const Context& c, unsigned lane, std::uint64_t address, unsigned bytes, bool write,
                             ir::StateSpace& space, std::uint64_t& space_address) {
    // Fast path for the common case, an aligned in-bounds shared or global access named by its space: the same
    // checks as resolve_checked, without building its messages. Anything else takes the full path.
    space = c.d.space;
    space_address = address;
    const bool aligned = (bytes & (bytes - 1)) == 0 ? (address & (bytes - 1)) == 0 : address % bytes == 0;
    if (aligned) {
        if (space == ir::StateSpace::shared) {
            const std::uint64_t size = c.cta.shared.size();
            if (address <= size && bytes <= size - address) return c.cta.shared.data() + address;
        } else if (space == ir::StateSpace::global) {
            if (std::uint8_t* p = c.launch.device->translate(address, bytes)) return p;
        } else if (space == ir::StateSpace::local) {
            const std::uint64_t frame = c.cta.local_frame_bytes;
            if (address <= frame && bytes <= frame - address)
                return c.cta.local_frame(std::uint64_t{c.w.first_thread} + lane) + address;
        } else if (space == ir::StateSpace::param) {
            if (address < call_param_base) { // kernel parameters, read-only
                const std::uint64_t size = c.launch.params.size();
                if (!write && address <= size && bytes <= size - address) return c.launch.params.data() + address;
            } else { // a call's .param arguments, kept in the thread's local frame (resolve_checked)
                const std::uint64_t frame = c.cta.local_frame_bytes, at = address - call_param_base;
                if (at <= frame && bytes <= frame - at)
                    return c.cta.local_frame(std::uint64_t{c.w.first_thread} + lane) + at;
            }
        }
    }
    return resolve_checked(c, lane, address, bytes, write, space, space_address);
}

// load_shared_words_directly's lane loop: a counted loop over a word whose 64 lanes all execute, else the set bits.
// Element: the access size when known at compile time (then as wide as the register), 0 for `element`.
template <bool Record, unsigned Element>
inline bool shared_load_lanes(const Context& c, StepResult* out, const detail::Source& base, std::uint64_t* dst,
                              unsigned element, bool is_signed, unsigned reg_bits) {
    const unsigned bytes = Element != 0 ? Element : element;
    const std::uint8_t* memory = c.cta.shared.data();
    const std::uint64_t offset = c.d.address_offset, address_mask = c.d.address_mask;
    const std::uint64_t last = c.cta.shared.size() - bytes;
    auto load_lane = [&](unsigned l) {
        const std::uint64_t a = (base[l] + offset) & address_mask;
        if ((a & (bytes - 1)) != 0 || a > last) return false;
        if constexpr (Record) {
            out->addresses[l] = a;
            out->lane_spaces[l] = ir::StateSpace::shared;
        }
        if constexpr (Element != 0) {
            std::uint64_t v = 0;
            std::memcpy(&v, memory + a, Element);
            dst[l] = v;
        } else {
            dst[l] = detail::extend(detail::load_le(memory + a, bytes), bytes * 8, is_signed, reg_bits);
        }
        return true;
    };
    for (unsigned word = 0; word * 64 < c.launch.width; ++word) {
        const unsigned lanes_here = std::min(64U, c.launch.width - word * 64);
        const std::uint64_t bits = c.exec.word(word) & low_mask(lanes_here);
        if (bits == low_mask(lanes_here)) { // every lane: a counted loop
            for (unsigned l = word * 64; l < word * 64 + lanes_here; ++l)
                if (!load_lane(l)) return false;
            continue;
        }
        for (std::uint64_t rest = bits; rest != 0; rest &= rest - 1)
            if (!load_lane(word * 64 + static_cast<unsigned>(std::countr_zero(rest)))) return false;
    }
    return true;
}

// A scalar load from .shared whose active lanes are all aligned and in bounds, without the per-lane checks of
// resolve (the most frequent memory instruction of tiled kernels). Returns false, having changed nothing that
// the general path does not overwrite (destination lanes and recorded addresses only), when some lane is not:
// the general path then faults on it exactly as before.
template <bool Record>
inline bool load_shared_words_directly(const Context& c, StepResult* out, const detail::Source& base,
                                       std::uint64_t* dst, unsigned element, bool is_signed, unsigned reg_bits) {
    const std::uint64_t size = c.cta.shared.size();
    if (c.d.elements != 1 || size < element || (element & (element - 1)) != 0) return false;
    // A destination that is also the address register: lanes written before a faulting lane would change the
    // addresses the general path recomputes, so the general path alone handles it.
    if (base.data == dst) return false;
    // Loads as wide as the register (no extension) are one fixed-size copy per lane; others are extended.
    if (element * 8 == reg_bits && element == 4) return shared_load_lanes<Record, 4>(c, out, base, dst, 4, false, 32);
    if (element * 8 == reg_bits && element == 8) return shared_load_lanes<Record, 8>(c, out, base, dst, 8, false, 64);
    return shared_load_lanes<Record, 0>(c, out, base, dst, element, is_signed, reg_bits);
}

// What the timing model reads of one executed lane's access (Record = true): its address and state space.
template <bool Record>
inline void record_lane(StepResult* out, unsigned lane, ir::StateSpace space, std::uint64_t address) {
    if constexpr (Record) {
        out->addresses[lane] = address;
        out->lane_spaces[lane] = space;
    }
}

// Where a warp's access lies when one check covers all its executed lanes, so that no lane's address is resolved
// on its own: lane l's bytes are at at(l, its address), and the per-lane path would record (space, its address).
struct WarpPlacement {
    std::uint8_t* origin = nullptr;
    std::uint64_t bias = 0; // subtracted from a lane's address
    std::uint64_t stride = 0; // bytes between consecutive lanes' frames; 0 when the lanes share one space
    ir::StateSpace space = ir::StateSpace::none;
    std::uint8_t* at(unsigned lane, std::uint64_t address) const {
        return origin + (std::uint64_t{lane} * stride + (address - bias));
    }
};

// The executed lanes' addresses of one memory instruction, each computed once: the placement check and the copy
// loop after it both read them (computing each address twice, in two lane loops, was about a third of the memory
// instructions' host time on the corpus). of[l] is set for the executed lanes only; lo, hi and any_bits are their
// lowest, highest and OR.
struct LaneAddresses {
    std::array<std::uint64_t, core::WarpMask::lanes> of; // left unset: a step writes only the lanes it executes
    std::uint64_t lo = 0, hi = 0, any_bits = 0;
};

inline void compute_addresses(const Context& c, const detail::Source& base, LaneAddresses& a) {
    const std::uint64_t offset = c.d.address_offset, address_mask = c.d.address_mask;
    if (base.mask != 0 && detail::maps_whole_warp(c.exec, c.launch.width)) {
        // A whole 32-lane warp: one vectorizable pass for the addresses, then the reductions with four independent
        // chains each (one chain of 32 dependent minimums was most of the old check's time).
        const std::uint64_t* row = base.data;
        GPUARCH_INDEPENDENT_LANES
        for (unsigned l = 0; l < detail::map_width; ++l) a.of[l] = (row[l] + offset) & address_mask;
        // Addresses that step by one stride (a row, a broadcast operand: most accesses of a compute-bound kernel) have
        // their lowest and highest at the ends when the steps do not wrap round the address space, which spares the
        // 64-bit unsigned minimums and maximums below (a third of this function's host instructions on gemm, GTX480;
        // SSE2 has no vector form of them).
        // The last lane rules most other warps out before that check (two rows of a 16-wide block, a gather).
        constexpr std::uint64_t steps = detail::map_width - 1;
        const std::uint64_t first = a.of[0], step = a.of[1] - first, last = a.of[steps];
        if (last - first == step * steps && core::steps_evenly(a.of.data(), detail::map_width, first, step)) {
            const bool ascending = static_cast<std::int64_t>(step) >= 0;
            const std::uint64_t magnitude = ascending ? step : std::uint64_t{0} - step;
            const std::uint64_t span = magnitude * steps;
            if (magnitude <= ~std::uint64_t{0} / steps && (ascending ? first <= ~span : first >= span)) {
                std::uint64_t any_bits = 0;
                for (unsigned l = 0; l < detail::map_width; ++l) any_bits |= a.of[l];
                a.lo = ascending ? first : last;
                a.hi = ascending ? last : first;
                a.any_bits = any_bits;
                return;
            }
        }
        std::array<std::uint64_t, 4> lo{}, hi{}, any{};
        lo.fill(~std::uint64_t{0});
        for (unsigned l = 0; l < detail::map_width; l += 4)
            for (unsigned k = 0; k < 4; ++k) {
                lo[k] = std::min(lo[k], a.of[l + k]);
                hi[k] = std::max(hi[k], a.of[l + k]);
                any[k] |= a.of[l + k];
            }
        a.lo = std::min(std::min(lo[0], lo[1]), std::min(lo[2], lo[3]));
        a.hi = std::max(std::max(hi[0], hi[1]), std::max(hi[2], hi[3]));
        a.any_bits = any[0] | any[1] | any[2] | any[3];
        return;
    }
    std::uint64_t lo = ~std::uint64_t{0}, hi = 0, any_bits = 0;
    auto lane = [&](unsigned l) {
        const std::uint64_t address = (base[l] + offset) & address_mask;
        a.of[l] = address;
        lo = std::min(lo, address);
        hi = std::max(hi, address);
        any_bits |= address;
    };
    if (c.launch.width <= 64) {
        // A warp of at most 64 lanes (every preset's): its executed lanes are the set bits of the mask's first word.
        for (std::uint64_t bits = c.exec.word(0); bits != 0; bits &= bits - 1)
            lane(static_cast<unsigned>(std::countr_zero(bits)));
    } else {
        lanes(c, lane);
    }
    a.lo = lo;
    a.hi = hi;
    a.any_bits = any_bits;
}

// Places a warp's access, given its executed lanes' addresses, when every lane's `bytes`-byte access is aligned and:
// - global (named .global, or generic, because every allocation lies below the generic windows, device.hpp:
//   global_heap_limit): all lanes in one device allocation, found with one Device::translate for the warp;
// - shared: all inside the CTA's shared memory;
// - local, or a call's .param arguments (kept in each thread's local frame, as resolve_checked does): all inside
//   the frame;
// - a kernel parameter, read: all inside the parameter buffer.
// Returns false otherwise, having changed nothing: the per-lane path then resolves (and faults on) each lane
// exactly as before. The checks are resolve_checked's, taken once over the lanes' lowest and highest addresses.
inline bool place_warp(const Context& c, const LaneAddresses& a, unsigned bytes, bool write, WarpPlacement& where) {
    if (bytes == 0 || (bytes & (bytes - 1)) != 0) return false;
    const std::uint64_t lo = a.lo, hi = a.hi;
    if ((a.any_bits & (bytes - 1)) != 0) return false;
    auto fits = [&](std::uint64_t from, std::uint64_t size) { // every lane's [a, a + bytes) in [from, from + size)
        return lo >= from && hi - from <= size && bytes <= size - (hi - from);
    };
    switch (c.d.space) {
    case ir::StateSpace::global:
    case ir::StateSpace::generic:
        if (hi - lo > ~std::uint64_t{0} - bytes) return false;
        where = {c.launch.device->translate(lo, hi - lo + bytes), lo, 0, ir::StateSpace::global};
        return where.origin != nullptr;
    case ir::StateSpace::shared:
        if (!fits(0, c.cta.shared.size())) return false;
        where = {c.cta.shared.data(), 0, 0, ir::StateSpace::shared};
        return true;
    case ir::StateSpace::local:
    case ir::StateSpace::param: {
        const std::uint64_t frame = c.cta.local_frame_bytes;
        std::uint8_t* frames = c.cta.local_frame(c.w.first_thread);
        if (c.d.space == ir::StateSpace::local) {
            if (!fits(0, frame)) return false;
            where = {frames, 0, frame, ir::StateSpace::local};
            return true;
        }
        if (lo >= call_param_base) {
            if (!fits(call_param_base, frame)) return false;
            where = {frames, call_param_base, frame, ir::StateSpace::param};
            return true;
        }
        if (write || hi >= call_param_base || !fits(0, c.launch.params.size())) return false;
        where = {c.launch.params.data(), 0, 0, ir::StateSpace::param};
        return true;
    }
    default: return false;
    }
}

// A load (scalar or vector) place_warp places: each lane's elements are copied from the address computed once.
// False, having changed nothing, otherwise. Element: the element size when the load fills its registers exactly
// (no extension), 0 otherwise.
template <bool Record, unsigned Element>
inline bool placed_load_lanes(const Context& c, StepResult* out, const detail::Source& base, std::uint64_t* dst,
                              unsigned element, bool is_signed, unsigned reg_bits) {
    const DecodedInstruction& d = c.d;
    LaneAddresses a;
    compute_addresses(c, base, a);
    WarpPlacement where;
    if (!place_warp(c, a, element * d.elements, false, where)) return false;
    auto value = [&](const std::uint8_t* p) {
        if constexpr (Element != 0) {
            std::uint64_t v = 0;
            std::memcpy(&v, p, Element);
            return v;
        } else {
            return detail::extend(detail::load_le(p, element), element * 8, is_signed, reg_bits);
        }
    };
    if (d.dst_count == 0) {
        lanes(c, [&](unsigned l) {
            record_lane<Record>(out, l, where.space, a.of[l]);
            dst[l] = value(where.at(l, a.of[l]));
        });
        return true;
    }
    const unsigned count = std::min<unsigned>(d.elements, d.dst_count);
    lanes(c, [&](unsigned l) {
        record_lane<Record>(out, l, where.space, a.of[l]);
        const std::uint8_t* p = where.at(l, a.of[l]);
        for (unsigned e = 0; e < count; ++e)
            if (d.dst_vector[e] != ir::no_reg) c.w.row(d.dst_vector[e])[l] = value(p + e * element);
    });
    return true;
}

template <bool Record>
inline bool load_placed(const Context& c, StepResult* out, const detail::Source& base, std::uint64_t* dst,
                        unsigned element, bool is_signed, unsigned reg_bits) {
    if (element * 8 == reg_bits && element == 4)
        return placed_load_lanes<Record, 4>(c, out, base, dst, element, is_signed, reg_bits);
    if (element * 8 == reg_bits && element == 8)
        return placed_load_lanes<Record, 8>(c, out, base, dst, element, is_signed, reg_bits);
    return placed_load_lanes<Record, 0>(c, out, base, dst, element, is_signed, reg_bits);
}

inline std::uint64_t atomic_update(const Context& c, ir::AtomOp op, std::uint64_t old, std::uint64_t b,
                                   std::uint64_t cv, bool ftz_f32) {
    const ir::ScalarType t = c.d.type;
    const unsigned bits = size_bytes(t) * 8;
    const std::uint64_t mask = low_mask(bits);
    switch (op) {
    case ir::AtomOp::exch: return b & mask;
    case ir::AtomOp::cas: return old == (b & mask) ? (cv & mask) : old;
    case ir::AtomOp::and_: return old & b & mask;
    case ir::AtomOp::or_: return (old | b) & mask;
    case ir::AtomOp::xor_: return (old ^ b) & mask;
    case ir::AtomOp::inc: { // ((old >= b) ? 0 : old + 1), unsigned 32-bit
        if (t != ir::ScalarType::u32) unsupported(c);
        const std::uint64_t bb = b & mask;
        return old >= bb ? 0 : old + 1;
    }
    case ir::AtomOp::dec: { // ((old == 0 || old > b) ? b : old - 1)
        if (t != ir::ScalarType::u32) unsupported(c);
        const std::uint64_t bb = b & mask;
        return (old == 0 || old > bb) ? bb : old - 1;
    }
    case ir::AtomOp::add:
        if (is_float(t)) {
            const FloatFormat f = format_of(t);
            if (is_packed_half(t)) {
                const std::uint64_t lo =
                    float_arith(Arith::add, old & 0xffffU, b & 0xffffU, f, RoundMode::nearest_even, false);
                const std::uint64_t hi = float_arith(Arith::add, (old >> 16) & 0xffffU, (b >> 16) & 0xffffU, f,
                                                     RoundMode::nearest_even, false);
                return lo | (hi << 16);
            }
            const bool ftz = t == ir::ScalarType::f32 && ftz_f32;
            return float_arith(Arith::add, old, b & mask, f, RoundMode::nearest_even, ftz);
        }
        return (old + b) & mask;
    case ir::AtomOp::min:
    case ir::AtomOp::max: {
        std::uint64_t r = 0;
        const bool is_max = op == ir::AtomOp::max;
        const bool ok = detail::dispatch_integer(t, [&]<class T>(T) {
            const T x = static_cast<T>(old), y = static_cast<T>(b);
            r = detail::to_bits(is_max ? std::max(x, y) : std::min(x, y));
        });
        if (!ok) unsupported(c);
        return r;
    }
    case ir::AtomOp::none: break;
    }
    unsupported(c);
}

// What a ld, st, atom or red tells the timing model besides its lanes' addresses.
template <bool Record> inline void describe_access(const Context& c, StepResult* out, unsigned bytes) {
    if constexpr (Record) {
        const DecodedInstruction& d = c.d;
        out->is_memory = true;
        out->is_load = d.op == ir::Opcode::ld;
        out->is_store = d.op == ir::Opcode::st;
        out->is_atomic = d.op == ir::Opcode::atom || d.op == ir::Opcode::red;
        out->space = d.space;
        out->access_bytes = bytes;
        out->accessed = c.exec;
    }
}

// Every ld, st, atom and red, lanes placed at once where place_warp allows, else one by one (see memory).
template <bool Record> inline void memory_lanes(const Context& c, StepResult* out) {
    const DecodedInstruction& d = c.d;
    const unsigned element = d.element_bytes, count = d.elements;
    const unsigned bytes = element * count;
    const detail::Source base = d.address_base == ir::no_reg ? detail::Source{&c.launch.zero, 0U, false}
                                                             : detail::Source{c.w.row(d.address_base), ~0U, false};
    const std::uint64_t offset = d.address_offset, address_mask = d.address_mask;
    describe_access<Record>(c, out, bytes);
    auto record = [&](unsigned l, ir::StateSpace s, std::uint64_t a) { record_lane<Record>(out, l, s, a); };
    ir::StateSpace space{};
    std::uint64_t space_address = 0;
    if (d.op == ir::Opcode::ld) {
        const bool is_signed = is_signed_int(d.type);
        const unsigned ebits = element * 8;
        const unsigned reg_bits = std::max<unsigned>(d.dst_bits, ebits);
        if (d.dst_count == 0) {
            std::uint64_t* dst = dst_row(c);
            if (d.space == ir::StateSpace::shared &&
                load_shared_words_directly<Record>(c, out, base, dst, element, is_signed, reg_bits))
                return;
            if (base.mask == 0) {
                // No address register (a kernel parameter, a module variable): every lane reads the same address,
                // resolved and read once for the lowest executing lane, the lane the loop below would fault on
                // first. Local addresses name a different frame per thread: those are placed or take the loop.
                const auto first = static_cast<unsigned>(c.exec.find_first());
                const std::uint8_t* p =
                    resolve(c, first, (base[first] + offset) & address_mask, bytes, false, space, space_address);
                const bool per_thread = space == ir::StateSpace::local ||
                                        (space == ir::StateSpace::param && space_address >= call_param_base);
                if (!per_thread) {
                    const std::uint64_t value = detail::extend(detail::load_le(p, element), ebits, is_signed, reg_bits);
                    lanes(c, [&](unsigned l) {
                        record(l, space, space_address);
                        dst[l] = value;
                    });
                    return;
                }
            }
            if (load_placed<Record>(c, out, base, dst, element, is_signed, reg_bits)) return;
            lanes(c, [&](unsigned l) {
                const std::uint8_t* p =
                    resolve(c, l, (base[l] + offset) & address_mask, bytes, false, space, space_address);
                record(l, space, space_address);
                dst[l] = detail::extend(detail::load_le(p, element), ebits, is_signed, reg_bits);
            });
        } else {
            if (load_placed<Record>(c, out, base, nullptr, element, is_signed, reg_bits)) return;
            lanes(c, [&](unsigned l) {
                const std::uint8_t* p =
                    resolve(c, l, (base[l] + offset) & address_mask, bytes, false, space, space_address);
                record(l, space, space_address);
                for (unsigned e = 0; e < count && e < d.dst_count; ++e) {
                    if (d.dst_vector[e] == ir::no_reg) continue;
                    c.w.row(d.dst_vector[e])[l] =
                        detail::extend(detail::load_le(p + e * element, element), ebits, is_signed, reg_bits);
                }
            });
        }
        return;
    }
    if (d.op == ir::Opcode::st) {
        std::array<detail::Source, 4> values{};
        const unsigned n = std::min<unsigned>(count, d.num_sources);
        if (n < count) unsupported(c);
        for (unsigned e = 0; e < n && e < 4; ++e) values[e] = source(c, e);
        LaneAddresses a;
        compute_addresses(c, base, a);
        WarpPlacement where;
        if (place_warp(c, a, bytes, true, where)) {
            if (n == 1 && element == 4) {
                const detail::Source value = values[0];
                lanes(c, [&](unsigned l) {
                    record(l, where.space, a.of[l]);
                    detail::store_le(where.at(l, a.of[l]), value[l], 4);
                });
                return;
            }
            lanes(c, [&](unsigned l) {
                record(l, where.space, a.of[l]);
                std::uint8_t* p = where.at(l, a.of[l]);
                for (unsigned e = 0; e < n; ++e) detail::store_le(p + e * element, values[e][l], element);
            });
            return;
        }
        lanes(c, [&](unsigned l) {
            std::uint8_t* p = resolve(c, l, (base[l] + offset) & address_mask, bytes, true, space, space_address);
            record(l, space, space_address);
            for (unsigned e = 0; e < n; ++e) detail::store_le(p + e * element, values[e][l], element);
        });
        return;
    }
    // atom / red: lanes apply their operation one after another, in lane order.
    const bool has_dst = d.op == ir::Opcode::atom;
    const detail::Source b = source(c, 0);
    const detail::Source cc = d.num_sources > 1 ? source(c, 1) : detail::Source{&c.launch.zero, 0U, false};
    std::uint64_t* dst = has_dst ? dst_row(c) : nullptr;
    const ir::AtomOp op = d.inst->atom_op;
    // The most frequent atomic, an integer add, skips atomic_update's per-lane dispatch (the same sum, masked to
    // the type). On global and shared memory every atomic's lanes are placed at once when place_warp allows, and
    // then apply their operations in lane order as the per-lane path below does, without its resolve per lane.
    const bool integer_add = op == ir::AtomOp::add && !is_float(d.type);
    const std::uint64_t type_mask = low_mask(size_bytes(d.type) * 8);
    LaneAddresses a;
    compute_addresses(c, base, a);
    WarpPlacement where;
    if (place_warp(c, a, bytes, true, where) &&
        (where.space == ir::StateSpace::global || where.space == ir::StateSpace::shared)) {
        if (integer_add) {
            // A loop of its own: with atomic_update's call in the same loop body (behind a test of integer_add),
            // histogram_global and histogram_shared ran 6 to 8% slower in the functional engine (session 45).
            lanes(c, [&](unsigned l) {
                record(l, where.space, a.of[l]);
                std::uint8_t* p = where.at(l, a.of[l]);
                const std::uint64_t old = detail::load_le(p, element);
                detail::store_le(p, (old + b[l]) & type_mask, element);
                if (has_dst) dst[l] = old;
            });
            return;
        }
        const bool ftz = where.space == ir::StateSpace::global; // as below
        lanes(c, [&](unsigned l) {
            record(l, where.space, a.of[l]);
            std::uint8_t* p = where.at(l, a.of[l]);
            const std::uint64_t old = detail::load_le(p, element);
            detail::store_le(p, atomic_update(c, op, old, b[l], cc[l], ftz), element);
            if (has_dst) dst[l] = old;
        });
        return;
    }
    // Lane by lane, with the addresses computed above (a lane's update changes no other lane's address register).
    lanes(c, [&](unsigned l) {
        std::uint8_t* p = resolve(c, l, a.of[l], bytes, true, space, space_address);
        if (space != ir::StateSpace::global && space != ir::StateSpace::shared)
            fault(c, static_cast<int>(l),
                  "atomic on ." + std::string(ir::name(space)) + " memory (only global and shared are atomic)",
                  a.of[l], KernelErrorKind::illegal_address);
        record(l, space, space_address);
        const std::uint64_t old = detail::load_le(p, element);
        // CUDA Programming Guide, "Floating-Point Standard": f32 atomic add on global memory flushes
        // subnormals (FADD.FTZ.RN); on shared memory it keeps them.
        const bool ftz = space == ir::StateSpace::global;
        const std::uint64_t updated =
            integer_add ? (old + b[l]) & type_mask : atomic_update(c, op, old, b[l], cc[l], ftz);
        detail::store_le(p, updated, element);
        if (has_dst) dst[l] = old;
    });
}

// DecodedInstruction::global_scalar_load's loads: what memory_lanes<Record> does for them (a placed load, a byte or
// half extended into its register by the type's signedness), without its dispatch on the access's kind. When
// place_warp cannot place the lanes at once, memory_lanes's per-lane path runs instead and faults where a lane's
// access is not valid.
template <bool Record, unsigned Element> inline void load_global_scalar(const Context& c, StepResult* out) {
    const detail::Source base{c.w.row(c.d.address_base), ~0U, false};
    LaneAddresses a;
    compute_addresses(c, base, a);
    WarpPlacement where;
    // place_warp places .global and generic accesses in the device's global memory with stride 0, so a lane's
    // bytes are at origin + (address - bias): WarpPlacement::at without its multiply by that zero stride.
    if (!place_warp(c, a, Element, false, where)) {
        memory_lanes<Record>(c, out);
        return;
    }
    describe_access<Record>(c, out, Element);
    std::uint64_t* dst = dst_row(c);
    const unsigned reg_bits = std::max<unsigned>(c.d.dst_bits, Element * 8);
    const bool is_signed = is_signed_int(c.d.type);
    lanes(c, [&](unsigned l) {
        record_lane<Record>(out, l, where.space, a.of[l]);
        std::uint64_t v = 0;
        std::memcpy(&v, where.origin + (a.of[l] - where.bias), Element);
        if constexpr (Element >= 4) dst[l] = v; // decode.hpp: a word goes into a register no wider
        else dst[l] = detail::extend(v, Element * 8, is_signed, reg_bits);
    });
}

// ld, st, atom and red. Global byte and half loads go to load_global_scalar from here; execute sends word loads
// there directly (dispatching all four sizes in execute, which the functional engine inlines into its loop, made the
// loop slower by 7% on atax, bicg and mvt).
template <bool Record> inline void memory(const Context& c, StepResult* out) {
    if (c.d.global_scalar_load == 1) load_global_scalar<Record, 1>(c, out);
    else if (c.d.global_scalar_load == 2) load_global_scalar<Record, 2>(c, out);
    else memory_lanes<Record>(c, out);
}

// ---- cp.async --------------------------------------------------------------------------------

// cp.async.{ca,cg}.shared.global [dst], [src], cp-size [, src-size | ignore-src] (PTX ISA 9.0, Sec.
// 9.7.9.25.3): each executing lane in ascending order copies the first src-size bytes of [src] (all cp-size
// bytes without the operand; none when ignore-src is true) to [dst] and zero-fills the rest of the cp-size
// bytes. The copy happens here, at execution, so the data is in shared memory by the time any later
// cp.async.wait_group or wait_all completes, as the PTX ISA requires (docs/ptx.md, "Asynchronous copies").
// Both addresses must be aligned to cp-size and in bounds; a src-size above cp-size is an error (the PTX ISA
// leaves it undefined). With Record, the lanes that read at least one byte are the global load timing sees.
template <bool Record> inline void async_copy(const Context& c, StepResult* out) {
    const DecodedInstruction& d = c.d;
    const unsigned size = static_cast<unsigned>(d.sources[0].imm);
    const detail::Source src = d.address_base == ir::no_reg ? detail::Source{&c.launch.zero, 0U, false}
                                                            : detail::Source{c.w.row(d.address_base), ~0U, false};
    const detail::Source dst = d.shared_base == ir::no_reg ? detail::Source{&c.launch.zero, 0U, false}
                                                           : detail::Source{c.w.row(d.shared_base), ~0U, false};
    const bool has_fourth = d.num_sources > 1;
    const bool ignore_src = has_fourth && d.inst->src_type == ir::ScalarType::pred;
    const detail::Source fourth = has_fourth ? source(c, 1) : detail::Source{&c.launch.zero, 0U, false};
    core::WarpMask accessed;
    lanes(c, [&](unsigned l) {
        std::uint64_t n = size;
        if (ignore_src) n = fourth.pred(l) ? 0 : size;
        else if (has_fourth) n = fourth[l] & 0xffffffffU;
        if (n > size)
            fault(c, static_cast<int>(l),
                  "cp.async src-size " + std::to_string(n) + " exceeds cp-size " + std::to_string(size), std::nullopt,
                  KernelErrorKind::illegal_instruction);
        const std::uint64_t to = (dst[l] + d.shared_offset) & d.shared_mask;
        if (to % size != 0)
            fault(c, static_cast<int>(l),
                  "misaligned cp.async shared-memory destination (the address must be a multiple of " +
                      std::to_string(size) + ")",
                  shared_window_base + to, KernelErrorKind::misaligned_address);
        if (to > c.cta.shared.size() || size > c.cta.shared.size() - to)
            fault(c, static_cast<int>(l),
                  "out-of-bounds cp.async shared-memory destination of " + std::to_string(size) +
                      " bytes: the CTA has " + std::to_string(c.cta.shared.size()) + " bytes of shared memory",
                  shared_window_base + to, KernelErrorKind::illegal_address);
        std::uint8_t* target = c.cta.shared.data() + to;
        const std::uint64_t from = (src[l] + d.address_offset) & d.address_mask;
        if (n > 0) {
            if (from % size != 0)
                fault(c, static_cast<int>(l),
                      "misaligned cp.async global source (the address must be a multiple of " + std::to_string(size) +
                          ")",
                      from, KernelErrorKind::misaligned_address);
            ir::StateSpace space{};
            std::uint64_t space_address = 0;
            const std::uint8_t* p = resolve(c, l, from, static_cast<unsigned>(n), false, space, space_address);
            std::memmove(target, p, n);
            accessed.set(l);
            if constexpr (Record) {
                out->addresses[l] = from;
                out->lane_spaces[l] = ir::StateSpace::global;
            }
        }
        std::memset(target + n, 0, size - n);
    });
    if constexpr (Record) {
        if (accessed.none()) return; // every lane zero-fills only: nothing for the caches to do
        out->is_memory = true;
        out->is_load = true;
        out->space = ir::StateSpace::global;
        out->access_bytes = size;
        out->accessed = accessed;
    }
}

// prefetch / prefetchu (PTX ISA 9.0, Sec. 9.7.9.15) change no value, so without Record there is nothing to do.
// With it, each executed lane's address is resolved to its space as a load's would be, and the lanes whose line a
// cache can hold become the access timing sees: global and local lines for prefetch, global lines for
// prefetchu. The PTX ISA makes a prefetch to shared memory (and prefetchu to const, local or shared memory) a
// no-op; a prefetch is a hint and never faults, so a lane whose address lies in no allocation or outside the
// thread's local frame is dropped as well (as are const and param addresses, which no data cache holds). The
// access takes the space of its first accessing lane; lanes of a generic prefetch that fall in the other space
// (global and local addresses in one warp) are not timed (docs/ptx.md, "Prefetch").
template <bool Record> inline void prefetch(const Context& c, StepResult* out) {
    if constexpr (Record) {
        const DecodedInstruction& d = c.d;
        const detail::Source base = d.address_base == ir::no_reg ? detail::Source{&c.launch.zero, 0U, false}
                                                                 : detail::Source{c.w.row(d.address_base), ~0U, false};
        core::WarpMask accessed;
        ir::StateSpace first = ir::StateSpace::none;
        lanes(c, [&](unsigned l) {
            std::uint64_t address = (base[l] + d.address_offset) & d.address_mask;
            ir::StateSpace space = d.space;
            if (space == ir::StateSpace::generic) {
                space = ir::StateSpace::global;
                for (ir::StateSpace s :
                     {ir::StateSpace::shared, ir::StateSpace::local, ir::StateSpace::constant, ir::StateSpace::param}) {
                    const std::uint64_t window = generic_window_base(s);
                    if (address >= window && address - window < generic_window_bytes) {
                        space = s;
                        address -= window;
                        break;
                    }
                }
            }
            bool cached = false;
            if (space == ir::StateSpace::global) cached = c.launch.device->translate(address, 1) != nullptr;
            else if (space == ir::StateSpace::local)
                cached = d.op == ir::Opcode::prefetch && address < c.cta.local_frame_bytes;
            if (!cached) return;
            if (first == ir::StateSpace::none) first = space;
            if (space != first) return;
            accessed.set(l);
            out->addresses[l] = address;
            out->lane_spaces[l] = space;
        });
        if (first == ir::StateSpace::none) return; // every lane a no-op: nothing for the caches to do
        out->is_memory = true;
        out->is_load = true;
        out->space = first;
        out->access_bytes = 1; // the line holding the byte addressed
        out->accessed = accessed;
    }
}

} // namespace gpuarch::func::semantics
