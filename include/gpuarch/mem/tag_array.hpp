#pragma once
// Cache geometry, set indexing and a set-associative tag array with LRU replacement, shared by the L1 data
// cache, the constant cache and the L2 slices. It models tags and line states only (values are functional).
// Contract: replacement is true LRU over valid lines, decided by a per-array access counter, so it is exact
// and deterministic; reserved lines (allocate-on-miss, fill pending) are never chosen as victims.
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/mem/knobs.hpp>

namespace gpuarch::mem {

struct CacheGeometry {
    std::uint32_t sets = 32;
    std::uint32_t ways = 8;
    std::uint32_t line_bytes = 128;
    SetIndexing indexing = SetIndexing::linear;

    std::uint64_t size_bytes() const { return std::uint64_t{sets} * ways * line_bytes; }
    std::uint64_t line_of(std::uint64_t address) const { return address & ~std::uint64_t{line_bytes - 1}; }

    // The set a (line) address maps to.
    std::uint32_t set_of(std::uint64_t address) const {
        const unsigned line_log2 = static_cast<unsigned>(std::countr_zero(line_bytes));
        if (indexing == SetIndexing::fermi_hash) {
            // Fermi pseudo-random hash as GPGPU-Sim 3.x implements it (Wang 2016 Sec. 5 uses it, ref. [25]):
            // bits [line_log2, line_log2+4] XOR bits {13,14,15,17,19}; 64 sets prepend bit 12.
            const std::uint64_t lower = (address >> line_log2) & 0x1F;
            std::uint64_t upper = (address & 0xE000) >> 13;
            upper |= (address & 0x20000) >> 14;
            upper |= (address & 0x80000) >> 15;
            std::uint64_t set = lower ^ upper;
            if (sets == 64) set |= (address & 0x1000) >> 7;
            return static_cast<std::uint32_t>(set);
        }
        // A power-of-two set count (every preset's) masks instead of dividing: the same set, without a division
        // on every probe. Tested without std::has_single_bit, which the baseline x86-64 target compiles to a libgcc
        // popcount call (sets > 0: validate()).
        if ((sets & (sets - 1)) == 0) return static_cast<std::uint32_t>((address >> line_log2) & (sets - 1));
        return static_cast<std::uint32_t>((address >> line_log2) % sets);
    }

    // Throws gpuarch::Error with a sentence naming `what` when the geometry cannot be built.
    void validate(const std::string& what) const {
        if (sets == 0 || ways == 0) throw Error(what + " needs at least one set and one way");
        if (line_bytes < 4 || !std::has_single_bit(line_bytes))
            throw Error(what + " line size must be a power of two of at least 4 bytes (got " +
                        std::to_string(line_bytes) + ")");
        if (indexing == SetIndexing::fermi_hash && sets != 32 && sets != 64)
            throw Error(what + " uses the Fermi hashed set index, which is defined for 32 or 64 sets only (got " +
                        std::to_string(sets) + ")");
    }
};

enum class LineState : std::uint8_t { invalid, valid, reserved };

class TagArray {
public:
    static constexpr std::uint32_t no_way = ~std::uint32_t{0};

    explicit TagArray(const CacheGeometry& geometry)
        : geometry_(geometry), tags_(std::size_t{geometry.sets} * geometry.ways, no_line),
          state_(tags_.size(), LineState::invalid), dirty_(tags_.size(), 0), stamp_(tags_.size(), 0),
          set_version_(geometry.sets, 0) {
        geometry_.validate("a cache");
        if (geometry_.ways <= max_signed_ways) {
            signatures_.assign(geometry_.sets, broadcast(tag_byte(no_line)));
            for (std::uint32_t w = 0; w < geometry_.ways; ++w) signed_ways_ |= std::uint64_t{0x80} << (8 * w);
        }
    }

    const CacheGeometry& geometry() const { return geometry_; }
    // Changes whenever a tag or state of `set` changes (install, validate_reserved, invalidate and
    // invalidate_all), so that equal versions mean probe() answers the same for every line of the set, and
    // victim() too (touch and set_dirty leave it: they change neither the tags nor the states).
    std::uint64_t set_version(std::uint32_t set) const { return set_version_[set]; }

