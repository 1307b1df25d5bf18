// Functional results never depend on hint mode: every corpus kernel gives its reference output under HAWS on the
// Southern Islands machine (GTO base) and on the Kepler machine (round-robin base), with the compiler's hints.
#include <doctest/doctest.h>

#include "corpus_runner.hpp"

using namespace gpuarch;

TEST_CASE("every corpus kernel gives its reference output under HAWS, and hint mode is exercised") {
    std::uint64_t episodes = 0, hinted = 0;
    for (const auto& info : kernels::corpus_cases()) {
        for (int machine = 0; machine < 2; ++machine) {
            const auto row = machine == 0 ? haws_test::run<haws_test::SiHaws>(info.name, kernels::Size::small)
                                          : haws_test::run<haws_test::KeplerHaws>(info.name, kernels::Size::small);
            INFO((machine == 0 ? "SI " : "Kepler ") << info.name << ": " << row.message);
            CHECK(row.passed);
            episodes += row.stats.counter("sm.sched.haws.episodes");
            hinted += row.stats.counter("sm.sched.haws.hint_issued");
        }
    }
    CHECK(episodes > 0);
    CHECK(hinted > 0);
}
