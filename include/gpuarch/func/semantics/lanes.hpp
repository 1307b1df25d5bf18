#pragma once
// The lane-loop building blocks every instruction's semantics uses: iterating the executed lanes of a warp,
// reading a source operand per lane, dispatching on an integer PTX type, and little-endian memory access.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/func/int_ops.hpp>
#include <gpuarch/ir/instruction.hpp>

namespace gpuarch::func::detail {

template <class T> constexpr std::uint64_t to_bits(T v) {
    if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
    else return static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
}

// Calls f(T{}) with T the C++ integer type of an integer or bit-size PTX type; false for other types.
template <class F> bool dispatch_integer(ir::ScalarType t, F&& f) {
    using T = ir::ScalarType;
    switch (t) {
    case T::b8:
    case T::u8: f(std::uint8_t{}); return true;
    case T::s8: f(std::int8_t{}); return true;
    case T::b16:
    case T::u16: f(std::uint16_t{}); return true;
    case T::s16: f(std::int16_t{}); return true;
    case T::b32:
    case T::u32: f(std::uint32_t{}); return true;
    case T::s32: f(std::int32_t{}); return true;
    case T::b64:
    case T::u64: f(std::uint64_t{}); return true;
    case T::s64: f(std::int64_t{}); return true;
    default: return false;
    }
}

// Applies a per-lane function to every set lane of `mask` among the first `width` lanes; a full 64-lane word
// (or the whole of a 32-lane warp) runs as a plain counted loop.
template <class F> inline void for_each_lane(const core::WarpMask& mask, unsigned width, F&& f) {
    const unsigned words = (width + 63) / 64;
    for (unsigned w = 0; w < words; ++w) {
        std::uint64_t bits = mask.word(w);
        if (bits == 0) continue;
        const unsigned base = w * 64;
        const unsigned n = std::min(64U, width - base);
        if (bits == low_mask(n)) {
            for (unsigned i = 0; i < n; ++i) f(base + i);
        } else {
            while (bits != 0) {
                const unsigned i = static_cast<unsigned>(std::countr_zero(bits));
                bits &= bits - 1;
                f(base + i);
            }
        }
    }
}

using core::count_bits; // population count without a library call

// A predicate row as a lane mask: bit i is bit 0 of row[i], for i < n (n <= 64). Eight lanes per step with
// constant shifts, which the compiler schedules side by side; a loop shifting by the lane index is one long chain.
inline std::uint64_t pack_low_bits(const std::uint64_t* row, unsigned n) {
    std::uint64_t bits = 0;
    unsigned i = 0;
    for (; i + 8 <= n; i += 8) {
        const std::uint64_t* r = row + i;
        const std::uint64_t low = (r[0] & 1U) | (r[1] & 1U) << 1 | (r[2] & 1U) << 2 | (r[3] & 1U) << 3;
        const std::uint64_t high = (r[4] & 1U) << 4 | (r[5] & 1U) << 5 | (r[6] & 1U) << 6 | (r[7] & 1U) << 7;
        bits |= (low | high) << i;
    }
    for (; i < n; ++i) bits |= (row[i] & 1U) << i;
    return bits;
}

// A source operand as seen by the lane loop: a register row, or one value shared by all lanes (mask 0).
struct Source {
    const std::uint64_t* data = nullptr;
    std::uint32_t mask = 0;
    bool negated = false;
    std::uint64_t operator[](unsigned lane) const { return data[lane & mask]; }
    bool pred(unsigned lane) const { return ((data[lane & mask] & 1U) != 0) != negated; }
};

// Little-endian host (x86-64, AArch64), as the device. The fixed-size copies of the common element sizes
// compile to one move each; a variable-size std::memcpy was a library call per lane.
inline std::uint64_t load_le(const std::uint8_t* p, unsigned bytes) {
    std::uint64_t v = 0;
    switch (bytes) {
    case 4: std::memcpy(&v, p, 4); break;
    case 8: std::memcpy(&v, p, 8); break;
    case 1: std::memcpy(&v, p, 1); break;
    case 2: std::memcpy(&v, p, 2); break;
    default: std::memcpy(&v, p, bytes); break;
    }
    return v;
}
inline void store_le(std::uint8_t* p, std::uint64_t v, unsigned bytes) {
    switch (bytes) {
    case 4: std::memcpy(p, &v, 4); break;
    case 8: std::memcpy(p, &v, 8); break;
    case 1: std::memcpy(p, &v, 1); break;
    case 2: std::memcpy(p, &v, 2); break;
    default: std::memcpy(p, &v, bytes); break;
    }
}

inline std::uint64_t extend(std::uint64_t v, unsigned from_bits, bool is_signed, unsigned to_bits) {
    if (to_bits <= from_bits) return v & low_mask(to_bits);
    if (is_signed) return static_cast<std::uint64_t>(sign_extend(v, from_bits)) & low_mask(to_bits);
    return v & low_mask(from_bits);
}

} // namespace gpuarch::func::detail
