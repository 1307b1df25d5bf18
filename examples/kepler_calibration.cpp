// Lai 2013 Table 4.1 on the GK104-like SM: the steady-state math throughput of each microbenchmark stream
// (thread-instructions per cycle per SM) against Lai's GTX680 measurement, the study behind docs/calibration.md.
//
//   kepler_calibration [--quick] [--repro FILE] [--quiet]
//
//   --quick        four rows (no conflict, 2-way, 3-way, the IMU-bound IMAD gap) instead of all twenty
//   --repro FILE   also write the measured and simulated rates side by side as JSON (support/include/gpuarch/support/repro.hpp)
//   --quiet        no progress on stderr
//
// The machine, the kernels and the measurement are those of the calibration tests (tests/calibration/, through
// support/include/gpuarch/support/table41_support.hpp): GK104 frontend, GTO, KeplerBankedRF (Lai Sec. 4.2.3's banks), ideal memory, and
// the rate taken as the difference between 10 and 8 blocks of 1024 threads. The tests pin each row within 5 %; this program
// prints the numbers and exits non-zero only when a run fails, not when a row misses.
#include <gpuarch/support/table41_support.hpp>
#include <gpuarch/support/cli.hpp>
#include <gpuarch/support/progress.hpp>
#include <gpuarch/support/repro.hpp>

#include <gpuarch/model/kepler_register_banks.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {
using namespace gpuarch;
using namespace gpuarch::calibration_test;
namespace repro = examples::repro;

// --quick: one row of each regime.
constexpr std::string_view quick_rows[] = {"ffma_r0_r1_r4_r5", "ffma_r0_r1_r3_r5", "ffma_r0_r1_r3_r9",
                                           "imad_r0_r1_r3_r9"};

bool in_quick_set(std::string_view entry) {
    for (std::string_view q : quick_rows)
        if (q == entry) return true;
    return false;
}
} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::string repro_file;
    bool quiet = false;
    namespace cli = examples::cli;
    CLI::App app{"Lai 2013 Table 4.1 on the GK104-like SM: the simulated math throughput of each microbenchmark "
                 "stream beside Lai's GTX680 measurement, as Markdown.",
                 "kepler_calibration"};
    app.add_flag("--quick", quick, "four rows (one of each regime) instead of all twenty");
    app.add_option("--repro", repro_file, "also write the measured and simulated rates as JSON (tools/repro)")
        ->type_name("FILE");
    cli::add_quiet(app, quiet);
    cli::describe_exit_codes(app, cli::exit_codes("a run failed, or FILE could not be written (a row outside "
                                                  "its tolerance is not a failure here)"));
    if (const auto status = cli::parse(app, argc, argv)) return *status;
    try {
        // The rows, the repeated-source row and (full run) the IdealRF mechanism check.
        std::size_t measurements = quick ? 1 : 2;
        for (const Table41Row& row : table_4_1()) measurements += !quick || in_quick_set(row.entry) ? 1 : 0;
        examples::Progress progress("kepler_calibration", measurements, quiet, "measurements");
        const std::string config = "SM<KeplerGK104Frontend, GTO, KeplerBankedRF, SimdExec, IdealMemory<20>> x1, "
                                   "kernels/calibration/kepler_table41.ptx, rate = (10 - 8 blocks of 1024 threads)";
        repro::Report report{"lai_calibration", "Lai 2013", "Kepler GK104 calibration against Table 4.1", {}, {}, {}};
        repro::Plot plot{"lai_table41.png",
                         "Lai 2013 Table 4.1: GTX680 measured against the simulated GK104 SM",
                         "bar",
                         "math thread-instructions per cycle per SM",
                         {},
                         {{"Lai (measured)", {}}, {"gpuarch", {}}}};
        std::ostringstream md;
        md << "| Lai Table 4.1 row | measured | simulated | error | dual issues | bank-conflict cycles |\n"
              "|---|---:|---:|---:|---:|---:|\n";
        double worst_other = 0;
        for (const Table41Row& row : table_4_1()) {
            if (quick && !in_quick_set(row.entry)) continue;
            const Measurement m = measure(row.entry);
            progress.step(row.entry);
            const double err = relative_error(m.math_per_cycle, row.measured);
            if (row.entry != "imad_r0_r1_r3_r9") worst_other = std::max(worst_other, std::abs(err));
            md << "| " << row.sass << " | " << repro::fixed(row.measured, 1) << " | "
               << repro::fixed(m.math_per_cycle, 2) << " | " << repro::signed_pct(err) << " | " << m.dual_issues
               << " | " << m.bank_conflict_cycles << " |\n";
            // The note names the mechanism that bounds the row (docs/calibration.md, "The mechanism").
            report.add("Table 4.1: " + std::string(row.sass), repro::fixed(row.measured, 1),
                       repro::fixed(m.math_per_cycle, 1), config,
                       row.integer_multiply ? "bound by the 32-lane IMU (32)"
                                            : "bound by the register banks (" +
                                                  repro::fixed(128.0 / double(model::kepler_bank_conflict_degree(
                                                                           std::span<const unsigned>(row.sources))),
                                                               1) +
                                                  ")");
            plot.labels.emplace_back(row.sass);
            plot.series[0].second.push_back(row.measured);
            plot.series[1].second.push_back(m.math_per_cycle);
        }
        // Outside the table (Lai Sec. 4.2.3): repeated-source FFMAs spread over all four banks, "about 178".
        const Measurement repeated = measure("ffma_repeated_sources");
        progress.step("ffma_repeated_sources");
        md << "| FFMA RA, RB, RB, RA over all four banks (Sec. 4.2.3) | about 178 | "
           << repro::fixed(repeated.math_per_cycle, 2) << " | "
           << repro::signed_pct(repeated.math_per_cycle / 178.0 - 1) << " | " << repeated.dual_issues << " | "
           << repeated.bank_conflict_cycles << " |\n";
        report.add("Sec. 4.2.3: FFMA RA, RB, RB, RA with repeated sources over all four banks", "about 178",
                   repro::fixed(repeated.math_per_cycle, 1), config, "dual issue, bound by the SP groups (192)");
        if (!quick) {
            const Measurement ideal = measure<GK104SM<regfile::IdealRF>>("ffma_r0_r1_r4_r5");
            progress.step("ffma_r0_r1_r4_r5 IdealRF");
            md << "| FFMA R0, R1, R4, R5 with IdealRF (mechanism check) | n/a | "
               << repro::fixed(ideal.math_per_cycle, 2) << " | | " << ideal.dual_issues << " | 0 |\n";
            report.add("Mechanism check: FFMA R0, R1, R4, R5 with IdealRF instead of the banks", "n/a",
                       repro::fixed(ideal.math_per_cycle, 1), "as above with regfile::IdealRF",
                       "the banks, not the frontend, set the ~128 ceiling");
        }
        md << "\nLargest error outside the IMAD R0, R1, R3, R9 row: " << repro::pct(worst_other) << ".\n";
        report.plots.push_back(std::move(plot));
        progress.finish();
        std::cout << "## Lai 2013 Table 4.1 on the GK104-like SM\n\n";
        return report.finish(std::cout, md.str(), "kepler_calibration", repro_file);
    } catch (const std::exception& e) {
        std::cerr << "kepler_calibration: " << e.what() << '\n';
        return 1;
    }
}
