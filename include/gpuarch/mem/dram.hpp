#pragma once
// One DRAM channel (the DRAM behind one memory partition): banks with row buffers, a bounded request queue,
// and an open-row command scheduler, FR-FCFS (Wang 2016 Table 1: "Out-of-Order (FR-FCFS), max request queue
// length: 32") or FCFS (Narasiman 2010 Table 1: "Open-row, first-come first-serve"). All times are DRAM
// clock cycles; the memory system crosses clock domains before calling cycle().
//
// Command model (one command per DRAM cycle on the command bus):
//   ACT  bank closed, t >= act_ready(bank) (tRC since the bank's last ACT, tRP since its PRE) and
//        t >= tRRD since the last ACT to any bank; opens the row, CAS allowed from t + tRCD, PRE from t + tRAS.
//   PRE  bank open with another row and t >= pre_ready(bank); the bank may ACT again at t + tRP.
//   RD   row open, t >= cas_ready(bank), tCCD since the last CAS, tCDLR after the last write's data, and the
//        data bus free at t + tCL; data occupies the bus for `burst` cycles and the read completes at
//        t + tCL + burst; the bank may precharge from t + burst + tRTP.
//   WR   like RD with tWL instead of tCL; the bank may precharge tWR after the write data ends.
// burst = ceil(bytes / bus_bytes_per_cycle). FR-FCFS issues the oldest row hit whose CAS is legal; failing
// that, the oldest request whose ACT or PRE is legal, never precharging a row that a queued request still
// hits. FCFS serves strictly the oldest request. Rows stay open after access (open-row policy).
// Contract: request order and tie-breaks are by arrival, so scheduling is deterministic.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>
#include <gpuarch/mem/queue.hpp>

