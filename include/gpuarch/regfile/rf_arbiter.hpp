#pragma once
// RfArbiter: the register-file bank arbiter of Radaideh 2020 Sec. 3.6.2.5, as a component that can be fed
// requests by hand (tests/regfile/rf_arbiter_test.cpp replays Fig. 3.16).
//
// Contract, per cycle (`arbitrate`):
//   1. Writes from the execution pipelines, in the order given, then writes from the memory pipeline, in the
//      order given ("Writes from execution units pipeline have higher priority over writes from memory units";
//      "Write requests, from any source, have higher priority ... over read requests").
//   2. Reads, by a wrapped wavefront over the bank x collector request matrix ("similar to the Wrapped WaveFront
//      Arbiter (WWFA)"): with N = max(banks, collectors) wrapped diagonals P_d = {(bank, oc) : (bank + oc) mod N
//      == d}, the diagonals are visited starting from the priority diagonal; a cell is granted when its bank and
//      its collector can still take it. The priority diagonal advances by one every cycle ("the priority wave
//      propagates to the next wrapped diagonal for the next cycle"). Requests of one cell are visited in the
//      order given.
//   3. A request that is not granted is told why: write-write (a write lost to a write), read-write (its bank
//      resource was taken by a write), read-read (taken by a read) or collector-port (its bank could serve it,
//      its operand collector's write port could not).
//
// Resources by coalescing mode:
//   none  : a bank serves one access per cycle and a collector takes one operand per cycle (the baseline).
//   carf  : the coalescing-aware arbiter (Sec. 3.6.2.5): each bank has a right and a left access port and each
//           sub-bank is a resource; each collector write port is four 32B slices. Which requests fit together is
//           the Packing: disjoint_masks (reg/wr alignment: one right and one left request whose sub-bank masks
//           AND to zero), total_bytes (ideal alignment: any two requests of at most 4 bytes together),
//           unlimited (upper bound: any two requests). At most two requests per bank and two reads per collector
//           per cycle: the thesis describes pairs only ("Up to eight requests (four coalesced requests)").
//   corf  : CORF (Asghari Esfeden et al., per Radaideh 2020 Table 3.2): two reads of the same warp instruction
//           (same collector) in the same bank coalesce when they fit in one register width; nothing else does.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/core/lane_mask.hpp>

namespace gpuarch::regfile {

enum class Side : std::uint8_t { right, left };
enum class RequestKind : std::uint8_t { ex_write, mem_write, read };
enum class CoalescingMode : std::uint8_t { none, carf, corf };
enum class Packing : std::uint8_t { disjoint_masks, total_bytes, unlimited };
enum class Outcome : std::uint8_t { granted, lost_write_write, lost_read_write, lost_read_read, lost_collector_port };

constexpr std::string_view name(Outcome o) {
    switch (o) {
    case Outcome::granted: return "granted";
    case Outcome::lost_write_write: return "write_write";
    case Outcome::lost_read_write: return "read_write";
    case Outcome::lost_read_read: return "read_read";
    case Outcome::lost_collector_port: return "collector_port";
    }
    return "?";
}

struct RfRequest {
    RequestKind kind = RequestKind::read;
    std::uint16_t bank = 0;
    std::uint16_t collector = 0; // reads: the operand collector the data goes to
    Side side = Side::right; // carf with disjoint masks: right (even) or left (odd) access port
    std::uint8_t mask = 0xF; // sub-banks touched (bit k = sub-bank k); its popcount is the request's bytes
};

struct ArbiterConfig {
    unsigned banks = 4;
    unsigned collectors = 4;
    CoalescingMode mode = CoalescingMode::none;
    Packing packing = Packing::disjoint_masks;
};

class RfArbiter {
public:
    // Radaideh 2020 Fig. 3.16b: a bank serves a left and a right request; a collector takes two coalesced reads.
    static constexpr unsigned max_per_bank = 2;
    static constexpr unsigned max_reads_per_collector = 2;

    explicit RfArbiter(const ArbiterConfig& config) : config_(config) {
        if (config.banks == 0 || config.collectors == 0)
            throw Error("an RfArbiter needs at least one bank and one operand collector");
        banks_.resize(config.banks);
        write_only_.resize(config.banks);
        collectors_.resize(config.collectors);
    }

    const ArbiterConfig& config() const { return config_; }
    unsigned diagonals() const { return std::max(config_.banks, config_.collectors); }
    unsigned priority() const { return priority_; }
    void set_priority(unsigned diagonal) { priority_ = diagonal % diagonals(); }

