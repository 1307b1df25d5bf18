#pragma once
// The Divergent Load Classifier (DLC) of OAWS (Wang 2016 Sec. 4.2 and 4.4): a small table of the load PCs seen to
// be divergent (coalesced into more than 1-2 lines) in the current kernel, with per-PC statistics.
//
// Entry fields (Sec. 4.2; widths Sec. 4.4: "40 bits for PC, 7 bits for #inst, 10 bits for #acc, and 10 bits for
// #set"): PC, #inst (occurrences), #acc (memory accesses, i.e. coalesced lines), #sets (L1 sets touched).
// Contract:
//  * record(pc, accesses, sets) is called once per divergent load after its accesses were served (only divergent
//    loads: "coherent loads and their information are not populated into DLC"). An existing entry is updated, a
//    new PC is inserted with #inst = 1.
//  * #acc and #sets accumulate ("the total number of memory accesses", Sec. 4.2). When a field would overflow its
//    width, #inst, #acc and #sets are halved together, which keeps #acc / #sets (the associativity test of Sec.
//    4.3.1) and the relative frequency intact. [Our choice: the paper does not say what happens at saturation.]
//  * Replacement when all entries are valid (Sec. 4.4: "the entries that reach 0 (#inst) could be evicted. DLC
//    could also be managed under the LRU policy"): DlcEviction::zero_inst evicts the lowest-index entry whose
//    #inst decayed to 0 and otherwise leaves the new PC out (it is then predicted as coherent);
//    DlcEviction::lru evicts the entry recorded least recently. The "periodic update" is a decrement of every
//    #inst each `decay_period` recorded loads [our choice of period; the paper gives none].
//  * clear() empties the table; OAWS calls it at each kernel launch (Sec. 4.4: "DLC is cleared at each kernel
//    invocation").
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <gpuarch/ir/instruction.hpp>

namespace gpuarch::sched {

enum class DlcEviction : std::uint8_t {
    zero_inst, // evict an entry whose #inst decayed to 0, else do not insert (Wang 2016 Sec. 4.4)
    lru, // evict the least recently recorded entry (Wang 2016 Sec. 4.4: "for more complicated workloads")
};

constexpr std::string_view name(DlcEviction e) { return e == DlcEviction::zero_inst ? "zero_inst" : "lru"; }

template <unsigned Entries = 32> // Wang 2016 Sec. 4.4: 32 entries (Mars IIX has 26 divergent loads in one kernel)
class DivergentLoadClassifier {
    static_assert(Entries > 0, "the divergent load classifier needs at least one entry");

public:
    static constexpr unsigned entries = Entries;
    // Field widths, Wang 2016 Sec. 4.4.
    static constexpr std::uint32_t inst_max = (1U << 7) - 1;
    static constexpr std::uint32_t acc_max = (1U << 10) - 1;
    static constexpr std::uint32_t sets_max = (1U << 10) - 1;

    struct Entry {
        bool valid = false;
        ir::Pc pc = ir::no_pc;
        std::uint32_t inst = 0; // occurrences (decays)
        std::uint32_t acc = 0; // accesses (coalesced lines), accumulated
        std::uint32_t sets = 0; // L1 sets touched, accumulated
        std::uint64_t last_recorded = 0;
    };

    explicit DivergentLoadClassifier(DlcEviction eviction = DlcEviction::zero_inst, std::uint32_t decay_period = 128)
        : eviction_(eviction), decay_period_(decay_period) {
        pcs_.fill(ir::no_pc);
    }

