#pragma once
// CoalescingRF<Banks, Sub4, Layout, Alignment, Collectors, Gating, Coalescing>: a sub-banked register file with
// operand collectors, after Radaideh 2020 Chapter 3 ("CARF", the coalescing-aware register file) and Chapter 4
// (zero and inactive-lane gating of register accesses).
//
// Organisation (Radaideh 2020 Sec. 3.6.1, Table 3.5 defaults): `Banks` banks of 128-byte entries (a warp register
// of 32 lanes x 4 bytes; W x 4 bytes for a W-lane warp), each bank made of four byte-sliced sub-banks (Sub4) that
// hold the register thread-interleaved (sub-bank k = byte k of every lane, Sec. 3.6.2.2); `Collectors` operand
// collectors, each with a write port of four 32-byte slices; four narrow crossbars, sub-bank k feeding slice k of
// every collector (Sec. 3.6.2.6).
//
// Per register the file keeps what the hardware keeps in its mask buffer, computed from the real values of the
// PTX execution (RegisterWrite::values): the width (2-bit code + sign bit, regfile/width_detector.hpp), the
// alignment under `wr` alignment, and the Chapter 4 zero masks and R-bits (regfile/zero_gating.hpp).
//
// Timing contract (the same as BankedRF's, so the two compare cycle for cycle): an instruction accepted into a
// free collector in cycle t requests its source registers from cycle t+1; each cycle the RfArbiter grants writes
// (execution before memory) and then reads by its wrapped wavefront (regfile/rf_arbiter.hpp); a collector whose
// last operand was granted in cycle u is offered for dispatch from cycle u+1, oldest accepted first; a write
// completes in the cycle its last word is granted. Gating never changes timing.
//
// Registers. A PTX register is one warp register (one entry); a 64-bit register is a register pair, as SASS
// allocates 64-bit values: its low word is register r, its high word sits where register r+1 would (layout and
// alignment of r+1) and has its own width. A source read is one request per word. The file learns that a register
// is 64-bit from the writes to it (RegisterWrite::value_bytes).
// Only the first destination of an instruction carries values (RegisterWrite::values); the other destinations of
// a multi-destination write (vector loads) are stored as unknown: full width, no zero lanes. Registers start
// cleared (all lanes 0) the first time a warp slot touches them; a slot reused by a later warp keeps the old
// contents, as hardware does.
//
// Statistics (visit_stats; docs/register_file.md maps them to the thesis's figures): logical and physical bank
// accesses, collector writes, coalesced pairs by kind, conflicts by type, operand width and operand count
// histograms, thread-register reads/writes gated by cause, bytes moved through banks, crossbar and collectors.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/regfile/rf_arbiter.hpp>
#include <gpuarch/regfile/width_detector.hpp>
#include <gpuarch/regfile/zero_gating.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::regfile {

// Four independently controlled byte-sliced sub-banks per bank (Radaideh 2020 Sec. 3.6.1, Fig. 3.11b). The
// thread-interleaved format needs exactly one sub-bank per byte of a 32-bit lane.
struct Sub4 {
    static constexpr std::string_view name = "Sub4";
    static constexpr unsigned count = 4;
};

// Register-to-bank layouts (Radaideh 2020 Sec. 3.6.2.1, Fig. 3.10); the modulo by the bank count is implied.
struct WidLayout {
    static constexpr std::string_view name = "wid";
    static constexpr unsigned bank(unsigned warp, unsigned, unsigned banks) { return warp % banks; }
};
struct WshiftLayout {
    static constexpr std::string_view name = "wshift";
    static constexpr unsigned bank(unsigned warp, unsigned reg, unsigned banks) { return (warp + reg) % banks; }
};