namespace gpuarch::mem {

enum class DramScheduler : std::uint8_t { fr_fcfs, fcfs };

struct DramTiming {
    // Wang 2016 Table 1 (GDDR5): tCL=12, tRP=12, tRC=40, tRAS=28, tRCD=12, tRRD=6, tCDLR=5, tWR=12.
    std::uint32_t tCL = 12;
    std::uint32_t tRP = 12;
    std::uint32_t tRC = 40;
    std::uint32_t tRAS = 28;
    std::uint32_t tRCD = 12;
    std::uint32_t tRRD = 6;
    std::uint32_t tCDLR = 5;
    std::uint32_t tWR = 12;
    // Not in Wang 2016 Table 1; documented defaults from GPGPU-Sim's GTX480 GDDR5 timing (WL=4, CCD=2).
    std::uint32_t tWL = 4;
    std::uint32_t tCCD = 2;
    std::uint32_t tRTP = 2; // read to precharge after the burst (GPGPU-Sim GTX480: RTPL=2; documented default)
    // CAS to CAS in the same bank group (GDDR5 bank groups; 0 with one group). GPGPU-Sim GTX480: CCDL=3.
    std::uint32_t tCCDL = 0;
};

// A GPGPU-Sim -gpgpu_mem_addr_mapping bit pattern for the channel-local address, most significant bit first,
// '.' separators ignored: R row, B bank, C column, S byte in the burst (C and S only name what is neither row
// nor bank). Bank and row numbers gather their bits in order, least significant first (GPGPU-Sim's addrdec).
struct DramAddressBits {
    std::uint64_t bank_mask = 0;
    std::uint64_t row_mask = 0;
};
constexpr DramAddressBits dram_address_bits(std::string_view pattern) {
    DramAddressBits bits;
    unsigned position = 0;
    for (std::size_t i = pattern.size(); i-- > 0;) {
        const char c = pattern[i];
        if (c == '.') continue;
        if (position >= 64) throw Error("a DRAM address mapping has at most 64 bits");
        if (c == 'B') bits.bank_mask |= std::uint64_t{1} << position;
        else if (c == 'R') bits.row_mask |= std::uint64_t{1} << position;
        else if (c != 'C' && c != 'S' && c != '0')
            throw Error(std::string("a DRAM address mapping uses R, B, C, S, 0 and '.', not '") + c + "'");
        ++position;
    }
    return bits;
}
// The bits of `value` selected by `mask`, packed towards bit 0 in order (x86 PEXT).
constexpr std::uint64_t extract_bits(std::uint64_t value, std::uint64_t mask) {
    std::uint64_t out = 0;
    unsigned k = 0;
    for (; mask != 0; mask &= mask - 1) {
        const unsigned bit = static_cast<unsigned>(std::countr_zero(mask));
        out |= ((value >> bit) & 1U) << k++;
    }
    return out;
}
// extract_bits for one mask, with the mask's runs of adjacent bits found once: an address mapping has a few runs
// (GTX480's bank bits form two, its row bits one), where extract_bits takes one step per bit, and a DRAM channel
// splits every request's address.
class BitGather {
public:
    constexpr BitGather() = default;
    constexpr explicit BitGather(std::uint64_t mask) {
        unsigned to = 0;
        while (mask != 0) {
            const unsigned from = static_cast<unsigned>(std::countr_zero(mask));
            const unsigned width = static_cast<unsigned>(std::countr_one(mask >> from));
            const std::uint64_t ones = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
            runs_[count_++] = Run{ones, static_cast<std::uint8_t>(from), static_cast<std::uint8_t>(to)};
            to += width;
            mask &= ~(ones << from);
        }
    }
    constexpr std::uint64_t operator()(std::uint64_t value) const {
        std::uint64_t out = 0;
        for (unsigned i = 0; i < count_; ++i) out |= (value >> runs_[i].from & runs_[i].ones) << runs_[i].to;
        return out;
    }

private:
    struct Run {
        std::uint64_t ones = 0; // the run's width, as that many low bits
        std::uint8_t from = 0, to = 0; // its lowest bit in the value, and in the result
    };
    std::array<Run, 32> runs_{}; // a 64-bit mask has at most 32 runs
    unsigned count_ = 0;
};

struct DramConfig {
    std::uint32_t banks = 16; // Wang 2016 Table 1: nbk=16
    std::uint32_t row_bytes = 2048; // documented default (no source gives the GDDR5 page size)
    std::uint32_t queue_capacity = 32; // Wang 2016 Table 1: max request queue length 32
    DramScheduler scheduler = DramScheduler::fr_fcfs; // Wang 2016 Table 1
    DramTiming timing{};
    std::uint32_t bus_bytes_per_cycle = 32; // documented default: 2 x32 GDDR5 chips, 4 data beats per command cycle
    // Bank groups: bank b is in group b mod bank_groups (GPGPU-Sim's -dram_bnkgrp_indexing_policy 1, the low bank
    // bits); tCCDL separates CAS commands within a group. 1: no groups.
    std::uint32_t bank_groups = 1;
    // Completed requests the owner has not yet taken (GPGPU-Sim's DRAM return queue); a full queue holds back the
    // next CAS that would respond. 0: 2 x queue_capacity + 8 (documented default).
    std::uint32_t return_queue = 0;
    // Which channel-local address bits select the bank and the row (dram_address_bits). Both zero: rows of
    // row_bytes contiguous bytes, interleaved over the banks row by row (documented default).
    DramAddressBits address_bits{};
    // Simulation speed only, no effect on any result: FR-FCFS scans the queue only in cycles where its per-bank
    // counts and timers allow a command (channels of at most 64 banks; more take the plain scans). Off: the plain
    // two scans of every queued request in every cycle (the reference tests/mem/dram_test.cpp compares with).
    bool bank_filtered_scan = true;

