#pragma once
// Dynamic energy per component, computed from the statistics a GPU launch produces (core::StatsTable) and a
// machine's EnergyTable. Energy never reads slot internals: it reads counters by name (the names the SM, its
// register file, its Exec and L1 slots and the memory system declare in visit_stats; docs/energy.md lists
// them).
//
// Contract:
//   * A component whose counters are all present is computed and `available`. One whose base counters are
//     absent (an IdealMemory L1 has no cache counters) is reported unavailable, with the counter it missed, and
//     contributes nothing to the total: a missing counter never reads as zero energy silently.
//   * Gating counters are optional by design: when a policy does not gate, nothing was gated. Gated events
//     (thread-register words, lane operations) cost nothing; their overheads (mask buffer, bypass multiplexer)
//     are charged.
//   * Register files that count bytes (CoalescingRF and its aliases) are charged per 32-byte slice actually
//     moved; those that only count operands (IdealRF, BankedRF) are charged one full warp register per operand
//     read and per register written, and the basis says so.
//   * Execution lanes: powered = active + idle - gated inactive - trivial, per unit kind (SimdExec counts active
//     and idle lanes; ZeroGatedExec adds the gated ones).
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/core/stats.hpp>
#include <gpuarch/power/energy_table.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::power {

struct ComponentEnergy {
    std::string name;
    double pj = 0;
    bool available = true;
    std::string basis; // the counters and energies used, or why the component is unavailable
};

struct EnergyReport {
    std::string machine;
    std::vector<ComponentEnergy> components;

    double total_pj() const {
        double sum = 0;
        for (const auto& c : components)
            if (c.available) sum += c.pj;
        return sum;
    }
    // Sum of the available components whose name is `prefix` or starts with `prefix.` ("rf" gives rf.*).
    double group_pj(std::string_view prefix) const {
        double sum = 0;
        for (const auto& c : components) {
            if (!c.available) continue;
            const std::string_view n = c.name;
            if (n == prefix ||
                (n.size() > prefix.size() && n.substr(0, prefix.size()) == prefix && n[prefix.size()] == '.'))
                sum += c.pj;
        }
        return sum;
    }
    const ComponentEnergy* find(std::string_view name) const {
        for (const auto& c : components)
            if (c.name == name) return &c;
        return nullptr;
    }

    void print(std::ostream& os) const {
        const double total = total_pj();
        os << "dynamic energy on " << machine << " (pJ)\n";
        for (const auto& c : components) {
            os << "  " << c.name << std::string(c.name.size() < 18 ? 18 - c.name.size() : 1, ' ');
            if (!c.available) {
                os << "unavailable: " << c.basis << '\n';
                continue;
            }
            os << c.pj;
            if (total > 0) os << "  (" << 100.0 * c.pj / total << "%)";
            os << '\n';
        }
        os << "  total             " << total << '\n';
    }
    std::string to_json() const {
        std::ostringstream os;
        os << "{\"machine\":\"" << core::StatsTable::json_escape(machine) << "\",\"total_pj\":" << total_pj()
           << ",\"components\":[";
        for (std::size_t i = 0; i < components.size(); ++i) {
            const auto& c = components[i];
            os << (i ? "," : "") << "{\"name\":\"" << core::StatsTable::json_escape(c.name) << "\",\"pj\":" << c.pj
               << ",\"available\":" << (c.available ? "true" : "false") << ",\"basis\":\""
               << core::StatsTable::json_escape(c.basis) << "\"}";
        }
        os << "]}";
        return os.str();
    }
};

namespace detail {
inline std::uint64_t optional_counter(const core::StatsTable& s, const std::string& name) {
    return s.contains(name) ? s.counter(name) : 0;
}
// The first of `names` absent from the table, or empty.
inline std::string first_missing(const core::StatsTable& s, std::initializer_list<std::string> names) {
    for (const auto& n : names)
        if (!s.contains(n)) return n;
    return {};
}
} // namespace detail

