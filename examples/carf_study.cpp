// Radaideh 2020 Chapters 3 and 4 on the kernel corpus: runs every corpus case on a Fermi GPU of 16 SMs (Table 3.5:
// 16 SMs, 4 banks, 4 operand collectors, two-level schedulers) with the baseline, CARF, CORF and the Chapter 4
// gated register file, and prints the reductions the thesis reports (docs/register_file.md says which counter
// gives which figure).
//
//   carf_study [--size small|large] [case ...]
//
// Chapter 4's machine (Table 4.1) is Maxwell-like; here its register file (16 banks, 16 collectors) and
// execution gating run on the Fermi frontend, which the library has: the access and power ratios depend on the
// values and active masks, not on the frontend.
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/exec/zero_gated_exec.hpp>
#include <gpuarch/func/host.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/power/energy_report.hpp>
#include <gpuarch/regfile/coalescing_rf.hpp>
#include <gpuarch/regfile/corf.hpp>
#include <gpuarch/regfile/zero_gated_rf.hpp>
#include <gpuarch/sched/two_level.hpp>

#include "corpus/corpus.hpp"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#ifndef GPUARCH_KERNELS_DIR
#error "GPUARCH_KERNELS_DIR must name the kernels/ directory (the CMake build defines it)"
#endif

namespace {
using namespace gpuarch;
using Machine = machines::Fermi;
using Scheduler = sched::TwoLevel<8>;
constexpr unsigned sms = 16; // Radaideh 2020 Table 3.5

struct Totals {
    std::string variant;
    std::uint64_t cycles = 0, thread_instructions = 0;
    core::StatsTable stats;
    unsigned failures = 0;
    double ipc() const { return cycles == 0 ? 0 : double(thread_instructions) / double(cycles); }
    double c(std::string_view name) const { return static_cast<double>(stats.counter(std::string("sm.rf.") + std::string(name))); }
};

template <class RF, class Exec = exec::SimdExec>
Totals run_variant(const std::vector<std::string>& cases, kernels::Size size) {
    using GpuType = typename Machine::template gpu<Scheduler, sms, RF, Exec>;
    Totals t;
    t.variant = std::string(RF::name) + "/" + std::string(Exec::name);
    for (const std::string& name : cases) {
        const kernels::CaseInfo& info = kernels::find_case(name);
        func::Device device;
        const auto module = func::Module::from_file(std::string(GPUARCH_KERNELS_DIR) + "/ptx/" + std::string(info.ptx_file));
        auto gpu = std::make_unique<GpuType>(Machine::template config<GpuType>());
        auto launcher = [&](const func::Module& m, std::string_view entry, const func::LaunchConfig& launch,
                            const func::Args& args) {
            const LaunchResult r = gpu->launch(device, m, entry, launch, args, TimingOptions{});
            t.cycles += r.cycles;
            t.thread_instructions += r.thread_instructions;
            t.stats.merge(r.stats);
        };
        const kernels::CaseResult result = kernels::run_case(name, device, module, launcher, size);
        if (!result.passed) {
            ++t.failures;
            std::cerr << t.variant << ": " << name << " failed: " << result.message << '\n';
        }
    }
    return t;
}

double pct(double x) { return 100.0 * x; }
double full_share(const std::vector<std::uint64_t>& h) {
    std::uint64_t sum = 0;
    for (auto b : h) sum += b;
    return sum == 0 ? 0 : double(h.size() > 4 ? h[4] : 0) / double(sum);
}

void chapter3_row(const Totals& base, const Totals& v, const power::EnergyTable& table) {
    const double logical = v.c("granted_reads") + v.c("granted_writes");
    const double pairs = v.c("coalesced.rd_rd") + v.c("coalesced.wr_wr") + v.c("coalesced.rd_wr");
    const double e_base = power::energy_report(base.stats, table).total_pj();
    const double e = power::energy_report(v.stats, table).total_pj();
    std::printf("%-28s access -%5.1f%%  OC writes -%5.1f%%  RF bw +%5.1f%%  OC bw +%5.1f%%  "
                "rd-rd %4.1f%% wr-wr %4.1f%% rd-wr %4.1f%%  IPC %+5.1f%%  energy %+5.1f%% (RF %+5.1f%%)\n",
                v.variant.c_str(), pct(1 - v.c("physical_bank_accesses") / logical),
                pct(1 - v.c("collector_writes") / v.c("granted_reads")), pct(logical / v.c("physical_bank_accesses") - 1),
                pct(v.c("granted_reads") / v.c("collector_writes") - 1), pairs == 0 ? 0 : pct(v.c("coalesced.rd_rd") / pairs),
                pairs == 0 ? 0 : pct(v.c("coalesced.wr_wr") / pairs), pairs == 0 ? 0 : pct(v.c("coalesced.rd_wr") / pairs),
                pct(v.ipc() / base.ipc() - 1), pct(e / e_base - 1),
                pct(power::energy_report(v.stats, table).group_pj("rf") / power::energy_report(base.stats, table).group_pj("rf") - 1));
}
} // namespace

