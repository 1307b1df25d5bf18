// Event-driven issue and fetch give the full scan's results (quiet_cycles.hpp says how they are compared).
#include "quiet_cycles.hpp"

using namespace gpuarch;
using namespace gpuarch::pinned_quiet;

TEST_CASE("event-driven issue and fetch give the full scan's results (Fermi TwoLevel, Kepler LRR, Southern Islands)") {
    for (const char* kernel : kernels_checked) {
        check_event_driven_matches_full_scan<machines::Fermi, sched::TwoLevel<8>>("fermi", kernel);
        check_event_driven_matches_full_scan<machines::Kepler, sched::LRR>("kepler", kernel);
        check_event_driven_matches_full_scan<machines::SouthernIslands, sched::GTO>("si", kernel);
    }
}
