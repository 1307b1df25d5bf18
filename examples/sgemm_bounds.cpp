// SGEMM performance upper bounds (Lai 2013 Ch. 4, Eq. 4.1-4.11) for GT200, Fermi and Kepler,
// with every intermediate quantity of the model.
//
//   g++ -std=c++20 -Iinclude -Iexamples examples/sgemm_bounds.cpp -o sgemm_bounds && ./sgemm_bounds [--repro FILE]
//
// Configuration policy (the thesis's choices where it states them, ours where it does not):
// T_B = 256 threads per block; R_T = min(R_Max, R_SM / T_B) so at least one block fits;
// R_addr from the Sec. 4.4.2 register budget for the LDS width (B row registers = width / 32);
// B_R the largest blocking factor meeting Eq. 4.4 and 4.5 for some stride L <= 16, preferring
// the larger L (this yields the thesis's B_R = 6, L = 16 for LDS.64).

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "gpuarch/model/arch_params.hpp"
#include "gpuarch/model/sgemm_bound.hpp"
#include <gpuarch/support/cli.hpp>
#include <gpuarch/support/repro.hpp>

namespace {
using namespace gpuarch::model;

struct Choice {
    int b_r = 0;
    int l = 0;
    int r_t = 0;
    int r_addr = 0;
};

Choice choose(const ArchParams& arch, LdsWidth lds, int t_b) {
    Choice c{};
    c.r_t = std::min(arch.topology.max_registers_per_thread, arch.nominal.registers_per_sm / t_b);
    // In the Sec. 4.4.2 budget R_addr depends only on the LDS width, not on B_R or L.
    const int r_addr = static_cast<int>(lai_register_budget(6, t_b, 16, lds).r_addr_equivalent());
    for (int l = 16; l >= 1; --l) {
        const int b_r = max_register_blocking_strict(t_b, l, r_addr, c.r_t);
        if (b_r > c.b_r) c = Choice{b_r, l, c.r_t, r_addr};
    }
    return c;
}

using gpuarch::examples::repro::fixed;

std::string yes_no(bool ok) { return ok ? "yes" : "NO"; }

std::string mix_label(const ArchParams& arch, LdsWidth lds) {
    const MixThroughput* m = mix_throughput(arch, lds);
    if (m == nullptr) return "n/a";
    const char* where = m->source == MixSource::bound_sec_4_3_5 ? " (Sec 4.3.5)" : " (Sec 4.3.2)";
    return fixed(m->thread_instr_per_cycle, 1) + where;
}

std::string limiter_name(Limiter l) {
    switch (l) {
    case Limiter::sm_throughput: return "SM throughput";
    case Limiter::memory_bandwidth: return "memory bandwidth";
    case Limiter::sm_bound_unknown: return "unknown (no F_T)";
    }
    return "?";
}

struct GpuBounds {
    std::vector<SgemmInputs> inputs;
    std::vector<SgemmBound> bounds;
};

GpuBounds print_gpu(const ArchParams& arch, const std::vector<LdsWidth>& widths, const char* note) {
    constexpr int t_b = 256;
    std::cout << "\n== " << arch.name << " (" << arch.board << "): peak " << arch.nominal.peak_gflops << " GFLOPS, "
              << arch.nominal.global_bandwidth_gbs << " GB/s, R_SM " << arch.nominal.registers_per_sm << ", Sh_SM "
              << arch.nominal.shared_memory_bytes_per_sm << " B, R_Max " << arch.topology.max_registers_per_thread
              << ", #SP_TP " << arch.nominal.sp_tp << (arch.nominal.sp_tp_uncertain ? "?" : "") << " ==\n";
    std::cout << "   loose Eq. 4.3 bound on B_R at R_T = R_Max: "
              << max_register_blocking_loose(arch.topology.max_registers_per_thread) << "\n";
    if (const auto cap = issue_limited_ffma_fraction(arch)) {
        std::cout << "   issue-limited useful FFMA (measured issue cap " << fixed(*arch.measured.issue_cap, 1) << " / "
                  << arch.nominal.sp_tp << "): " << fixed(*cap * 100.0, 2) << " % of peak\n";
    }
    if (note != nullptr) std::cout << "   note: " << note << "\n";

    std::vector<SgemmInputs> inputs;
    std::vector<SgemmBound> bounds;
    for (LdsWidth w : widths) {
        const Choice c = choose(arch, w, t_b);
        SgemmInputs in = sgemm_inputs(arch, w, c.b_r == 0 ? 1 : c.b_r, t_b, c.l == 0 ? 16 : c.l, c.r_addr);
        in.r_t = c.r_t;
        inputs.push_back(in);
        bounds.push_back(sgemm_upper_bound(in));
    }

    auto row = [&](const std::string& label, auto&& cell) {
        std::cout << "   " << std::left << std::setw(44) << label;
        for (std::size_t i = 0; i < bounds.size(); ++i) std::cout << std::right << std::setw(20) << cell(i);
        std::cout << "\n";
    };
    row("", [&](std::size_t i) { return std::string(lds_name(inputs[i].lds)); });
    row("B_R (register blocking)", [&](std::size_t i) { return std::to_string(inputs[i].b_r); });
    row("T_B (threads per block)", [&](std::size_t i) { return std::to_string(inputs[i].t_b); });
    row("L (stride)", [&](std::size_t i) { return std::to_string(inputs[i].l); });
    row("R_T (registers per thread)", [&](std::size_t i) { return std::to_string(inputs[i].r_t); });
    row("R_addr (Sec 4.4.2 budget)", [&](std::size_t i) { return std::to_string(inputs[i].r_addr); });
    row("Eq4.1  R_T <= R_Max", [&](std::size_t i) { return yes_no(bounds[i].r_t_within_max); });
    row("Eq4.2  T_SM (whole blocks)", [&](std::size_t i) { return std::to_string(bounds[i].t_sm); });
    row("       Blk (active blocks)", [&](std::size_t i) { return std::to_string(bounds[i].blk); });
    row("Eq4.3  B_R^2+B_R+1 < R_T",
        [&](std::size_t i) { return std::to_string(bounds[i].loose_need) + " " + yes_no(bounds[i].loose_ok); });
    row("Eq4.4  tile sqrt(T_B)*B_R*L, %T_B == 0",
        [&](std::size_t i) { return fixed(bounds[i].tile_elements, 0) + " " + yes_no(bounds[i].equal_load_ok); });
    row("Eq4.5  prefetch registers 2*tile/T_B", [&](std::size_t i) { return fixed(bounds[i].prefetch_registers, 1); });
    row("Eq4.5  strict need <= R_T",
        [&](std::size_t i) { return fixed(bounds[i].strict_need, 0) + " " + yes_no(bounds[i].strict_ok); });
    row("Eq4.6  shared bytes Blk*2*tile*4 <= Sh_SM",
        [&](std::size_t i) { return fixed(bounds[i].shared_bytes, 0) + " " + yes_no(bounds[i].shared_ok); });
    row("Eq4.7  B_Sh", [&](std::size_t i) { return fixed(bounds[i].b_sh, 1); });
    row("Eq4.8  flop per byte", [&](std::size_t i) { return fixed(bounds[i].flop_per_byte, 2); });
    row("Eq4.8  P_MemBound (GFLOPS)", [&](std::size_t i) { return fixed(bounds[i].p_mem_gflops, 1); });
    row("F_I (LDS per 32-bit element)", [&](std::size_t i) { return fixed(bounds[i].f_i, 2); });
    row("FFMA fraction (%)", [&](std::size_t i) { return fixed(bounds[i].ffma_fraction * 100.0, 1); });
    row("mix throughput (thr-instr/cycle/SM)", [&](std::size_t i) { return mix_label(arch, inputs[i].lds); });
    row("Eq4.9  F_T = mix / #SP_TP",
        [&](std::size_t i) { return bounds[i].f_t ? fixed(*bounds[i].f_t, 4) : std::string("n/a"); });
    row("Eq4.10 P_SMBound (GFLOPS)",
        [&](std::size_t i) { return bounds[i].p_sm_gflops ? fixed(*bounds[i].p_sm_gflops, 1) : std::string("n/a"); });
    row("Eq4.10 P_SMBound (% of peak)", [&](std::size_t i) {
        return bounds[i].sm_fraction() ? fixed(*bounds[i].sm_fraction() * 100.0, 1) : std::string("n/a");
    });
    row("Eq4.11 P_potential (GFLOPS)", [&](std::size_t i) {
        return bounds[i].p_potential_gflops ? fixed(*bounds[i].p_potential_gflops, 1) : std::string("n/a");
    });
    row("Eq4.11 P_potential (% of peak)", [&](std::size_t i) {
        return bounds[i].potential_fraction() ? fixed(*bounds[i].potential_fraction() * 100.0, 1) : std::string("n/a");
    });
    row("limited by", [&](std::size_t i) { return limiter_name(bounds[i].limiter); });
    row("all constraints feasible", [&](std::size_t i) { return yes_no(bounds[i].feasible()); });
    return GpuBounds{inputs, bounds};
}

std::string percent_of_peak(const SgemmBound& b) {
    return b.potential_fraction() ? fixed(*b.potential_fraction() * 100.0, 1) + "%" : std::string("n/a");
}
} // namespace

