#pragma once
// Result Collection Unit (Gong 2020, Sec. 5.3.3, Fig. 5.6): the per-warp result buffer of the hint-assisted
// warp scheduler. Every instruction HAWS issues out of order gets an entry; entries are kept in increasing
// offset (distance from the stall point) so that the in-order return path compares only the head.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuarch::sched {

// One RCU entry. Field widths are the thesis's: offset 9, dst 8, renamed 8, ready 1, control 1, valid 1 = 28 bits.
struct RcuEntry {
    static constexpr unsigned offset_bits = 9; // Gong 2020 Sec. 5.3.3
    static constexpr unsigned register_bits = 8; // dst and renamed fields
    static constexpr unsigned bits = offset_bits + 2 * register_bits + 3;

    // The hardware fields are register_bits wide; the model keeps full register numbers, because a PTX kernel may use
    // more than 256 virtual registers and a truncated number would alias two registers in the RAW check.
    std::uint16_t offset = 0; // distance from the stall point, in instructions
    std::uint32_t dst = 0; // original destination register number
    std::uint32_t renamed = 0; // register holding the result (== dst when not renamed)
    bool ready = false; // the result has been written
    bool control = false; // the instruction is a branch
    bool valid = false;
};
static_assert(RcuEntry::bits == 28, "Gong 2020 Sec. 5.3.3: an RCU entry is 28 bits");

// RCU<Depth>: Depth entries per warp (Gong 2020 Sec. 5.3.3: "We set the depth of the RCU to 8").
template <unsigned Depth> class RCU {
    static_assert(Depth > 0, "an RCU needs at least one entry (Gong 2020 uses 8)");
    static_assert(Depth <= 64, "an RCU deeper than 64 entries exceeds what a 9-bit offset window can use");

public:
    static constexpr unsigned depth = Depth;
    static constexpr std::string_view name = "RCU";
    // Storage per warp in bits (Gong 2020 Sec. 5.5: 8 entries x 28 bits).
    static constexpr unsigned storage_bits = Depth * RcuEntry::bits;

    bool full() const { return size_ == Depth; }
    bool empty() const { return size_ == 0; }
    unsigned size() const { return size_; }

    // Inserts keeping increasing offset order. Returns false, changing nothing, when the RCU is full, the offset
    // does not fit in 9 bits, or an entry with that offset already exists.
    bool insert(std::uint16_t offset, std::uint32_t dst, std::uint32_t renamed, bool control) {
        if (full() || offset >= (1U << RcuEntry::offset_bits)) return false;
        unsigned at = 0;
        while (at < size_ && entries_[at].offset < offset) ++at;
        if (at < size_ && entries_[at].offset == offset) return false;
        for (unsigned i = size_; i > at; --i) entries_[i] = entries_[i - 1];
        entries_[at] = RcuEntry{offset, dst, renamed, false, control, true};
        ++size_;
        return true;
    }
    // Marks the entry for `offset` ready (its result was written back). False when no such entry.
    bool mark_ready(std::uint16_t offset) {
        for (unsigned i = 0; i < size_; ++i)
            if (entries_[i].offset == offset) {
                entries_[i].ready = true;
                return true;
            }
        return false;
    }
    // Sec. 5.3.3: a hint-mode instruction must not read the result of an earlier RCU entry that is not ready yet.
    bool pending_write(std::uint32_t reg) const {
        for (unsigned i = 0; i < size_; ++i)
            if (!entries_[i].ready && entries_[i].renamed == reg) return true;
        return false;
    }
    const RcuEntry* head() const { return size_ == 0 ? nullptr : &entries_[0]; }
    std::optional<RcuEntry> pop_head() {
        if (size_ == 0) return std::nullopt;
        const RcuEntry e = entries_[0];
        for (unsigned i = 1; i < size_; ++i) entries_[i - 1] = entries_[i];
        entries_[--size_] = RcuEntry{};
        return e;
    }
    const RcuEntry& operator[](unsigned i) const { return entries_[i]; }
    void clear() {
        entries_ = {};
        size_ = 0;
    }

private:
    std::array<RcuEntry, Depth> entries_{};
    unsigned size_ = 0;
};

} // namespace gpuarch::sched
