#pragma once
// Lane masks for warps of 32 and 64 lanes and for large warps of up to 512 threads.
// Contract: bit i is lane i; bits at or above Lanes are always zero (every operation keeps it so).
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

namespace gpuarch::core {

// Population count without a library call. Where the target has the instruction (x86-64 built with -mpopcnt or
// -march=native, AArch64) std::popcount is that one instruction; the baseline x86-64 target has none, so
// std::popcount would call libgcc (up to 5% of host time on the Kepler sgemm_tiled run) and a SWAR count stands in.
constexpr unsigned count_bits(std::uint64_t v) {
#if defined(__POPCNT__) || defined(__aarch64__)
    return static_cast<unsigned>(std::popcount(v));
#else
    v = v - ((v >> 1) & 0x5555555555555555ULL);
    v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
    v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return static_cast<unsigned>((v * 0x0101010101010101ULL) >> 56);
#endif
}

template <std::size_t Lanes> class LaneMask {
    static_assert(Lanes > 0 && Lanes <= 4096, "a lane mask holds between 1 and 4096 lanes");

public:
    static constexpr std::size_t lanes = Lanes;
    static constexpr std::size_t words = (Lanes + 63) / 64;

    constexpr LaneMask() = default;

    // The low `count` lanes set (count may exceed Lanes; it is clamped).
    static constexpr LaneMask first(std::size_t count) {
        LaneMask mask;
        if (count > Lanes) count = Lanes;
        for (std::size_t w = 0; w < words && count > 0; ++w) {
            const std::size_t take = count < 64 ? count : 64;
            mask.bits_[w] = take == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << take) - 1);
            count -= take;
        }
        return mask;
    }
    static constexpr LaneMask all() { return first(Lanes); }
    static constexpr LaneMask from_word(std::uint64_t low_bits) {
        LaneMask mask;
        mask.bits_[0] = low_bits;
        mask.clear_unused();
        return mask;
    }

    constexpr bool test(std::size_t lane) const { return (bits_[lane / 64] >> (lane % 64)) & 1U; }
    constexpr void set(std::size_t lane) { bits_[lane / 64] |= std::uint64_t{1} << (lane % 64); }
    constexpr void reset(std::size_t lane) { bits_[lane / 64] &= ~(std::uint64_t{1} << (lane % 64)); }
    constexpr void assign(std::size_t lane, bool value) { value ? set(lane) : reset(lane); }

    constexpr std::size_t popcount() const {
        std::size_t total = 0;
        for (auto w : bits_) total += w == 0 ? 0 : count_bits(w);
        return total;
    }
    // popcount() of a mask with no lane at or above `width` (at most Lanes; a warp's masks, `width` its width): only
    // the words below `width` are read, without a branch per word. A 32-lane warp's mask is one word of the eight a
    // WarpMask holds, and every executed instruction's lanes are counted (all eight words a count were about 3% of
    // paper-size gemm's host instructions, GTX480, cachegrind).
    constexpr std::size_t popcount_below(std::size_t width) const {
        if (width <= 64) return count_bits(bits_[0]); // a 32- or 64-lane warp: no loop
        std::size_t total = 0;
        for (std::size_t w = 0; w < (width + 63) / 64; ++w) total += count_bits(bits_[w]);
        return total;
    }
    constexpr bool any() const {
        for (auto w : bits_)
            if (w != 0) return true;
        return false;
    }
    // any() of a mask with no lane at or above `width` (as popcount_below): a 32-lane warp's mask is one word.
    constexpr bool any_below(std::size_t width) const {
        if (width <= 64) return bits_[0] != 0;
        std::uint64_t seen = 0;
        for (std::size_t w = 0; w < (width + 63) / 64; ++w) seen |= bits_[w];
        return seen != 0;
    }
    constexpr bool none() const { return !any(); }
    // Index of the lowest set lane, or Lanes when the mask is empty.
    constexpr std::size_t find_first() const {
        for (std::size_t w = 0; w < words; ++w)
            if (bits_[w] != 0) return w * 64 + static_cast<std::size_t>(std::countr_zero(bits_[w]));
        return Lanes;
    }
    // Index of the lowest set lane strictly above `lane`, or Lanes.
    constexpr std::size_t find_next(std::size_t lane) const {
        ++lane;
        if (lane >= Lanes) return Lanes;
        std::size_t w = lane / 64;
        std::uint64_t word = bits_[w] & (~std::uint64_t{0} << (lane % 64));
        while (true) {
            if (word != 0) return w * 64 + static_cast<std::size_t>(std::countr_zero(word));
            if (++w == words) return Lanes;
            word = bits_[w];
        }
    }

    // 64-bit window of lanes [64*index, 64*index+63].
    constexpr std::uint64_t word(std::size_t index) const { return bits_[index]; }
    constexpr void set_word(std::size_t index, std::uint64_t value) {
        bits_[index] = value;
        clear_unused();
    }
    // The 32 lanes [32*group, 32*group+31] as a 32-bit value (CUDA warp-level intrinsics act per group).
    constexpr std::uint32_t group32(std::size_t group) const {
        return static_cast<std::uint32_t>(bits_[group / 2] >> (32 * (group % 2)));
    }

    constexpr LaneMask operator&(const LaneMask& o) const {
        return combine(o, [](auto a, auto b) { return a & b; });
    }
    constexpr LaneMask operator|(const LaneMask& o) const {
        return combine(o, [](auto a, auto b) { return a | b; });
    }
    constexpr LaneMask operator^(const LaneMask& o) const {
        return combine(o, [](auto a, auto b) { return a ^ b; });
    }
    constexpr LaneMask operator~() const {
        LaneMask r;
        for (std::size_t w = 0; w < words; ++w) r.bits_[w] = ~bits_[w];
        r.clear_unused();
        return r;
    }
    constexpr LaneMask& operator&=(const LaneMask& o) { return *this = *this & o; }
    constexpr LaneMask& operator|=(const LaneMask& o) { return *this = *this | o; }
    constexpr LaneMask& operator^=(const LaneMask& o) { return *this = *this ^ o; }
    constexpr bool operator==(const LaneMask&) const = default;

    // Iteration over set lanes: `for (std::size_t lane : mask.set_lanes())`.
    class SetLaneIterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = std::size_t;
        using difference_type = std::ptrdiff_t;
        using pointer = const std::size_t*;
        using reference = std::size_t;
        constexpr SetLaneIterator() = default;
        constexpr SetLaneIterator(const LaneMask* mask, std::size_t lane) : mask_(mask), lane_(lane) {}
        constexpr std::size_t operator*() const { return lane_; }
        constexpr SetLaneIterator& operator++() {
            lane_ = mask_->find_next(lane_);
            return *this;
        }
        constexpr SetLaneIterator operator++(int) {
            auto copy = *this;
            ++*this;
            return copy;
        }
        constexpr bool operator==(const SetLaneIterator& o) const { return lane_ == o.lane_; }

    private:
        const LaneMask* mask_ = nullptr;
        std::size_t lane_ = Lanes;
    };
    struct SetLanes {
        const LaneMask* mask;
        constexpr SetLaneIterator begin() const { return {mask, mask->find_first()}; }
        constexpr SetLaneIterator end() const { return {mask, Lanes}; }
    };
    constexpr SetLanes set_lanes() const { return {this}; }

    // Lane 0 first, '1' for set lanes; for tables and test messages.
    std::string to_string(std::size_t width = Lanes) const {
        std::string text;
        for (std::size_t lane = 0; lane < width && lane < Lanes; ++lane) text += test(lane) ? '1' : '0';
        return text;
    }