// Register alignment schemes (Radaideh 2020 Sec. 3.7.1).
enum class AlignmentKind : std::uint8_t { fixed_parity, write_interleaved, ideal, upper_bound };
// reg_alignment: even registers right-aligned, odd registers left-aligned (the primary setting). The parity is
// the register number's (the thesis says both "register number" and "register entry number"; here an entry is
// a register, so they agree).
struct RegAlignment {
    static constexpr std::string_view name = "reg";
    static constexpr AlignmentKind kind = AlignmentKind::fixed_parity;
    static constexpr Packing packing = Packing::disjoint_masks;
};
// wr_alignment: "register alignment switches between right and left alignment on every write made by the warp";
// each register remembers the alignment it was written with (one more bit per register).
struct WrAlignment {
    static constexpr std::string_view name = "wr";
    static constexpr AlignmentKind kind = AlignmentKind::write_interleaved;
    static constexpr Packing packing = Packing::disjoint_masks;
};
// ideal_alignment: requests "do not conflict due to their left/right alignment but ... their combined size should
// be no more than a full register width".
struct IdealAlignment {
    static constexpr std::string_view name = "ideal";
    static constexpr AlignmentKind kind = AlignmentKind::ideal;
    static constexpr Packing packing = Packing::total_bytes;
};
// upper_bound: requests "are all coalescable regardless of their alignment within the banks and the size".
struct UpperBoundAlignment {
    static constexpr std::string_view name = "upper_bound";
    static constexpr AlignmentKind kind = AlignmentKind::upper_bound;
    static constexpr Packing packing = Packing::unlimited;
};

// What may coalesce (regfile/rf_arbiter.hpp describes each mode).
enum class WidthRule : std::uint8_t { sign_bit, sign_in_data };
struct CarfCoalescing {
    static constexpr std::string_view name = "CARF";
    static constexpr CoalescingMode mode = CoalescingMode::carf;
    static constexpr WidthRule width = WidthRule::sign_bit;
};
// CORF/CORF++ as a comparator: same-instruction, same-bank read pairs only; its compile-time packing and
// alignment hints are not modelled, so any two such reads that fit in one register width coalesce (an optimistic
// CORF++). Widths carry their sign in the data (no sign bit, Sec. 3.6.2.8).
struct CorfCoalescing {
    static constexpr std::string_view name = "CORF";
    static constexpr CoalescingMode mode = CoalescingMode::corf;
    static constexpr WidthRule width = WidthRule::sign_in_data;
};
// The baseline of both chapters: single-ported banks, one operand per collector per cycle, full 128B accesses.
struct NoCoalescing {
    static constexpr std::string_view name = "WWFA";
    static constexpr CoalescingMode mode = CoalescingMode::none;
    static constexpr WidthRule width = WidthRule::sign_bit; // widths are still measured (Fig. 3.3 statistics)
};

namespace detail {
struct RfName {
    std::array<char, 96> text{};
    std::size_t size = 0;
    constexpr void add(std::string_view s) {
        for (char c : s) text[size++] = c;
    }
    constexpr void add(unsigned n) {
        char digits[10]{};
        int k = 0;
        do {
            digits[k++] = static_cast<char>('0' + n % 10);
            n /= 10;
        } while (n != 0);
        while (k > 0) text[size++] = digits[--k];
    }
    constexpr std::string_view view() const { return {text.data(), size}; }
};
template <class Coalescing, class Layout, class Alignment, class Gating>
constexpr RfName make_rf_name(unsigned banks, unsigned collectors) {
    RfName n;
    n.add(Coalescing::name);
    n.add("<");
    n.add(banks);
    if (collectors != banks) {
        n.add(",");
        n.add(collectors);
        n.add("oc");
    }
    n.add(",");
    n.add(Layout::name);
    if (Coalescing::mode == CoalescingMode::carf) {
        n.add(",");
        n.add(Alignment::name);
    }
    if (Gating::level != GatingLevel::none) {
        n.add(",");
        n.add(Gating::name);
    }
    n.add(">");
    return n;
}
} // namespace detail

template <unsigned Banks = 4, class SubBanks = Sub4, class Layout = WshiftLayout, class Alignment = RegAlignment,
          unsigned Collectors = 4, class Gating = NoGating, class Coalescing = CarfCoalescing>
class CoalescingRF {
    static_assert(Banks > 0, "a CoalescingRF needs at least one bank");
    static_assert(Collectors > 0, "a CoalescingRF needs at least one operand collector");
    static_assert(SubBanks::count == lane_bytes,
                  "the thread-interleaved format needs one sub-bank per byte of a 32-bit lane (Sub4)");
    static constexpr unsigned max_words = 24; // 12 distinct sources (OperandRead), each possibly a register pair

public:
    static constexpr detail::RfName name_text =
        detail::make_rf_name<Coalescing, Layout, Alignment, Gating>(Banks, Collectors);
    static constexpr std::string_view name = name_text.view();
    static constexpr unsigned banks = Banks;
    static constexpr unsigned collectors = Collectors;
    static constexpr unsigned sub_banks = SubBanks::count;
    static constexpr CoalescingMode mode = Coalescing::mode;
    static constexpr GatingLevel gating = Gating::level;
    // Radaideh 2020 Sec. 3.6.1: "Each bank has 256 entries and each entry is 128B wide".
    static constexpr unsigned entries_per_bank = 256;
    static constexpr std::size_t mask_buffer_bytes = regfile::mask_buffer_bytes(Banks, entries_per_bank);