int main(int argc, char** argv) {
    namespace repro = gpuarch::examples::repro;
    namespace cli = gpuarch::examples::cli;
    std::string repro_file;
    bool quick = false;
    CLI::App app{"Lai 2013 Ch. 4 SGEMM performance upper bounds for GTX280, GTX580 and GTX680, with every "
                 "intermediate quantity (an analytical model: nothing is simulated).",
                 "sgemm_bounds"};
    // Accepted so that tools/repro runs every study alike; the model is evaluated in microseconds.
    app.add_flag("--quick", quick, "the same as the full run (accepted for tools/repro)");
    app.add_option("--repro", repro_file, "also write the published numbers beside ours as JSON (tools/repro)")
        ->type_name("FILE");
    cli::describe_exit_codes(app, cli::exit_codes("FILE could not be written"));
    if (const auto status = cli::parse(app, argc, argv)) return *status;
    std::cout << "SGEMM upper bounds after Lai 2013, Ch. 4 (Eq. 4.1-4.11); tile term sqrt(T_B)*B_R*L.\n";
    const std::vector<LdsWidth> all{LdsWidth::b32, LdsWidth::b64, LdsWidth::b128};
    print_gpu(gt200_gtx280(), {LdsWidth::b32},
              "GT200 arithmetic takes shared-memory operands and the thesis measures no FFMA/LDS mix on it, "
              "so only the register, shared-memory and bandwidth constraints apply.");
    const GpuBounds fermi = print_gpu(fermi_gtx580(), all, nullptr);
    const GpuBounds kepler = print_gpu(
        kepler_gtx680(), all,
        "throughputs measured at the 1058 MHz boost clock; F_T uses the ratio to the nominal 192 as the thesis does.");
    std::cout
        << "\nThesis: Fermi 82.5 % (LDS.64); Kepler 54.6 % (LDS.64), 57.6 % (LDS.128); Fermi LDS.128 about 71 %.\n";
    if (repro_file.empty()) return 0;

    // Lai 2013 Sec. 4.4 / 4.5 as published (digest Sec. 4); `all` is LDS.32, LDS.64, LDS.128 in that order.
    repro::Report report{"lai_sgemm", "Lai 2013", "SGEMM performance upper bounds (Ch. 4)", {}, {}, {}};
    const std::string config = "model::sgemm_upper_bound (Eq. 4.1-4.11), T_B = 256, B_R and L chosen by Eq. 4.4/4.5, "
                               "arch_params.hpp ";
    report.add("Sec. 4.4.2: register blocking factor B_R, GTX580 LDS.64", "6", std::to_string(fermi.inputs[1].b_r),
               config + "fermi_gtx580()");
    report.add("Sec. 4.5: SGEMM upper bound, GTX580 (Fermi) LDS.64, % of peak", "82.5%",
               percent_of_peak(fermi.bounds[1]), config + "fermi_gtx580()");
    report.add("Sec. 4.5: SGEMM upper bound, GTX580 (Fermi) LDS.128, % of peak", "about 71%",
               percent_of_peak(fermi.bounds[2]), config + "fermi_gtx580()",
               "the thesis multiplies by 92.3% for the padding it needs");
    report.add("Sec. 4.5: SGEMM upper bound, GTX680 (Kepler) LDS.64, % of peak", "54.6%",
               percent_of_peak(kepler.bounds[1]), config + "kepler_gtx680()");
    report.add("Sec. 4.5: SGEMM upper bound, GTX680 (Kepler) LDS.128, % of peak", "57.6%",
               percent_of_peak(kepler.bounds[2]), config + "kepler_gtx680()");
    auto value = [](const SgemmBound& b) { return b.potential_fraction() ? *b.potential_fraction() * 100.0 : 0.0; };
    report.plots.push_back(repro::Plot{
        "lai_sgemm.png",
        "Lai 2013 Sec. 4.5: SGEMM upper bound (% of peak)",
        "bar",
        "% of peak single-precision throughput",
        {"GTX580 LDS.64", "GTX580 LDS.128", "GTX680 LDS.64", "GTX680 LDS.128"},
        {{"thesis", {82.5, 71.0, 54.6, 57.6}},
         {"gpuarch model",
          {value(fermi.bounds[1]), value(fermi.bounds[2]), value(kepler.bounds[1]), value(kepler.bounds[2])}}}});
    return report.finish("sgemm_bounds", repro_file);
}
