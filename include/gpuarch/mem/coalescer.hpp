#pragma once
// The memory access coalescing unit (Wang 2016 Sec. 2.1, "MACU"): merges the per-lane accesses of a warp
// memory instruction into line (or sector) transactions, and classifies the instruction as coherent or
// divergent for the OAWS divergent-load classifier.
//
// Granularity per machine (docs/memory.md): Fermi and Kepler coalesce L1-cached accesses into 128-byte lines
// (Wang 2016 Table 1, Gong 2020 Table 4.1), uncached accesses into 32-byte sectors (knob); Southern Islands
// into 64-byte lines (Gong 2020 Table 5.2).
//
// Contract: transactions come out in order of first touch by ascending lane, so the LSU serves them in a
// deterministic order; an access that straddles a transaction boundary touches both transactions.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/tag_array.hpp>

namespace gpuarch::mem {

struct LineTransaction {
    std::uint64_t address = 0; // aligned to the transaction size (for constant accesses: the lane address)
    std::uint32_t sector_mask = 0; // sectors touched inside the transaction, bit i = sector i
    std::uint32_t lanes = 0; // active lanes that touch it
};

// What the OAWS classifier needs (Wang 2016 Sec. 2.1 and 4.2): how many accesses, lines and distinct cache
// sets a memory instruction touches, and whether it is coherent (at most `coherent_max_lines` lines, 2 in
// the paper) or divergent.
struct AccessClass {
    std::uint32_t thread_accesses = 0; // active lanes
    std::uint32_t lines = 0; // coalesced transactions (the DLC's #acc)
    std::uint32_t sectors = 0; // sectors touched over all lines
    std::uint32_t sets = 0; // distinct sets of those lines (the DLC's #sets)
    bool coherent = true;
};

// Calls f(lane) for every active lane below `width`.
template <class F> void for_each_active_lane(const WarpAccess& access, F&& f) {
    const std::size_t width = access.width < core::WarpMask::lanes ? access.width : core::WarpMask::lanes;
    for (std::size_t w = 0; w * 64 < width; ++w) {
        std::uint64_t bits = access.active.word(w);
        if (width - w * 64 < 64) bits &= (std::uint64_t{1} << (width - w * 64)) - 1;
        while (bits != 0) {
            const std::size_t lane = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
            bits &= bits - 1;
            f(lane);
        }
    }
}

// Coalesces into `granularity`-byte transactions with `sector_bytes` sectors; `out` is cleared first and
// reused (it allocates only when it grows past its previous size).
inline void coalesce(const WarpAccess& access, std::uint32_t granularity, std::uint32_t sector_bytes,
                     std::vector<LineTransaction>& out) {
    out.clear();
    if (access.active.any() && access.addresses == nullptr)
        throw Error("a warp memory access has active lanes but no addresses");
    const std::uint64_t mask = ~std::uint64_t{granularity - 1};
    const unsigned sector_log2 = static_cast<unsigned>(std::countr_zero(sector_bytes));
    const std::uint32_t bytes = access.access_bytes == 0 ? 1 : access.access_bytes;
    std::size_t last = 0;
    for_each_active_lane(access, [&](std::size_t lane) {
        const std::uint64_t first_byte = access.addresses[lane];
        const std::uint64_t last_byte = first_byte + bytes - 1;
        for (std::uint64_t line = first_byte & mask; line <= (last_byte & mask); line += granularity) {
            const std::uint64_t lo = first_byte > line ? first_byte - line : 0;
            const std::uint64_t hi = (last_byte - line) < granularity - 1 ? last_byte - line : granularity - 1;
            std::uint32_t sectors = 0;
            for (std::uint64_t s = lo >> sector_log2; s <= (hi >> sector_log2); ++s) sectors |= 1U << s;
            std::size_t found = out.size();
            if (!out.empty() && out[last].address == line) {
                found = last;
            } else {
                for (std::size_t i = 0; i < out.size(); ++i)
                    if (out[i].address == line) {
                        found = i;
                        break;
                    }
            }
            if (found == out.size()) out.push_back(LineTransaction{line, 0, 0});
            out[found].sector_mask |= sectors;
            ++out[found].lanes;
            last = found;
        }
    });
}

// Distinct lane addresses in order of first touch (constant-cache serialization: one address per cycle,
// lanes reading the same address are served together by broadcast).
inline void distinct_addresses(const WarpAccess& access, std::vector<LineTransaction>& out) {
    out.clear();
    if (access.active.any() && access.addresses == nullptr)
        throw Error("a warp memory access has active lanes but no addresses");
    std::size_t last = 0;
    for_each_active_lane(access, [&](std::size_t lane) {
        const std::uint64_t a = access.addresses[lane];
        std::size_t found = out.size();
        if (!out.empty() && out[last].address == a) {
            found = last;
        } else {
            for (std::size_t i = 0; i < out.size(); ++i)
                if (out[i].address == a) {
                    found = i;
                    break;
                }
        }
        if (found == out.size()) out.push_back(LineTransaction{a, 0, 0});
        ++out[found].lanes;
        last = found;
    });
}

// A coalescer bound to one cache's geometry, with its scratch storage.
class Coalescer {
public:
    explicit Coalescer(const CacheGeometry& geometry, std::uint32_t sector_bytes = 32,
                       std::uint32_t coherent_max_lines = 2)
        : geometry_(geometry), sector_bytes_(sector_bytes), coherent_max_lines_(coherent_max_lines),
          set_stamp_(geometry.sets, 0) {
        geometry_.validate("the coalescer's cache");
        if (sector_bytes < 4 || !std::has_single_bit(sector_bytes) || sector_bytes > geometry.line_bytes ||
            geometry.line_bytes / sector_bytes > 32)
            throw Error("the sector size must be a power of two between 4 bytes and the line size, with at most "
                        "32 sectors per line (got " +
                        std::to_string(sector_bytes) + " bytes for " + std::to_string(geometry.line_bytes) +
                        "-byte lines)");
    }

