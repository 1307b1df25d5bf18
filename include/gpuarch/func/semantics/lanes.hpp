#pragma once
// The lane-loop building blocks every instruction's semantics uses: iterating the executed lanes of a warp,
// reading a source operand per lane, dispatching on an integer PTX type, and little-endian memory access.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/func/int_ops.hpp>
#include <gpuarch/ir/instruction.hpp>

namespace gpuarch::func::detail {

template <class T> constexpr std::uint64_t to_bits(T v) {
    if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
    else return static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
}

// Calls f(T{}) with T the C++ integer type of an integer or bit-size PTX type; false for other types.
template <class F> [[gnu::always_inline]] inline bool dispatch_integer(ir::ScalarType t, F&& f) {
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

// Tells the compiler that the next loop's iterations are independent (each writes only its own lane), so that it may
// run them as vector instructions without checking whether the rows overlap.
#if defined(__GNUC__) && !defined(__clang__)
#define GPUARCH_INDEPENDENT_LANES _Pragma("GCC ivdep")
#elif defined(__clang__)
#define GPUARCH_INDEPENDENT_LANES _Pragma("clang loop vectorize(assume_safety)")
#else
#define GPUARCH_INDEPENDENT_LANES
#endif

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

// Element-wise lane maps: dst[l] = f(a[l], ...) for every set lane l of `mask` among the first `width` lanes, where
// lane l's result depends on lane l's operands only (so `dst` may be an operand's row; rows of different registers
// never overlap). A whole 32-lane warp, the common case, runs as one fixed-length loop over contiguous rows, which the
// compiler turns into vector instructions; an immediate operand is first spread over a row of its own. Any other mask
// or width takes for_each_lane.
inline constexpr unsigned map_width = 32;
using MapRow = std::array<std::uint64_t, map_width>;

inline bool maps_whole_warp(const core::WarpMask& mask, unsigned width) {
    return width == map_width && mask.word(0) == low_mask(map_width);
}
// Operand `s` as a contiguous row of map_width lanes: its register row, or `spread` filled with its one value.
inline const std::uint64_t* map_row(const Source& s, MapRow& spread) {
    if (s.mask != 0) return s.data;
    spread.fill(s.data[0]);
    return spread.data();
}

template <class F, class... Sources>
inline void map_lanes(const core::WarpMask& mask, unsigned width, std::uint64_t* dst, F&& f,
                      const Sources&... sources) {
    static_assert(sizeof...(Sources) >= 1, "a lane map reads at least one operand");
    if (maps_whole_warp(mask, width)) {
        std::array<MapRow, sizeof...(Sources)> spread;
        std::size_t next = 0;
        const std::array<const std::uint64_t*, sizeof...(Sources)> rows{map_row(sources, spread[next++])...};
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            GPUARCH_INDEPENDENT_LANES
            for (unsigned l = 0; l < map_width; ++l) dst[l] = f(rows[K][l]...);
        }
        (std::index_sequence_for<Sources...>{});
        return;
    }
    for_each_lane(mask, width, [&](unsigned l) { dst[l] = f(sources[l]...); });
}

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