    struct Probe {
        LineState state = LineState::invalid; // valid: hit; reserved: allocated on miss, fill pending; invalid: miss
        std::uint32_t set = 0;
        std::uint32_t way = no_way;
    };
    // Looks the line up without changing replacement state.
    Probe probe(std::uint64_t address) const {
        const std::uint64_t line = geometry_.line_of(address);
        // A request its cache cannot serve yet (no MSHR, a full queue, every way reserved) is retried, and probed,
        // every cycle. While its set is unchanged the last answer for the same line stands: no search, and no set
        // index either (the last answer holds the line's set).
        if (line == last_line_ && set_version_[last_probe_.set] == last_set_version_) return last_probe_;
        const std::uint32_t set = geometry_.set_of(line);
        Probe p;
        p.set = set;
        const std::size_t base = std::size_t{set} * geometry_.ways;
        // An invalid way holds no_line, so one comparison per way tests both the state and the tag. A line is in at
        // most one way of its set, so the first match is the only one.
        if (geometry_.ways <= max_signed_ways) {
            // Up to eight ways, the set's signature word (a byte per way) finds the ways whose tag can be the line:
            // those whose byte equals the line's (zero_bytes of their difference). Only they are compared in full,
            // usually none (a miss) or one (a hit), where comparing every way took eight instructions a way.
            std::uint64_t candidates = zero_bytes(signatures_[set] ^ broadcast(tag_byte(line))) & signed_ways_;
            for (; candidates != 0; candidates &= candidates - 1) {
                const auto w = static_cast<std::uint32_t>(std::countr_zero(candidates)) / 8;
                if (tags_[base + w] == line) {
                    p.state = state_[base + w];
                    p.way = w;
                    break;
                }
            }
        } else if (geometry_.ways <= 64) {
            // Up to 64 ways the comparisons fill a mask without a branch per way: where the line sits is data, and a
            // loop that stops there mispredicts.
            std::uint64_t match = 0;
            for (std::uint32_t w = 0; w < geometry_.ways; ++w) match |= std::uint64_t{tags_[base + w] == line} << w;
            if (match != 0) {
                p.way = static_cast<std::uint32_t>(std::countr_zero(match));
                p.state = state_[base + p.way];
            }
        } else {
            for (std::uint32_t w = 0; w < geometry_.ways; ++w) {
                if (tags_[base + w] == line) {
                    p.state = state_[base + w];
                    p.way = w;
                    break;
                }
            }
        }
        last_line_ = line;
        last_set_version_ = set_version_[set];
        last_probe_ = p;
        return p;
    }
    // The byte that stands for a line's tag in its set's signature (probe()): mixed from all its bits (Fibonacci
    // hashing), since the tags of one set share their set-index bits. Public so that tests can choose lines whose
    // bytes collide.
    static std::uint64_t tag_byte(std::uint64_t line) { return (line * 0x9E3779B97F4A7C15ULL) >> 56; }
    // Marks the line most recently used.
    void touch(std::uint32_t set, std::uint32_t way) { stamp_[index(set, way)] = ++clock_; }

    // Victim for a new line in `set`: an invalid way first (lowest index), else the least recently used valid
    // way; no_way when every way is reserved.
    std::uint32_t victim(std::uint32_t set) const {
        const std::size_t base = std::size_t{set} * geometry_.ways;
        std::uint32_t best = no_way;
        // The least stamp so far (no stamp reaches the largest value: the clock counts up from 1).
        std::uint64_t best_stamp = ~std::uint64_t{0};
        for (std::uint32_t w = 0; w < geometry_.ways; ++w) {
            const LineState s = state_[base + w];
            if (s == LineState::invalid) return w;
            if (s == LineState::valid && stamp_[base + w] < best_stamp) {
                best = w;
                best_stamp = stamp_[base + w];
            }
        }
        return best;
    }

