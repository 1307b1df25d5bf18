#pragma once
// KeplerBankedRF: the GK104 register file as Lai 2013 (Sec. 4.2.3, 4.4.4, Table 4.1) describes it, as a
// RegisterFile policy for the Kepler SM.
//
// Organisation. Every scheduler owns one register-file partition (a warp's registers live in its scheduler's
// partition). A partition has the four banks of ir/kepler_register_banks.hpp (even0, even1, odd0, odd1,
// chosen from the register number by its value mod 8 and its parity; the rule is included from there, not
// restated). Each bank delivers one warp-wide 32-bit register per cycle to that partition's operand collectors.
//
// Why this reproduces Table 4.1 (the derivation is in docs/calibration.md):
//   - Lai's rule: k *distinct* source registers of one instruction in one bank cut its throughput to 1/k.
//     Here they take k cycles of that bank.
//   - The partitions must be per scheduler. If four banks served the whole SMX, a conflict-free FADD stream
//     that reads the same two banks every instruction would run one warp instruction per cycle, 32
//     thread-instructions, where Lai measures 132.
//   - Lai's streams repeat one instruction. A conflict-free stream therefore reads the same banks every
//     instruction and runs one instruction per cycle per scheduler: 4 x 32 = 128 thread-instructions per cycle
//     per SMX. That is Table 1.1's "128?" issue throughput, and it is what Lai measures as a ~132 "issue cap"
//     (every measured row sits ~3 % above its bound; docs/calibration.md discusses the clock). 2-way conflicts
//     give 64 and 3-way conflicts 42.7.
//   - Dual issue, which the SM does, stays possible when a pair's reads fit in the four banks. Lai's FFMA with
//     repeated sources (~178) goes above the cap that way.
//   - Lai's FADD R0, R1, R2 writes even0 and reads even0, and still measures 132.0. So writes do not take a read
//     port. Writes complete in the cycle they are made, as in IdealRF, and the thesis gives no evidence for a
//     write-port limit.
//
// Timing contract:
//   - An instruction accepted into a free collector in cycle t requests its reads from cycle t+1.
//   - In each cycle, every bank of a partition serves one pending read. The oldest collector wins (acceptance
//     order), and each losing request counts one bank-conflict cycle.
//   - A collector is offered for dispatch in the cycle its last read is served, because a bank read and the
//     dispatch share that cycle. An instruction with no register source is offered from t+1. So an instruction
//     with no conflict dispatches at t+1, exactly as with IdealRF, and each extra read in its worst bank delays
//     it by one cycle.
//   - Collectors are freed when the execution side takes the instruction.
//
// Choices where the thesis is silent:
//   - CollectorsPerScheduler (default 4): any value >= 2 gives the Table 4.1 rates within 0.5 %; one collector
//     still reaches the bank bounds but cannot dual-issue.
//   - Oldest-first arbitration.
//   - An ir::RegId counts as one 32-bit register in bank(RegId). PTX virtual registers stand for SASS
//     registers: a calibration kernel declares its registers so that RegId == the intended SASS register number
//     (kernels/calibration/README.md). A 64-bit PTX register is one read, not an aligned pair.
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <gpuarch/core/error.hpp>
// The bank rule itself, a function of register numbers (ir/, below every slot).
#include <gpuarch/ir/kepler_register_banks.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::regfile {

