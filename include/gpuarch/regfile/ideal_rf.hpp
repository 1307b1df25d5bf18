#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::regfile {

// IdealRF: unlimited ports and collectors. Operands accepted in cycle t are offered for dispatch in cycle t+1;
// writes complete in the cycle they are made. The reference point every other register file is compared with.
struct IdealRF {
    static constexpr std::string_view name = "IdealRF";

    // can_accept is true whatever the state: the SM may replay quiet cycles (sm.hpp, quiet_cycle_replay).
    static constexpr bool accepts_every_read = true;
    // Writes are counted, their values never read (timing::IgnoresResultValues).
    static constexpr bool ignores_result_values = true;

    explicit IdealRF(const timing::RegisterFileConfig&) {}

    bool can_accept(const timing::OperandRead&) const { return true; }
    void accept(const timing::OperandRead& read, core::Cycle now) {
        waiting_.push_back({read.token, now});
        reads_ += read.source_count;
    }
    void cycle(core::Cycle now) { now_ = now; }
    // Offers, in acceptance order, every instruction accepted before this cycle.
    template <class TryDispatch> void dispatch_ready(TryDispatch&& try_dispatch) {
        std::size_t kept = 0;
        for (std::size_t i = 0; i < waiting_.size(); ++i) {
            const auto entry = waiting_[i];
            if (entry.accepted < now_ && try_dispatch(entry.token)) continue;
            waiting_[kept++] = entry;
        }
        waiting_.resize(kept);
    }
    void write(const timing::RegisterWrite& w, core::Cycle) {
        written_.push_back(w.token);
        writes_ += w.dest_count;
    }
    template <class Done> void drain_written(Done&& done) {
        for (auto token : written_) done(token);
        written_.clear();
    }
    bool has_pending() const { return !waiting_.empty() || !written_.empty(); }
    // Writes not yet drained (has_pending less the instructions waiting to be offered for dispatch).
    bool writes_pending() const { return !written_.empty(); }
    // Quiet-cycle contract (SM::dormant): without pending work, cycle(now) and the drains change only this.
    void quiet_cycle(core::Cycle now) { now_ = now; }

    template <class V> void visit_stats(V& v) const {
        v.counter("operand_reads", reads_, "register operands read");
        v.counter("register_writes", writes_, "destination registers written");
    }

private:
    struct Waiting {
        std::uint64_t token;
        core::Cycle accepted;
    };
    std::vector<Waiting> waiting_;
    std::vector<std::uint64_t> written_;
    core::Cycle now_ = 0;
    std::uint64_t reads_ = 0, writes_ = 0;
};

} // namespace gpuarch::regfile