    struct Eviction {
        bool evicted = false; // a valid line was replaced
        std::uint64_t line = 0;
        bool dirty = false;
    };
    // Puts `address`'s line in (set, way) as `state` (valid or reserved), most recently used.
    Eviction install(std::uint32_t set, std::uint32_t way, std::uint64_t address, LineState state, bool dirty = false) {
        if (state == LineState::invalid) throw Error("internal error: a cache line was installed as invalid");
        const std::size_t i = index(set, way);
        Eviction e;
        if (state_[i] == LineState::valid) {
            e.evicted = true;
            e.line = tags_[i];
            e.dirty = dirty_[i] != 0;
        }
        set_tag(set, way, geometry_.line_of(address));
        state_[i] = state;
        dirty_[i] = dirty ? 1 : 0;
        stamp_[i] = ++clock_;
        ++set_version_[set];
        return e;
    }
    // A reserved line's fill arrived.
    void validate_reserved(std::uint32_t set, std::uint32_t way, bool dirty = false) {
        const std::size_t i = index(set, way);
        state_[i] = LineState::valid;
        dirty_[i] = dirty ? 1 : 0;
        stamp_[i] = ++clock_;
        ++set_version_[set];
    }
    // Drops a valid line (write-evict); returns whether one was there.
    bool invalidate(std::uint64_t address) {
        const Probe p = probe(address);
        if (p.state != LineState::valid) return false;
        state_[index(p.set, p.way)] = LineState::invalid;
        set_tag(p.set, p.way, no_line);
        ++set_version_[p.set];
        return true;
    }
    // Drops every valid line (a cache flush); reserved lines, whose fills are pending, stay. Returns how many.
    std::uint64_t invalidate_all() {
        std::uint64_t dropped = 0;
        for (std::uint32_t set = 0; set < geometry_.sets; ++set)
            for (std::uint32_t way = 0; way < geometry_.ways; ++way)
                if (state_[index(set, way)] == LineState::valid) {
                    state_[index(set, way)] = LineState::invalid;
                    set_tag(set, way, no_line);
                    ++set_version_[set];
                    ++dropped;
                }
        return dropped;
    }
    void set_dirty(std::uint32_t set, std::uint32_t way) { dirty_[index(set, way)] = 1; }
    bool dirty(std::uint32_t set, std::uint32_t way) const { return dirty_[index(set, way)] != 0; }
    LineState state(std::uint32_t set, std::uint32_t way) const { return state_[index(set, way)]; }
    // The line in (set, way); meaningful for a valid or reserved way.
    std::uint64_t line(std::uint32_t set, std::uint32_t way) const { return tags_[index(set, way)]; }

private:
    std::size_t index(std::uint32_t set, std::uint32_t way) const { return std::size_t{set} * geometry_.ways + way; }

    // The tag of an invalid way: no line address (a multiple of the line size, at least 4 bytes) has every bit set.
    static constexpr std::uint64_t no_line = ~std::uint64_t{0};

    // The signature of a set of up to eight ways: byte w is tag_byte of way w's tag (no_line's in an invalid way,
    // and in the bytes beyond the ways), kept by set_tag, the only writer of tags_ after construction. Equal tags
    // have equal bytes, so a way whose byte differs from a line's cannot hold it; the converse is not needed.
    static constexpr std::uint32_t max_signed_ways = 8;
    static std::uint64_t broadcast(std::uint64_t byte) { return byte * 0x0101010101010101ULL; }
    // 0x80 in each byte of x that is zero, 0 in the others (exact: the additions carry within each byte only).
    static std::uint64_t zero_bytes(std::uint64_t x) {
        constexpr std::uint64_t low7 = 0x7F7F7F7F7F7F7F7FULL;
        return ~(((x & low7) + low7) | x | low7);
    }
    void set_tag(std::uint32_t set, std::uint32_t way, std::uint64_t line) {
        tags_[index(set, way)] = line;
        if (geometry_.ways > max_signed_ways) return;
        const unsigned shift = 8 * way;
        signatures_[set] = (signatures_[set] & ~(std::uint64_t{0xFF} << shift)) | tag_byte(line) << shift;
    }

    CacheGeometry geometry_;
    std::vector<std::uint64_t> tags_; // a valid or reserved way's line; no_line in an invalid way
    std::vector<LineState> state_;
    std::vector<std::uint8_t> dirty_;
    std::vector<std::uint64_t> stamp_;
    std::uint64_t clock_ = 0;
    std::vector<std::uint64_t> set_version_; // per set: see set_version()
    std::vector<std::uint64_t> signatures_; // per set, when it has at most max_signed_ways ways (set_tag)
    std::uint64_t signed_ways_ = 0; // 0x80 in the byte of each way, for zero_bytes' result
    // probe()'s last answer, valid while its set's version is last_set_version_.
    mutable std::uint64_t last_line_ = no_line;
    mutable std::uint64_t last_set_version_ = 0;
    mutable Probe last_probe_{};
};

} // namespace gpuarch::mem