    std::uint32_t return_queue_capacity() const { return return_queue != 0 ? return_queue : queue_capacity * 2 + 8; }
    void validate() const {
        if (banks == 0 || row_bytes == 0 || queue_capacity == 0 || bus_bytes_per_cycle == 0)
            throw Error("a DRAM channel needs at least one bank, a non-zero row size, queue and bus width");
        if (bank_groups == 0 || banks % bank_groups != 0)
            throw Error("the DRAM bank groups must divide the banks (got " + std::to_string(bank_groups) +
                        " groups of " + std::to_string(banks) + " banks)");
        if ((address_bits.bank_mask == 0) != (address_bits.row_mask == 0))
            throw Error("a DRAM address mapping needs both bank (B) and row (R) bits");
        if (address_bits.bank_mask != 0 &&
            (std::uint64_t{1} << std::popcount(address_bits.bank_mask)) != std::uint64_t{banks})
            throw Error("the DRAM address mapping's " + std::to_string(std::popcount(address_bits.bank_mask)) +
                        " bank bits do not select " + std::to_string(banks) + " banks");
        if ((address_bits.bank_mask & address_bits.row_mask) != 0)
            throw Error("a DRAM address bit cannot select both the bank and the row");
    }
};

struct DramRequest {
    std::uint64_t address = 0; // channel-local byte address
    std::uint32_t bytes = 0;
    bool write = false;
    bool respond = true; // hand it back through completed() when done
    std::uint64_t tag = 0; // owner's id, returned with the completion
};

class DramChannel {
public:
    explicit DramChannel(const DramConfig& config)
        : config_((config.validate(), config)), filtered_(config.bank_filtered_scan && config.banks <= 64),
          bank_bits_(config.address_bits.bank_mask), row_bits_(config.address_bits.row_mask), banks_(config.banks),
          candidate_(config.banks, 0), queue_(config.queue_capacity), done_(config.return_queue_capacity()),
          cas_group_ready_(config.bank_groups, 0), group_of_(config.banks), queued_(config.banks, 0),
          hits_(config.banks, 0), queued_rows_(std::size_t{config.banks} * config.queue_capacity) {
        for (std::uint32_t b = 0; b < config.banks; ++b) group_of_[b] = b % config.bank_groups;
    }

    const DramConfig& config() const { return config_; }
    bool can_accept() const { return !queue_.full(); }
    // Requests queued (not yet served by a CAS).
    std::size_t queued() const { return queue_.size(); }
    void push(const DramRequest& r) {
        Queued q;
        q.request = r;
        if (config_.address_bits.bank_mask != 0) {
            q.bank = static_cast<std::uint32_t>(bank_bits_(r.address));
            q.row = row_bits_(r.address);
        } else {
            q.bank = static_cast<std::uint32_t>((r.address / config_.row_bytes) % config_.banks);
            q.row = (r.address / config_.row_bytes) / config_.banks;
        }
        q.arrival = now_ + 1; // pushed between cycle(now_) and cycle(now_ + 1)
        settle_counts();
        queue_.push(q);
        queued_rows_[row_slot(q.bank, queued_[q.bank])] = q.row;
        ++queued_[q.bank];
        if (banks_[q.bank].open_row == q.row) ++hits_[q.bank];
        note_bank(q.bank);
        // Only the new request's bank can make a command legal earlier than the last scan found.
        if (retry_at_ != 0) retry_at_ = std::min(retry_at_, bank_bound(q.bank, cas_bound()));
    }

    // Advances one DRAM cycle.
    void cycle(core::Cycle now) {
        now_ = now;
        ++cycles_; // the cycle's queue counts wait in settle_counts()
        if (queue_.empty() || now_ < retry_at_) return;
        if (config_.scheduler == DramScheduler::fcfs) schedule_fcfs();
        else schedule_fr_fcfs();
    }

    // Completed requests (reads, and writes with respond set), in completion order.
    bool has_completed() const { return !done_.empty() && done_.front().at <= now_; }
    const DramRequest& completed() const { return done_.front().request; }
    void pop_completed() {
        settle_counts();
        done_.pop();
    }
    bool idle() const { return queue_.empty() && done_.empty(); }
    core::Cycle now() const { return now_; }

