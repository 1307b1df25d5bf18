#pragma once
// Whole machines: a frontend, its memory preset and an SM count, with the scheduler, register file and
// execution policies left open. `machines::Kepler::gpu<sched::GTO>` is a Kepler-like GPU with GTO.
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/frontend/gtx480.hpp>
#include <gpuarch/frontend/kepler.hpp>
#include <gpuarch/frontend/southern_islands.hpp>
#include <gpuarch/gpu.hpp>
#include <gpuarch/mem/presets.hpp>
#include <gpuarch/regfile/ideal_rf.hpp>
#include <gpuarch/sm.hpp>

namespace gpuarch::machines {

// Shared shape of a machine preset. `Sms` is the SM count used by default; a study may pick another with
// `gpu_with<Scheduler, N>`.
template <class FrontendT, class L1T, unsigned Sms, mem::L1Config (*L1Preset)(),
          mem::MemorySystemConfig (*MemoryPreset)(std::uint32_t)>
struct Machine {
    using Frontend = FrontendT;
    using L1 = L1T;
    static constexpr unsigned sms = Sms;

    template <class Scheduler, class RegisterFile = regfile::IdealRF, class Exec = exec::SimdExec>
    using sm = SM<Frontend, Scheduler, RegisterFile, Exec, L1>;
    template <class Scheduler, unsigned N = Sms, class RegisterFile = regfile::IdealRF, class Exec = exec::SimdExec>
    using gpu = GPU<sm<Scheduler, RegisterFile, Exec>, N>;

    template <class GpuType> static typename GpuType::Config config() {
        typename GpuType::Config c;
        c.l1 = L1Preset();
        c.memory = MemoryPreset(GpuType::sm_count);
        return c;
    }
};

// Fermi GF100 (GTX 480): 15 SMs (Fermi whitepaper; GPGPU-Sim's GTX480 configuration). Memory: Wang 2016 Table 1.
using Fermi =
    Machine<frontend::FermiFrontend, mem::presets::FermiL1, 15, mem::presets::fermi_l1, mem::presets::fermi_memory>;
// Wang 2016's baseline exactly as its Table 1 gives it: 30 SMs (15 clusters of 2) with the Fermi frontend, the
// Fermi L1 and memory presets. `Fermi` above is the same machine at the GTX 480's 15 SMs.
using Wang2016 =
    Machine<frontend::FermiFrontend, mem::presets::FermiL1, 30, mem::presets::fermi_l1, mem::presets::fermi_memory>;
// GTX 480 as GPGPU-Sim's tested configuration describes it (SM2_GTX480/gpgpusim.config): 15 SMs, its latency
// tables, L1, L2 and GDDR5 timing (frontend/gtx480.hpp, mem/presets.hpp; docs/gtx480.md).
using GTX480 =
    Machine<frontend::GTX480Frontend, mem::presets::GTX480L1, 15, mem::presets::gtx480_l1, mem::presets::gtx480_memory>;
// Kepler K20X-like: 14 SMs (Gong 2020 Table 4.1). Memory: Gong 2020 Tables 4.1 and 6.3.
using Kepler =
    Machine<frontend::KeplerFrontend, mem::presets::KeplerL1, 14, mem::presets::kepler_l1, mem::presets::kepler_memory>;
// Radeon HD 7970: 32 compute units (Gong 2020 Table 5.2).
using SouthernIslands = Machine<frontend::SouthernIslandsFrontend, mem::presets::SouthernIslandsL1, 32,
                                mem::presets::southern_islands_l1, mem::presets::southern_islands_memory>;

} // namespace gpuarch::machines
