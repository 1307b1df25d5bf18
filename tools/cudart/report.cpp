#include "report.hpp"

#include <nlohmann/json.hpp>

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>

namespace gpuarch::cudart {

std::string demangle(const std::string& name) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : name;
}

namespace {

std::uint64_t counter(const core::StatsTable& t, std::string_view name) {
    return t.contains(name) ? t.counter(name) : 0;
}

std::string fixed(double v, int digits = 2) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
    return whole == 0 ? std::string("-") : fixed(100.0 * double(part) / double(whole), 1) + "%";
}

// How a sampled launch's cycles came about, for its block on stderr ("" for a launch run whole in detail).
std::string sampling_note(const LaunchReport& r) {
    if (r.sampling == "estimated")
        return "estimated from the detailed launches of this kernel with this grid and block, +/-" +
               std::to_string(std::llround(r.cycles_error)) + " cycles";
    if (r.sampling == "warm-up") return "warm-up before the fast-forward target: not counted in the totals";
    if (r.sampled())
        return std::to_string(r.detailed_ctas) + " of " + std::to_string(r.ctas) +
               " CTAs in detail, the rest extrapolated, +/-" + std::to_string(std::llround(r.cycles_error)) + " cycles";
    return {};
}

} // namespace

std::string dims(const func::Dim3& d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

Summary summarise(const LaunchReport& r, const support::MachineInfo& machine) {
    Summary s;
    const auto& t = r.stats;
    s.ipc = r.cycles == 0 ? 0.0 : double(r.thread_instructions) / double(r.cycles);
    const std::uint64_t active = counter(t, "sm.active_cycles");
    if (active != 0 && machine.max_warps_per_sm != 0)
        s.achieved_occupancy =
            double(counter(t, "sm.resident_warp_cycles")) / double(active) / double(machine.max_warps_per_sm);
    s.l1_accesses = counter(t, "sm.l1.accesses");
    s.l1_misses = s.l1_accesses - std::min(s.l1_accesses, counter(t, "sm.l1.hits"));
    s.l2_accesses = counter(t, "mem.l2_reads") + counter(t, "mem.l2_writes") + counter(t, "mem.l2_atomics");
    s.l2_misses =
        counter(t, "mem.l2_read_misses") + counter(t, "mem.l2_write_misses") +
        (counter(t, "mem.l2_atomics") - std::min(counter(t, "mem.l2_atomics"), counter(t, "mem.l2_atomic_hits")));
    s.dram_reads = counter(t, "mem.dram_reads");
    s.dram_writes = counter(t, "mem.dram_writes");
    s.issue_slots_total = counter(t, "sm.issue_slots");
    for (const auto& e : t.entries()) {
        constexpr std::string_view prefix = "sm.stall.";
        if (e.is_histogram || e.name.rfind(prefix, 0) != 0 || e.name == "sm.stall.issued" || e.value == 0) continue;
        s.stalls.emplace_back(e.name.substr(prefix.size()), e.value);
    }
    std::stable_sort(s.stalls.begin(), s.stalls.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    return s;
}

std::string GpgpusimStat::text() const {
    char b[64];
    if (integer) std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(value));
    else std::snprintf(b, sizeof b, "%.4f", value);
    return b;
}

std::vector<GpgpusimStat> gpgpusim_stats(const core::StatsTable& t, std::uint64_t cycles, std::uint64_t insn,
                                         std::uint64_t tot_cycles, std::uint64_t tot_insn,
                                         const support::MachineInfo& machine) {
    const auto ratio = [](double part, double whole) { return whole == 0 ? 0.0 : part / whole; };
    const auto c = [&](std::string_view name) { return counter(t, name); };
    std::vector<GpgpusimStat> out;
    const auto add = [&](std::string name, double value, bool integer = true) {
        out.push_back(GpgpusimStat{std::move(name), value, integer});
    };
    // GPGPU-Sim counts thread instructions (gpu_sim_insn) and core-clock cycles.
    add("gpu_sim_cycle", double(cycles));
    add("gpu_sim_insn", double(insn));
    add("gpu_ipc", ratio(double(insn), double(cycles)), false);
    add("gpu_tot_sim_cycle", double(tot_cycles));
    add("gpu_tot_sim_insn", double(tot_insn));
    add("gpu_tot_ipc", ratio(double(tot_insn), double(tot_cycles)), false);
    // Achieved occupancy in percent of the SM's warp slots, over the cycles an SM was active.
    add("gpu_occupancy",
        100.0 * ratio(ratio(double(c("sm.resident_warp_cycles")), double(c("sm.active_cycles"))),
                      double(machine.max_warps_per_sm)),
        false);
    // L1D: every line access of a global or local load or store. A load whose line is pending in an MSHR is a
    // pending hit, not a miss; a store misses when its line is not valid (no write-allocate). Reservation fails are
    // the accesses replayed for want of an MSHR entry, merge slot or way (one per attempt, as GPGPU-Sim counts).
    const std::uint64_t store_accesses = c("sm.l1.write_requests");
    const std::uint64_t store_misses = store_accesses - std::min(store_accesses, c("sm.l1.store_hits"));
    const std::uint64_t l1_accesses = c("sm.l1.accesses") + store_accesses;
    const std::uint64_t l1_misses = c("sm.l1.misses") + store_misses;
    add("L1D_total_cache_accesses", double(l1_accesses));
    add("L1D_total_cache_misses", double(l1_misses));
    add("L1D_total_cache_miss_rate", ratio(double(l1_misses), double(l1_accesses)), false);
    add("L1D_total_cache_pending_hits", double(c("sm.l1.mshr_merges")));
    add("L1D_total_cache_reservation_fails",
        double(c("sm.l1.mshr_full_stall_cycles") + c("sm.l1.merge_full_stall_cycles") +
               c("sm.l1.reservation_fail_cycles")));
    // L2: reads, writes and atomics; a read or atomic merged into a pending miss is a pending hit.
    const std::uint64_t atomics = c("mem.l2_atomics");
    const std::uint64_t l2_accesses = c("mem.l2_reads") + c("mem.l2_writes") + atomics;
    const std::uint64_t l2_misses_and_pending =
        c("mem.l2_read_misses") + c("mem.l2_write_misses") + (atomics - std::min(atomics, c("mem.l2_atomic_hits")));
    const std::uint64_t l2_pending = c("mem.l2_mshr_merges");
    const std::uint64_t l2_misses = l2_misses_and_pending - std::min(l2_misses_and_pending, l2_pending);
    add("L2_total_cache_accesses", double(l2_accesses));
    add("L2_total_cache_misses", double(l2_misses));
    add("L2_total_cache_miss_rate", ratio(double(l2_misses), double(l2_accesses)), false);
    add("L2_total_cache_pending_hits", double(l2_pending));
    // The scheduler's cycle distribution (GPGPU-Sim's shader_cycle_distro), per scheduler and cycle: W0_Idle no
    // warp had a valid instruction (none assigned, empty instruction buffers, or waiting at a barrier);
    // W0_Scoreboard every candidate waited on a register; Stall a ready instruction found its unit, the LSU or a
    // register bank busy. GPGPU-Sim splits issued cycles by active lanes (W1..W32); here they are one total.
    add("Stall", double(c("sm.stall.structural") + c("sm.stall.bank_conflict") + c("sm.stall.memory_pipeline")));
    add("W0_Idle", double(c("sm.stall.idle") + c("sm.stall.ibuffer_empty") + c("sm.stall.barrier")));
    add("W0_Scoreboard", double(c("sm.stall.raw_long_latency") + c("sm.stall.raw_other")));
    add("W1_to_W32_issued", double(c("sm.stall.issued")));
    // DRAM: GPGPU-Sim's bandwidth utilisation (data-bus busy cycles over all DRAM cycles) and efficiency (over the
    // cycles with requests pending), summed over channels.
    const double bus = double(c("mem.dram_bus_busy_cycles"));
    add("total_dram_reads", double(c("mem.dram_reads")));
    add("total_dram_writes", double(c("mem.dram_writes")));
    add("dram_bw_util", ratio(bus, double(c("mem.dram_cycles"))), false);
    add("dram_eff", ratio(bus, double(c("mem.dram_active_cycles"))), false);
    return out;
}

namespace {
std::string gpgpusim_block(const std::vector<GpgpusimStat>& stats) {
    std::string out;
    for (const auto& st : stats) out += st.name + " = " + st.text() + "\n";
    return out;
}
} // namespace

void Reporter::progress(const std::string& kernel, std::uint64_t cycles, std::uint64_t ctas_done,
                        std::uint64_t ctas_total) {
    if (!options_.progress) return;
    const auto now = std::chrono::steady_clock::now();
    const double running = std::chrono::duration<double>(now - launch_start_).count();
    // Only long kernels get a line, and at most four updates a second.
    if (running < 2.0 || now - last_progress_ < std::chrono::milliseconds(250)) return;
    last_progress_ = now;
    const double rate = double(cycles) / running;
    std::fprintf(stderr, "\r\033[K[gpuarch] %s: %llu cycles, %.0f cycles/s, %llu/%llu CTAs done (%.0f%%)",
                 demangle(kernel).c_str(), static_cast<unsigned long long>(cycles), rate,
                 static_cast<unsigned long long>(ctas_done), static_cast<unsigned long long>(ctas_total),
                 ctas_total == 0 ? 0.0 : 100.0 * double(ctas_done) / double(ctas_total));
    std::fflush(stderr);
    progress_shown_ = true;
}

void Reporter::clear_progress_line() {
    if (!progress_shown_) return;
    std::fputs("\r\033[K", stderr);
    progress_shown_ = false;
}

void Reporter::launch_finished(LaunchReport r) {
    clear_progress_line();
    if (r.counted()) {
        tot_cycles_ += r.cycles;
        tot_insn_ += r.thread_instructions;
    }
    if (options_.gpgpusim_format && r.error.empty() && !options_.functional && r.sampling != "fast-forward")
        r.gpgpusim = gpgpusim_stats(r.stats, r.cycles, r.thread_instructions, tot_cycles_, tot_insn_, machine_);
    if (!options_.quiet && !r.gpgpusim.empty()) {
        // GPGPU-Sim's end-of-kernel block: the kernel, then its statistics and the run's totals so far.
        std::string out =
            "kernel_name = " + r.kernel + "\nkernel_launch_uid = " + std::to_string(launches_.size() + 1) + "\n";
        out += gpgpusim_block(r.gpgpusim);
        std::fputs(out.c_str(), stderr);
    } else if (!options_.quiet) {
        const Summary s = summarise(r, machine_);
        std::string out;
        out += "[gpuarch] kernel " + r.display_name + " grid " + dims(r.grid) + " block " + dims(r.block) + ", " +
               std::to_string(r.registers) + " registers (" + r.register_source + "), shared " +
               std::to_string(r.static_shared) + "+" + std::to_string(r.dynamic_shared) + " B\n";
        if (!r.error.empty()) {
            // The launch was stopped: its partial counts are not collected, so only the fact is printed.
            out += "[gpuarch]   stopped by the error above\n";
        } else if (options_.functional || r.sampling == "fast-forward") {
            out += std::string("[gpuarch]   ") +
                   (options_.functional ? "functional: " : "fast-forwarded (functional): ") +
                   std::to_string(r.warp_instructions) + " warp / " + std::to_string(r.thread_instructions) +
                   " thread instructions\n";
        } else {
            if (const std::string note = sampling_note(r); !note.empty()) out += "[gpuarch]   sampled: " + note + "\n";
            out += "[gpuarch]   " + std::to_string(r.cycles) + " cycles, " + std::to_string(r.warp_instructions) +
                   " warp / " + std::to_string(r.thread_instructions) + " thread instructions, IPC " + fixed(s.ipc) +
                   ", occupancy " + fixed(100.0 * s.achieved_occupancy, 1) + "% (at most " +
                   std::to_string(r.resident_ctas_per_sm) + " CTAs per SM)\n";
            if (!s.stalls.empty()) {
                out += "[gpuarch]   stalls (of " + std::to_string(s.issue_slots_total) + " issue slots):";
                for (std::size_t i = 0; i < s.stalls.size() && i < 5; ++i)
                    out += " " + s.stalls[i].first + " " + percent(s.stalls[i].second, s.issue_slots_total);
                out += "\n";
            }
            out += "[gpuarch]   L1D " + std::to_string(s.l1_accesses) + " accesses, " + std::to_string(s.l1_misses) +
                   " misses (" + percent(s.l1_misses, s.l1_accesses) + "); L2 " + std::to_string(s.l2_accesses) +
                   " accesses, " + std::to_string(s.l2_misses) + " misses (" + percent(s.l2_misses, s.l2_accesses) +
                   "); DRAM " + std::to_string(s.dram_reads) + " read / " + std::to_string(s.dram_writes) +
                   " write bursts\n";
        }
        std::fputs(out.c_str(), stderr);
    }
    launches_.push_back(std::move(r));
}

core::StatsTable Reporter::run_stats() const {
    core::StatsTable all;
    for (const auto& r : launches_)
        if (r.error.empty() && r.counted()) all.merge(r.stats);
    return all;
}

void Reporter::finish() {
    if (finished_) return;
    finished_ = true;
    clear_progress_line();
    std::uint64_t cycles = 0, warp = 0, thread = 0, counted = 0, sampled = 0;
    double cycles_error = 0; // summed: the estimates of one series share their error, so they are not independent
    for (const auto& r : launches_) {
        if (!r.counted()) continue;
        ++counted;
        cycles += r.cycles;
        warp += r.warp_instructions;
        thread += r.thread_instructions;
        cycles_error += r.cycles_error;
        sampled += r.sampled() ? 1 : 0;
    }
    // The whole run under GPGPU-Sim's names, for stderr and the JSON alike.
    std::vector<GpgpusimStat> totals_gpgpusim;
    if (options_.gpgpusim_format && !options_.functional)
        totals_gpgpusim = gpgpusim_stats(run_stats(), cycles, thread, cycles, thread, machine_);
    if (!launches_.empty()) {
        std::string out = "[gpuarch] total: " + std::to_string(counted) + " launches";
        if (counted != launches_.size())
            out += " (and " + std::to_string(launches_.size() - counted) + " fast-forwarded or warm-up, not counted)";
        if (!options_.functional) out += ", " + std::to_string(cycles) + " cycles";
        if (sampled != 0)
            out += " +/-" + std::to_string(std::llround(cycles_error)) + " (" + std::to_string(sampled) +
                   " launches sampled)";
        out += ", " + std::to_string(warp) + " warp / " + std::to_string(thread) + " thread instructions";
        if (!options_.functional) out += ", IPC " + fixed(cycles == 0 ? 0.0 : double(thread) / double(cycles));
        out += " on " + options_.variant + "\n";
        if (!totals_gpgpusim.empty())
            out += "[gpuarch] totals with GPGPU-Sim's names (every launch):\n" + gpgpusim_block(totals_gpgpusim);
        std::fputs(out.c_str(), stderr);
    }
    if (options_.json_paths.empty()) return;
    nlohmann::ordered_json doc;
    doc["variant"] = options_.variant;
    doc["machine"] = machine_.name;
    doc["machine_info"] = {{"sms", machine_.sms},
                           {"warp_size", machine_.warp_size},
                           {"max_warps_per_sm", machine_.max_warps_per_sm},
                           {"schedulers_per_sm", machine_.schedulers_per_sm},
                           {"core_clock_mhz", machine_.core_clock_mhz}};
    doc["functional"] = options_.functional;
    doc["totals"] = {{"launches", counted},
                     {"uncounted_launches", launches_.size() - counted},
                     {"cycles", cycles},
                     {"cycles_error", cycles_error},
                     {"sampled_launches", sampled},
                     {"warp_instructions", warp},
                     {"thread_instructions", thread}};
    const auto gpgpusim_json = [](const std::vector<GpgpusimStat>& stats) {
        nlohmann::ordered_json j;
        for (const auto& st : stats) {
            if (st.integer) j[st.name] = static_cast<std::uint64_t>(st.value);
            else j[st.name] = st.value;
        }
        return j;
    };
    if (!totals_gpgpusim.empty()) doc["totals"]["gpgpusim"] = gpgpusim_json(totals_gpgpusim);
    auto& list = doc["launches"] = nlohmann::ordered_json::array();
    for (const auto& r : launches_) {
        const Summary s = summarise(r, machine_);
        nlohmann::ordered_json j;
        j["kernel"] = r.kernel;
        j["name"] = r.display_name;
        j["grid"] = {r.grid.x, r.grid.y, r.grid.z};
        j["block"] = {r.block.x, r.block.y, r.block.z};
        j["registers"] = r.registers;
        j["register_source"] = r.register_source;
        j["static_shared_bytes"] = r.static_shared;
        j["dynamic_shared_bytes"] = r.dynamic_shared;
        j["cycles"] = r.cycles;
        j["warp_instructions"] = r.warp_instructions;
        j["thread_instructions"] = r.thread_instructions;
        j["ctas"] = r.ctas;
        j["resident_ctas_per_sm"] = r.resident_ctas_per_sm;
        j["ipc"] = s.ipc;
        j["achieved_occupancy"] = s.achieved_occupancy;
        j["host_seconds"] = r.host_seconds;
        if (!r.error.empty()) j["error"] = r.error;
        if (!r.gpgpusim.empty()) j["gpgpusim"] = gpgpusim_json(r.gpgpusim);
        j["stats"] = nlohmann::ordered_json::parse(r.stats.to_json());
        if (!r.sampling.empty()) {
            j["sampling"] = {
                {"mode", r.sampling}, {"detailed_ctas", r.detailed_ctas}, {"cycles_error", r.cycles_error}};
            if (!r.stats_error.entries().empty())
                j["sampling"]["stats_error"] = nlohmann::ordered_json::parse(r.stats_error.to_json());
        }
        list.push_back(std::move(j));
    }
    const std::string text = doc.dump(1) + "\n";
    for (const std::string& path : options_.json_paths) {
        std::ofstream out(path);
        if (!(out << text)) std::fprintf(stderr, "[gpuarch] cannot write statistics to '%s'\n", path.c_str());
    }
}

} // namespace gpuarch::cudart
