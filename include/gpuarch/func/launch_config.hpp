#pragma once
// What a kernel launch is given: grid and block shape, arguments, and the functional engine's options.
// Contract: validate_launch and pack_arguments reject every malformed launch with a KernelError that names the
// kernel and the offending value, before any thread runs.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gpuarch/func/dim3.hpp>
#include <gpuarch/func/kernel_error.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/names.hpp>

namespace gpuarch::func {

struct LaunchConfig {
    Dim3 grid;
    Dim3 block;
    std::uint32_t dynamic_shared_bytes = 0;
};

// CUDA's limits for every compute capability since 3.0 (CUDA C++ Programming Guide, "Technical Specifications
// per Compute Capability"): 1024 threads per block, block dims 1024 x 1024 x 64, grid dims (2^31-1) x 65535 x 65535.
inline constexpr std::uint32_t max_threads_per_block = 1024;
inline constexpr Dim3 max_block_dims{1024, 1024, 64};
inline constexpr Dim3 max_grid_dims{2147483647U, 65535, 65535};
// Shared memory a CTA may use without the cudaFuncAttributeMaxDynamicSharedMemorySize opt-in (same guide).
inline constexpr std::uint32_t default_shared_memory_limit = 48 * 1024;

struct LaunchOptions {
    std::uint32_t warp_width = 32; // 32, or a multiple of 32 up to 512 (large warps)
    std::uint64_t instruction_limit = 1'000'000'000; // warp instructions per launch before it is stopped
    std::uint32_t shared_memory_limit = default_shared_memory_limit; // static + dynamic bytes per CTA
    std::uint32_t num_sms = 1; // value of %nsmid
    std::uint32_t resident_ctas = 1; // func::launch: CTAs executed concurrently (interleaved), for kernels whose
        // CTAs wait on each other through global memory
    // A cooperative launch (cudaLaunchCooperativeKernel): the execution allocates the grid workspace that
    // cooperative groups' grid.sync() uses (its address is %envreg1:%envreg2; 0 otherwise) for the launch's
    // duration, and func::launch keeps every CTA resident. Whether the grid fits on a machine at once is the
    // caller's check (GPU::launch makes it against the SM variant's occupancy).
    bool cooperative = false;
    // Calls of recursive functions in progress per thread before the launch stops with an error (a GPU bounds
    // recursion by cudaLimitStackSize bytes of ptxas-sized frames; gpuarch saves whole frames of its own layout,
    // so it bounds the depth instead).
    std::uint32_t max_call_depth = 1024;
};

struct FunctionalStats {
    std::uint64_t warp_instructions = 0; // warp-instructions issued (including predicated-off ones)
    std::uint64_t thread_instructions = 0; // sum over issued instructions of the lanes whose guard was true
    std::uint64_t ctas = 0;
};

// Kernel arguments, packed by value in declaration order.
class Args {
public:
    Args() = default;
    template <class... T> explicit Args(const T&... values) { (push(values), ...); }

    template <class T> Args& push(const T& value) {
        static_assert(std::is_trivially_copyable_v<T>,
                      "kernel arguments are copied bytewise: pass trivially copyable values (DevPtr for pointers)");
        return push_bytes(&value, sizeof(T));
    }
    Args& push_bytes(const void* data, std::size_t size) {
        offsets_.push_back(data_.size());
        sizes_.push_back(size);
        data_.resize(data_.size() + size);
        if (size != 0) std::memcpy(data_.data() + offsets_.back(), data, size);
        return *this;
    }

