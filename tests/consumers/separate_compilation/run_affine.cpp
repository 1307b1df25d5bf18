// Runs a small PTX kernel (out[i] = 3 * in[i] + 1 over 100 threads in four CTAs) on gpuarch's functional engine and
// checks every element; prints the instruction counts so the two builds can be compared.
#include <gpuarch/func/host.hpp>

#include <cstdint>
#include <iostream>
#include <vector>

namespace {
constexpr const char* affine_ptx = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry affine(.param .u64 out, .param .u64 in, .param .u32 n) {
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd2;
    cvta.to.global.u64 %rd4, %rd1;
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd6, %rd3, %rd5;
    ld.global.u32 %r6, [%rd6];
    mad.lo.s32 %r7, %r6, 3, 1;
    add.s64 %rd7, %rd4, %rd5;
    st.global.u32 [%rd7], %r7;
DONE:
    ret;
}
)";
} // namespace

int main() {
    using namespace gpuarch::func;
    constexpr std::uint32_t n = 100;
    std::vector<std::uint32_t> in(n), out(n, 0);
    for (std::uint32_t i = 0; i < n; ++i) in[i] = i * 7;
    Device device;
    const Module module = Module::from_string(affine_ptx, "affine.ptx");
    const DevPtr d_in = device.malloc(n * 4), d_out = device.malloc(n * 4);
    device.copy_in(d_in, in.data(), n * 4);
    const FunctionalStats stats = launch(device, module, "affine", LaunchConfig{Dim3{4, 1, 1}, Dim3{32, 1, 1}, 0},
                                         Args(d_out, d_in, n));
    device.copy_out(out.data(), d_out, n * 4);
    for (std::uint32_t i = 0; i < n; ++i)
        if (out[i] != 3 * in[i] + 1) {
            std::cerr << "out[" << i << "] = " << out[i] << ", expected " << 3 * in[i] + 1 << "\n";
            return 1;
        }
    std::cout << "affine: " << n << " elements correct, " << stats.warp_instructions << " warp instructions, "
              << stats.thread_instructions << " thread instructions\n";
    return 0;
}