    explicit CoalescingRF(const timing::RegisterFileConfig& config)
        : width_(config.warp_width), groups_(config.warp_width / cross_lane_group), warps_(config.warp_slots),
          toggles_(config.warp_slots, 0),
          arbiter_(ArbiterConfig{Banks, Collectors, Coalescing::mode,
                                 Coalescing::mode == CoalescingMode::corf ? Packing::total_bytes : Alignment::packing}),
          bank_grants_(Banks), collector_grants_(Collectors) {
        if (config.warp_width == 0 || config.warp_width % cross_lane_group != 0 ||
            config.warp_width > core::max_warp_lanes)
            throw Error("a CoalescingRF needs a warp width that is a positive multiple of 4 lanes, up to " +
                        std::to_string(core::max_warp_lanes));
    }

    bool can_accept(const timing::OperandRead&) const {
        for (const auto& c : collectors_)
            if (!c.busy) return true;
        return false;
    }

    void accept(const timing::OperandRead& read, core::Cycle now) {
        for (auto& c : collectors_) {
            if (c.busy) continue;
            c.busy = true;
            c.token = read.token;
            c.accepted = now;
            c.last_read = now;
            c.pending = 0;
            c.count = 0;
            for (unsigned k = 0; k < read.source_count; ++k) {
                const ir::RegId reg = read.sources[k];
                const bool wide = word_state(read.warp, reg, 0).wide;
                for (unsigned hi = 0; hi < (wide ? 2U : 1U); ++hi) {
                    if (c.count >= max_words)
                        throw Error(
                            "an instruction reads more than 24 register words; CoalescingRF collectors hold 24");
                    const WordState& s = word_state(read.warp, reg, hi);
                    ReadWord& word = c.words[c.count];
                    word.bank = static_cast<std::uint16_t>(Layout::bank(read.warp, reg + hi, Banks));
                    word.side = side_for_read(s, reg + hi);
                    word.mask = access_mask(s.width.bytes, word.side);
                    word.tally = tally_access(read.warp, word_index(reg, hi), read.active, cell_mask(word.mask));
                    src_width_.add(s.width.bytes);
                    c.pending |= 1U << c.count;
                    ++c.count;
                }
            }
            operand_reads_ += read.source_count;
            logical_reads_ += c.count;
            if (uses_mask_buffer()) mask_buffer_reads_ += c.count;
            operand_count_.add(read.source_count);
            return;
        }
        throw Error("CoalescingRF::accept called with every operand collector busy (check can_accept first)");
    }