// `sm` and `mem` are the prefixes GPU::launch uses for the SMs' and the memory system's counters.
inline EnergyReport energy_report(const core::StatsTable& stats, const EnergyTable& table, std::string_view sm = "sm",
                                  std::string_view mem = "mem") {
    EnergyReport report;
    report.machine = std::string(table.machine);
    const std::string s = std::string(sm) + ".";
    const std::string m = std::string(mem) + ".";
    auto counter = [&](const std::string& name) { return static_cast<double>(stats.counter(name)); };
    auto optional = [&](const std::string& name) { return static_cast<double>(detail::optional_counter(stats, name)); };
    auto add = [&](std::string name, std::initializer_list<std::string> required, auto compute, std::string basis) {
        ComponentEnergy c;
        c.name = std::move(name);
        const std::string missing = detail::first_missing(stats, required);
        if (!missing.empty()) {
            c.available = false;
            c.basis = "no counter " + missing;
        } else {
            c.pj = compute();
            c.basis = std::move(basis);
        }
        report.components.push_back(std::move(c));
    };
    const double slice = 32.0;
    const double full_slices = table.warp_register_bytes / slice;

    // Register file.
    if (stats.contains(s + "rf.bank_bytes_read")) {
        add(
            "rf.banks", {s + "rf.bank_bytes_read", s + "rf.bank_bytes_written"},
            [&] {
                return counter(s + "rf.bank_bytes_read") / slice * table.rf_read_slice.pj +
                       counter(s + "rf.bank_bytes_written") / slice * table.rf_write_slice.pj;
            },
            "bank bytes read/written / 32 x slice energy");
        add(
            "rf.crossbar", {s + "rf.crossbar_bytes"},
            [&] { return counter(s + "rf.crossbar_bytes") / slice * table.crossbar_slice.pj; }, "crossbar bytes / 32");
        add(
            "rf.collectors", {s + "rf.collector_bytes"},
            [&] { return counter(s + "rf.collector_bytes") / slice * table.collector_write_slice.pj; },
            "collector bytes / 32");
    } else {
        add(
            "rf.banks", {s + "rf.operand_reads", s + "rf.register_writes"},
            [&] {
                return counter(s + "rf.operand_reads") * full_slices * table.rf_read_slice.pj +
                       counter(s + "rf.register_writes") * full_slices * table.rf_write_slice.pj;
            },
            "no byte counters: every operand read and register write moves a full warp register");
        add(
            "rf.crossbar", {s + "rf.operand_reads"},
            [&] { return counter(s + "rf.operand_reads") * full_slices * table.crossbar_slice.pj; },
            "no byte counters: a full warp register per operand read");
        add(
            "rf.collectors", {s + "rf.operand_reads"},
            [&] { return counter(s + "rf.operand_reads") * full_slices * table.collector_write_slice.pj; },
            "no byte counters: a full warp register per operand read");
    }
    add(
        "rf.mask_buffer", {},
        [&] {
            return (optional(s + "rf.mask_buffer_reads") + optional(s + "rf.mask_buffer_writes")) *
                   table.mask_buffer_access.pj;
        },
        "mask-buffer reads + writes (absent: the file has none)");

    // Execution units, per kind present in the statistics.
    double trivial_lanes = 0;
    for (std::size_t k = 0; k < timing::unit_kind_count; ++k) {
        const auto kind = static_cast<timing::UnitKind>(k);
        const std::string p = s + "exec." + std::string(timing::name(kind)) + ".";
        if (!stats.contains(p + "active_lane_ops")) continue;
        trivial_lanes += optional(p + "lanes_trivial");
        add(
            "exec." + std::string(timing::name(kind)), {p + "active_lane_ops", p + "idle_lane_ops"},
            [&] {
                const double powered = counter(p + "active_lane_ops") + counter(p + "idle_lane_ops") -
                                       optional(p + "lanes_gated_inactive") - optional(p + "lanes_trivial");
                return powered * table.lane_op[k].pj;
            },
            "(active + idle - gated inactive - trivial) lanes x lane energy");
    }
    add(
        "exec.bypass", {}, [&] { return trivial_lanes * table.trivial_bypass_lane.pj; },
        "trivial lanes x result multiplexer");

    add(
        "frontend", {s + "warp_instructions"}, [&] { return counter(s + "warp_instructions") * table.instruction.pj; },
        "warp instructions x fetch/decode/issue");
    add(
        "l1", {s + "l1.accesses"}, [&] { return counter(s + "l1.accesses") * table.l1_line_access.pj; },
        "L1 line accesses");
    add(
        "shared", {s + "l1.shared_bank_cycles"},
        [&] { return counter(s + "l1.shared_bank_cycles") * table.shared_bank_cycle.pj; }, "shared-memory bank cycles");
    add(
        "constant", {s + "l1.constant_accesses"},
        [&] { return counter(s + "l1.constant_accesses") * table.constant_access.pj; }, "constant-cache accesses");
    add(
        "l2", {m + "l2_reads", m + "l2_writes", m + "l2_atomics"},
        [&] {
            return (counter(m + "l2_reads") + counter(m + "l2_writes") + counter(m + "l2_atomics")) *
                   table.l2_request.pj;
        },
        "L2 reads + writes + atomics");
    add(
        "noc", {m + "icnt_request_flits", m + "icnt_response_flits"},
        [&] {
            return (counter(m + "icnt_request_flits") + counter(m + "icnt_response_flits")) * table.noc_flit_bytes *
                   table.noc_byte.pj;
        },
        "flits x flit bytes");
    add(
        "dram", {m + "dram_bytes"}, [&] { return counter(m + "dram_bytes") * table.dram_byte.pj; }, "DRAM bus bytes");
    add(
        "sm_cycles", {s + "active_cycles"}, [&] { return counter(s + "active_cycles") * table.sm_active_cycle.pj; },
        "active SM cycles x per-cycle energy");
    return report;
}

} // namespace gpuarch::power