private:
    template <class F> constexpr LaneMask combine(const LaneMask& o, F f) const {
        LaneMask r;
        for (std::size_t w = 0; w < words; ++w) r.bits_[w] = f(bits_[w], o.bits_[w]);
        return r;
    }
    constexpr void clear_unused() {
        if constexpr (Lanes % 64 != 0) bits_[words - 1] &= (std::uint64_t{1} << (Lanes % 64)) - 1;
    }

    std::array<std::uint64_t, words> bits_{};
};

using Mask32 = LaneMask<32>;
using Mask64 = LaneMask<64>;
// The widest warp the library executes: large warps of up to 512 threads (Narasiman 2010 evaluates 32..512).
inline constexpr std::size_t max_warp_lanes = 512;
using WarpMask = LaneMask<max_warp_lanes>;

// A large warp of Rows x Columns threads viewed as a matrix: thread t sits at row t / Columns, column
// t % Columns (Narasiman 2010, Sec. 3.1: the K x N active mask of a large warp over N SIMD lanes).
template <std::size_t Rows, std::size_t Columns> class LargeWarpMask {
public:
    using Flat = LaneMask<Rows * Columns>;
    constexpr LargeWarpMask() = default;
    constexpr explicit LargeWarpMask(const Flat& flat) : flat_(flat) {}
    constexpr const Flat& flat() const { return flat_; }
    constexpr bool test(std::size_t row, std::size_t column) const { return flat_.test(row * Columns + column); }
    constexpr void set(std::size_t row, std::size_t column) { flat_.set(row * Columns + column); }
    constexpr void reset(std::size_t row, std::size_t column) { flat_.reset(row * Columns + column); }
    constexpr LaneMask<Columns> row(std::size_t r) const {
        LaneMask<Columns> out;
        for (std::size_t c = 0; c < Columns; ++c)
            if (test(r, c)) out.set(c);
        return out;
    }
    constexpr LaneMask<Rows> column(std::size_t c) const {
        LaneMask<Rows> out;
        for (std::size_t r = 0; r < Rows; ++r)
            if (test(r, c)) out.set(r);
        return out;
    }
    constexpr std::size_t popcount() const { return flat_.popcount(); }
    constexpr bool any() const { return flat_.any(); }
    constexpr bool operator==(const LargeWarpMask&) const = default;

private:
    Flat flat_{};
};

} // namespace gpuarch::core