    static constexpr core::Cycle never = ~core::Cycle{0};
    // The first DRAM cycle at which cycle() may issue a command or has_completed() turn true, as far as the
    // channel's own state says (a push() can make it earlier): for a queued request, the FR-FCFS bound of the
    // bank-filtered scan (retry_at_; the next cycle under the plain scans or FCFS, which keep no bound); for a
    // completion, its time. `never` when idle. Every cycle before it only counts itself (skip_quiet_cycles).
    core::Cycle next_event() const {
        core::Cycle at = next_command();
        if (!done_.empty()) at = std::min(at, done_.front().at);
        return at;
    }
    // next_event() without the completions: the first DRAM cycle at which cycle() may issue a command. For an owner
    // whose due completion waits for room to answer it (MemoryPartition): the completions behind that one cannot
    // overtake it (each comes due in the future, the waiting one already has), so none of them is an event.
    core::Cycle next_command() const {
        if (queue_.empty()) return never;
        return config_.scheduler == DramScheduler::fr_fcfs && filtered_ ? retry_at_ : now_ + 1;
    }
    // Exactly what `ticks` calls of cycle(), the last being cycle(now), do when none of them reaches next_event()
    // (next_command() when `completion_waits`: the owner leaves a due completion where it is): each issues nothing
    // and adds the same counts (the queue and the completions do not change), and the bank timers are absolute cycle
    // numbers that need no update. The memory system uses this to skip the cycles of a partition that waits for a
    // timer or for room in its response port. Throws if a skipped cycle would have reached that event.
    void skip_quiet_cycles(std::uint64_t ticks, core::Cycle now, bool completion_waits = false) {
        if (ticks == 0) return;
        if ((completion_waits ? next_command() : next_event()) <= now)
            throw Error("internal error: a DRAM channel skipped a cycle in which it had a command or a completion due");
        now_ = now;
        cycles_ += ticks; // their queue counts wait in settle_counts()
    }
    struct Stats {
        std::uint64_t cycles = 0, reads = 0, writes = 0, row_hits = 0, activates = 0, precharges = 0, bytes = 0,
                      bus_busy_cycles = 0, read_latency = 0, queue_full_cycles = 0, queue_occupancy = 0,
                      active_cycles = 0;
        Stats& operator+=(const Stats& o) {
            cycles += o.cycles;
            reads += o.reads;
            writes += o.writes;
            row_hits += o.row_hits;
            activates += o.activates;
            precharges += o.precharges;
            bytes += o.bytes;
            bus_busy_cycles += o.bus_busy_cycles;
            read_latency += o.read_latency;
            queue_full_cycles += o.queue_full_cycles;
            queue_occupancy += o.queue_occupancy;
            active_cycles += o.active_cycles;
            return *this;
        }
        template <class V> void visit_stats(V& v) const {
            v.counter("dram_cycles", cycles, "DRAM command-clock cycles");
            v.counter("dram_reads", reads, "read bursts");
            v.counter("dram_writes", writes, "write bursts");
            v.counter("dram_row_hits", row_hits, "accesses served from an open row without an activate of their own");
            v.counter("dram_activates", activates, "ACT commands");
            v.counter("dram_precharges", precharges, "PRE commands");
            v.counter("dram_bytes", bytes, "bytes moved on the data bus");
            v.counter("dram_bus_busy_cycles", bus_busy_cycles, "cycles the data bus carried data");
            v.counter("dram_read_latency_cycles", read_latency, "sum over reads of arrival-to-data cycles");
            v.counter("dram_queue_full_cycles", queue_full_cycles, "cycles the request queue was full");
            v.counter("dram_queue_occupancy", queue_occupancy, "sum over cycles of queued requests");
            // GPGPU-Sim's DRAM efficiency is bus_busy / active, its utilisation bus_busy / cycles.
            v.counter("dram_active_cycles", active_cycles, "cycles with a request queued or being served");
        }
    };
    Stats stats() const {
        Stats s;
        s.cycles = cycles_;
        s.reads = reads_;
        s.writes = writes_;
        s.row_hits = row_hits_;
        s.activates = activates_;
        s.precharges = precharges_;
        s.bytes = bytes_;
        s.bus_busy_cycles = bus_busy_;
        s.read_latency = read_latency_;
        // With the cycles settle_counts() has not yet counted, which saw the queues as they are.
        const std::uint64_t unsettled = cycles_ - settled_cycles_;
        s.queue_full_cycles = queue_full_cycles_ + (queue_.full() ? unsettled : 0);
        s.queue_occupancy = queue_occupancy_ + unsettled * queue_.size();
        s.active_cycles = active_cycles_ + (!queue_.empty() || !done_.empty() ? unsettled : 0);
        return s;
    }
    template <class V> void visit_stats(V& v) const { stats().visit_stats(v); }

private:
    static constexpr std::uint64_t closed = ~std::uint64_t{0};
    struct Bank {
        std::uint64_t open_row = closed;
        core::Cycle act_ready = 0;
        core::Cycle pre_ready = 0;
        core::Cycle cas_ready = 0;
    };
    // Ordered for size (48 bytes, not 56): FR-FCFS scans the queue and a CAS moves part of it.
    struct Queued {
        DramRequest request;
        std::uint64_t row = 0;
        core::Cycle arrival = 0;
        std::uint32_t bank = 0;
        bool activated = false; // an ACT was issued on this request's behalf
    };
    struct Done {
        core::Cycle at = 0;
        DramRequest request;
    };

