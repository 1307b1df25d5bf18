#pragma once
// barrel::Narasiman2010: the whole machine of Narasiman et al. 2010, Table 1 -- one barrel-processing core
// (frontend::Narasiman2010Core: 1-wide fetch, 7-stage pipeline, 32 SIMD lanes, 1024 threads, 64 KB register file)
// with the Table 1 memory (mem::presets::NarasimanL1 / narasiman_l1(): 32 KB 4-way 128 B single-cycle D-cache;
// narasiman_memory(): 8 DRAM banks, 4 KB rows, 100 / 300-cycle row hit / conflict, FCFS open row, 128 GB/s).
//
//     using Baseline = barrel::Narasiman2010::gpu<32, sched::LRR>;           // 32 warps of 32, round-robin
//     using Lwm = barrel::Narasiman2010::gpu<256, sched::TwoLevel<2>>;     // 4 large warps of 256, 2Lev2
//     Lwm gpu(barrel::Narasiman2010::config<Lwm>());
#include <gpuarch/barrel/barrel_sm.hpp>
#include <gpuarch/frontend/large_warp.hpp>
#include <gpuarch/frontend/narasiman.hpp>
#include <gpuarch/gpu.hpp>
#include <gpuarch/mem/presets.hpp>
#include <gpuarch/regfile/per_lane_banked_rf.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

namespace gpuarch::barrel {

struct Narasiman2010 {
    using Core = frontend::Narasiman2010Core;
    using L1 = mem::presets::NarasimanL1;
    static constexpr unsigned sms = 1; // Sec. 5: "we simulate a single GPU core"

    template <unsigned LargeWarpSize, class... FrontendKnobs>
    using core_frontend = gpuarch::frontend::LargeWarpFrontend<LargeWarpSize, Core::simd_width, FrontendKnobs...>;
    template <unsigned LargeWarpSize, class Scheduler, class RegisterFile = regfile::PerLaneBankedRF<>,
              class... FrontendKnobs>
    using sm = BarrelSM<core_frontend<LargeWarpSize, FrontendKnobs...>, Scheduler, RegisterFile, L1>;
    template <unsigned LargeWarpSize, class Scheduler, class RegisterFile = regfile::PerLaneBankedRF<>,
              class... FrontendKnobs>
    using gpu = GPU<sm<LargeWarpSize, Scheduler, RegisterFile, FrontendKnobs...>, sms>;

    template <class GpuType> static typename GpuType::Config config() {
        typename GpuType::Config c;
        c.l1 = mem::presets::narasiman_l1();
        c.memory = mem::presets::narasiman_memory(GpuType::sm_count);
        return c;
    }
};

// The configurations of Narasiman 2010 Sec. 6.1 (SIMD width 32 and 1024 threads in each).
using NarasimanBaseline = Narasiman2010::gpu<32, sched::LRR>; // "32 warps of 32 threads each, round-robin"
using NarasimanLwm256 = Narasiman2010::gpu<256, sched::LRR>; // "4 large warps of 256 threads each"
using NarasimanTwoLevel8 = Narasiman2010::gpu<32, sched::TwoLevel<8>>; // "fetch group size to 8"
using NarasimanLwm256TwoLevel2 = Narasiman2010::gpu<256, sched::TwoLevel<2>>; // "LWM256+2Lev2"

} // namespace gpuarch::barrel