namespace detail {
// "KeplerBankedRF" for the default collector count, "KeplerBankedRF<N>" otherwise.
template <unsigned N, unsigned Default> struct KeplerBankedRFName {
    static constexpr auto storage = [] {
        std::array<char, 32> s{};
        constexpr std::string_view base = "KeplerBankedRF";
        std::size_t n = 0;
        for (char c : base) s[n++] = c;
        if (N != Default) {
            s[n++] = '<';
            char digits[10]{};
            std::size_t d = 0;
            for (unsigned v = N; v > 0; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
            while (d > 0) s[n++] = digits[--d];
            s[n++] = '>';
        }
        s[n] = '\0';
        return s;
    }();
    static constexpr std::string_view value{storage.data()};
};
} // namespace detail

template <unsigned CollectorsPerScheduler = 4> class KeplerBankedRFT {
    static_assert(CollectorsPerScheduler >= 1, "a KeplerBankedRF needs at least one operand collector per scheduler");
    static_assert(CollectorsPerScheduler <= 64, "a KeplerBankedRF supports at most 64 collectors per scheduler");

public:
    static constexpr unsigned banks_per_scheduler = ir::kepler_register_bank_count;
    static constexpr unsigned collectors_per_scheduler = CollectorsPerScheduler;
    static constexpr std::string_view name = detail::KeplerBankedRFName<CollectorsPerScheduler, 4>::value;
    // Bank conflicts depend on register numbers only (timing::IgnoresResultValues).
    static constexpr bool ignores_result_values = true;
    // Conflict degrees counted separately; deeper conflicts share the last bucket.
    static constexpr unsigned degree_buckets = 4;

    explicit KeplerBankedRFT(const timing::RegisterFileConfig& config)
        : partitions_(config.schedulers == 0 ? 1 : config.schedulers) {}

    // Lai 2013's conflict degree of a source-register set: the most distinct registers in one bank (1 when
    // there are no sources). Exposed so tests and tools classify an instruction exactly as the timing does.
    static int conflict_degree(std::span<const ir::RegId> sources) {
        const auto occupancy = bank_occupancy(sources);
        int worst = 1;
        for (int c : occupancy) worst = std::max(worst, c);
        return worst;
    }

    bool can_accept(const timing::OperandRead& read) const {
        for (const Collector& c : partition(read.scheduler).collectors)
            if (!c.busy) return true;
        return false;
    }

    void accept(const timing::OperandRead& read, core::Cycle now) {
        for (Collector& c : partition(read.scheduler).collectors) {
            if (c.busy) continue;
            c.busy = true;
            c.token = read.token;
            c.sequence = next_sequence_++;
            c.accepted = now;
            const auto occupancy = bank_occupancy(std::span<const ir::RegId>(read.sources.data(), read.source_count));
            int worst = 1;
            for (unsigned b = 0; b < banks_per_scheduler; ++b) {
                c.pending[b] = static_cast<std::uint8_t>(occupancy[b]);
                worst = std::max(worst, occupancy[b]);
            }
            ++degree_counts_[static_cast<std::size_t>(std::min<int>(worst, degree_buckets) - 1)];
            reads_ += read.source_count;
            return;
        }
        throw_no_collector();
    }

    // Bank arbitration for cycle `now`: each bank of each partition serves one read, oldest collector first.
    void cycle(core::Cycle now) {
        now_ = now;
        conflicted_ = false;
        for (Partition& p : partitions_) {
            p.conflicted = false;
            for (unsigned b = 0; b < banks_per_scheduler; ++b) {
                Collector* winner = nullptr;
                unsigned requesters = 0;
                for (Collector& c : p.collectors) {
                    if (!c.busy || c.accepted >= now || c.pending[b] == 0) continue;
                    ++requesters;
                    if (winner == nullptr || c.sequence < winner->sequence) winner = &c;
                }
                if (winner == nullptr) continue;
                --winner->pending[b];
                if (requesters > 1) {
                    conflict_cycles_ += requesters - 1;
                    conflicted_ = p.conflicted = true;
                }
            }
        }
    }

    // Offers every collector whose reads are all served, oldest first across the SM; a taken one is freed.
    template <class TryDispatch> void dispatch_ready(TryDispatch&& try_dispatch) {
        ready_.clear();
        for (Partition& p : partitions_)
            for (Collector& c : p.collectors)
                if (c.busy && c.accepted < now_ && c.all_read()) ready_.push_back(&c);
        std::sort(ready_.begin(), ready_.end(),
                  [](const Collector* a, const Collector* b) { return a->sequence < b->sequence; });
        for (Collector* c : ready_)
            if (try_dispatch(c->token)) c->busy = false;
    }

    // Writes take no read port (Lai 2013 Table 4.1, see above): they complete in the cycle they are made.
    void write(const timing::RegisterWrite& w, core::Cycle) {
        written_.push_back(w.token);
        writes_ += w.dest_count;
    }
    template <class Done> void drain_written(Done&& done) {
        for (auto token : written_) done(token);
        written_.clear();
    }

    // Whether some read request lost its bank in the latest arbitration (the SM reports the stall as a bank
    // conflict rather than a structural one).
    bool conflicted_last_cycle() const { return conflicted_; }
    // The same for one scheduler's partition.
    bool conflicted_last_cycle(unsigned scheduler) const { return partition(scheduler).conflicted; }
    std::uint64_t bank_conflict_cycles() const { return conflict_cycles_; }
    // Instructions accepted whose worst bank held `degree` distinct source registers (degree >= degree_buckets
    // share the last bucket).
    std::uint64_t instructions_with_degree(unsigned degree) const {
        if (degree == 0) return 0;
        return degree_counts_[std::min(degree, degree_buckets) - 1];
    }

    template <class V> void visit_stats(V& v) const {
        v.counter("operand_reads", reads_, "register operands read");
        v.counter("register_writes", writes_, "destination registers written");
        v.counter("bank_conflict_cycles", conflict_cycles_, "operand-read requests that lost their bank for a cycle");
        v.counter("kepler_degree_1", degree_counts_[0], "instructions with no bank conflict (Lai 2013 Sec. 4.2.3)");
        v.counter("kepler_degree_2", degree_counts_[1], "instructions with two distinct sources in one bank");
        v.counter("kepler_degree_3", degree_counts_[2], "instructions with three distinct sources in one bank");
        v.counter("kepler_degree_4plus", degree_counts_[3],
                  "instructions with four or more distinct sources in one bank");
    }

private:
    struct Collector {
        bool busy = false;
        std::uint64_t token = 0;
        std::uint64_t sequence = 0;
        core::Cycle accepted = 0;
        std::array<std::uint8_t, banks_per_scheduler> pending{};
        bool all_read() const {
            for (auto n : pending)
                if (n != 0) return false;
            return true;
        }
    };
    struct Partition {
        std::array<Collector, CollectorsPerScheduler> collectors{};
        bool conflicted = false; // some read request lost its bank in the latest cycle()
    };

    static std::array<int, banks_per_scheduler> bank_occupancy(std::span<const ir::RegId> sources) {
        // The rule itself lives in ir/kepler_register_banks.hpp; it takes register numbers as unsigned.
        std::array<unsigned, timing::OperandRead{}.sources.size()> numbers{};
        const std::size_t n = std::min(sources.size(), numbers.size());
        for (std::size_t i = 0; i < n; ++i) numbers[i] = static_cast<unsigned>(sources[i]);
        return ir::kepler_bank_occupancy(std::span<const unsigned>(numbers.data(), n));
    }

    const Partition& partition(unsigned scheduler) const { return partitions_[scheduler % partitions_.size()]; }
    Partition& partition(unsigned scheduler) { return partitions_[scheduler % partitions_.size()]; }

    [[noreturn]] static void throw_no_collector();

    std::vector<Partition> partitions_;
    std::vector<Collector*> ready_;
    std::vector<std::uint64_t> written_;
    std::uint64_t next_sequence_ = 0;
    core::Cycle now_ = 0;
    bool conflicted_ = false;
    std::uint64_t reads_ = 0, writes_ = 0, conflict_cycles_ = 0;
    std::array<std::uint64_t, degree_buckets> degree_counts_{};
};

template <unsigned CollectorsPerScheduler> void KeplerBankedRFT<CollectorsPerScheduler>::throw_no_collector() {
    throw Error("KeplerBankedRF::accept called with no free operand collector in the scheduler's partition "
                "(the SM must check can_accept first)");
}

using KeplerBankedRF = KeplerBankedRFT<>;

static_assert(timing::check_register_file<KeplerBankedRF>());

} // namespace gpuarch::regfile