    const CacheGeometry& geometry() const { return geometry_; }
    std::uint32_t sector_bytes() const { return sector_bytes_; }
    std::uint32_t coherent_max_lines() const { return coherent_max_lines_; }

    // Line transactions; valid until the next call.
    std::span<const LineTransaction> lines(const WarpAccess& access) {
        coalesce(access, geometry_.line_bytes, sector_bytes_, scratch_);
        return scratch_;
    }
    // Sector transactions (the uncached path); valid until the next call.
    std::span<const LineTransaction> sectors(const WarpAccess& access) {
        coalesce(access, sector_bytes_, sector_bytes_, scratch_);
        return scratch_;
    }

    AccessClass classify(std::span<const LineTransaction> lines, std::uint32_t thread_accesses) {
        AccessClass c;
        c.thread_accesses = thread_accesses;
        c.lines = static_cast<std::uint32_t>(lines.size());
        if (++epoch_ == 0) {
            std::fill(set_stamp_.begin(), set_stamp_.end(), 0);
            epoch_ = 1;
        }
        for (const auto& t : lines) {
            c.sectors += core::count_bits(t.sector_mask);
            const std::uint32_t set = geometry_.set_of(t.address);
            if (set_stamp_[set] != epoch_) {
                set_stamp_[set] = epoch_;
                ++c.sets;
            }
        }
        c.coherent = c.lines <= coherent_max_lines_;
        return c;
    }
    // {lines, sets, coherent} of a warp access at line granularity.
    AccessClass classify(const WarpAccess& access) {
        const auto l = lines(access);
        std::uint32_t active = 0;
        for_each_active_lane(access, [&](std::size_t) { ++active; });
        return classify(l, active);
    }

private:
    CacheGeometry geometry_;
    std::uint32_t sector_bytes_;
    std::uint32_t coherent_max_lines_;
    std::vector<LineTransaction> scratch_;
    std::vector<std::uint32_t> set_stamp_;
    std::uint32_t epoch_ = 0;
};

} // namespace gpuarch::mem
