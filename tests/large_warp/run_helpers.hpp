#pragma once
// Shared helpers of the large-warp tests: PTX micro-kernels and a launch on a fresh Narasiman 2010 machine.
#include <gpuarch/barrel/narasiman_machine.hpp>
#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>

#include <string>

namespace large_warp_test {

inline std::string ptx_header() { return ".version 8.0\n.target sm_75\n.address_size 64\n"; }

// mov, then N independent adds, then ret: N + 2 instructions, no memory, no branch.
inline std::string independent_adds(int n) {
    std::string body;
    for (int i = 0; i < n; ++i)
        body += "  add.s32 %r" + std::to_string(i % 4 + 1) + ", %r0, " + std::to_string(i) + ";\n";
    return ptx_header() + ".visible .entry adds()\n{\n  .reg .b32 %r<8>;\n  mov.u32 %r0, %tid.x;\n" + body +
           "  ret;\n}\n";
}

template <class Gpu>
gpuarch::LaunchResult run(const std::string& ptx, const char* entry, unsigned threads_per_cta, unsigned ctas = 1) {
    gpuarch::func::Device device;
    const auto module = gpuarch::func::Module::from_string(ptx, "micro.ptx");
    Gpu gpu(gpuarch::barrel::Narasiman2010::config<Gpu>());
    gpuarch::TimingOptions options;
    options.registers_per_thread = 8;
    return gpu.launch(device, module, entry, gpuarch::func::LaunchConfig{{ctas, 1, 1}, {threads_per_cta, 1, 1}, 0},
                      gpuarch::func::Args{}, options);
}

} // namespace large_warp_test