int main(int argc, char** argv) {
    kernels::Size size = kernels::Size::small;
    std::vector<std::string> cases;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--size" && i + 1 < argc) {
            const std::string_view v = argv[++i];
            if (v != "small" && v != "large") {
                std::cerr << "--size takes small or large\n";
                return 2;
            }
            size = v == "small" ? kernels::Size::small : kernels::Size::large;
        } else {
            cases.emplace_back(arg);
        }
    }
    if (cases.empty())
        for (const auto& info : kernels::corpus_cases()) cases.emplace_back(info.name);
    try {
        using namespace regfile;
        const auto table = power::fermi_energy_table();
        std::cout << "Radaideh 2020 Chapter 3 on " << cases.size() << " corpus cases, Fermi x" << sms << "\n";
        const Totals base_wid = run_variant<WwfaRF<4, 4, WidLayout>>(cases, size);
        const Totals base_wshift = run_variant<WwfaRF<4, 4, WshiftLayout>>(cases, size);
        const Totals reg_wid = run_variant<CoalescingRF<4, Sub4, WidLayout, RegAlignment>>(cases, size);
        const Totals wr_wid = run_variant<CoalescingRF<4, Sub4, WidLayout, WrAlignment>>(cases, size);
        const Totals ideal_wid = run_variant<CoalescingRF<4, Sub4, WidLayout, IdealAlignment>>(cases, size);
        const Totals upper_wid = run_variant<CoalescingRF<4, Sub4, WidLayout, UpperBoundAlignment>>(cases, size);
        const Totals reg_wshift = run_variant<CoalescingRF<4, Sub4, WshiftLayout, RegAlignment>>(cases, size);
        const Totals corf = run_variant<CORF<4, 4, WidLayout>>(cases, size);
        const auto widths = reg_wid.stats;
        std::printf("full-width operands: %.1f%% of sources, %.1f%% of destinations (thesis: 27.3%%, 29.2%%)\n",
                    pct(full_share(widths.histogram("sm.rf.src_width_bytes"))),
                    pct(full_share(widths.histogram("sm.rf.dst_width_bytes"))));
        std::printf("against %s:\n", base_wid.variant.c_str());
        for (const Totals* v : {&reg_wid, &wr_wid, &ideal_wid, &upper_wid, &corf}) chapter3_row(base_wid, *v, table);
        std::printf("against %s:\n", base_wshift.variant.c_str());
        chapter3_row(base_wshift, reg_wshift, table);
        std::printf("thesis (Table 3.7): CARF wid -31.8%% accesses, +15.3%% IPC, -31.1%% energy; wshift -30.5%%, "
                    "+16.5%%, -32.2%%; CORF -10%%/-23%%, +4%%/+9%%\n\n");

        std::cout << "Radaideh 2020 Chapter 4 (16 banks, 16 collectors)\n";
        const Totals ch4_base = run_variant<WwfaRF<16, 16>>(cases, size);
        const Totals ch4_inactive = run_variant<ZeroGatedRF<16, 16, InactiveGating>, exec::InactiveGatedExec>(cases, size);
        const Totals ch4_gated = run_variant<ZeroGatedRF<16, 16, CrossLaneZeroGating>, exec::ZeroGatedExec>(cases, size);
        const auto& g = ch4_gated;
        const double reads = g.c("thread_reads"), writes = g.c("thread_writes");
        std::printf("RF reads gated: inactive %.1f%%, in-lane zero %.1f%%, cross-lane zero %.1f%%, total %.1f%% "
                    "(thesis 15%%, 15%%, ~20%%, 50%%)\n",
                    pct(g.c("thread_reads_gated.inactive") / reads), pct(g.c("thread_reads_gated.in_lane_zero") / reads),
                    pct(g.c("thread_reads_gated.cross_lane_zero") / reads),
                    pct((g.c("thread_reads_gated.inactive") + g.c("thread_reads_gated.in_lane_zero") +
                         g.c("thread_reads_gated.cross_lane_zero")) / reads));
        std::printf("RF writes gated: inactive %.1f%%, in-lane zero %.1f%%, cross-lane zero %.1f%%, total %.1f%% "
                    "(thesis 14%%, 19%%, ~21%%, 54%%)\n",
                    pct(g.c("thread_writes_gated.inactive") / writes), pct(g.c("thread_writes_gated.in_lane_zero") / writes),
                    pct(g.c("thread_writes_gated.cross_lane_zero") / writes),
                    pct((g.c("thread_writes_gated.inactive") + g.c("thread_writes_gated.in_lane_zero") +
                         g.c("thread_writes_gated.cross_lane_zero")) / writes));
        const auto e0 = power::energy_report(ch4_base.stats, table), e1 = power::energy_report(ch4_inactive.stats, table),
                   e2 = power::energy_report(ch4_gated.stats, table);
        std::printf("RF dynamic energy %+.1f%% (inactive only %+.1f%%; thesis -27%%), execution units %+.1f%% "
                    "(inactive only %+.1f%%; thesis -19%%, -6%%), total %+.1f%% (thesis ~-8%%)\n",
                    pct(e2.group_pj("rf") / e0.group_pj("rf") - 1), pct(e1.group_pj("rf") / e0.group_pj("rf") - 1),
                    pct(e2.group_pj("exec") / e0.group_pj("exec") - 1), pct(e1.group_pj("exec") / e0.group_pj("exec") - 1),
                    pct(e2.total_pj() / e0.total_pj() - 1));
        unsigned failures = 0;
        for (const Totals* t : {&base_wid, &base_wshift, &reg_wid, &wr_wid, &ideal_wid, &upper_wid, &reg_wshift, &corf,
                                &ch4_base, &ch4_inactive, &ch4_gated})
            failures += t->failures;
        return failures == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "carf_study: " << e.what() << '\n';
        return 1;
    }
}