    // A divergent load at `pc` had its `accesses` lines served, touching `sets` L1 sets. Returns whether `pc` is in
    // the table afterwards.
    bool record(ir::Pc pc, std::uint32_t accesses, std::uint32_t sets) {
        ++records_;
        if (decay_period_ != 0 && records_ % decay_period_ == 0) decay();
        Entry* e = find_mutable(pc);
        if (e == nullptr) {
            e = free_or_victim();
            if (e == nullptr) {
                ++rejections_;
                return false;
            }
            if (e->valid) ++evictions_;
            ++insertions_;
            *e = Entry{true, pc, 0, 0, 0, 0};
            pcs_[static_cast<std::size_t>(e - table_.data())] = pc;
        }
        if (e->inst + 1 > inst_max || e->acc + accesses > acc_max || e->sets + sets > sets_max) {
            e->inst = (e->inst + 1) / 2;
            e->acc /= 2;
            e->sets /= 2;
        }
        e->inst = e->inst + 1 > inst_max ? inst_max : e->inst + 1;
        e->acc = e->acc + accesses > acc_max ? acc_max : e->acc + accesses;
        e->sets = e->sets + sets > sets_max ? sets_max : e->sets + sets;
        e->last_recorded = records_;
        return true;
    }

    const Entry* find(ir::Pc pc) const {
        const unsigned i = index_of(pc);
        return i == Entries ? nullptr : &table_[i];
    }
    bool contains(ir::Pc pc) const { return find(pc) != nullptr; }

    // Wang 2016 Sec. 4.3.1: "a divergent load is considered as associativity-sensitive if its #acc is larger than
    // #sets x 1.5" (threshold given in tenths: 15 = 1.5). False for a PC not in the table.
    bool associativity_sensitive(ir::Pc pc, std::uint32_t threshold_tenths = 15) const {
        const Entry* e = find(pc);
        return e != nullptr && std::uint64_t{e->acc} * 10 > std::uint64_t{e->sets} * threshold_tenths;
    }

    // Every #inst loses one (the paper's periodic update).
    void decay() {
        for (Entry& e : table_)
            if (e.valid && e.inst > 0) --e.inst;
    }
    void clear() {
        table_.fill(Entry{});
        pcs_.fill(ir::no_pc);
        ++clears_;
    }
    unsigned size() const {
        unsigned n = 0;
        for (const Entry& e : table_) n += e.valid ? 1U : 0U;
        return n;
    }
    const std::array<Entry, Entries>& table() const { return table_; }

    template <class V> void visit_stats(V& v) const {
        v.counter("dlc_insertions", insertions_, "divergent load PCs inserted into the DLC");
        v.counter("dlc_evictions", evictions_, "DLC entries replaced by a new divergent PC");
        v.counter("dlc_rejections", rejections_, "divergent loads left out of a full DLC (predicted coherent)");
        v.counter("dlc_clears", clears_, "DLC clears (kernel launches)");
    }

private:
    // OAWS asks for the PC of every ready warp's next load in every prediction, so the lookup scans the compact
    // `pcs_` (one cache line for 32 entries) rather than the entries themselves.
    unsigned index_of(ir::Pc pc) const {
        if (pc == ir::no_pc) return Entries;
        for (unsigned i = 0; i < Entries; ++i)
            if (pcs_[i] == pc) return i;
        return Entries;
    }
    Entry* find_mutable(ir::Pc pc) {
        const unsigned i = index_of(pc);
        return i == Entries ? nullptr : &table_[i];
    }
    Entry* free_or_victim() {
        for (Entry& e : table_)
            if (!e.valid) return &e;
        if (eviction_ == DlcEviction::zero_inst) {
            for (Entry& e : table_)
                if (e.inst == 0) return &e;
            return nullptr;
        }
        Entry* victim = &table_[0];
        for (Entry& e : table_)
            if (e.last_recorded < victim->last_recorded) victim = &e;
        return victim;
    }

    std::array<Entry, Entries> table_{};
    // pcs_[i] is table_[i].pc where table_[i] is valid and ir::no_pc elsewhere (entries never become invalid except
    // through clear()).
    std::array<ir::Pc, Entries> pcs_; // filled by the constructor
    DlcEviction eviction_;
    std::uint32_t decay_period_;
    std::uint64_t records_ = 0, insertions_ = 0, evictions_ = 0, rejections_ = 0, clears_ = 0;
};

} // namespace gpuarch::sched