    std::uint32_t burst(const Queued& q) const {
        const std::uint32_t b = (q.request.bytes + config_.bus_bytes_per_cycle - 1) / config_.bus_bytes_per_cycle;
        return b == 0 ? 1 : b;
    }
    bool can_cas(const Queued& q) const {
        const Bank& b = banks_[q.bank];
        if (b.open_row != q.row || now_ < b.cas_ready || now_ < cas_any_ready_) return false;
        if (now_ < cas_group_ready_[group_of_[q.bank]]) return false;
        if (q.request.respond && done_.full()) return false; // the owner has not taken earlier completions
        if (q.request.write) return bus_free_at_ <= now_ + config_.timing.tWL;
        return now_ >= read_after_write_ready_ && bus_free_at_ <= now_ + config_.timing.tCL;
    }
    bool can_act(const Queued& q) const {
        const Bank& b = banks_[q.bank];
        return b.open_row == closed && now_ >= b.act_ready && now_ >= act_any_ready_;
    }
    bool can_pre(const Queued& q) const {
        const Bank& b = banks_[q.bank];
        return b.open_row != closed && b.open_row != q.row && now_ >= b.pre_ready;
    }

    void issue_cas(std::size_t i) {
        settle_counts(); // this cycle counts the queues before the CAS, as it began with them
        const Queued q = queue_[i];
        queue_.erase(i);
        // Its row leaves the bank's list (unordered: the last entry fills the hole).
        const std::size_t first = row_slot(q.bank, 0), last = row_slot(q.bank, queued_[q.bank] - 1);
        std::size_t k = first;
        while (queued_rows_[k] != q.row) ++k;
        queued_rows_[k] = queued_rows_[last];
        --queued_[q.bank];
        --hits_[q.bank]; // a CAS serves a row hit
        note_bank(q.bank);
        const DramTiming& t = config_.timing;
        const std::uint32_t n = burst(q);
        Bank& b = banks_[q.bank];
        const core::Cycle data_start = now_ + (q.request.write ? t.tWL : t.tCL);
        bus_free_at_ = data_start + n;
        cas_any_ready_ = now_ + t.tCCD;
        cas_group_ready_[group_of_[q.bank]] = now_ + t.tCCDL;
        if (q.request.write) {
            b.pre_ready = std::max(b.pre_ready, data_start + n + t.tWR);
            read_after_write_ready_ = data_start + n + t.tCDLR;
            ++writes_;
        } else {
            b.pre_ready = std::max(b.pre_ready, now_ + n + t.tRTP);
            ++reads_;
            read_latency_ += data_start + n - q.arrival;
        }
        cas_bound_ = compute_cas_bound();
        if (!q.activated) ++row_hits_;
        bytes_ += q.request.bytes;
        bus_busy_ += n;
        if (q.request.respond) insert_done(Done{data_start + n, q.request});
    }
    void issue_act(std::size_t i) {
        Queued& q = queue_[i];
        Bank& b = banks_[q.bank];
        const DramTiming& t = config_.timing;
        b.open_row = q.row;
        const std::uint32_t bank = q.bank;
        // The bank's queued requests for the row it opens: its list of rows, not the whole queue.
        std::uint32_t hits = 0;
        for (std::size_t k = row_slot(bank, 0), end = row_slot(bank, queued_[bank]); k < end; ++k)
            hits += queued_rows_[k] == q.row ? 1U : 0U;
        hits_[bank] = hits;
        note_bank(bank);
        b.cas_ready = now_ + t.tRCD;
        b.pre_ready = std::max(b.pre_ready, now_ + t.tRAS);
        b.act_ready = now_ + t.tRC;
        act_any_ready_ = now_ + t.tRRD;
        q.activated = true;
        ++activates_;
    }
    void issue_pre(std::size_t i) {
        Bank& b = banks_[queue_[i].bank];
        b.open_row = closed;
        hits_[queue_[i].bank] = 0;
        note_bank(queue_[i].bank);
        b.act_ready = std::max(b.act_ready, now_ + config_.timing.tRP);
        ++precharges_;
    }
    // The queue counts (full cycles, occupancy, active cycles) depend only on the queues' sizes, which change only in
    // push, issue_cas (the queue, and the completions by insert_done) and pop_completed. Each of those settles first:
    // every cycle since the last settlement saw the queues as they are, so its counts are added here in one step
    // instead of in every cycle (most DRAM cycles of a busy channel issue nothing and count only these).
    void settle_counts() {
        const std::uint64_t n = cycles_ - settled_cycles_;
        if (n == 0) return;
        if (queue_.full()) queue_full_cycles_ += n;
        queue_occupancy_ += n * queue_.size();
        if (!queue_.empty() || !done_.empty()) active_cycles_ += n;
        settled_cycles_ = cycles_;
    }
    void insert_done(const Done& d) {
        // Completion times are almost always in issue order; keep the queue sorted by time, then issue order.
        done_.push(d);
        for (std::size_t k = done_.size() - 1; k > 0 && done_[k - 1].at > done_[k].at; --k)
            std::swap(done_[k - 1], done_[k]);
    }