    std::size_t count() const { return sizes_.size(); }
    std::span<const std::uint8_t> bytes(std::size_t index) const {
        return std::span<const std::uint8_t>(data_.data() + offsets_[index], sizes_[index]);
    }

private:
    std::vector<std::uint8_t> data_;
    std::vector<std::size_t> offsets_, sizes_;
};

// The kernel's parameter buffer: each argument checked against its .param declaration and placed at its offset.
inline std::vector<std::uint8_t> pack_arguments(const ir::Kernel& kernel, const Args& args) {
    if (args.count() != kernel.params.size())
        throw KernelError("kernel '" + kernel.name + "' takes " + std::to_string(kernel.params.size()) +
                              " parameter(s) but the launch passes " + std::to_string(args.count()) + " argument(s)",
                          KernelErrorKind::invalid_launch);
    std::vector<std::uint8_t> buffer(kernel.param_bytes, 0);
    for (std::size_t i = 0; i < kernel.params.size(); ++i) {
        const ir::Param& p = kernel.params[i];
        const auto value = args.bytes(i);
        if (value.size() != p.size_bytes)
            throw KernelError("kernel '" + kernel.name + "': argument " + std::to_string(i) + " for parameter '" +
                                  p.name + "' (." + std::string(ir::name(p.type)) + ") must be " +
                                  std::to_string(p.size_bytes) + " bytes, but " + std::to_string(value.size()) +
                                  " bytes were passed",
                              KernelErrorKind::invalid_launch);
        if (p.offset + value.size() > buffer.size())
            throw KernelError("kernel '" + kernel.name + "': parameter '" + p.name +
                                  "' lies outside the parameter buffer",
                              KernelErrorKind::invalid_launch);
        if (!value.empty()) std::memcpy(buffer.data() + p.offset, value.data(), value.size());
    }
    return buffer;
}

// Where dynamic shared memory starts in a CTA's shared window: Kernel::dynamic_shared_offset as the parser sets
// it, never below the static segment rounded up to 16 bytes (a hand-built kernel may leave the field at 0).
inline std::uint64_t dynamic_shared_start(const ir::Kernel& kernel) {
    return std::max<std::uint64_t>(kernel.dynamic_shared_offset, (kernel.shared_bytes + 15) / 16 * 16);
}

// Bytes of shared memory one CTA of this launch owns: the static segment, then the dynamic one.
inline std::uint64_t cta_shared_bytes(const ir::Kernel& kernel, const LaunchConfig& config) {
    if (config.dynamic_shared_bytes == 0) return kernel.shared_bytes;
    return dynamic_shared_start(kernel) + config.dynamic_shared_bytes;
}

inline void validate_launch(const ir::Kernel& kernel, const LaunchConfig& config, const LaunchOptions& options) {
    auto fail = [&](const std::string& what) {
        throw KernelError("cannot launch kernel '" + kernel.name + "': " + what, KernelErrorKind::invalid_launch);
    };
    if (options.warp_width < 32 || options.warp_width > 512 || options.warp_width % 32 != 0)
        fail("warp width " + std::to_string(options.warp_width) + " is not a multiple of 32 between 32 and 512");
    const Dim3& g = config.grid;
    const Dim3& b = config.block;
    if (g.x == 0 || g.y == 0 || g.z == 0) fail("grid " + to_string(g) + " has a zero dimension");
    if (b.x == 0 || b.y == 0 || b.z == 0) fail("block " + to_string(b) + " has a zero dimension");
    if (g.x > max_grid_dims.x || g.y > max_grid_dims.y || g.z > max_grid_dims.z)
        fail("grid " + to_string(g) + " exceeds the maximum " + to_string(max_grid_dims));
    if (b.x > max_block_dims.x || b.y > max_block_dims.y || b.z > max_block_dims.z)
        fail("block " + to_string(b) + " exceeds the maximum " + to_string(max_block_dims));
    if (b.count() > max_threads_per_block)
        fail("block " + to_string(b) + " has " + std::to_string(b.count()) + " threads, more than " +
             std::to_string(max_threads_per_block));
    const auto& d = kernel.directives;
    if (d.reqntid) {
        const Dim3 r{(*d.reqntid)[0], (*d.reqntid)[1], (*d.reqntid)[2]};
        if (!(r == b)) fail("block " + to_string(b) + " differs from the kernel's .reqntid " + to_string(r));
    }
    if (d.maxntid) {
        const Dim3 m{(*d.maxntid)[0], (*d.maxntid)[1], (*d.maxntid)[2]};
        if (b.count() > m.count())
            fail("block " + to_string(b) + " has " + std::to_string(b.count()) +
                 " threads, more than the kernel's "
                 ".maxntid " +
                 to_string(m) + " allows");
    }
    const std::uint64_t shared_total = cta_shared_bytes(kernel, config);
    if (shared_total > options.shared_memory_limit)
        fail(std::to_string(kernel.shared_bytes) + " bytes of static plus " +
             std::to_string(config.dynamic_shared_bytes) + " bytes of dynamic shared memory exceed the limit of " +
             std::to_string(options.shared_memory_limit) + " bytes per CTA (LaunchOptions::shared_memory_limit)");
}

} // namespace gpuarch::func
