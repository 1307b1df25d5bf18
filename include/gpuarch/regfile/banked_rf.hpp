#pragma once
// BankedRF<Banks, Collectors>: a register file of `Banks` single-ported banks read through `Collectors`
// operand-collector units (the GPGPU-Sim / Fermi organisation; Gebhart et al., ISCA 2011).
//
// Timing contract: an instruction accepted into a free collector in cycle t requests its source registers
// from cycle t+1. Each bank serves one access per cycle, writes before reads; among reads, a matrix arbiter
// (least recently granted collector first) picks the winner. A collector whose last operand was read in
// cycle u is offered for dispatch from cycle u+1. Writes queue per bank and complete when granted.
#include <array>
#include <bit>
#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::regfile {

// Bank of register `reg` of warp `warp`: (warp + register) mod banks, which spreads the same register of
// consecutive warps over different banks (GPGPU-Sim's default mapping).
struct WarpPlusRegisterBanks {
    static constexpr std::string_view name = "warp+reg";
    static constexpr unsigned bank(unsigned warp, ir::RegId reg, unsigned banks) { return (warp + reg) % banks; }
};
// Bank by register number only (every warp's r0 in one bank).
struct RegisterBanks {
    static constexpr std::string_view name = "reg";
    static constexpr unsigned bank(unsigned, ir::RegId reg, unsigned banks) { return reg % banks; }
};