    // Decides this cycle's grants; outcome[i] is request i's result. Precondition: outcome.size() >=
    // requests.size(); every bank and collector index is in range.
    void arbitrate(std::span<const RfRequest> requests, std::span<Outcome> outcome) {
        for (auto& b : banks_) b = BankUse{};
        for (auto& b : write_only_) b = BankUse{};
        for (auto& c : collectors_) c = CollectorUse{};
        for (const RequestKind kind : {RequestKind::ex_write, RequestKind::mem_write}) {
            for (std::size_t i = 0; i < requests.size(); ++i) {
                const RfRequest& r = requests[i];
                if (r.kind != kind) continue;
                if (!bank_admits(banks_[r.bank], r)) {
                    outcome[i] = Outcome::lost_write_write;
                    continue;
                }
                take_bank(banks_[r.bank], r);
                take_bank(write_only_[r.bank], r);
                outcome[i] = Outcome::granted;
            }
        }
        order_.clear();
        for (std::size_t i = 0; i < requests.size(); ++i)
            if (requests[i].kind == RequestKind::read) order_.push_back(static_cast<std::uint32_t>(i));
        const unsigned n = diagonals();
        auto rank = [&](std::uint32_t i) {
            const RfRequest& r = requests[i];
            return ((r.bank + r.collector) % n + n - priority_) % n;
        };
        std::stable_sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
            const unsigned ra = rank(a), rb = rank(b);
            if (ra != rb) return ra < rb;
            return requests[a].bank < requests[b].bank;
        });
        for (const std::uint32_t i : order_) {
            const RfRequest& r = requests[i];
            const bool bank_ok = bank_admits(banks_[r.bank], r);
            if (bank_ok && collector_admits(collectors_[r.collector], r)) {
                take_bank(banks_[r.bank], r);
                take_collector(collectors_[r.collector], r);
                outcome[i] = Outcome::granted;
            } else if (!bank_admits(write_only_[r.bank], r)) {
                outcome[i] = Outcome::lost_read_write;
            } else if (!bank_ok) {
                outcome[i] = Outcome::lost_read_read;
            } else {
                outcome[i] = Outcome::lost_collector_port;
            }
        }
        priority_ = (priority_ + 1) % n;
    }

private:
    struct BankUse {
        std::uint8_t accesses = 0;
        std::uint8_t sides = 0; // bit 0: right port taken, bit 1: left port taken
        std::uint8_t mask = 0;
        std::uint8_t bytes = 0;
        bool has_write = false;
        std::int32_t reader = -1; // CORF: the collector whose read holds the bank
    };
    struct CollectorUse {
        std::uint8_t reads = 0;
        std::uint8_t mask = 0;
        std::uint8_t bytes = 0;
        std::int32_t bank = -1;
    };

    static unsigned bytes_of(const RfRequest& r) { return core::count_bits(r.mask & 0xFU); }
    static std::uint8_t side_bit(Side s) { return s == Side::right ? 1U : 2U; }

    bool fits(std::uint8_t used_mask, std::uint8_t used_bytes, std::uint8_t used_sides, const RfRequest& r,
              bool check_side) const {
        switch (config_.packing) {
        case Packing::disjoint_masks:
            return (!check_side || (used_sides & side_bit(r.side)) == 0) && (used_mask & r.mask) == 0;
        case Packing::total_bytes: return used_bytes + bytes_of(r) <= 4;
        case Packing::unlimited: return true;
        }
        return false;
    }

    bool bank_admits(const BankUse& b, const RfRequest& r) const {
        if (b.accesses == 0) return true;
        switch (config_.mode) {
        case CoalescingMode::none: return false;
        case CoalescingMode::carf: return b.accesses < max_per_bank && fits(b.mask, b.bytes, b.sides, r, true);
        case CoalescingMode::corf:
            return r.kind == RequestKind::read && !b.has_write && b.accesses < max_per_bank &&
                   b.reader == static_cast<std::int32_t>(r.collector) && b.bytes + bytes_of(r) <= 4;
        }
        return false;
    }
    bool collector_admits(const CollectorUse& c, const RfRequest& r) const {
        if (c.reads == 0) return true;
        switch (config_.mode) {
        case CoalescingMode::none: return false;
        case CoalescingMode::carf: return c.reads < max_reads_per_collector && fits(c.mask, c.bytes, 0, r, false);
        case CoalescingMode::corf: return c.bank == static_cast<std::int32_t>(r.bank); // the bank pair, one write
        }
        return false;
    }
    void take_bank(BankUse& b, const RfRequest& r) {
        ++b.accesses;
        b.sides |= side_bit(r.side);
        b.mask |= r.mask;
        b.bytes = static_cast<std::uint8_t>(b.bytes + bytes_of(r));
        if (r.kind != RequestKind::read) b.has_write = true;
        else if (b.reader < 0) b.reader = r.collector;
    }
    void take_collector(CollectorUse& c, const RfRequest& r) {
        ++c.reads;
        c.mask |= r.mask;
        c.bytes = static_cast<std::uint8_t>(c.bytes + bytes_of(r));
        if (c.bank < 0) c.bank = r.bank;
    }

    ArbiterConfig config_;
    unsigned priority_ = 0;
    std::vector<BankUse> banks_, write_only_;
    std::vector<CollectorUse> collectors_;
    std::vector<std::uint32_t> order_;
};

} // namespace gpuarch::regfile
