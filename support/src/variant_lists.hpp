#pragma once
// The type lists behind the run-time names: machines, schedulers and register files of the prebuilt variants.
// Adding a scheduler to the runtime is one line in a list here (and, for a new group, one variants_*.cpp).
#include "make_variant.hpp"

#include <gpuarch/regfile/banked_rf.hpp>
#include <gpuarch/sched/ccws.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/haws.hpp>
#include <gpuarch/sched/locality_two_level.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/mascar.hpp>
#include <gpuarch/sched/oaws.hpp>
#include <gpuarch/sched/swl.hpp>
#include <gpuarch/sched/two_level.hpp>
#include <gpuarch/sched/two_level_active.hpp>
#include <gpuarch/regfile/coalescing_rf.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>

#include <boost/mp11/list.hpp>

namespace gpuarch::support::detail {

template <FixedName Name, FixedName Description, class Machine> struct MachineEntry {
    static constexpr std::string_view run_name = Name.view();
    static constexpr std::string_view description = Description.view();
    using type = Machine;
};

// Each description states the machine's real parameters (the run-time `--list` and every report print it).
using FermiEntry = MachineEntry<"fermi",
                                "Fermi-like (memory: Wang 2016 Table 1; latencies: CUDA guide): 15 SMs x 48 warps, "
                                "2 schedulers, L1 32 KB 8-way allocate-on-fill 32 MSHRs, L2 6 x 128 KB 16-way, "
                                "SM clock 1400 MHz",
                                machines::Fermi>;
using GTX480Entry = MachineEntry<"gtx480",
                                 "GTX480 as GPGPU-Sim's SM2_GTX480 configuration: 15 SMs x 48 warps, 2 schedulers, "
                                 "per-opcode latencies, L1 16 KB 4-way allocate-on-miss 64 MSHRs 35-cycle hits, "
                                 "flushed per kernel, L2 6 x 128 KB 8-way, GDDR5 with 4 bank groups, 700 MHz",
                                 machines::GTX480>;
using KeplerEntry = MachineEntry<"kepler",
                                 "Kepler K20X-like (Gong 2020 Tables 4.1, 6.3): 14 SMs x 64 warps, 4 schedulers x 2 "
                                 "dispatch, L1 16 KB 4-way 16 MSHRs, L2 6 x 256 KB 16-way, 732 MHz",
                                 machines::Kepler>;
using SouthernIslandsEntry =
    MachineEntry<"southern_islands",
                 "Radeon HD 7970-like (Gong 2020 Table 5.2): 32 CUs x 40 wavefronts of 64, 4 SIMDs, L1 16 KB 4-way "
                 "64 B lines, LDS 64 KB, L2 6 x 128 KB 16-way, 1000 MHz",
                 machines::SouthernIslands>;

// Register files: every scheduler runs with `ideal`; the banked ones are prebuilt with the core schedulers.
using IdealOnly = boost::mp11::mp_list<Named<"ideal", regfile::IdealRF>>;
using BankedFiles = boost::mp11::mp_list<Named<"banked", regfile::BankedRF<4, 4>>, // Fermi-style 4 banks
                                         Named<"coalescing", regfile::CoalescingRF<4, regfile::Sub4>>>; // CARF

// Scheduler groups, one translation unit per machine and group (a few variants each keeps a unit's compile memory
// well under 1.5 GiB). Each group pairs its schedulers with its register files.
struct CoreGroup {
    using schedulers = boost::mp11::mp_list<Named<"lrr", sched::LRR>, Named<"gto", sched::GTO>,
                                            Named<"two_level", sched::TwoLevel<8>>>; // Narasiman 2010: groups of 8
    using register_files = IdealOnly;
};
struct RegisterFileGroup {
    using schedulers = boost::mp11::mp_list<Named<"lrr", sched::LRR>, Named<"gto", sched::GTO>>;
    using register_files = BankedFiles;
};
struct OawsGroup {
    using schedulers =
        boost::mp11::mp_list<Named<"oaws_static", sched::OAWSStatic<50>>, // Wang 2016 Sec. 5: 50% miss rate
                             Named<"oaws_dynamic", sched::OAWSDynamic<>>, Named<"ccws", sched::CCWS<>>>;
    using register_files = IdealOnly;
};
struct ThrottlingGroup {
    using schedulers = boost::mp11::mp_list<Named<"swl_2", sched::SWL<2>>, Named<"swl_4", sched::SWL<4>>,
                                            Named<"mascar", sched::MASCAR<>>,
                                            // GPGPU-Sim's GTX480 configuration: two_level_active:6:0:1
                                            Named<"two_level_active", sched::TwoLevelActive<6>>>;
    using register_files = IdealOnly;
};
struct HintGroup {
    using schedulers =
        boost::mp11::mp_list<Named<"haws", sched::HAWSScheduler<sched::RCU<8>>>, // Gong 2020: RCU depth 8
                             Named<"locality_two_level", sched::LocalityTwoLevel<>>>;
    using register_files = IdealOnly;
};

} // namespace gpuarch::support::detail