    void cycle(core::Cycle now) {
        now_ = now;
        requests_.clear();
        sources_.clear();
        for (std::size_t i = 0; i < writes_.size(); ++i) {
            const WriteWord& w = writes_[i];
            requests_.push_back(
                RfRequest{w.from_memory ? RequestKind::mem_write : RequestKind::ex_write, w.bank, 0, w.side, w.mask});
            sources_.push_back(Source{static_cast<std::uint32_t>(i), 0, true});
        }
        for (unsigned ci = 0; ci < Collectors; ++ci) {
            const Collector& c = collectors_[ci];
            if (!c.busy || c.accepted >= now) continue;
            for (unsigned k = 0; k < c.count; ++k) {
                if (((c.pending >> k) & 1U) == 0) continue;
                const ReadWord& word = c.words[k];
                requests_.push_back(
                    RfRequest{RequestKind::read, word.bank, static_cast<std::uint16_t>(ci), word.side, word.mask});
                sources_.push_back(Source{ci, k, false});
            }
        }
        conflicted_ = false;
        if (requests_.empty()) {
            arbiter_.arbitrate(requests_, outcomes_);
            return;
        }
        outcomes_.assign(requests_.size(), Outcome::granted);
        arbiter_.arbitrate(requests_, outcomes_);

        for (auto& b : bank_grants_) b = BankGrants{};
        for (auto& c : collector_grants_) c = CollectorGrants{};
        bool any_write_granted = false;
        for (std::size_t i = 0; i < requests_.size(); ++i) {
            const RfRequest& r = requests_[i];
            const Source& src = sources_[i];
            switch (outcomes_[i]) {
            case Outcome::granted: break;
            case Outcome::lost_write_write: ++conflict_write_write_; continue;
            case Outcome::lost_read_write:
                ++conflict_read_write_;
                conflicted_ = true;
                continue;
            case Outcome::lost_read_read:
                ++conflict_read_read_;
                conflicted_ = true;
                continue;
            case Outcome::lost_collector_port:
                ++conflict_collector_port_;
                conflicted_ = true;
                continue;
            }
            BankGrants& bg = bank_grants_[r.bank];
            // Sub-banks activated and slices carried. CORF's sub-banks are not controlled separately: a bank access
            // reads the whole row, and the second read of a coalesced pair comes with it (corf.hpp).
            unsigned bytes = core::count_bits(static_cast<unsigned>(r.mask));
            if constexpr (Coalescing::mode == CoalescingMode::corf) bytes = bg.count == 0 ? lane_bytes : 0;
            sub_bank_accesses_ += bytes;
            ++bg.count;
            if (src.is_write) {
                ++bg.writes;
                WriteWord& w = writes_[src.index];
                add_tally(w.tally, bank_bytes_written_, thread_writes_);
                ++granted_writes_;
                w.done = true;
                any_write_granted = true;
                if (--records_[w.record].remaining == 0) {
                    written_.push_back(records_[w.record].token);
                    free_records_.push_back(w.record);
                }
            } else {
                ++bg.reads;
                if (bg.reads == 1) bg.first_collector = src.index;
                else if (bg.first_collector == src.index) ++coalesced_rd_rd_same_instruction_;
                Collector& c = collectors_[src.index];
                c.pending &= ~(1U << src.word);
                c.last_read = now;
                GatingTally tally = c.words[src.word].tally;
                if (Coalescing::mode == CoalescingMode::corf && bytes == 0) tally.bytes = 0;
                add_tally(tally, bank_bytes_read_, thread_reads_);
                ++granted_reads_;
                crossbar_bytes_ += std::uint64_t{bytes} * width_;
                CollectorGrants& cg = collector_grants_[src.index];
                if (cg.count == 0) cg.first_bank = r.bank;
                else if (cg.first_bank != r.bank) cg.cross_bank = true;
                ++cg.count;
            }
        }
        for (const BankGrants& bg : bank_grants_) {
            if (bg.count == 0) continue;
            ++physical_bank_accesses_;
            if (bg.count < 2) continue;
            if (bg.writes == 2) ++coalesced_wr_wr_;
            else if (bg.reads == 2) ++coalesced_rd_rd_;
            else ++coalesced_rd_wr_;
        }
        for (const CollectorGrants& cg : collector_grants_) {
            if (cg.count == 0) continue;
            ++collector_writes_;
            if (cg.cross_bank) ++coalesced_cross_bank_;
        }
        if (any_write_granted)
            writes_.erase(std::remove_if(writes_.begin(), writes_.end(), [](const WriteWord& w) { return w.done; }),
                          writes_.end());
    }

    template <class TryDispatch> void dispatch_ready(TryDispatch&& try_dispatch) {
        // Oldest accepted first, so dispatch order is deterministic and fair (as BankedRF).
        while (true) {
            Collector* best = nullptr;
            for (auto& c : collectors_)
                if (c.busy && c.offered_at != now_ && c.pending == 0 && c.last_read < now_ &&
                    (best == nullptr || c.accepted < best->accepted ||
                     (c.accepted == best->accepted && c.token < best->token)))
                    best = &c;
            if (best == nullptr) break;
            best->offered_at = now_;
            if (try_dispatch(best->token)) best->busy = false;
        }
    }

