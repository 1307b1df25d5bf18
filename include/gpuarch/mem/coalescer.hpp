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
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/core/lane_values.hpp>
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

namespace detail {
// Sectors lo..hi (inclusive, hi < 32) as a mask; 2u << 31 wraps to 0, which gives every bit up to 31.
constexpr std::uint32_t sector_range(std::uint64_t lo, std::uint64_t hi) {
    return ((2U << hi) - 1U) & ~((1U << lo) - 1U);
}

// coalesce()'s first attempt: a whole warp (every lane below its width active, at most 64 lanes) whose lanes access
// consecutive `bytes`-byte words from an address aligned to that size (unit stride), or all the same word
// (broadcast). Its one or two transactions follow from the first and last lanes' addresses: the lanes touch every
// sector between them, the lanes below the second line are the first line's. Returns true with `out` as
// at_most_two_transactions gives it; false, leaving `out` empty, for any other warp (and for three lines or more).
// Its check of every lane is a few instructions a lane (core::steps_evenly) against about a dozen in
// at_most_two_transactions's walk: 8% of gemm's host instructions (GTX480), whose loads are rows and a broadcast.
inline bool unit_stride_or_broadcast(const WarpAccess& access, std::uint32_t granularity, std::uint32_t sector_bytes,
                                     std::vector<LineTransaction>& out) {
    const std::size_t width = access.width < core::WarpMask::lanes ? access.width : core::WarpMask::lanes;
    if (width < 2 || width > 64) return false;
    const std::uint64_t every_lane = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    if ((access.active.word(0) & every_lane) != every_lane) return false;
    const std::uint32_t bytes = access.access_bytes == 0 ? 1 : access.access_bytes;
    if (!std::has_single_bit(bytes) || bytes > sector_bytes) return false;
    const std::uint64_t* addresses = access.addresses;
    const std::uint64_t first = addresses[0];
    const std::uint64_t stride = addresses[1] - first;
    if ((first & (bytes - 1)) != 0 || (stride != 0 && stride != bytes)) return false;
    const std::uint64_t last = first + (width - 1) * stride;
    // Not such a warp, or one that wraps round the address space.
    if (last < first || !core::steps_evenly(addresses, width, first, stride)) return false;
    const std::uint64_t mask = ~std::uint64_t{granularity - 1};
    const unsigned sector_log2 = static_cast<unsigned>(std::countr_zero(sector_bytes));
    // The sectors of the bytes lo..hi of one line.
    auto sectors = [&](std::uint64_t lo, std::uint64_t hi) {
        return sector_range((lo & ~mask) >> sector_log2, (hi & ~mask) >> sector_log2);
    };
    const auto lanes = static_cast<std::uint32_t>(width);
    const std::uint64_t first_line = first & mask, last_line = last & mask;
    if (first_line == last_line) {
        out.push_back(LineTransaction{first_line, sectors(first, last), lanes});
        return true;
    }
    if (last_line - first_line != granularity) return false;
    // `first` is aligned to `bytes`, which divides the line: the lanes before the second line, exactly.
    const auto below = static_cast<std::uint32_t>((last_line - first) / bytes);
    out.push_back(LineTransaction{first_line, sectors(first, last_line - 1), below});
    out.push_back(LineTransaction{last_line, sectors(last_line, last), lanes - below});
    return true;
}

// coalesce()'s second attempt: when every active lane's access is aligned to its size (a power of two no larger than a
// sector) and the lanes touch at most two transactions, puts them in `out` in order of first touch and returns true
// (each lane then touches one sector). Else returns false, leaving `out` empty. A lane here costs about a dozen host
// instructions, against about fifty in the general loop (gemm's unit-stride loads touch one line, a shifted window
// such as 2dconv's two); a divergent access gives up at its third line.
inline bool at_most_two_transactions(const WarpAccess& access, std::uint32_t granularity, std::uint32_t sector_bytes,
                                     std::vector<LineTransaction>& out) {
    const std::uint32_t bytes = access.access_bytes == 0 ? 1 : access.access_bytes;
    if (!std::has_single_bit(bytes) || bytes > sector_bytes) return false;
    const std::size_t width = access.width < core::WarpMask::lanes ? access.width : core::WarpMask::lanes;
    const std::uint64_t mask = ~std::uint64_t{granularity - 1};
    const std::uint64_t misaligned = bytes - 1;
    const unsigned sector_log2 = static_cast<unsigned>(std::countr_zero(sector_bytes));
    // Transaction k's line, sectors and lanes; no line is all ones (a line is aligned to two bytes or more).
    constexpr std::uint64_t none = ~std::uint64_t{0};
    std::uint64_t line[2] = {none, none};
    std::uint32_t sectors[2] = {0, 0}, lanes[2] = {0, 0};
    // for_each_active_lane's walk, written out: through that helper, with a way to give up at a third line, this
    // pass took about 40% more host instructions under g++ 12 (session 26, docs/performance-history.md).
    for (std::size_t w = 0; w * 64 < width; ++w) {
        std::uint64_t bits = access.active.word(w);
        if (width - w * 64 < 64) bits &= (std::uint64_t{1} << (width - w * 64)) - 1;
        for (; bits != 0; bits &= bits - 1) {
            const std::uint64_t a = access.addresses[w * 64 + static_cast<std::size_t>(std::countr_zero(bits))];
            if ((a & misaligned) != 0) return false;
            const std::uint64_t l = a & mask;
            const std::uint32_t bit = 1U << ((a & ~mask) >> sector_log2);
            if (l == line[0]) {
                sectors[0] |= bit;
                ++lanes[0];
            } else if (l == line[1]) {
                sectors[1] |= bit;
                ++lanes[1];
            } else if (line[0] == none || line[1] == none) {
                const int k = line[0] == none ? 0 : 1;
                line[k] = l;
                sectors[k] = bit;
                lanes[k] = 1;
            } else {
                return false;
            }
        }
    }
    for (int k = 0; k < 2 && line[k] != none; ++k) out.push_back(LineTransaction{line[k], sectors[k], lanes[k]});
    return true;
}
} // namespace detail

