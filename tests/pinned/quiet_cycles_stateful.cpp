// Event-driven issue gives the full scan's results for the schedulers with state that are asked every cycle
// (quiet_cycles.hpp says how they are compared).
#include "quiet_cycles.hpp"

using namespace gpuarch;
using namespace gpuarch::pinned_quiet;

namespace {
// Base whose every select first checks the SM's view: where it offers the waiting slots as one mask
// (PoolView::waiting_mask, under event-driven issue), the mask must name exactly the slots the per-slot queries
// name (empty, waiting on a long-latency load, or waiting at a barrier). It counts the selects checked and the
// mismatches; the full-scan reference offers no mask and is not checked.
template <class Base> struct CheckedWaitingMask : Base {
    static inline std::uint64_t checked = 0, mismatches = 0;
    using Base::Base;
    template <timing::SchedulerView View> unsigned select(const View& view) {
        if constexpr (requires { view.waiting_mask(); }) {
            std::uint64_t expected = 0;
            for (unsigned i = 0; i < view.pool_size(); ++i)
                if (!view.occupied(i) || view.long_latency_pending(i) || view.waiting_at_barrier(i))
                    expected |= std::uint64_t{1} << i;
            ++checked;
            if (view.waiting_mask() != expected) ++mismatches;
        }
        return Base::select(view);
    }
};
} // namespace

TEST_CASE("event-driven issue gives the full scan's results for schedulers with state that are asked every cycle "
          "(Fermi: OAWS, CCWS, MASCAR, SWL, TwoLevelActive)") {
    for (const char* kernel : kernels_checked) {
        check_event_driven_matches_full_scan<machines::Fermi, sched::OAWSDynamic<>>("fermi", kernel);
        check_event_driven_matches_full_scan<machines::Fermi, sched::CCWS<>>("fermi", kernel);
        check_event_driven_matches_full_scan<machines::Fermi, sched::MASCAR<>>("fermi", kernel);
        check_event_driven_matches_full_scan<machines::Fermi, sched::SWL<2>>("fermi", kernel);
        check_event_driven_matches_full_scan<machines::Fermi, CheckedWaitingMask<sched::TwoLevelActive<6>>>("fermi",
                                                                                                          kernel);
    }
    // TwoLevelActive takes its demotions from the SM's waiting mask: in every select of the event-driven runs above,
    // the mask named the slots the per-slot queries name.
    using Checked = CheckedWaitingMask<sched::TwoLevelActive<6>>;
    CHECK(Checked::checked > 10000);
    CHECK(Checked::mismatches == 0);
}