    void write(const timing::RegisterWrite& w, core::Cycle) {
        register_writes_ += w.dest_count;
        if (w.dest_count == 0) {
            written_.push_back(w.token);
            return;
        }
        const bool wide = w.value_bytes > 4;
        std::uint32_t record = 0;
        if (free_records_.empty()) {
            record = static_cast<std::uint32_t>(records_.size());
            records_.push_back({});
        } else {
            record = free_records_.back();
            free_records_.pop_back();
        }
        records_[record] = WriteRecord{w.token, 0};
        for (unsigned k = 0; k < w.dest_count; ++k) {
            const ir::RegId reg = w.dests[k];
            const std::uint64_t* values = k == 0 ? w.values : nullptr;
            word_state(w.warp, reg, 0).wide = wide;
            for (unsigned hi = 0; hi < (wide ? 2U : 1U); ++hi) {
                WriteWord word;
                word.record = record;
                word.from_memory = w.from_memory;
                word.bank = static_cast<std::uint16_t>(Layout::bank(w.warp, reg + hi, Banks));
                const std::uint32_t index = word_index(reg, hi);
                word_state(w.warp, reg, hi); // make room for the word
                update_word(w.warp, index, w.active, values, hi);
                WordState& s = warps_[w.warp].words[index];
                s.side = side_for_write(w.warp, reg + hi);
                word.side = s.side;
                word.mask = access_mask(s.width.bytes, word.side);
                word.tally = tally_access(w.warp, index, w.active, cell_mask(word.mask));
                dst_width_.add(s.width.bytes);
                if (values == nullptr) ++width_unknown_writes_;
                writes_.push_back(word);
                ++records_[record].remaining;
                ++logical_writes_;
                if (uses_mask_buffer()) ++mask_buffer_writes_;
            }
        }
    }

    template <class Done> void drain_written(Done&& done) {
        for (auto token : written_) done(token);
        written_.clear();
    }

    // The SM reports `bank_conflict` as the issue outcome when no collector was free and a read lost last cycle.
    bool conflicted_last_cycle() const { return conflicted_; }

    template <class V> void visit_stats(V& v) const {
        v.counter("operand_reads", operand_reads_, "register operands read (distinct PTX registers per instruction)");
        v.counter("register_writes", register_writes_, "destination registers written");
        v.counter("logical_reads", logical_reads_, "warp-register read requests (a 64-bit register is two)");
        v.counter("logical_writes", logical_writes_, "warp-register write requests (a 64-bit register is two)");
        v.counter("granted_reads", granted_reads_, "read requests served by a bank");
        v.counter("granted_writes", granted_writes_, "write requests served by a bank");
        v.counter("physical_bank_accesses", physical_bank_accesses_,
                  "bank access cycles (a coalesced pair of requests is one access)");
        v.counter("sub_bank_accesses", sub_bank_accesses_, "32-byte sub-bank activations (popcount of served masks)");
        v.counter("collector_writes", collector_writes_,
                  "operand-collector write-port cycles (coalesced reads into one collector are one write)");
        v.counter("coalesced.rd_rd", coalesced_rd_rd_, "bank accesses serving two reads");
        v.counter("coalesced.rd_rd_same_instruction", coalesced_rd_rd_same_instruction_,
                  "of which both reads belong to one warp instruction");
        v.counter("coalesced.wr_wr", coalesced_wr_wr_, "bank accesses serving two writes");
        v.counter("coalesced.rd_wr", coalesced_rd_wr_, "bank accesses serving a read and a write");
        v.counter("coalesced.cross_bank", coalesced_cross_bank_, "collector writes merging reads from two banks");
        v.counter("conflict.write_write", conflict_write_write_,
                  "write requests that lost their bank to a write, per cycle");
        v.counter("conflict.read_write", conflict_read_write_,
                  "read requests that lost their bank to a write, per cycle");
        v.counter("conflict.read_read", conflict_read_read_, "read requests that lost their bank to a read, per cycle");
        v.counter("conflict.collector_port", conflict_collector_port_,
                  "read requests that lost their collector's write port, per cycle");
        v.counter("bank_conflict_cycles", conflict_read_write_ + conflict_read_read_ + conflict_collector_port_,
                  "read requests that lost arbitration for a cycle (any cause)");
        v.histogram("src_width_bytes", src_width_.buckets(),
                    "source register words by width in bytes (bucket k = k bytes)");
        v.histogram("dst_width_bytes", dst_width_.buckets(), "destination register words by width in bytes");
        v.counter("width_unknown_writes", width_unknown_writes_,
                  "destination words written without values (counted full width)");
        v.histogram("src_operands", operand_count_.buckets(),
                    "instructions by register source operands (bucket k = k sources; the last bucket: k or more)");
        v.counter("bank_bytes_read", bank_bytes_read_, "bytes read from bank cells (after width and gating)");
        v.counter("bank_bytes_written", bank_bytes_written_, "bytes written to bank cells (after width and gating)");
        v.counter("crossbar_bytes", crossbar_bytes_, "bytes carried by the bank-to-collector crossbars");
        v.counter("collector_bytes", crossbar_bytes_, "bytes written into operand collectors");
        v.counter("mask_buffer_reads", mask_buffer_reads_, "width/zero mask-buffer reads (one per read request)");
        v.counter("mask_buffer_writes", mask_buffer_writes_, "width/zero mask-buffer writes (one per write request)");
        v.counter("thread_reads", thread_reads_.words, "4-byte thread-register words covered by served reads");
        v.counter("thread_reads_gated.inactive", thread_reads_.gated_inactive, "of which gated: inactive lane");
        v.counter("thread_reads_gated.in_lane_zero", thread_reads_.gated_in_lane_zero, "of which gated: 32-bit zero");
        v.counter("thread_reads_gated.cross_lane_zero", thread_reads_.gated_cross_lane_zero,
                  "of which gated: zero byte plane of a reordered 4-lane group");
        v.counter("thread_writes", thread_writes_.words, "4-byte thread-register words covered by served writes");
        v.counter("thread_writes_gated.inactive", thread_writes_.gated_inactive, "of which gated: inactive lane");
        v.counter("thread_writes_gated.in_lane_zero", thread_writes_.gated_in_lane_zero, "of which gated: 32-bit zero");
        v.counter("thread_writes_gated.cross_lane_zero", thread_writes_.gated_cross_lane_zero,
                  "of which gated: zero byte plane of a reordered 4-lane group");
        v.counter("groups_written", groups_written_, "4-lane groups written");
        v.counter("groups_written_reordered", groups_reordered_, "of which stored byte-reordered (R-bit set)");
    }

