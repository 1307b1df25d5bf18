// Event-driven issue gives the full scan's results for the schedulers with state that are asked every cycle
// (quiet_cycles.hpp says how they are compared).
#include "quiet_cycles.hpp"

using namespace gpuarch;
using namespace gpuarch::pinned_quiet;

TEST_CASE("event-driven issue gives the full scan's results for schedulers with state that are asked every cycle "
          "(Fermi: OAWS, CCWS, MASCAR, SWL, TwoLevelActive)") {
    for (const char* kernel : kernels_checked) {
        check_event_driven_matches_full_scan<machines::Fermi, sched::OAWSDynamic<>>("fermi", kernel);
        check_event_driven_matches_full_scan<machines::Fermi, sched::CCWS<>>("fermi", kernel);
        check_event_driven_matches_full_scan<machines::Fermi, sched::MASCAR<>>("fermi", kernel);
        check_event_driven_matches_full_scan<machines::Fermi, sched::SWL<2>>("fermi", kernel);
        check_event_driven_matches_full_scan<machines::Fermi, sched::TwoLevelActive<6>>("fermi", kernel);
    }
}
