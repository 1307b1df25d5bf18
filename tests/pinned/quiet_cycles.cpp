// Quiet-cycle replay gives the full scan's cycles and statistics (quiet_cycles.hpp says how they are compared).
#include "quiet_cycles.hpp"

using namespace gpuarch;
using namespace gpuarch::pinned_quiet;

TEST_CASE("quiet-cycle replay gives the full scan's cycles and statistics (Fermi, GTO and LRR)") {
    for (const char* kernel : kernels_checked) {
        check_replay_matches_full_scan<machines::Fermi, sched::GTO>("fermi", kernel);
        check_replay_matches_full_scan<machines::Fermi, sched::LRR>("fermi", kernel);
    }
}

TEST_CASE("quiet-cycle replay of a scheduler with state that declares it quiet when nothing is ready gives the full "
          "scan's cycles and statistics (Fermi and Kepler, TwoLevel<8>; Kepler, LocalityTwoLevel)") {
    static_assert(timing::QuietWhenNothingReady<sched::TwoLevel<8>>);
    for (const char* kernel : kernels_checked) {
        check_replay_matches_full_scan<machines::Fermi, sched::TwoLevel<8>>("fermi", kernel);
        check_replay_matches_full_scan<machines::Kepler, sched::TwoLevel<8>>("kepler", kernel);
        check_replay_matches_full_scan<machines::Kepler, sched::LocalityTwoLevel<>>("kepler", kernel);
    }
}

TEST_CASE("quiet-cycle replay gives the full scan's cycles and statistics (Kepler, GTO)") {
    for (const char* kernel : kernels_checked) check_replay_matches_full_scan<machines::Kepler, sched::GTO>("kepler", kernel);
}