// Coalesces into `granularity`-byte transactions with `sector_bytes` sectors; `out` is cleared first and
// reused (it allocates only when it grows past its previous size).
//
// Cost: every warp memory instruction is coalesced when the L1 accepts it, so this runs once per lane of every
// access (about a fifth of a compute-bound run's host time before it was written this way, gemm on GTX480). A lane
// whose bytes lie in one transaction (all but straddling ones) takes one mask for its sectors. A transaction is found
// by the previous lane's (unit stride), else through a small table indexed by a hash of the line, else, on a clash
// in that table, by the linear search the table spares a divergent warp (32 distinct lines: 496 comparisons). A warp of
// aligned accesses in at most two transactions, the commonest, takes detail::unit_stride_or_broadcast or
// detail::at_most_two_transactions instead (the second removed 6% of gemm's host instructions on GTX480).
inline void coalesce(const WarpAccess& access, std::uint32_t granularity, std::uint32_t sector_bytes,
                     std::vector<LineTransaction>& out) {
    out.clear();
    if (access.active.any() && access.addresses == nullptr)
        throw Error("a warp memory access has active lanes but no addresses");
    if (detail::unit_stride_or_broadcast(access, granularity, sector_bytes, out)) return;
    if (detail::at_most_two_transactions(access, granularity, sector_bytes, out)) return;
    const std::uint64_t mask = ~std::uint64_t{granularity - 1};
    const unsigned line_log2 = static_cast<unsigned>(std::countr_zero(granularity));
    const unsigned sector_log2 = static_cast<unsigned>(std::countr_zero(sector_bytes));
    const std::uint32_t bytes = access.access_bytes == 0 ? 1 : access.access_bytes;
    // slot[h]: 1 + the index in `out` of the first line added whose hash is h; 0: no line with that hash yet. A line
    // that found its slot taken by another is not in the table, so a taken slot of another line means "search".
    constexpr unsigned table_log2 = 6;
    std::array<std::uint32_t, std::size_t{1} << table_log2> slot{};
    std::size_t last = 0;
    // Adds a lane's sectors to `line`'s transaction (the previous lane's transaction is checked by the caller first,
    // inline: it is most lanes' own).
    auto add = [&](std::uint64_t line, std::uint32_t sectors) {
        std::size_t found = out.size();
        if (found != 0 && out[last].address == line) {
            found = last;
        } else {
            // Fibonacci hashing of the line number: strided lines (a column walk) spread over the table.
            const auto h = static_cast<std::size_t>(((line >> line_log2) * 0x9E3779B97F4A7C15ULL) >> (64 - table_log2));
            const std::size_t s = slot[h];
            if (s == 0) {
                slot[h] = static_cast<std::uint32_t>(found + 1);
            } else if (out[s - 1].address == line) {
                found = s - 1;
            } else {
                for (std::size_t i = 0; i < out.size(); ++i)
                    if (out[i].address == line) {
                        found = i;
                        break;
                    }
            }
            if (found == out.size()) out.push_back(LineTransaction{line, 0, 0});
        }
        out[found].sector_mask |= sectors;
        ++out[found].lanes;
        last = found;
    };
    const std::size_t width = access.width < core::WarpMask::lanes ? access.width : core::WarpMask::lanes;
    for (std::size_t w = 0; w * 64 < width; ++w) {
        std::uint64_t bits = access.active.word(w);
        if (width - w * 64 < 64) bits &= (std::uint64_t{1} << (width - w * 64)) - 1;
        for (; bits != 0; bits &= bits - 1) {
            const std::size_t lane = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
            const std::uint64_t first_byte = access.addresses[lane];
            const std::uint64_t last_byte = first_byte + bytes - 1;
            const std::uint64_t first_line = first_byte & mask;
            if (first_line == (last_byte & mask)) {
                const std::uint32_t sectors = detail::sector_range((first_byte - first_line) >> sector_log2,
                                                                   (last_byte - first_line) >> sector_log2);
                if (!out.empty() && out[last].address == first_line) {
                    out[last].sector_mask |= sectors;
                    ++out[last].lanes;
                } else {
                    add(first_line, sectors);
                }
                continue;
            }
            // A straddling access touches every transaction from its first byte's to its last byte's.
            for (std::uint64_t line = first_line; line <= (last_byte & mask); line += granularity) {
                const std::uint64_t lo = first_byte > line ? first_byte - line : 0;
                const std::uint64_t hi = (last_byte - line) < granularity - 1 ? last_byte - line : granularity - 1;
                add(line, detail::sector_range(lo >> sector_log2, hi >> sector_log2));
            }
        }
    }
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