    std::uint64_t bank_conflict_cycles() const {
        return conflict_read_write_ + conflict_read_read_ + conflict_collector_port_;
    }
    const RfArbiter& arbiter() const { return arbiter_; }
    // The mask-buffer state of a register word (hi = 1: the high word of a 64-bit register), for tests.
    WidthInfo register_width(unsigned warp, ir::RegId reg, unsigned hi = 0) { return word_state(warp, reg, hi).width; }
    GroupForm group_form(unsigned warp, ir::RegId reg, unsigned group, unsigned hi = 0) {
        word_state(warp, reg, hi);
        return warps_[warp].forms[std::size_t(word_index(reg, hi)) * groups_ + group];
    }

private:
    struct WordState {
        bool wide = false; // low word only: the register is 64-bit
        bool all_known = true; // every lane's value is known (else: full width, no zero lanes)
        WidthInfo width{1, false}; // a cleared register is 1 byte wide
        Side side = Side::right; // wr alignment: the alignment it was written with
    };
    struct WarpRegisters {
        std::vector<WordState> words;
        std::vector<std::uint32_t> values; // words x width
        std::vector<std::uint8_t> known; // words x width
        std::vector<GroupForm> forms; // words x groups
    };
    struct ReadWord {
        std::uint16_t bank = 0;
        Side side = Side::right;
        std::uint8_t mask = 0xF;
        GatingTally tally;
    };
    struct Collector {
        bool busy = false;
        std::uint64_t token = 0;
        core::Cycle accepted = 0, last_read = 0, offered_at = ~core::Cycle{0};
        std::uint32_t pending = 0;
        unsigned count = 0;
        std::array<ReadWord, max_words> words{};
    };
    struct WriteWord {
        std::uint32_t record = 0;
        std::uint16_t bank = 0;
        Side side = Side::right;
        std::uint8_t mask = 0xF;
        bool from_memory = false;
        bool done = false;
        GatingTally tally;
    };
    struct WriteRecord {
        std::uint64_t token = 0;
        unsigned remaining = 0;
    };
    struct Source {
        std::uint32_t index; // write: index into writes_; read: collector
        std::uint32_t word;
        bool is_write;
    };
    struct BankGrants {
        unsigned count = 0, reads = 0, writes = 0;
        std::uint32_t first_collector = 0;
    };
    struct CollectorGrants {
        unsigned count = 0;
        unsigned first_bank = 0;
        bool cross_bank = false;
    };
    struct GatingTotals {
        std::uint64_t words = 0, gated_inactive = 0, gated_in_lane_zero = 0, gated_cross_lane_zero = 0;
    };