    // Each scheduler issues at most one command and says whether it did.
    bool schedule_fcfs() {
        const Queued& q = queue_[0];
        if (can_cas(q)) return issue_cas(0), true;
        const Bank& b = banks_[q.bank];
        if (b.open_row == closed) {
            if (can_act(q)) return issue_act(0), true;
        } else if (b.open_row != q.row) {
            if (can_pre(q)) return issue_pre(0), true;
        }
        return false;
    }

    // FR-FCFS, as the two passes below say. The per-bank counts (queued_, hits_) and the bank and bus timers
    // first find the banks where some command can be legal this cycle; the queue is scanned, oldest first, only
    // when there is one, and a cycle where none can be is not looked at (a scan of a full 64-entry queue in every
    // DRAM cycle was a third of the host time of memory-bound GTX480 runs). The command chosen is the one the
    // plain two scans choose (schedule_fr_fcfs_plain; tests/mem/dram_test.cpp compares them).
    // The first cycle from which the global conditions of a CAS (tCCD, the data bus, tCDLR) can hold: kept in
    // cas_bound_, since only a CAS changes what it reads (issue_cas), while every push and every scan asks for it.
    core::Cycle cas_bound() const { return cas_bound_; }
    core::Cycle compute_cas_bound() const {
        const DramTiming& t = config_.timing;
        const core::Cycle read = std::max(read_after_write_ready_, bus_free_at_ > t.tCL ? bus_free_at_ - t.tCL : 0);
        const core::Cycle write = bus_free_at_ > t.tWL ? bus_free_at_ - t.tWL : 0;
        return std::max(cas_any_ready_, std::min(read, write));
    }
    // Bank b's own conditions: the first cycle from which a CAS to its open row (pass 1) and an ACT or PRE for
    // another row (pass 2) can be legal, while nothing else changes; `never` when it has no such request.
    core::Cycle bank_cas_bound(std::uint32_t b) const {
        if (hits_[b] == 0) return never;
        return std::max(banks_[b].cas_ready, cas_group_ready_[group_of_[b]]);
    }
    core::Cycle bank_act_pre_bound(std::uint32_t b) const {
        if (queued_[b] <= hits_[b]) return never; // every request of the bank hits its open row
        const Bank& bank = banks_[b];
        if (bank.open_row == closed) return std::max(bank.act_ready, act_any_ready_);
        return hits_[b] == 0 ? bank.pre_ready : never;
    }
    // Bank b's CAS bound joined with the global one (cas_bound()).
    core::Cycle bank_cas_bound(std::uint32_t b, core::Cycle cas_global) const {
        const core::Cycle cas = bank_cas_bound(b);
        return cas == never ? never : std::max(cas, cas_global);
    }
    // A lower bound on the cycle of bank b's next command, given the state now (each bound is a conjunction of
    // `now_ >= X` conditions; the return queue is left out, which only makes it earlier).
    core::Cycle bank_bound(std::uint32_t b, core::Cycle cas_global) const {
        return std::min(bank_cas_bound(b, cas_global), bank_act_pre_bound(b));
    }