template <unsigned Banks = 4, unsigned Collectors = 4, class BankMap = WarpPlusRegisterBanks> class BankedRF {
    static_assert(Banks > 0, "a BankedRF needs at least one bank");
    static_assert(Collectors > 0, "a BankedRF needs at least one operand collector");
    static_assert(Collectors <= 64, "the matrix arbiter supports at most 64 operand collectors");

public:
    static constexpr std::string_view name = "BankedRF";
    // Bank conflicts depend on register numbers only (timing::IgnoresResultValues).
    static constexpr bool ignores_result_values = true;
    static constexpr unsigned banks = Banks;
    static constexpr unsigned collectors = Collectors;

    explicit BankedRF(const timing::RegisterFileConfig&) {
        // Matrix arbiter: priority_[i] has bit j set when collector i wins over collector j. Start with lower
        // index first.
        for (unsigned i = 0; i < Collectors; ++i)
            for (unsigned j = i + 1; j < Collectors; ++j) priority_[i] |= std::uint64_t{1} << j;
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
            c.pending = 0;
            c.last_read = now;
            c.count = read.source_count;
            for (unsigned k = 0; k < read.source_count; ++k) {
                c.bank[k] = static_cast<std::uint8_t>(BankMap::bank(read.warp, read.sources[k], Banks));
                c.pending |= 1U << k;
            }
            reads_ += read.source_count;
            return;
        }
    }

    void cycle(core::Cycle now) {
        now_ = now;
        std::array<bool, Banks> bank_used{};
        // Writes first, one per bank.
        for (unsigned b = 0; b < Banks; ++b) {
            if (write_queue_[b].empty()) continue;
            bank_used[b] = true;
            const std::uint32_t record = write_queue_[b].front();
            write_queue_[b].pop_front();
            if (--write_records_[record].remaining == 0) {
                written_.push_back(write_records_[record].token);
                free_records_.push_back(record);
            }
        }
        // Reads: for each bank, the highest-priority collector that wants it.
        for (unsigned b = 0; b < Banks; ++b) {
            std::uint64_t requesters = 0;
            for (unsigned i = 0; i < Collectors; ++i) {
                const auto& c = collectors_[i];
                if (!c.busy || c.accepted >= now) continue;
                for (unsigned k = 0; k < c.count; ++k)
                    if ((c.pending >> k) & 1U && c.bank[k] == b) requesters |= std::uint64_t{1} << i;
            }
            if (requesters == 0) continue;
            if (bank_used[b]) {
                conflict_cycles_ += std::uint64_t{core::count_bits(requesters)};
                continue;
            }
            unsigned winner = Collectors;
            for (unsigned i = 0; i < Collectors && winner == Collectors; ++i)
                if ((requesters >> i) & 1U &&
                    (priority_[i] & requesters & ~(std::uint64_t{1} << i)) == (requesters & ~(std::uint64_t{1} << i)))
                    winner = i;
            // Losers this cycle each count a conflict cycle.
            conflict_cycles_ += std::uint64_t{core::count_bits(requesters)} - 1;
            auto& c = collectors_[winner];
            for (unsigned k = 0; k < c.count; ++k)
                if ((c.pending >> k) & 1U && c.bank[k] == b) {
                    c.pending &= ~(1U << k);
                    break;
                }
            c.last_read = now;
            // The winner becomes the lowest priority.
            for (unsigned j = 0; j < Collectors; ++j) {
                if (j == winner) continue;
                priority_[winner] &= ~(std::uint64_t{1} << j);
                priority_[j] |= std::uint64_t{1} << winner;
            }
            bank_used[b] = true;
        }
    }

    template <class TryDispatch> void dispatch_ready(TryDispatch&& try_dispatch) {
        // Oldest accepted first, so dispatch order is deterministic and fair.
        while (true) {
            Collector* best = nullptr;
            for (auto& c : collectors_)
                if (c.busy && !c.offered_this_cycle(now_) && c.pending == 0 && c.last_read < now_ &&
                    (best == nullptr || c.accepted < best->accepted ||
                     (c.accepted == best->accepted && c.token < best->token)))
                    best = &c;
            if (best == nullptr) break;
            best->offered_at = now_;
            if (try_dispatch(best->token)) best->busy = false;
        }
    }

    void write(const timing::RegisterWrite& w, core::Cycle) {
        writes_ += w.dest_count;
        if (w.dest_count == 0) {
            written_.push_back(w.token);
            return;
        }
        std::uint32_t record = 0;
        if (free_records_.empty()) {
            record = static_cast<std::uint32_t>(write_records_.size());
            write_records_.push_back({});
        } else {
            record = free_records_.back();
            free_records_.pop_back();
        }
        write_records_[record] = {w.token, w.dest_count};
        for (unsigned k = 0; k < w.dest_count; ++k)
            write_queue_[BankMap::bank(w.warp, w.dests[k], Banks)].push_back(record);
    }
    template <class Done> void drain_written(Done&& done) {
        for (auto token : written_) done(token);
        written_.clear();
    }

    template <class V> void visit_stats(V& v) const {
        v.counter("operand_reads", reads_, "register operands read");
        v.counter("register_writes", writes_, "destination registers written");
        v.counter("bank_conflict_cycles", conflict_cycles_, "operand-read requests that lost their bank for a cycle");
    }
    std::uint64_t bank_conflict_cycles() const { return conflict_cycles_; }

private:
    struct Collector {
        bool busy = false;
        std::uint64_t token = 0;
        core::Cycle accepted = 0, last_read = 0, offered_at = ~core::Cycle{0};
        std::uint16_t pending = 0;
        unsigned count = 0;
        std::array<std::uint8_t, 12> bank{};
        bool offered_this_cycle(core::Cycle now) const { return offered_at == now; }
    };
    struct WriteRecord {
        std::uint64_t token = 0;
        unsigned remaining = 0; // destination registers not yet written
    };

    std::array<Collector, Collectors> collectors_{};
    std::array<std::uint64_t, Collectors> priority_{};
    std::array<std::deque<std::uint32_t>, Banks> write_queue_{}; // indices into write_records_
    std::vector<WriteRecord> write_records_;
    std::vector<std::uint32_t> free_records_;
    std::vector<std::uint64_t> written_;
    core::Cycle now_ = 0;
    std::uint64_t reads_ = 0, writes_ = 0, conflict_cycles_ = 0;
};

} // namespace gpuarch::regfile