    static constexpr std::uint32_t word_index(ir::RegId reg, unsigned hi) { return reg * 2U + hi; }
    static constexpr bool uses_mask_buffer() {
        return Coalescing::mode != CoalescingMode::none || Gating::level >= GatingLevel::in_lane_zero;
    }

    WordState& word_state(unsigned warp, ir::RegId reg, unsigned hi) {
        if (warp >= warps_.size()) throw Error("CoalescingRF: warp slot " + std::to_string(warp) + " is out of range");
        WarpRegisters& w = warps_[warp];
        const std::size_t index = word_index(reg, hi);
        if (index >= w.words.size()) {
            const std::size_t n = std::max<std::size_t>(index + 1, w.words.size() * 2);
            w.words.resize(n);
            w.values.resize(n * width_, 0);
            w.known.resize(n * width_, 1);
            w.forms.resize(n * groups_, GroupForm{false, 0xF, 0});
        }
        return w.words[index];
    }

    Side side_for_read(const WordState& s, unsigned reg_number) const {
        if constexpr (Alignment::kind == AlignmentKind::write_interleaved) return s.side;
        else return parity_side(reg_number);
    }
    Side side_for_write(unsigned warp, unsigned reg_number) {
        if constexpr (Alignment::kind == AlignmentKind::write_interleaved) {
            const Side s = toggles_[warp] ? Side::left : Side::right;
            toggles_[warp] ^= 1U;
            return s;
        } else {
            return parity_side(reg_number);
        }
    }
    static Side parity_side(unsigned reg_number) {
        if constexpr (Alignment::kind == AlignmentKind::fixed_parity)
            return (reg_number & 1U) ? Side::left : Side::right;
        else return Side::right; // ideal / upper bound: placement is not modelled, only sizes
    }
    static std::uint8_t access_mask(unsigned bytes, Side side) {
        if constexpr (Coalescing::mode == CoalescingMode::none) return 0xF;
        else return side == Side::left ? left_aligned_mask(bytes) : right_aligned_mask(bytes);
    }

    // The sub-banks whose cells an access touches: its mask, except in CORF, whose rows are read whole.
    static std::uint8_t cell_mask(std::uint8_t mask) {
        if constexpr (Coalescing::mode == CoalescingMode::corf) return 0xF;
        else return mask;
    }

    // Merges a write's lanes into the stored word and recomputes its width and group forms.
    void update_word(unsigned warp, std::uint32_t index, const core::WarpMask& active, const std::uint64_t* values,
                     unsigned hi) {
        WarpRegisters& w = warps_[warp];
        const std::size_t base = std::size_t(index) * width_;
        for (std::size_t lane = active.find_first(); lane < width_; lane = active.find_next(lane)) {
            if (values != nullptr) {
                w.values[base + lane] = static_cast<std::uint32_t>(values[lane] >> (32 * hi));
                w.known[base + lane] = 1;
            } else {
                w.known[base + lane] = 0;
            }
        }
        WordState& s = w.words[index];
        s.all_known = std::all_of(w.known.begin() + static_cast<std::ptrdiff_t>(base),
                                  w.known.begin() + static_cast<std::ptrdiff_t>(base + width_),
                                  [](std::uint8_t k) { return k != 0; });
        const std::span<const std::uint32_t> lanes(w.values.data() + base, width_);
        if (!s.all_known) s.width = WidthInfo{4, false};
        else if constexpr (Coalescing::width == WidthRule::sign_in_data) s.width = detect_width_sign_in_data(lanes);
        else s.width = detect_width(lanes);
        if constexpr (Gating::level >= GatingLevel::in_lane_zero) {
            for (unsigned g = 0; g < groups_; ++g) {
                const std::uint8_t a = group_bits(active, g);
                if (a == 0) continue;
                const std::size_t lane0 = base + std::size_t(g) * cross_lane_group;
                GroupForm& form = w.forms[std::size_t(index) * groups_ + g];
                const bool group_known =
                    w.known[lane0] && w.known[lane0 + 1] && w.known[lane0 + 2] && w.known[lane0 + 3];
                if (group_known) {
                    const bool may_reorder = Gating::level == GatingLevel::cross_lane_zero && a == 0xF;
                    form = choose_group_form(
                        std::span<const std::uint32_t, cross_lane_group>(w.values.data() + lane0, cross_lane_group),
                        may_reorder);
                } else {
                    form = GroupForm{};
                    for (unsigned i = 0; i < cross_lane_group; ++i)
                        if (w.known[lane0 + i] && w.values[lane0 + i] == 0)
                            form.zero_lanes |= static_cast<std::uint8_t>(1U << i);
                }
                ++groups_written_;
                if (form.reordered) ++groups_reordered_;
            }
        }
    }

