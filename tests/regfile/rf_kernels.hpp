// PTX micro-kernels that write their results to global memory, and a runner that launches them on one SM
// variant (GPU<SM<...>, 1>) and returns device memory and statistics. Shared by tests/regfile and tests/exec.
#pragma once

#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/gpu.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace rf_kernels {

inline const char* header() { return ".version 8.0\n.target sm_75\n.address_size 64\n"; }

// Narrow, negative, zero and wide values, a divergent branch, fp32 with zeros, 64-bit addresses.
inline std::string mix() {
    return std::string(header()) + R"(
.visible .entry mix(.param .u64 out_p, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out_p];
  ld.param.u32 %r13, [n];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  setp.ge.s32 %p2, %r4, %r13;
  @%p2 bra DONE;
  and.b32 %r5, %r4, 7;
  sub.s32 %r6, %r5, 4;
  mul.lo.s32 %r7, %r6, %r5;
  add.s32 %r8, %r7, %r6;
  shl.b32 %r9, %r4, 20;
  xor.b32 %r10, %r9, %r8;
  setp.lt.u32 %p1, %r5, 3;
  @%p1 bra SKIP;
  mul.lo.s32 %r10, %r10, 3;
  add.s32 %r10, %r10, %r5;
SKIP:
  cvt.rn.f32.s32 %f1, %r5;
  fma.rn.f32 %f2, %f1, %f1, %f1;
  mul.f32 %f3, %f2, %f1;
  add.f32 %f4, %f3, %f2;
  cvt.rzi.s32.f32 %r11, %f4;
  add.s32 %r12, %r10, %r11;
  or.b32 %r14, %r5, %r12;
  mul.wide.s32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r14;
DONE:
  ret;
}
)";
}

// A divergent loop: thread i sums k*k + k for k < (i & 15), with dependent chains that contend for banks.
inline std::string loop() {
    return std::string(header()) + R"(
.visible .entry loop(.param .u64 out_p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out_p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  and.b32 %r5, %r4, 15;
  mov.u32 %r6, 0;
  mov.u32 %r7, 0;
LOOP:
  setp.ge.u32 %p1, %r7, %r5;
  @%p1 bra END;
  mad.lo.s32 %r8, %r7, %r7, %r7;
  add.s32 %r6, %r6, %r8;
  xor.b32 %r9, %r6, %r7;
  and.b32 %r10, %r9, 255;
  add.s32 %r6, %r6, %r10;
  add.s32 %r7, %r7, 1;
  bra.uni LOOP;
END:
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r6;
  ret;
}
)";
}

struct Outcome {
    std::vector<std::uint32_t> mix, loop;
    gpuarch::core::Cycle mix_cycles = 0, loop_cycles = 0;
    gpuarch::core::StatsTable mix_stats, loop_stats;
};

inline constexpr unsigned threads = 96, ctas = 4, n = 350; // the last CTA is partial

template <class SMType> Outcome run_kernels() {
    using namespace gpuarch;
    Outcome out;
    func::Device device;
    TimingOptions options;
    options.registers_per_thread = 24;
    {
        const auto module = func::Module::from_string(mix(), "mix.ptx");
        const func::DevPtr buf = device.upload(std::vector<std::uint32_t>(threads * ctas, 0xAAAAAAAAU));
        GPU<SMType, 1> gpu;
        const auto r = gpu.launch(device, module, "mix", func::LaunchConfig{{ctas, 1, 1}, {threads, 1, 1}, 0},
                                  func::Args(buf, n), options);
        out.mix = device.download<std::uint32_t>(buf, threads * ctas);
        out.mix_cycles = r.cycles;
        out.mix_stats = r.stats;
    }
    {
        const auto module = func::Module::from_string(loop(), "loop.ptx");
        const func::DevPtr buf = device.upload(std::vector<std::uint32_t>(threads * ctas, 0));
        GPU<SMType, 1> gpu;
        const auto r = gpu.launch(device, module, "loop", func::LaunchConfig{{ctas, 1, 1}, {threads, 1, 1}, 0},
                                  func::Args(buf), options);
        out.loop = device.download<std::uint32_t>(buf, threads * ctas);
        out.loop_cycles = r.cycles;
        out.loop_stats = r.stats;
    }
    return out;
}

} // namespace rf_kernels
