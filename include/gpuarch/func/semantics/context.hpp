#pragma once
// The per-instruction context that the opcode semantics under func/semantics/ take, the launch state it refers
// to, and the helpers every family shares: faults, the destination row and the lane loop.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/func/decode.hpp>
#include <gpuarch/func/device.hpp>
#include <gpuarch/func/kernel_error.hpp>
#include <gpuarch/func/launch_config.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/func/semantics/lanes.hpp>
#include <gpuarch/func/step_result.hpp>
#include <gpuarch/func/warp_state.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/names.hpp>

namespace gpuarch::func {

namespace detail {

// The grid workspace of a cooperative launch, as CUDA's cooperative groups read it through %envreg1:%envreg2
// (cooperative_groups/details/driver_abi.h: struct grid_workspace { unsigned wsSize; unsigned barrier; }): a zeroed
// device allocation with wsSize set, alive as long as the launch. grid.sync() counts arrivals in `barrier` with
// atom.add.release.gpu and spins on ld.acquire.gpu until the last CTA flips its top bit
// (cooperative_groups/details/sync.h), so the simulator needs only ordinary global memory and co-resident CTAs.
class GridWorkspace {
public:
    GridWorkspace() = default;
    explicit GridWorkspace(Device& device) : device_(&device), address_(device.malloc(bytes)) {
        const std::uint32_t size = bytes;
        device.copy_in(address_, &size, sizeof size);
    }
    GridWorkspace(GridWorkspace&& other) noexcept
        : device_(std::exchange(other.device_, nullptr)), address_(std::exchange(other.address_, 0)) {}
    GridWorkspace& operator=(GridWorkspace&& other) noexcept {
        if (this != &other) {
            release();
            device_ = std::exchange(other.device_, nullptr);
            address_ = std::exchange(other.address_, 0);
        }
        return *this;
    }
    GridWorkspace(const GridWorkspace&) = delete;
    GridWorkspace& operator=(const GridWorkspace&) = delete;
    ~GridWorkspace() { release(); }

    DevPtr address() const { return address_; } // 0: not a cooperative launch

private:
    static constexpr std::uint32_t bytes = 8; // sizeof(grid_workspace)
    void release() noexcept {
        if (device_ != nullptr && address_ != 0) {
            try {
                device_->free(address_);
            } catch (...) { // the program freed it itself (a wild cudaFree): nothing left to release
            }
        }
        device_ = nullptr;
        address_ = 0;
    }
    Device* device_ = nullptr;
    DevPtr address_ = 0;
};

} // namespace detail

namespace semantics {

// What one launch's instruction semantics read and write beyond the executing CTA: the launch's constants (the
// Device, the kernel, its configuration and parameters) and the few per-launch buffers and counters that
// instructions update. KernelExecution owns exactly one; semantics reach it through Context::launch.
struct LaunchState {
    LaunchState(Device& launch_device, const Module& launch_module, const LaunchConfig& launch_config,
                const LaunchOptions& launch_options)
        : device(&launch_device), module(launch_module), config(launch_config), options(launch_options) {}

    Device* device = nullptr;
    Module module;
    const ir::Kernel* kernel = nullptr; // points into `module`, whose IR is shared and outlives every copy
    LaunchConfig config;
    LaunchOptions options;
    std::vector<std::uint8_t> params;
    Device::ModuleVariables* variables = nullptr;
    unsigned width = 32;
    unsigned threads_per_cta = 0;
    std::uint64_t shared_bytes = 0;
    std::uint64_t console_bytes = 0; // bytes this launch appended to the Device's console
    bool console_full = false; // console_limit_per_launch was reached
    std::uint64_t zero = 0; // the value of an absent address base or operand, shared by all lanes (mask 0)
    detail::GridWorkspace workspace; // a cooperative launch's grid workspace (address 0 otherwise)
    bool reads_grid_workspace = false; // the kernel reads %envreg1 or %envreg2
    std::vector<std::array<std::uint64_t, 4>> texel_scratch; // tex/suld results per lane before they are written
};

// One warp-instruction being executed: the launch, the executing CTA and warp, the decoded instruction `d` at `pc`
// and the lanes `exec` that execute it (active and guard true). Built once per step and passed by reference, so
// the semantics below cost what the member functions they replaced did.
struct Context {
    LaunchState& launch;
    CtaState& cta;
    WarpState& w;
    const DecodedInstruction& d;
    ir::Pc pc;
    const core::WarpMask& exec;
};

inline FaultSite site_for(const LaunchState& launch, const CtaState& cta, ir::Pc pc) {
    FaultSite site;
    site.kernel = launch.kernel->name;
    site.file = launch.module.ir().file_name;
    site.pc = pc;
    if (pc != ir::no_pc && pc < launch.kernel->code.size()) site.line = launch.kernel->code[pc].line;
    site.cta = cta.id;
    return site;
}

// Throws the KernelError for a fault at `pc`, naming lane `lane`'s thread (none when `lane` is negative).
[[noreturn]] inline void fault(const LaunchState& launch, const CtaState& cta, const WarpState& w, ir::Pc pc, int lane,
                               const std::string& what, std::optional<std::uint64_t> address = std::nullopt,
                               KernelErrorKind kind = KernelErrorKind::other) {
    FaultSite site = site_for(launch, cta, pc);
    if (lane >= 0) site.thread = Dim3{w.tid_x[lane], w.tid_y[lane], w.tid_z[lane]};
    site.address = address;
    throw KernelError(what, site, kind);
}
[[noreturn]] inline void fault(const Context& c, int lane, const std::string& what,
                               std::optional<std::uint64_t> address = std::nullopt,
                               KernelErrorKind kind = KernelErrorKind::other) {
    fault(c.launch, c.cta, c.w, c.pc, lane, what, address, kind);
}

[[noreturn]] inline void unsupported(const Context& c) {
    std::string text = std::string(ir::name(c.d.op));
    const ir::Instruction& i = *c.d.inst;
    if (i.mul_mode != ir::MulMode::none) text += "." + std::string(ir::name(i.mul_mode));
    if (i.rounding != ir::Rounding::none) text += "." + std::string(ir::name(i.rounding));
    if (i.approx) text += ".approx";
    if (i.op == ir::Opcode::cvt) text += "." + std::string(ir::name(i.type)) + "." + std::string(ir::name(i.src_type));
    else if (i.type != ir::ScalarType::none) text += "." + std::string(ir::name(i.type));
    fault(c, -1, "'" + text + "' is not supported by the functional engine", std::nullopt,
          KernelErrorKind::illegal_instruction);
}

inline std::uint64_t* dst_row(const Context& c) {
    if (c.d.dst == ir::no_reg) return c.cta.scratch[5].data(); // sink `_`
    return c.w.row(c.d.dst);
}

template <class F> inline void lanes(const Context& c, F&& f) { detail::for_each_lane(c.exec, c.launch.width, f); }

// dst[l] = f(sources[l]...) over the executed lanes, for an element-wise f of one to three operand values
// (detail::map_lanes: a whole 32-lane warp runs as a vectorizable loop).
template <class F, class... Sources>
inline void map(const Context& c, std::uint64_t* dst, F&& f, const Sources&... sources) {
    detail::map_lanes(c.exec, c.launch.width, dst, f, sources...);
}

} // namespace semantics

} // namespace gpuarch::func