    GatingTally tally_access(unsigned warp, std::uint32_t index, const core::WarpMask& active,
                             std::uint8_t mask) const {
        GatingTally t;
        const WarpRegisters& w = warps_[warp];
        for (unsigned g = 0; g < groups_; ++g)
            tally_group(t, Gating::level, w.forms[std::size_t(index) * groups_ + g], group_bits(active, g), mask);
        return t;
    }
    static std::uint8_t group_bits(const core::WarpMask& active, unsigned g) {
        const std::size_t lane = std::size_t(g) * cross_lane_group;
        return static_cast<std::uint8_t>((active.word(lane / 64) >> (lane % 64)) & 0xFU);
    }
    static void add_tally(const GatingTally& t, std::uint64_t& bytes, GatingTotals& totals) {
        bytes += t.bytes;
        totals.words += t.words;
        totals.gated_inactive += t.gated_inactive;
        totals.gated_in_lane_zero += t.gated_in_lane_zero;
        totals.gated_cross_lane_zero += t.gated_cross_lane_zero;
    }

    unsigned width_;
    unsigned groups_;
    std::vector<WarpRegisters> warps_;
    std::vector<std::uint8_t> toggles_;
    RfArbiter arbiter_;
    std::array<Collector, Collectors> collectors_{};
    std::vector<WriteWord> writes_;
    std::vector<WriteRecord> records_;
    std::vector<std::uint32_t> free_records_;
    std::vector<std::uint64_t> written_;
    std::vector<RfRequest> requests_;
    std::vector<Source> sources_;
    std::vector<Outcome> outcomes_;
    std::vector<BankGrants> bank_grants_;
    std::vector<CollectorGrants> collector_grants_;
    core::Cycle now_ = 0;
    bool conflicted_ = false;

    std::uint64_t operand_reads_ = 0, register_writes_ = 0, logical_reads_ = 0, logical_writes_ = 0;
    std::uint64_t granted_reads_ = 0, granted_writes_ = 0, physical_bank_accesses_ = 0, sub_bank_accesses_ = 0;
    std::uint64_t collector_writes_ = 0;
    std::uint64_t coalesced_rd_rd_ = 0, coalesced_rd_rd_same_instruction_ = 0, coalesced_wr_wr_ = 0,
                  coalesced_rd_wr_ = 0;
    std::uint64_t coalesced_cross_bank_ = 0;
    std::uint64_t conflict_write_write_ = 0, conflict_read_write_ = 0, conflict_read_read_ = 0,
                  conflict_collector_port_ = 0;
    std::uint64_t width_unknown_writes_ = 0;
    std::uint64_t bank_bytes_read_ = 0, bank_bytes_written_ = 0, crossbar_bytes_ = 0;
    std::uint64_t mask_buffer_reads_ = 0, mask_buffer_writes_ = 0;
    std::uint64_t groups_written_ = 0, groups_reordered_ = 0;
    GatingTotals thread_reads_, thread_writes_;
    core::Histogram src_width_{lane_bytes + 1}, dst_width_{lane_bytes + 1}, operand_count_{5};
};

// The baseline register file of both chapters (single-ported banks, WWFA arbiter, full-width accesses), with the
// same statistics as CoalescingRF so reductions are measured against it.
template <unsigned Banks = 4, unsigned Collectors = 4, class Layout = WshiftLayout, class Gating = NoGating>
using WwfaRF = CoalescingRF<Banks, Sub4, Layout, RegAlignment, Collectors, Gating, NoCoalescing>;

} // namespace gpuarch::regfile
