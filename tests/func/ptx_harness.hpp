#pragma once
// Test helpers: run a PTX kernel body written inline and read back what it stored.
//
// run_body(body, ...) wraps `body` in an entry `k(.param .u64 out, .param .u64 in)` that declares
//   %p0..%p31 (.pred), %h0..%h31 (.b16), %r0..%r127 (.b32), %rd0..%rd63 (.b64), %f0..%f63 (.f32), %fd0..%fd31 (.f64)
// and loads the global address of `out` into %rd62 and of `in` into %rd63 before `body` runs.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gpuarch/func/host.hpp>

namespace gpuarch::func::test {

inline std::string wrap_body(const std::string& body, const std::string& extra_decls = "") {
    return ".version 8.0\n.target sm_80\n.address_size 64\n" + extra_decls +
           ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
           "  .reg .pred %p<32>;\n  .reg .b16 %h<32>;\n  .reg .b32 %r<128>;\n  .reg .b64 %rd<64>;\n"
           "  .reg .f32 %f<64>;\n  .reg .f64 %fd<32>;\n"
           "  ld.param.u64 %rd62, [out];\n  cvta.to.global.u64 %rd62, %rd62;\n"
           "  ld.param.u64 %rd63, [in];\n  cvta.to.global.u64 %rd63, %rd63;\n" +
           body + "\n  ret;\n}\n";
}

struct BodyRun {
    std::vector<std::uint8_t> out;
    FunctionalStats stats;

    template <class T> T at(std::size_t index) const {
        T v{};
        std::memcpy(&v, out.data() + index * sizeof(T), sizeof(T));
        return v;
    }
    std::uint32_t u32(std::size_t i) const { return at<std::uint32_t>(i); }
    std::uint64_t u64(std::size_t i) const { return at<std::uint64_t>(i); }
    float f32(std::size_t i) const { return at<float>(i); }
    double f64(std::size_t i) const { return at<double>(i); }
};

// Runs `body` with `out_bytes` of zeroed output and `in` as input (both global memory).
inline BodyRun run_body(const std::string& body, std::size_t out_bytes, const std::vector<std::uint8_t>& in = {},
                        LaunchConfig config = {Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0}, LaunchOptions options = {},
                        const std::string& extra_decls = "") {
    Device device;
    const Module module = Module::from_string(wrap_body(body, extra_decls), "test.ptx");
    const DevPtr out = device.malloc(out_bytes);
    const DevPtr input = device.malloc(in.empty() ? 1 : in.size());
    if (!in.empty()) device.copy_in(input, in.data(), in.size());
    BodyRun run;
    run.stats = launch(device, module, "k", config, Args(out, input), options);
    run.out.resize(out_bytes);
    device.copy_out(run.out.data(), out, out_bytes);
    return run;
}

template <class T> std::vector<std::uint8_t> bytes_of(const std::vector<T>& values) {
    std::vector<std::uint8_t> b(values.size() * sizeof(T));
    if (!b.empty()) std::memcpy(b.data(), values.data(), b.size());
    return b;
}

} // namespace gpuarch::func::test