    // Keeps bank b's bits in hit_banks_, other_banks_ and closed_banks_ (filtered_ only) after its hits_, queued_ or
    // open row changed. A bank's bits are meaningful once it has had a request (every set is read through
    // other_banks_ or hit_banks_, which only a request puts a bank in).
    void note_bank(std::uint32_t b) {
        if (!filtered_) return;
        const std::uint64_t bit = std::uint64_t{1} << b;
        hit_banks_ = hits_[b] != 0 ? hit_banks_ | bit : hit_banks_ & ~bit;
        other_banks_ = queued_[b] > hits_[b] ? other_banks_ | bit : other_banks_ & ~bit;
        closed_banks_ = banks_[b].open_row == closed ? closed_banks_ | bit : closed_banks_ & ~bit;
    }
    static bool has_bank(std::uint64_t set, std::uint32_t b) { return (set >> b & 1) != 0; }
    std::size_t row_slot(std::uint32_t bank, std::uint32_t k) const {
        return std::size_t{bank} * config_.queue_capacity + k;
    }

    bool schedule_fr_fcfs() {
        if (!filtered_) return schedule_fr_fcfs_plain();
        // Pass 1: the oldest row hit whose CAS is legal (can_cas). Only banks with a queued hit can have one
        // (bank_cas_bound is `never` for the others), and none before the global CAS bound.
        const core::Cycle cas_global = hit_banks_ != 0 ? cas_bound() : never;
        if (now_ >= cas_global) {
            std::uint64_t ready = 0;
            for (std::uint64_t bits = hit_banks_; bits != 0; bits &= bits - 1) {
                const auto b = static_cast<std::uint32_t>(std::countr_zero(bits));
                if (now_ >= bank_cas_bound(b)) ready |= std::uint64_t{1} << b;
            }
            if (ready != 0) {
                const std::size_t i = queue_.find_if([&](const Queued& q) {
                    return has_bank(ready, q.bank) && banks_[q.bank].open_row == q.row && can_cas(q);
                });
                if (i != queue_.size()) return issue_cas(i), true;
            }
        }
        // Pass 2: the oldest request whose ACT or PRE is legal, never closing a row a queued request still hits.
        // bank_act_pre_bound by bank sets: it is `never` outside other_banks_; for a closed bank (an ACT) the bank's
        // act_ready joined with the global tRRD bound; for an open one without a queued hit (a PRE) its pre_ready;
        // `never` for an open one with a hit.
        const std::uint64_t act_banks = other_banks_ & closed_banks_;
        const std::uint64_t pre_banks = other_banks_ & ~closed_banks_ & ~hit_banks_;
        std::uint64_t ready = 0;
        if (now_ >= act_any_ready_)
            for (std::uint64_t bits = act_banks; bits != 0; bits &= bits - 1) {
                const auto b = static_cast<std::uint32_t>(std::countr_zero(bits));
                if (now_ >= banks_[b].act_ready) ready |= std::uint64_t{1} << b;
            }
        for (std::uint64_t bits = pre_banks; bits != 0; bits &= bits - 1) {
            const auto b = static_cast<std::uint32_t>(std::countr_zero(bits));
            if (now_ >= banks_[b].pre_ready) ready |= std::uint64_t{1} << b;
        }
        if (ready != 0) {
            // A ready bank's requests all want another row than its open one (closed, or open without a queued
            // hit), so the oldest of them is found.
            const std::size_t i = queue_.find_if([&](const Queued& q) { return has_bank(ready, q.bank); });
            if (i == queue_.size()) throw Error("internal error: a DRAM bank was ready for a command with no request");
            if (banks_[queue_[i].bank].open_row == closed) return issue_act(i), true;
            return issue_pre(i), true;
        }
        // Nothing was legal: no later cycle before the first bank_bound can differ, unless a request arrives (push()
        // lowers it). The minimum over banks of each bound, with the global terms joined once (min over b of
        // max(x_b, g) is max(min over b of x_b, g); `never` stays `never`).
        core::Cycle cas_next = never, act_next = never, pre_next = never;
        for (std::uint64_t bits = hit_banks_; bits != 0; bits &= bits - 1)
            cas_next = std::min(cas_next, bank_cas_bound(static_cast<std::uint32_t>(std::countr_zero(bits))));
        for (std::uint64_t bits = act_banks; bits != 0; bits &= bits - 1)
            act_next = std::min(act_next, banks_[static_cast<std::uint32_t>(std::countr_zero(bits))].act_ready);
        for (std::uint64_t bits = pre_banks; bits != 0; bits &= bits - 1)
            pre_next = std::min(pre_next, banks_[static_cast<std::uint32_t>(std::countr_zero(bits))].pre_ready);
        retry_at_ = std::min({std::max(cas_next, cas_global), std::max(act_next, act_any_ready_), pre_next});
        return false;
    }

    bool schedule_fr_fcfs_plain() {
        std::fill(candidate_.begin(), candidate_.end(), 0); // here: banks with a queued hit on their open row
        for (std::size_t i = 0; i < queue_.size(); ++i) {
            const Queued& q = queue_[i];
            if (banks_[q.bank].open_row != q.row) continue;
            if (can_cas(q)) return issue_cas(i), true;
            candidate_[q.bank] = 1;
        }
        for (std::size_t i = 0; i < queue_.size(); ++i) {
            const Queued& q = queue_[i];
            const Bank& b = banks_[q.bank];
            if (b.open_row == q.row) continue; // waiting for CAS timing
            if (b.open_row == closed) {
                if (can_act(q)) return issue_act(i), true;
                continue;
            }
            if (candidate_[q.bank] == 0 && can_pre(q)) return issue_pre(i), true;
        }
        return false;
    }

    DramConfig config_;
    // FR-FCFS scans with the per-bank bounds (bank_filtered_scan), its bank sets being 64-bit masks: channels of
    // more banks take the plain scans, which choose the same commands.
    bool filtered_;
    BitGather bank_bits_, row_bits_; // config_.address_bits' masks
    std::vector<Bank> banks_;
    std::vector<std::uint8_t> candidate_; // scratch for the plain FR-FCFS scans: banks with a queued hit
    BoundedQueue<Queued> queue_;
    BoundedQueue<Done> done_;
    std::vector<core::Cycle> cas_group_ready_; // per bank group: earliest next CAS (tCCDL)
    std::vector<std::uint32_t> group_of_; // per bank: its bank group
    std::vector<std::uint32_t> queued_; // per bank: requests queued
    std::vector<std::uint32_t> hits_; // per bank: queued requests for its open row
    // Per bank, the rows of its queued requests in no particular order (queued_[b] of them, from row_slot(b, 0)).
    std::vector<std::uint64_t> queued_rows_;
    std::uint64_t hit_banks_ = 0; // banks with hits_ > 0 (filtered_ only)
    std::uint64_t other_banks_ = 0; // banks with queued_ > hits_: a request for another row (filtered_ only)
    std::uint64_t closed_banks_ = 0; // banks with no open row (filtered_ only)
    core::Cycle now_ = 0;
    core::Cycle act_any_ready_ = 0;
    core::Cycle cas_any_ready_ = 0;
    core::Cycle bus_free_at_ = 0;
    core::Cycle read_after_write_ready_ = 0;
    core::Cycle cas_bound_ = 0; // compute_cas_bound() of the three above (zero while they are, at the start)
    core::Cycle retry_at_ = 0; // FR-FCFS with bank_filtered_scan: no command can be legal before this cycle
    std::uint64_t cycles_ = 0, reads_ = 0, writes_ = 0, row_hits_ = 0, activates_ = 0, precharges_ = 0, bytes_ = 0,
                  bus_busy_ = 0, read_latency_ = 0, queue_full_cycles_ = 0, queue_occupancy_ = 0, active_cycles_ = 0;
    std::uint64_t settled_cycles_ = 0; // the cycles whose queue counts are in the three above (settle_counts)
};

} // namespace gpuarch::mem
