#pragma once
// One kernel launch, executed one warp-instruction at a time.
//
// Contract:
// - KernelExecution owns everything a launch needs (the parameter buffer, the decoded kernel, a reference to the
//   Device and to the module's variables on it). start_cta(id) creates the architectural state of one CTA;
//   step(cta, warp, out) executes that warp's next instruction (the SIMT-stack top) and describes it in `out`.
//   Any interleaving of steps over warps and CTAs is allowed; the engine itself never reorders anything.
// - Values are exact: every instruction follows the PTX ISA semantics (see int_ops.hpp, float_ops.hpp and
//   docs/functional.md for the choices where the ISA leaves a result unspecified).
// - A fault (out-of-bounds or misaligned access, write to read-only memory, barrier misuse, instruction limit)
//   throws KernelError naming the kernel, PC, PTX line, CTA, thread and address; the launch cannot continue.
// - step() allocates nothing: registers are structure-of-arrays per warp (regs[reg][lane]), every instruction
//   is decoded once per launch, and each step is one switch on the opcode followed by a loop over the executed
//   lanes.
// - Warp-level intrinsics (shfl, vote, match, activemask, %laneid, %lanemask_*) act within aligned groups of 32
//   lanes, so CUDA code keeps its 32-thread semantics on wider warps.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/func/decode.hpp>
#include <gpuarch/func/device.hpp>
#include <gpuarch/func/device_printf.hpp>
#include <gpuarch/func/dim3.hpp>
#include <gpuarch/func/float_ops.hpp>
#include <gpuarch/func/int_ops.hpp>
#include <gpuarch/func/kernel_error.hpp>
#include <gpuarch/func/launch_config.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/func/step_result.hpp>
#include <gpuarch/func/texture.hpp>
#include <gpuarch/func/warp_state.hpp>
#include <gpuarch/ir/def_use.hpp>
#include <gpuarch/ir/liveness.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/names.hpp>

namespace gpuarch::func {

namespace detail {

template <class T>
constexpr std::uint64_t to_bits(T v) {
    if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
    else return static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
}

// Calls f(T{}) with T the C++ integer type of an integer or bit-size PTX type; false for other types.
template <class F>
bool dispatch_integer(ir::ScalarType t, F&& f) {
    using T = ir::ScalarType;
    switch (t) {
    case T::b8:
    case T::u8: f(std::uint8_t{}); return true;
    case T::s8: f(std::int8_t{}); return true;
    case T::b16:
    case T::u16: f(std::uint16_t{}); return true;
    case T::s16: f(std::int16_t{}); return true;
    case T::b32:
    case T::u32: f(std::uint32_t{}); return true;
    case T::s32: f(std::int32_t{}); return true;
    case T::b64:
    case T::u64: f(std::uint64_t{}); return true;
    case T::s64: f(std::int64_t{}); return true;
    default: return false;
    }
}

// Applies a per-lane function to every set lane of `mask` among the first `width` lanes; a full 64-lane word
// (or the whole of a 32-lane warp) runs as a plain counted loop.
template <class F>
inline void for_each_lane(const core::WarpMask& mask, unsigned width, F&& f) {
    const unsigned words = (width + 63) / 64;
    for (unsigned w = 0; w < words; ++w) {
        std::uint64_t bits = mask.word(w);
        if (bits == 0) continue;
        const unsigned base = w * 64;
        const unsigned n = std::min(64U, width - base);
        if (bits == low_mask(n)) {
            for (unsigned i = 0; i < n; ++i) f(base + i);
        } else {
            while (bits != 0) {
                const unsigned i = static_cast<unsigned>(std::countr_zero(bits));
                bits &= bits - 1;
                f(base + i);
            }
        }
    }
}

using core::count_bits; // population count without a library call

inline unsigned count_lanes(const core::WarpMask& mask, unsigned width) {
    unsigned n = 0;
    for (unsigned w = 0; w < (width + 63) / 64; ++w) n += count_bits(mask.word(w));
    return n;
}

// A source operand as seen by the lane loop: a register row, or one value shared by all lanes (mask 0).
struct Source {
    const std::uint64_t* data = nullptr;
    std::uint32_t mask = 0;
    bool negated = false;
    std::uint64_t operator[](unsigned lane) const { return data[lane & mask]; }
    bool pred(unsigned lane) const { return ((data[lane & mask] & 1U) != 0) != negated; }
};

// Little-endian host (x86-64, AArch64), as the device. The fixed-size copies of the common element sizes
// compile to one move each; a variable-size std::memcpy was a library call per lane.
inline std::uint64_t load_le(const std::uint8_t* p, unsigned bytes) {
    std::uint64_t v = 0;
    switch (bytes) {
    case 4: std::memcpy(&v, p, 4); break;
    case 8: std::memcpy(&v, p, 8); break;
    case 1: std::memcpy(&v, p, 1); break;
    case 2: std::memcpy(&v, p, 2); break;
    default: std::memcpy(&v, p, bytes); break;
    }
    return v;
}
inline void store_le(std::uint8_t* p, std::uint64_t v, unsigned bytes) {
    switch (bytes) {
    case 4: std::memcpy(p, &v, 4); break;
    case 8: std::memcpy(p, &v, 8); break;
    case 1: std::memcpy(p, &v, 1); break;
    case 2: std::memcpy(p, &v, 2); break;
    default: std::memcpy(p, &v, bytes); break;
    }
}

inline std::uint64_t extend(std::uint64_t v, unsigned from_bits, bool is_signed, unsigned to_bits) {
    if (to_bits <= from_bits) return v & low_mask(to_bits);
    if (is_signed) return static_cast<std::uint64_t>(sign_extend(v, from_bits)) & low_mask(to_bits);
    return v & low_mask(from_bits);
}

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

class KernelExecution {
public:
    KernelExecution(Device& device, const Module& module, std::string_view entry, const LaunchConfig& config,
                    const Args& args, const LaunchOptions& options = {})
        : device_(&device), module_(module), kernel_(&module_.kernel(entry)), config_(config), options_(options) {
        validate_launch(*kernel_, config_, options_);
        params_ = pack_arguments(*kernel_, args);
        variables_ = &device_->module_variables(module_);
        const KernelDecoder decoder(module_.ir(), *kernel_, variables_->global_base, dynamic_shared_start(*kernel_));
        code_ = decoder.decode();
        width_ = options_.warp_width;
        threads_per_cta_ = static_cast<unsigned>(config_.block.count());
        warps_per_cta_ = (threads_per_cta_ + width_ - 1) / width_;
        shared_bytes_ = cta_shared_bytes(*kernel_, config_);
        live_at_entry_ = ir::registers_live_at_entry(*kernel_);
        private_step_.resize(code_.size());
        for (std::size_t pc = 0; pc < code_.size(); ++pc) private_step_[pc] = touches_only_cta(code_[pc]) ? 1 : 0;
        if (options_.cooperative) workspace_ = detail::GridWorkspace(*device_);
        for (const ir::Instruction& inst : kernel_->code)
            for (std::uint8_t i = 0; i < inst.num_operands; ++i)
                if (inst.operands[i].kind == ir::OperandKind::special &&
                    (inst.operands[i].special == ir::SpecialReg::envreg1 || inst.operands[i].special == ir::SpecialReg::envreg2))
                    reads_grid_workspace_ = true;
    }

    const ir::Kernel& kernel() const { return *kernel_; }
    const Module& module() const { return module_; }
    const LaunchConfig& config() const { return config_; }
    const LaunchOptions& options() const { return options_; }
    Device& device() const { return *device_; }
    unsigned warp_width() const { return width_; }
    unsigned warps_per_cta() const { return warps_per_cta_; }
    std::uint64_t cta_count() const { return config_.grid.count(); }
    // Warp- and thread-instructions stepped so far, including the StepCounts that callers folded in (add_counts).
    std::uint64_t warp_instructions() const { return counts_.warp_instructions; }
    std::uint64_t thread_instructions() const { return counts_.thread_instructions; }
    const std::vector<std::uint8_t>& parameter_buffer() const { return params_; }
    const DecodedInstruction& decoded(ir::Pc pc) const { return code_[pc]; }

    // Creates CTA `linear_cta_id` (x fastest) with every warp at PC 0; `sm_id` is what %smid reads.
    CtaState start_cta(std::uint64_t linear_cta_id, unsigned sm_id = 0) const {
        CtaState cta;
        start_cta(cta, linear_cta_id, sm_id);
        return cta;
    }

    // The same, reusing the buffers of `cta` (a CTA of this launch that finished, or a default-constructed one).
    void start_cta(CtaState& cta, std::uint64_t linear_cta_id, unsigned sm_id = 0) const {
        if (linear_cta_id >= cta_count())
            throw KernelError("kernel '" + kernel_->name + "': CTA " + std::to_string(linear_cta_id) +
                              " does not exist in a grid of " + std::to_string(cta_count()) + " CTAs");
        cta.barriers = {};
        cta.linear_id = linear_cta_id;
        cta.id = unflatten(linear_cta_id, config_.grid);
        cta.sm_id = sm_id;
        cta.shared.assign(shared_bytes_, 0);
        cta.local_frame_bytes = kernel_->local_bytes;
        cta.local.assign(kernel_->local_bytes * threads_per_cta_, 0);
        cta.warps.resize(warps_per_cta_);
        const std::size_t registers = kernel_->registers.size();
        for (unsigned w = 0; w < warps_per_cta_; ++w) {
            WarpState& warp = cta.warps[w];
            warp.exited = core::WarpMask{};
            warp.clock = 0;
            warp.executed = 0;
            warp.barrier = -1;
            warp.reduction_dst = ir::no_reg;
            warp.call_stack.clear();
            warp.call_depth.clear();
            warp.reduction_lanes = core::WarpMask{};
            warp.index = w;
            warp.width = width_;
            warp.first_thread = w * width_;
            const unsigned lanes = std::min(width_, threads_per_cta_ - warp.first_thread);
            warp.valid = core::WarpMask::first(lanes);
            // Only the registers some thread may read before writing them start defined (zero); the rest keep
            // what the slot's previous CTA left, which no thread observes (ir/liveness.hpp). Zeroing every row
            // was up to a few hundred kilobytes of memset per CTA.
            if (warp.regs.size() != registers * width_) warp.regs.assign(registers * width_, 0);
            else
                for (const ir::RegId r : live_at_entry_) std::fill_n(warp.regs.data() + std::size_t{r} * width_, width_, 0);
            warp.carry.assign(width_, 0);
            warp.tid_x.assign(width_, 0);
            warp.tid_y.assign(width_, 0);
            warp.tid_z.assign(width_, 0);
            for (unsigned l = 0; l < lanes; ++l) {
                const Dim3 t = unflatten(warp.first_thread + l, config_.block);
                warp.tid_x[l] = t.x;
                warp.tid_y[l] = t.y;
                warp.tid_z[l] = t.z;
            }
            warp.stack.clear();
            warp.stack.reserve(16);
            warp.stack.push_back(SimtEntry{0, ir::no_pc, warp.valid});
        }
        cta.live_warps = warps_per_cta_;
        for (auto& row : cta.scratch) row.assign(width_, 0);
        cta.shuffle.assign(width_, 0);
        if (kernel_->code.empty())
            for (WarpState& warp : cta.warps) finish_warp(cta, warp);
    }

    // Executes warp `warp`'s next instruction and describes it in `out` (sized to the warp width).
    void step(CtaState& cta, unsigned warp, StepResult& out) { step(cta, warp, out, counts_); }
    // Executes warp `warp`'s next instruction without describing it (the functional-only path).
    void step(CtaState& cta, unsigned warp) { step_impl<false>(cta, check_steppable(cta, warp), nullptr, counts_); }

    // Concurrent stepping (GPU's parallel tick, issue 11). next_step_is_private says whether warp `warp`'s next
    // step reads and writes nothing but `cta` (registers, SIMT stack, barriers, shared and local memory, the CTA's
    // scratch rows) and launch constants (parameters, constant memory, the decoded code): every instruction except
    // ld/st/atom/red in the global or generic space (the Device and its translation caches), and except a PC past
    // the end (a fault). Such a step commutes with every step of every other CTA, so callers may run private steps
    // of different CTAs on different threads at once, through the overload below that counts into the caller's
    // `counts` instead of this object. Contract for that overload: its instruction-limit check reads the count
    // as of the last add_counts, so the caller folds every StepCounts in (add_counts, never concurrently with any
    // step) before the shared count could reach LaunchOptions::instruction_limit. Precondition of both: the warp
    // can step (not finished, not waiting at a barrier).
    bool next_step_is_private(const CtaState& cta, unsigned warp) const {
        const ir::Pc pc = cta.warps[warp].stack.back().pc;
        return pc < private_step_.size() && private_step_[pc] != 0;
    }
    void step(CtaState& cta, unsigned warp, StepResult& out, StepCounts& counts) {
        if (out.width() < width_)
            throw Error("StepResult holds " + std::to_string(out.width()) + " lanes but the launch uses " +
                        std::to_string(width_) + "-lane warps");
        step_impl<true>(cta, check_steppable(cta, warp), &out, counts);
    }
    // Adds counts gathered by concurrent steps to this launch's and clears them.
    void add_counts(StepCounts& counts) {
        counts_.warp_instructions += counts.warp_instructions;
        counts_.thread_instructions += counts.thread_instructions;
        counts = StepCounts{};
    }

    // Throws a KernelError describing the barrier deadlock when no unfinished warp of `cta` can step.
    void check_progress(const CtaState& cta) const {
        if (cta.finished()) return;
        for (unsigned w = 0; w < cta.warp_count(); ++w)
            if (cta.warp_ready(w)) return;
        std::string waits;
        ir::Pc pc = ir::no_pc;
        for (unsigned b = 0; b < barrier_count; ++b) {
            const BarrierState& s = cta.barriers[b];
            if (s.arrived_warps == 0) continue;
            if (pc == ir::no_pc) pc = s.pc;
            waits += (waits.empty() ? "" : "; ") + std::to_string(s.arrived_warps) + " warp(s) at barrier " +
                     std::to_string(b) +
                     (s.expected_threads != 0 ? " expecting " + std::to_string(s.expected_threads) + " threads"
                                              : std::string());
        }
        FaultSite site = site_for(cta, pc);
        throw KernelError("barrier deadlock: every unfinished warp waits at a barrier that cannot complete (" +
                              waits + "; " + std::to_string(cta.live_warps) + " warp(s) unfinished)",
                          site, KernelErrorKind::deadlock);
    }

    // Where warp `warp` of `cta` stands: kernel, CTA, the PC and PTX line of its next instruction and its first
    // active thread. For reports that stop a running launch (a cycle limit, a livelock).
    FaultSite warp_site(const CtaState& cta, unsigned warp) const {
        const WarpState& w = cta.warps[warp];
        FaultSite site = site_for(cta, w.next_pc());
        const core::WarpMask mask = w.active_mask();
        for (unsigned lane = 0; lane < w.tid_x.size(); ++lane)
            if (mask.test(lane)) {
                site.thread = Dim3{w.tid_x[lane], w.tid_y[lane], w.tid_z[lane]};
                break;
            }
        return site;
    }

private:
    WarpState& check_steppable(CtaState& cta, unsigned warp) const {
        if (warp >= cta.warps.size())
            throw Error("warp " + std::to_string(warp) + " does not exist in a CTA of " +
                        std::to_string(cta.warps.size()) + " warps");
        WarpState& w = cta.warps[warp];
        if (w.finished()) throw Error("step called on warp " + std::to_string(warp) + ", which has finished");
        if (w.waiting())
            throw Error("step called on warp " + std::to_string(warp) + ", which waits at barrier " +
                        std::to_string(w.barrier));
        return w;
    }

    FaultSite site_for(const CtaState& cta, ir::Pc pc) const {
        FaultSite site;
        site.kernel = kernel_->name;
        site.file = module_.ir().file_name;
        site.pc = pc;
        if (pc != ir::no_pc && pc < kernel_->code.size()) site.line = kernel_->code[pc].line;
        site.cta = cta.id;
        return site;
    }

    [[noreturn]] void fault(const CtaState& cta, const WarpState& w, ir::Pc pc, int lane, const std::string& what,
                            std::optional<std::uint64_t> address = std::nullopt,
                            KernelErrorKind kind = KernelErrorKind::other) const {
        FaultSite site = site_for(cta, pc);
        if (lane >= 0) site.thread = Dim3{w.tid_x[lane], w.tid_y[lane], w.tid_z[lane]};
        site.address = address;
        throw KernelError(what, site, kind);
    }

    // ---- stepping ------------------------------------------------------------------------------------------

    // Whether executing `d` touches nothing outside its CTA and the launch constants (see next_step_is_private).
    static bool touches_only_cta(const DecodedInstruction& d) {
        switch (d.op) {
        case ir::Opcode::ld:
        case ir::Opcode::st:
        case ir::Opcode::atom:
        case ir::Opcode::red:
        case ir::Opcode::prefetch: // a global or generic prefetch asks the Device's translation (prefetch())
        case ir::Opcode::prefetchu:
            return d.space == ir::StateSpace::shared || d.space == ir::StateSpace::local ||
                   d.space == ir::StateSpace::param || d.space == ir::StateSpace::constant;
        // They read the Device's texture table and its memory (texels live in device allocations).
        case ir::Opcode::tex:
        case ir::Opcode::suld:
        case ir::Opcode::sust: return false;
        // They read strings from device memory, and vprintf appends to the Device's console.
        case ir::Opcode::vprintf:
        case ir::Opcode::assertfail: return false;
        // issue 20: malloc and free change the Device's heap; cp.async reads global memory.
        case ir::Opcode::device_malloc:
        case ir::Opcode::device_free:
        case ir::Opcode::cp_async: return false;
        default: return true;
        }
    }

    template <bool Record>
    void step_impl(CtaState& cta, WarpState& w, StepResult* out, StepCounts& counts) {
        const ir::Pc pc = w.stack.back().pc;
        if (pc >= code_.size()) fault(cta, w, pc, -1, "execution ran past the end of the kernel", std::nullopt, KernelErrorKind::illegal_instruction);
        if (counts_.warp_instructions >= options_.instruction_limit)
            fault(cta, w, pc, -1,
                  "the launch reached its instruction limit of " + std::to_string(options_.instruction_limit) +
                      " warp instructions (LaunchOptions::instruction_limit); the kernel may not terminate",
                  std::nullopt, KernelErrorKind::limit);
        const DecodedInstruction& d = code_[pc];
        const core::WarpMask active = w.stack.back().mask;
        core::WarpMask exec = active;
        if (d.inst->guard.reg != ir::no_reg) exec = guard_mask(w, d.inst->guard, active);
        ++counts.warp_instructions;
        const unsigned executed_lanes = detail::count_lanes(exec, width_);
        counts.thread_instructions += executed_lanes;
        if constexpr (Record) {
            out->pc = pc;
            out->instruction = d.inst;
            out->active = active;
            out->executed = exec;
            out->is_branch = false;
            out->diverged = false;
            out->taken = core::WarpMask{};
            out->reconvergence_pc = ir::no_pc;
            out->is_memory = out->is_load = out->is_store = out->is_atomic = false;
            out->space = ir::StateSpace::none;
            out->access_bytes = 0;
            out->has_value = false;
            out->value_reg = ir::no_reg;
            out->warp_finished = out->barrier_wait = out->barrier_released = false;
        }
        bool released = false;
        switch (d.op) {
        case ir::Opcode::bra: branch<Record>(w, d, pc, active, exec, out); break;
        case ir::Opcode::ret:
            if (d.inst->num_operands == 1) return_from_call(cta, w, d, pc, exec); // an out-of-line function returns
            else exit_lanes(w, pc, exec);
            break;
        case ir::Opcode::exit: exit_lanes(w, pc, exec); break;
        case ir::Opcode::call: call_out_of_line(cta, w, d, pc, exec); break;
        case ir::Opcode::bar:
            if (exec.any()) released = barrier(cta, w, d, pc, exec);
            w.stack.back().pc = pc + 1;
            break;
        default:
            if (exec.any()) execute<Record>(cta, w, d, pc, exec, out);
            w.stack.back().pc = pc + 1;
            break;
        }
        // Pop entries that reached their reconvergence point or lost all their lanes.
        while (!w.stack.empty() &&
               (w.stack.back().mask.none() || w.stack.back().pc == w.stack.back().reconvergence_pc))
            w.stack.pop_back();
        ++w.clock;
        ++w.executed;
        if (w.stack.empty()) released = finish_warp(cta, w) || released;
        if constexpr (Record) {
            out->next_pc = w.next_pc();
            out->warp_finished = w.finished();
            out->barrier_wait = w.waiting();
            out->barrier_released = released;
            const ir::RegId first_dst = d.dst != ir::no_reg ? d.dst : (d.dst_count > 0 ? d.dst_vector[0] : ir::no_reg);
            if (!out->has_value && first_dst != ir::no_reg && ir::has_destination(*d.inst) && d.op != ir::Opcode::bar) {
                out->has_value = true;
                out->value_reg = first_dst;
                const std::uint64_t* row = w.row(first_dst);
                if (executed_lanes == width_) std::copy_n(row, width_, out->values.data()); // every lane: one block copy
                else detail::for_each_lane(exec, width_, [&](unsigned l) { out->values[l] = row[l]; });
            }
        }
    }

    core::WarpMask guard_mask(const WarpState& w, const ir::Guard& guard, const core::WarpMask& active) const {
        core::WarpMask m;
        const std::uint64_t* p = w.row(guard.reg);
        const unsigned words = (width_ + 63) / 64;
        for (unsigned word = 0; word < words; ++word) {
            if (active.word(word) == 0) continue;
            const unsigned base = word * 64, n = std::min(64U, width_ - base);
            std::uint64_t bits = 0;
            for (unsigned i = 0; i < n; ++i) bits |= (p[base + i] & 1U) << i;
            if (guard.negated) bits = ~bits;
            m.set_word(word, bits & active.word(word));
        }
        return m;
    }

    template <bool Record>
    void branch(WarpState& w, const DecodedInstruction& d, ir::Pc pc, const core::WarpMask& active,
                const core::WarpMask& taken, StepResult* out) {
        const core::WarpMask not_taken = active & ~taken;
        const ir::Pc join = d.inst->reconvergence_pc;
        if constexpr (Record) {
            out->is_branch = true;
            out->taken = taken;
            out->reconvergence_pc = join;
        }
        SimtEntry& top = w.stack.back();
        if (not_taken.none()) {
            top.pc = d.target;
        } else if (taken.none()) {
            top.pc = pc + 1;
        } else {
            if constexpr (Record) out->diverged = true;
            if (top.reconvergence_pc == join) {
                // The top entry already reconverges where this branch does (a loop exit, a second break): it
                // continues as the fall-through path and the join entry below it collects both paths, so the
                // stack does not grow with the number of divergent iterations.
                top.pc = pc + 1;
                top.mask = not_taken;
            } else {
                top.pc = join; // the top entry becomes the join entry, holding every lane
                w.stack.push_back(SimtEntry{pc + 1, join, not_taken});
            }
            w.stack.push_back(SimtEntry{d.target, join, taken});
        }
    }

    void exit_lanes(WarpState& w, ir::Pc pc, const core::WarpMask& exiting) {
        w.exited |= exiting;
        const core::WarpMask keep = ~exiting;
        for (SimtEntry& e : w.stack) e.mask &= keep;
        w.stack.back().pc = pc + 1; // the lanes whose guard was false continue
    }

    // Marks a warp finished; returns whether that completed a barrier the other warps wait at.
    bool finish_warp(CtaState& cta, WarpState& w) const {
        w.stack.clear();
        --cta.live_warps;
        bool released = false;
        for (unsigned b = 0; b < barrier_count; ++b) {
            BarrierState& s = cta.barriers[b];
            if (s.arrived_warps != 0 && s.expected_threads == 0 && s.arrived_warps >= cta.live_warps) {
                release_barrier(cta, b);
                released = true;
            }
        }
        return released;
    }

    // bar.sync / bar.arrive / bar.red: the warp arrives (counted once, with all its launched threads, as the
    // hardware counts whole warps) and, unless it only arrives, waits. Returns whether the barrier completed.
    bool barrier(CtaState& cta, WarpState& w, const DecodedInstruction& d, ir::Pc pc, const core::WarpMask& exec) {
        const unsigned first = static_cast<unsigned>(exec.find_first());
        const detail::Source a = source(cta, w, d, 0);
        const std::uint64_t id = a[first] & 0xffffffffU;
        if (id >= barrier_count)
            fault(cta, w, pc, static_cast<int>(first), "barrier id " + std::to_string(id) + " is not in 0..15");
        const bool reduction = d.inst->barrier == ir::BarrierMode::red_popc ||
                               d.inst->barrier == ir::BarrierMode::red_and || d.inst->barrier == ir::BarrierMode::red_or;
        const unsigned value_sources = d.num_sources - (reduction ? 1U : 0U);
        std::uint32_t expected = 0;
        if (value_sources >= 2) {
            const detail::Source b = source(cta, w, d, 1);
            expected = static_cast<std::uint32_t>(b[first]);
            if (expected == 0)
                fault(cta, w, pc, static_cast<int>(first), "barrier thread count is 0");
        } else if (d.inst->barrier == ir::BarrierMode::arrive) {
            fault(cta, w, pc, static_cast<int>(first), "bar.arrive needs a thread count");
        }
        BarrierState& s = cta.barriers[id];
        if (s.arrived_warps == 0) {
            s.expected_threads = expected;
            s.reduction = reduction ? d.inst->barrier : ir::BarrierMode::none;
            s.pc = pc;
        } else if (s.expected_threads != expected) {
            fault(cta, w, pc, static_cast<int>(first),
                  "barrier " + std::to_string(id) + " is used with thread counts " +
                      std::to_string(s.expected_threads) + " and " + std::to_string(expected) + " at once");
        }
        ++s.arrived_warps;
        s.arrived_threads += detail::count_lanes(w.valid, width_);
        if (reduction) {
            const detail::Source c = source(cta, w, d, static_cast<unsigned>(d.num_sources - 1));
            detail::for_each_lane(exec, width_, [&](unsigned l) {
                s.true_count += c.pred(l) ? 1U : 0U;
                ++s.lane_count;
            });
            w.reduction_dst = d.dst;
            w.reduction_lanes = exec;
        }
        if (d.inst->barrier != ir::BarrierMode::arrive) w.barrier = static_cast<int>(id);
        const bool complete = s.expected_threads == 0 ? s.arrived_warps >= cta.live_warps
                                                      : s.arrived_threads >= s.expected_threads;
        if (complete) release_barrier(cta, static_cast<unsigned>(id));
        return complete;
    }

    void release_barrier(CtaState& cta, unsigned id) const {
        BarrierState& s = cta.barriers[id];
        std::uint64_t result = 0;
        switch (s.reduction) {
        case ir::BarrierMode::red_popc: result = s.true_count; break;
        case ir::BarrierMode::red_and: result = s.true_count == s.lane_count ? 1 : 0; break;
        case ir::BarrierMode::red_or: result = s.true_count != 0 ? 1 : 0; break;
        default: break;
        }
        for (WarpState& w : cta.warps) {
            if (w.barrier != static_cast<int>(id)) continue;
            w.barrier = -1;
            if (s.reduction != ir::BarrierMode::none && w.reduction_dst != ir::no_reg) {
                std::uint64_t* row = w.row(w.reduction_dst);
                detail::for_each_lane(w.reduction_lanes, width_, [&](unsigned l) { row[l] = result; });
                w.reduction_dst = ir::no_reg;
            }
        }
        s = BarrierState{};
    }

    // ---- operands ------------------------------------------------------------------------------------------

    detail::Source source(CtaState& cta, const WarpState& w, const DecodedInstruction& d, unsigned i) {
        const DecodedSource& s = d.sources[i];
        switch (s.kind) {
        case SourceKind::reg: return {w.row(s.reg), ~0U, s.negated};
        case SourceKind::imm: return {&s.imm, 0U, s.negated};
        case SourceKind::special: {
            std::uint64_t* row = cta.scratch[i].data();
            fill_special(cta, w, s.special, row);
            return {row, ~0U, s.negated};
        }
        case SourceKind::none: break;
        }
        fault(cta, w, static_cast<ir::Pc>(d.inst - kernel_->code.data()), -1,
              "operand " + std::to_string(i) + " has no value");
    }

    void fill_special(const CtaState& cta, const WarpState& w, ir::SpecialReg r, std::uint64_t* row) const {
        using S = ir::SpecialReg;
        const unsigned n = width_;
        auto fill = [&](std::uint64_t v) { std::fill(row, row + n, v); };
        switch (r) {
        case S::tid_x: for (unsigned l = 0; l < n; ++l) row[l] = w.tid_x[l]; break;
        case S::tid_y: for (unsigned l = 0; l < n; ++l) row[l] = w.tid_y[l]; break;
        case S::tid_z: for (unsigned l = 0; l < n; ++l) row[l] = w.tid_z[l]; break;
        case S::ntid_x: fill(config_.block.x); break;
        case S::ntid_y: fill(config_.block.y); break;
        case S::ntid_z: fill(config_.block.z); break;
        case S::ctaid_x: fill(cta.id.x); break;
        case S::ctaid_y: fill(cta.id.y); break;
        case S::ctaid_z: fill(cta.id.z); break;
        case S::nctaid_x: fill(config_.grid.x); break;
        case S::nctaid_y: fill(config_.grid.y); break;
        case S::nctaid_z: fill(config_.grid.z); break;
        case S::laneid: for (unsigned l = 0; l < n; ++l) row[l] = l & 31U; break;
        // %warpid: the 32-thread warp of the thread within its CTA, so %warpid * 32 + %laneid is the thread's
        // linear index on every warp width.
        case S::warpid: for (unsigned l = 0; l < n; ++l) row[l] = (w.first_thread + l) / 32; break;
        case S::nwarpid: fill((threads_per_cta_ + 31) / 32); break;
        case S::smid: fill(cta.sm_id); break;
        case S::nsmid: fill(options_.num_sms); break;
        case S::gridid: fill(0); break;
        case S::lanemask_eq: for (unsigned l = 0; l < n; ++l) row[l] = std::uint64_t{1} << (l & 31U); break;
        case S::lanemask_lt: for (unsigned l = 0; l < n; ++l) row[l] = (std::uint64_t{1} << (l & 31U)) - 1; break;
        case S::lanemask_le: for (unsigned l = 0; l < n; ++l) row[l] = (std::uint64_t{2} << (l & 31U)) - 1; break;
        case S::lanemask_gt:
            for (unsigned l = 0; l < n; ++l) row[l] = ~((std::uint64_t{2} << (l & 31U)) - 1) & 0xffffffffU;
            break;
        case S::lanemask_ge:
            for (unsigned l = 0; l < n; ++l) row[l] = ~((std::uint64_t{1} << (l & 31U)) - 1) & 0xffffffffU;
            break;
        case S::clock: fill(w.clock & 0xffffffffU); break;
        case S::clock_hi: fill(w.clock >> 32); break;
        case S::clock64: fill(w.clock); break;
        case S::globaltimer: fill(w.clock); break; // nanoseconds = warp instructions (see WarpState::clock)
        case S::globaltimer_lo: fill(w.clock & 0xffffffffU); break;
        case S::globaltimer_hi: fill(w.clock >> 32); break;
        case S::dynamic_smem_size: fill(config_.dynamic_shared_bytes); break;
        case S::total_smem_size: fill(shared_bytes_); break;
        // The launch's warp width, unlike the 32-lane groups of %laneid/%warpid: warpSize is the hardware width.
        case S::warp_sz: fill(width_); break;
        case S::envreg1: fill(workspace_.address() >> 32); break;
        case S::envreg2: fill(workspace_.address() & 0xffffffffU); break;
        }
    }

    // ---- instruction semantics -----------------------------------------------------------------------------

    struct Ctx {
        CtaState& cta;
        WarpState& w;
        const DecodedInstruction& d;
        ir::Pc pc;
        const core::WarpMask& exec;
    };

    [[noreturn]] void unsupported(const Ctx& c) const {
        std::string text = std::string(ir::name(c.d.op));
        const ir::Instruction& i = *c.d.inst;
        if (i.mul_mode != ir::MulMode::none) text += "." + std::string(ir::name(i.mul_mode));
        if (i.rounding != ir::Rounding::none) text += "." + std::string(ir::name(i.rounding));
        if (i.approx) text += ".approx";
        if (i.op == ir::Opcode::cvt) text += "." + std::string(ir::name(i.type)) + "." + std::string(ir::name(i.src_type));
        else if (i.type != ir::ScalarType::none) text += "." + std::string(ir::name(i.type));
        fault(c.cta, c.w, c.pc, -1, "'" + text + "' is not supported by the functional engine", std::nullopt,
              KernelErrorKind::illegal_instruction);
    }

    std::uint64_t* dst_row(const Ctx& c) {
        if (c.d.dst == ir::no_reg) return c.cta.scratch[5].data(); // sink `_`
        return c.w.row(c.d.dst);
    }

    template <class F>
    void lanes(const Ctx& c, F&& f) const {
        detail::for_each_lane(c.exec, width_, f);
    }

    template <bool Record>
    void execute(CtaState& cta, WarpState& w, const DecodedInstruction& d, ir::Pc pc, const core::WarpMask& exec,
                 StepResult* out) {
        const Ctx c{cta, w, d, pc, exec};
        using ir::Opcode;
        switch (d.op) {
        case Opcode::add:
        case Opcode::sub: add_sub(c); break;
        case Opcode::addc:
        case Opcode::subc: add_sub(c); break;
        case Opcode::mul: mul(c); break;
        case Opcode::mad:
        case Opcode::madc: mad(c); break;
        case Opcode::fma: fma(c); break;
        case Opcode::mul24:
        case Opcode::mad24: mul24_op(c); break;
        case Opcode::div: div(c); break;
        case Opcode::rem: rem(c); break;
        case Opcode::abs:
        case Opcode::neg: abs_neg(c); break;
        case Opcode::min:
        case Opcode::max: min_max(c); break;
        case Opcode::and_:
        case Opcode::or_:
        case Opcode::xor_:
        case Opcode::not_:
        case Opcode::cnot: logic(c); break;
        case Opcode::popc:
        case Opcode::clz:
        case Opcode::brev:
        case Opcode::bfind: bit_count(c); break;
        case Opcode::bfe:
        case Opcode::bfi: bit_field(c); break;
        case Opcode::prmt:
        case Opcode::lop3:
        case Opcode::shf: permute(c); break;
        case Opcode::shl:
        case Opcode::shr: shift(c); break;
        case Opcode::setp:
        case Opcode::set: compare(c); break;
        case Opcode::selp:
        case Opcode::slct: select(c); break;
        case Opcode::cvt: convert(c); break;
        case Opcode::cvta: convert_address(c); break;
        case Opcode::mov: move(c); break;
        case Opcode::rcp:
        case Opcode::sqrt:
        case Opcode::rsqrt:
        case Opcode::sin:
        case Opcode::cos:
        case Opcode::lg2:
        case Opcode::ex2:
        case Opcode::tanh: special_function(c); break;
        case Opcode::copysign:
        case Opcode::testp: float_misc(c); break;
        case Opcode::ld:
        case Opcode::st:
        case Opcode::atom:
        case Opcode::red: memory<Record>(c, out); break;
        case Opcode::prefetch:
        case Opcode::prefetchu: prefetch<Record>(c, out); break;
        case Opcode::dp4a:
        case Opcode::dp2a:
        case Opcode::sad:
        case Opcode::vabsdiff4: byte_arithmetic(c); break;
        case Opcode::redux: reduce(c); break;
        case Opcode::tex: texture_fetch<Record>(c, out); break;
        case Opcode::suld:
        case Opcode::sust: surface_access<Record>(c, out); break;
        case Opcode::shfl: shuffle(c); break;
        case Opcode::vote: vote(c); break;
        case Opcode::match: match(c); break;
        case Opcode::activemask: {
            std::uint64_t* dst = dst_row(c);
            lanes(c, [&](unsigned l) { dst[l] = c.exec.group32(l / 32); });
            break;
        }
        // Memory ordering has no functional effect: the engine executes one instruction at a time, so every
        // access is already ordered (sequentially consistent). bar.warp.sync: lanes of a warp already execute
        // in lock step under the SIMT stack. nanosleep only delays.
        case Opcode::bar_warp_sync:
        case Opcode::membar:
        case Opcode::fence:
        case Opcode::nanosleep: break;
        case Opcode::vprintf: device_printf(c); break;
        case Opcode::assertfail: assertion_failed(c);
        case Opcode::trap:
            if (c.d.inst->num_operands == 1) bad_indirect_call(c);
            fault(c.cta, c.w, c.pc, static_cast<int>(c.exec.find_first()),
                  std::string("the kernel executed trap (__trap())") +
                      (reads_grid_workspace_ && !options_.cooperative
                           ? "; the kernel reads the cooperative-groups grid workspace (%envreg1/%envreg2), which "
                             "only a cooperative launch provides: grid.sync() traps in a launch made without "
                             "cudaLaunchCooperativeKernel"
                           : ""),
                  std::nullopt, KernelErrorKind::trap);
        // issue 20, device heap and asynchronous copies
        case Opcode::device_malloc: device_malloc(c); break;
        case Opcode::device_free: device_free(c); break;
        case Opcode::cp_async: async_copy<Record>(c, out); break;
        // The copy is done when cp.async executes, so its data is in shared memory before any later instruction
        // of the thread runs; committing and waiting change no value (their cost is the timing model's).
        case Opcode::cp_async_commit_group:
        case Opcode::cp_async_wait_group:
        case Opcode::cp_async_wait_all: break;
        case Opcode::bra:
        case Opcode::ret:
        case Opcode::exit:
        case Opcode::bar:
        case Opcode::call: unsupported(c);
        }
    }

    // add, sub, addc, subc: integer (with .sat and the carry chain) and floating point.
    void add_sub(const Ctx& c) {
        const ir::Instruction& i = *c.d.inst;
        const bool subtract = i.op == ir::Opcode::sub || i.op == ir::Opcode::subc;
        if (is_float(c.d.type)) {
            float_binary(c, subtract ? Arith::sub : Arith::add);
            return;
        }
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1);
        std::uint64_t* dst = dst_row(c);
        const bool carry_in = i.op == ir::Opcode::addc || i.op == ir::Opcode::subc;
        const bool carry_out = i.carry_out;
        std::uint8_t* cf = c.w.carry.data();
        const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
            using U = std::make_unsigned_t<T>;
            constexpr unsigned bits = sizeof(T) * 8;
            if (i.sat) {
                if constexpr (std::is_same_v<T, std::int32_t>) {
                    lanes(c, [&](unsigned l) {
                        const auto x = static_cast<std::int32_t>(a[l]), y = static_cast<std::int32_t>(b[l]);
                        const std::int64_t r = subtract ? std::int64_t{x} - y : std::int64_t{x} + y;
                        dst[l] = detail::to_bits(static_cast<std::int32_t>(
                            std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)));
                    });
                    return;
                }
                unsupported(c);
            }
            if (!carry_in && !carry_out) {
                if (subtract) lanes(c, [&](unsigned l) { dst[l] = U(U(a[l]) - U(b[l])); });
                else lanes(c, [&](unsigned l) { dst[l] = U(U(a[l]) + U(b[l])); });
                return;
            }
            lanes(c, [&](unsigned l) {
                const uint128 x = U(a[l]), y = U(b[l]);
                const uint128 cin = carry_in ? cf[l] : 0;
                std::uint8_t cout = 0;
                uint128 r = 0;
                if (subtract) {
                    r = x - y - cin;
                    cout = x < y + cin ? 1 : 0; // borrow
                } else {
                    r = x + y + cin;
                    cout = static_cast<std::uint8_t>((r >> bits) & 1U);
                }
                dst[l] = static_cast<U>(r);
                if (carry_out) cf[l] = cout;
            });
        });
        if (!ok) unsupported(c);
    }

    // Element-wise float add/sub/mul/div in the instruction's format, rounding, .ftz and .sat.
    void float_binary(const Ctx& c, Arith op) {
        const ir::Instruction& i = *c.d.inst;
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1);
        std::uint64_t* dst = dst_row(c);
        const FloatFormat f = format_of(c.d.type);
        const RoundMode m = round_mode(i.rounding);
        if (c.d.type == ir::ScalarType::f32 && m == RoundMode::nearest_even && !i.ftz && !i.sat) {
            switch (op) {
            case Arith::add: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f32(a[l]) + as_f32(b[l])); }); return;
            case Arith::sub: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f32(a[l]) - as_f32(b[l])); }); return;
            case Arith::mul: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f32(a[l]) * as_f32(b[l])); }); return;
            case Arith::div: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f32(a[l]) / as_f32(b[l])); }); return;
            }
        }
        if (c.d.type == ir::ScalarType::f64 && m == RoundMode::nearest_even) {
            switch (op) {
            case Arith::add: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f64(a[l]) + as_f64(b[l])); }); return;
            case Arith::sub: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f64(a[l]) - as_f64(b[l])); }); return;
            case Arith::mul: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f64(a[l]) * as_f64(b[l])); }); return;
            case Arith::div: lanes(c, [&](unsigned l) { dst[l] = bits_of(as_f64(a[l]) / as_f64(b[l])); }); return;
            }
        }
        const bool sat = i.sat;
        const bool ftz = i.ftz;
        elementwise2(c, a, b, dst, [&](std::uint64_t x, std::uint64_t y) {
            const std::uint64_t r = float_arith(op, x, y, f, m, ftz);
            return sat ? saturate(r, f) : r;
        });
    }

    // Applies a two-operand element function to each lane, per 16-bit half for packed types.
    template <class F>
    void elementwise2(const Ctx& c, const detail::Source& a, const detail::Source& b, std::uint64_t* dst, F&& f) {
        if (is_packed_half(c.d.type)) {
            lanes(c, [&](unsigned l) {
                const std::uint64_t lo = f(a[l] & 0xffffU, b[l] & 0xffffU);
                const std::uint64_t hi = f((a[l] >> 16) & 0xffffU, (b[l] >> 16) & 0xffffU);
                dst[l] = (lo & 0xffffU) | ((hi & 0xffffU) << 16);
            });
        } else {
            const std::uint64_t mask = low_mask(size_bytes(c.d.type) * 8);
            lanes(c, [&](unsigned l) { dst[l] = f(a[l] & mask, b[l] & mask); });
        }
    }
    template <class F>
    void elementwise1(const Ctx& c, const detail::Source& a, std::uint64_t* dst, F&& f) {
        if (is_packed_half(c.d.type)) {
            lanes(c, [&](unsigned l) {
                const std::uint64_t lo = f(a[l] & 0xffffU), hi = f((a[l] >> 16) & 0xffffU);
                dst[l] = (lo & 0xffffU) | ((hi & 0xffffU) << 16);
            });
        } else {
            const std::uint64_t mask = low_mask(size_bytes(c.d.type) * 8);
            lanes(c, [&](unsigned l) { dst[l] = f(a[l] & mask); });
        }
    }

    void mul(const Ctx& c) {
        if (is_float(c.d.type)) {
            float_binary(c, Arith::mul);
            return;
        }
        const ir::MulMode mode = c.d.inst->mul_mode;
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1);
        std::uint64_t* dst = dst_row(c);
        const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
            using U = std::make_unsigned_t<T>;
            if (mode == ir::MulMode::hi) {
                lanes(c, [&](unsigned l) { dst[l] = detail::to_bits(mul_hi<T>(static_cast<T>(a[l]), static_cast<T>(b[l]))); });
            } else if (mode == ir::MulMode::wide) {
                if constexpr (sizeof(T) <= 4) {
                    using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
                    lanes(c, [&](unsigned l) {
                        dst[l] = static_cast<std::uint64_t>(W{static_cast<T>(a[l])} * W{static_cast<T>(b[l])}) &
                                 low_mask(sizeof(T) * 16);
                    });
                } else {
                    unsupported(c);
                }
            } else {
                lanes(c, [&](unsigned l) { dst[l] = static_cast<U>(U(a[l]) * U(b[l])); });
            }
        });
        if (!ok) unsupported(c);
    }

    // mad (integer .lo/.hi/.wide with optional .sat and .cc), madc (carry in), and float mad (= fma).
    void mad(const Ctx& c) {
        const ir::Instruction& i = *c.d.inst;
        if (is_float(c.d.type)) {
            fma(c);
            return;
        }
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1),
                             cc = source(c.cta, c.w, c.d, 2);
        std::uint64_t* dst = dst_row(c);
        std::uint8_t* cf = c.w.carry.data();
        const bool carry_in = i.op == ir::Opcode::madc;
        const bool carry_out = i.carry_out;
        const ir::MulMode mode = i.mul_mode;
        const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
            using U = std::make_unsigned_t<T>;
            constexpr unsigned bits = sizeof(T) * 8;
            if (mode == ir::MulMode::wide) {
                if constexpr (sizeof(T) <= 4) {
                    using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
                    using UW = std::make_unsigned_t<W>;
                    constexpr unsigned wide_bits = bits * 2;
                    lanes(c, [&](unsigned l) {
                        const UW p = static_cast<UW>(W{static_cast<T>(a[l])} * W{static_cast<T>(b[l])});
                        const uint128 r = uint128{p & low_mask(wide_bits)} + (cc[l] & low_mask(wide_bits)) +
                                          (carry_in ? cf[l] : 0);
                        dst[l] = static_cast<std::uint64_t>(r) & low_mask(wide_bits);
                        if (carry_out) cf[l] = static_cast<std::uint8_t>((r >> wide_bits) & 1U);
                    });
                    return;
                } else {
                    unsupported(c);
                }
            }
            if (i.sat) { // mad.hi.sat.s32: the sum saturates to the s32 range
                if constexpr (std::is_same_v<T, std::int32_t>) {
                    lanes(c, [&](unsigned l) {
                        const std::int64_t p = mode == ir::MulMode::hi
                                                   ? mul_hi<std::int32_t>(static_cast<T>(a[l]), static_cast<T>(b[l]))
                                                   : static_cast<std::int32_t>(U(a[l]) * U(b[l]));
                        const std::int64_t r = p + static_cast<std::int32_t>(cc[l]);
                        dst[l] = detail::to_bits(static_cast<std::int32_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)));
                    });
                    return;
                }
                unsupported(c);
            }
            if (!carry_in && !carry_out && mode != ir::MulMode::hi) {
                lanes(c, [&](unsigned l) { dst[l] = static_cast<U>(U(U(a[l]) * U(b[l])) + U(cc[l])); });
                return;
            }
            lanes(c, [&](unsigned l) {
                const U p = mode == ir::MulMode::hi ? static_cast<U>(mul_hi<T>(static_cast<T>(a[l]), static_cast<T>(b[l])))
                                                    : static_cast<U>(U(a[l]) * U(b[l]));
                const uint128 r = uint128{p} + U(cc[l]) + (carry_in ? cf[l] : 0);
                dst[l] = static_cast<U>(r);
                if (carry_out) cf[l] = static_cast<std::uint8_t>((r >> bits) & 1U);
            });
        });
        if (!ok) unsupported(c);
    }

    void fma(const Ctx& c) {
        const ir::Instruction& i = *c.d.inst;
        if (!is_float(c.d.type)) unsupported(c);
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1),
                             cc = source(c.cta, c.w, c.d, 2);
        std::uint64_t* dst = dst_row(c);
        const FloatFormat f = format_of(c.d.type);
        const RoundMode m = round_mode(i.rounding);
        if (c.d.type == ir::ScalarType::f32 && m == RoundMode::nearest_even && !i.ftz && !i.sat) {
            lanes(c, [&](unsigned l) { dst[l] = bits_of(std::fma(as_f32(a[l]), as_f32(b[l]), as_f32(cc[l]))); });
            return;
        }
        const bool ftz = i.ftz, sat = i.sat;
        auto element = [&](std::uint64_t x, std::uint64_t y, std::uint64_t z) {
            const std::uint64_t r = float_fma(x, y, z, f, m, ftz);
            return sat ? saturate(r, f) : r;
        };
        if (is_packed_half(c.d.type)) {
            lanes(c, [&](unsigned l) {
                const std::uint64_t lo = element(a[l] & 0xffffU, b[l] & 0xffffU, cc[l] & 0xffffU);
                const std::uint64_t hi =
                    element((a[l] >> 16) & 0xffffU, (b[l] >> 16) & 0xffffU, (cc[l] >> 16) & 0xffffU);
                dst[l] = (lo & 0xffffU) | ((hi & 0xffffU) << 16);
            });
        } else {
            const std::uint64_t mask = low_mask(size_bytes(c.d.type) * 8);
            lanes(c, [&](unsigned l) { dst[l] = element(a[l] & mask, b[l] & mask, cc[l] & mask); });
        }
    }

    void mul24_op(const Ctx& c) {
        const ir::Instruction& i = *c.d.inst;
        const bool is_signed = c.d.type == ir::ScalarType::s32;
        if (c.d.type != ir::ScalarType::u32 && !is_signed) unsupported(c);
        const bool hi = i.mul_mode == ir::MulMode::hi;
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1);
        std::uint64_t* dst = dst_row(c);
        if (i.op == ir::Opcode::mul24) {
            lanes(c, [&](unsigned l) {
                dst[l] = mul24(static_cast<std::uint32_t>(a[l]), static_cast<std::uint32_t>(b[l]), is_signed, hi);
            });
            return;
        }
        const detail::Source cc = source(c.cta, c.w, c.d, 2);
        const bool sat = i.sat;
        lanes(c, [&](unsigned l) {
            const std::uint32_t p = mul24(static_cast<std::uint32_t>(a[l]), static_cast<std::uint32_t>(b[l]), is_signed, hi);
            if (sat && is_signed) {
                const std::int64_t r = std::int64_t{static_cast<std::int32_t>(p)} + static_cast<std::int32_t>(cc[l]);
                dst[l] = detail::to_bits(static_cast<std::int32_t>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)));
            } else {
                dst[l] = static_cast<std::uint32_t>(p + static_cast<std::uint32_t>(cc[l]));
            }
        });
    }

    void div(const Ctx& c) {
        const ir::Instruction& i = *c.d.inst;
        if (is_float(c.d.type)) {
            if (i.approx || i.full) {
                if (c.d.type != ir::ScalarType::f32) unsupported(c);
                const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1);
                std::uint64_t* dst = dst_row(c);
                const bool ftz = i.ftz;
                if (i.approx) {
                    lanes(c, [&](unsigned l) { dst[l] = f32_div_approx(a[l] & 0xffffffffU, b[l] & 0xffffffffU, ftz); });
                } else { // div.full.f32: "maximum ulp error is 2 across the full range"; we round correctly
                    lanes(c, [&](unsigned l) {
                        dst[l] = float_arith(Arith::div, a[l] & 0xffffffffU, b[l] & 0xffffffffU, f32_format,
                                             RoundMode::nearest_even, ftz);
                    });
                }
                return;
            }
            float_binary(c, Arith::div);
            return;
        }
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1);
        std::uint64_t* dst = dst_row(c);
        const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
            lanes(c, [&](unsigned l) { dst[l] = detail::to_bits(int_div<T>(static_cast<T>(a[l]), static_cast<T>(b[l]))); });
        });
        if (!ok) unsupported(c);
    }

    void rem(const Ctx& c) {
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1);
        std::uint64_t* dst = dst_row(c);
        const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
            lanes(c, [&](unsigned l) { dst[l] = detail::to_bits(int_rem<T>(static_cast<T>(a[l]), static_cast<T>(b[l]))); });
        });
        if (!ok) unsupported(c);
    }

    void abs_neg(const Ctx& c) {
        const bool negate = c.d.op == ir::Opcode::neg;
        const detail::Source a = source(c.cta, c.w, c.d, 0);
        std::uint64_t* dst = dst_row(c);
        if (is_float(c.d.type)) {
            const FloatFormat f = format_of(c.d.type);
            const bool ftz = c.d.inst->ftz;
            elementwise1(c, a, dst, [&](std::uint64_t x) { return negate ? float_neg(x, f, ftz) : float_abs(x, f, ftz); });
            return;
        }
        const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
            using U = std::make_unsigned_t<T>;
            lanes(c, [&](unsigned l) {
                const U x = static_cast<U>(a[l]);
                const bool negative = std::is_signed_v<T> && static_cast<T>(x) < 0;
                dst[l] = static_cast<U>((negate || negative) ? U(U(0) - x) : x);
            });
        });
        if (!ok) unsupported(c);
    }

    void min_max(const Ctx& c) {
        const bool is_max = c.d.op == ir::Opcode::max;
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1);
        std::uint64_t* dst = dst_row(c);
        if (is_float(c.d.type)) {
            const FloatFormat f = format_of(c.d.type);
            const bool ftz = c.d.inst->ftz, nan = c.d.inst->propagate_nan;
            elementwise2(c, a, b, dst, [&](std::uint64_t x, std::uint64_t y) { return float_min_max(is_max, x, y, f, ftz, nan); });
            return;
        }
        const bool ok = detail::dispatch_integer(c.d.type, [&]<class T>(T) {
            lanes(c, [&](unsigned l) {
                const T x = static_cast<T>(a[l]), y = static_cast<T>(b[l]);
                dst[l] = detail::to_bits(is_max ? std::max(x, y) : std::min(x, y));
            });
        });
        if (!ok) unsupported(c);
    }

    void logic(const Ctx& c) {
        const detail::Source a = source(c.cta, c.w, c.d, 0);
        std::uint64_t* dst = dst_row(c);
        const std::uint64_t mask = c.d.type == ir::ScalarType::pred ? 1U : low_mask(size_bytes(c.d.type) * 8);
        if (mask == 0) unsupported(c);
        switch (c.d.op) {
        case ir::Opcode::not_: lanes(c, [&](unsigned l) { dst[l] = ~a[l] & mask; }); return;
        case ir::Opcode::cnot: lanes(c, [&](unsigned l) { dst[l] = (a[l] & mask) == 0 ? 1 : 0; }); return;
        default: break;
        }
        const detail::Source b = source(c.cta, c.w, c.d, 1);
        switch (c.d.op) {
        case ir::Opcode::and_: lanes(c, [&](unsigned l) { dst[l] = a[l] & b[l] & mask; }); break;
        case ir::Opcode::or_: lanes(c, [&](unsigned l) { dst[l] = (a[l] | b[l]) & mask; }); break;
        case ir::Opcode::xor_: lanes(c, [&](unsigned l) { dst[l] = (a[l] ^ b[l]) & mask; }); break;
        default: unsupported(c);
        }
    }

    void bit_count(const Ctx& c) {
        const unsigned width = size_bytes(c.d.type) * 8;
        if (width != 32 && width != 64) unsupported(c);
        const detail::Source a = source(c.cta, c.w, c.d, 0);
        std::uint64_t* dst = dst_row(c);
        const std::uint64_t mask = low_mask(width);
        switch (c.d.op) {
        case ir::Opcode::popc: lanes(c, [&](unsigned l) { dst[l] = detail::count_bits(a[l] & mask); }); break;
        case ir::Opcode::clz: lanes(c, [&](unsigned l) { dst[l] = count_leading_zeros(a[l], width); }); break;
        case ir::Opcode::brev: lanes(c, [&](unsigned l) { dst[l] = bit_reverse(a[l] & mask, width); }); break;
        case ir::Opcode::bfind: {
            const bool is_signed = is_signed_int(c.d.type), amount = c.d.inst->shiftamt;
            lanes(c, [&](unsigned l) { dst[l] = find_msb(a[l], width, is_signed, amount); });
            break;
        }
        default: unsupported(c);
        }
    }

    void bit_field(const Ctx& c) {
        const unsigned width = size_bytes(c.d.type) * 8;
        if (width != 32 && width != 64) unsupported(c);
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1),
                             cc = source(c.cta, c.w, c.d, 2);
        std::uint64_t* dst = dst_row(c);
        if (c.d.op == ir::Opcode::bfe) {
            const bool is_signed = is_signed_int(c.d.type);
            lanes(c, [&](unsigned l) {
                dst[l] = bit_field_extract(a[l], width, static_cast<std::uint32_t>(b[l]), static_cast<std::uint32_t>(cc[l]),
                                           is_signed);
            });
            return;
        }
        const detail::Source len = source(c.cta, c.w, c.d, 3);
        lanes(c, [&](unsigned l) {
            dst[l] = bit_field_insert(a[l], b[l], static_cast<std::uint32_t>(cc[l]), static_cast<std::uint32_t>(len[l]), width);
        });
    }

    void permute(const Ctx& c) {
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1),
                             cc = source(c.cta, c.w, c.d, 2);
        std::uint64_t* dst = dst_row(c);
        auto u32 = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
        switch (c.d.op) {
        case ir::Opcode::prmt: {
            const ir::PrmtMode mode = c.d.inst->prmt;
            lanes(c, [&](unsigned l) { dst[l] = permute_bytes(u32(a[l]), u32(b[l]), u32(cc[l]), mode); });
            break;
        }
        case ir::Opcode::lop3: {
            const detail::Source lut = source(c.cta, c.w, c.d, 3);
            const std::uint64_t mask = low_mask(size_bytes(c.d.type) == 0 ? 32 : size_bytes(c.d.type) * 8);
            lanes(c, [&](unsigned l) { dst[l] = lop3(a[l], b[l], cc[l], u32(lut[l]) & 0xffU) & mask; });
            break;
        }
        case ir::Opcode::shf: {
            const bool right = c.d.inst->funnel_right, clamp = c.d.inst->clamp;
            lanes(c, [&](unsigned l) { dst[l] = funnel_shift(u32(a[l]), u32(b[l]), u32(cc[l]), right, clamp); });
            break;
        }
        default: unsupported(c);
        }
    }

    void shift(const Ctx& c) {
        const unsigned width = size_bytes(c.d.type) * 8;
        if (width < 16 || width > 64) unsupported(c);
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1);
        std::uint64_t* dst = dst_row(c);
        if (c.d.op == ir::Opcode::shl) {
            if (width == 32) {
                lanes(c, [&](unsigned l) {
                    const auto n = static_cast<std::uint32_t>(b[l]);
                    dst[l] = n >= 32 ? 0 : static_cast<std::uint32_t>(static_cast<std::uint32_t>(a[l]) << n);
                });
            } else {
                lanes(c, [&](unsigned l) { dst[l] = shift_left(a[l], static_cast<std::uint32_t>(b[l]), width); });
            }
            return;
        }
        const bool arithmetic = is_signed_int(c.d.type);
        lanes(c, [&](unsigned l) { dst[l] = shift_right(a[l], static_cast<std::uint32_t>(b[l]), width, arithmetic); });
    }

    static bool combine(ir::BoolOp op, bool t, bool c) {
        switch (op) {
        case ir::BoolOp::and_: return t && c;
        case ir::BoolOp::or_: return t || c;
        case ir::BoolOp::xor_: return t != c;
        case ir::BoolOp::none: break;
        }
        return t;
    }

    // Compares lane values of type t (per 16-bit half for packed types: bit 0 = lower half, bit 1 = upper half).
    template <class F>
    void compare_lanes(const Ctx& c, ir::ScalarType t, const detail::Source& a, const detail::Source& b, F&& sink) {
        const ir::CompareOp op = c.d.inst->cmp;
        const bool ftz = c.d.inst->ftz;
        if (t == ir::ScalarType::f32) {
            if (ftz) {
                lanes(c, [&](unsigned l) {
                    sink(l, compare_float(op, as_f32(flush_subnormal(a[l] & 0xffffffffU, f32_format)),
                                          as_f32(flush_subnormal(b[l] & 0xffffffffU, f32_format))) ? 1U : 0U);
                });
            } else {
                lanes(c, [&](unsigned l) { sink(l, compare_float(op, as_f32(a[l]), as_f32(b[l])) ? 1U : 0U); });
            }
            return;
        }
        if (t == ir::ScalarType::f64) {
            lanes(c, [&](unsigned l) { sink(l, compare_float(op, as_f64(a[l]), as_f64(b[l])) ? 1U : 0U); });
            return;
        }
        if (is_float(t)) {
            const FloatFormat f = format_of(t);
            if (is_packed_half(t)) {
                lanes(c, [&](unsigned l) {
                    const bool lo = compare_float_bits(op, a[l] & 0xffffU, b[l] & 0xffffU, f, ftz);
                    const bool hi = compare_float_bits(op, (a[l] >> 16) & 0xffffU, (b[l] >> 16) & 0xffffU, f, ftz);
                    sink(l, (lo ? 1U : 0U) | (hi ? 2U : 0U));
                });
            } else {
                lanes(c, [&](unsigned l) { sink(l, compare_float_bits(op, a[l] & 0xffffU, b[l] & 0xffffU, f, ftz) ? 1U : 0U); });
            }
            return;
        }
        const bool ok = detail::dispatch_integer(t, [&]<class T>(T) {
            lanes(c, [&](unsigned l) { sink(l, compare_int<T>(op, static_cast<T>(a[l]), static_cast<T>(b[l])) ? 1U : 0U); });
        });
        if (!ok) unsupported(c);
    }

    // setp: p = t BOOLOP c, q = !t BOOLOP c (for x2 types: p from the lower half, q from the upper half).
    // set: d = 0xffffffff / 1.0f (per half: 0xffff / 1.0) when t BOOLOP c holds, else 0.
    void compare(const Ctx& c) {
        const ir::Instruction& i = *c.d.inst;
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1);
        const bool has_c = c.d.num_sources >= 3;
        const detail::Source pc = has_c ? source(c.cta, c.w, c.d, 2) : detail::Source{};
        const ir::BoolOp bop = has_c ? i.bool_op : ir::BoolOp::none;
        if (c.d.op == ir::Opcode::setp) {
            std::uint64_t* p = dst_row(c);
            std::uint64_t* q = c.d.dst2 == ir::no_reg ? nullptr : c.w.row(c.d.dst2);
            if (!has_c && q == nullptr && !is_float(c.d.type)) { // the common integer compare
                const ir::CompareOp op = i.cmp;
                if (detail::dispatch_integer(c.d.type, [&]<class T>(T) {
                        lanes(c, [&](unsigned l) {
                            p[l] = compare_int<T>(op, static_cast<T>(a[l]), static_cast<T>(b[l])) ? 1 : 0;
                        });
                    }))
                    return;
            }
            const bool packed = is_packed_half(c.d.type);
            compare_lanes(c, c.d.type, a, b, [&](unsigned l, unsigned r) {
                const bool cv = has_c && pc.pred(l);
                const bool t0 = (r & 1U) != 0;
                p[l] = combine(bop, t0, cv) ? 1 : 0;
                if (q != nullptr) q[l] = combine(bop, packed ? (r & 2U) != 0 : !t0, cv) ? 1 : 0;
            });
            return;
        }
        std::uint64_t* dst = dst_row(c);
        const ir::ScalarType st = i.src_type == ir::ScalarType::none ? c.d.type : i.src_type;
        const ir::ScalarType dt = c.d.type;
        const bool packed = is_packed_half(st);
        compare_lanes(c, st, a, b, [&](unsigned l, unsigned r) {
            const bool cv = has_c && pc.pred(l);
            auto value = [&](bool t, unsigned half_bits) -> std::uint64_t {
                if (is_float(dt)) return t ? format_of(dt).one() : 0;
                return t ? low_mask(half_bits) : 0;
            };
            if (packed) {
                const std::uint64_t lo = value(combine(bop, (r & 1U) != 0, cv), 16);
                const std::uint64_t hi = value(combine(bop, (r & 2U) != 0, cv), 16);
                dst[l] = lo | (hi << 16);
            } else {
                dst[l] = value(combine(bop, (r & 1U) != 0, cv), size_bytes(dt) * 8);
            }
        });
    }

    void select(const Ctx& c) {
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1),
                             cc = source(c.cta, c.w, c.d, 2);
        std::uint64_t* dst = dst_row(c);
        // Immediates are sign-extended to 64 bits; registers keep their values zero-extended from the type.
        const std::uint64_t mask = c.d.type == ir::ScalarType::pred ? 1U : low_mask(size_bytes(c.d.type) * 8);
        if (c.d.op == ir::Opcode::selp) {
            lanes(c, [&](unsigned l) { dst[l] = (cc.pred(l) ? a[l] : b[l]) & mask; });
            return;
        }
        // slct: d = (c >= 0) ? a : b, with c an s32 or f32 (-0.0 >= 0; NaN selects b).
        if (c.d.inst->src_type == ir::ScalarType::f32) {
            const bool ftz = c.d.inst->ftz;
            lanes(c, [&](unsigned l) {
                std::uint64_t v = cc[l] & 0xffffffffU;
                if (ftz) v = flush_subnormal(v, f32_format);
                dst[l] = (as_f32(v) >= 0.0f ? a[l] : b[l]) & mask;
            });
        } else {
            lanes(c, [&](unsigned l) { dst[l] = (static_cast<std::int32_t>(cc[l]) >= 0 ? a[l] : b[l]) & mask; });
        }
    }

    // cvt between every integer and float type, with rounding, saturation and .ftz.
    void convert(const Ctx& c) {
        const ir::Instruction& i = *c.d.inst;
        const ir::ScalarType dt = c.d.type, st = i.src_type;
        const detail::Source a = source(c.cta, c.w, c.d, 0);
        std::uint64_t* dst = dst_row(c);
        const unsigned dbits = size_bytes(dt) * 8, sbits = size_bytes(st) * 8;
        const unsigned reg_bits = std::max<unsigned>(c.d.dst_bits, dbits);
        const bool ftz = i.ftz, sat = i.sat;
        const RoundMode m = round_mode(i.rounding);
        if (dbits == 0 || sbits == 0) unsupported(c);
        // Pack two f32 into f16x2 / bf16x2: a goes to the upper half, b to the lower half.
        if (is_packed_half(dt)) {
            if (st != ir::ScalarType::f32 || c.d.num_sources < 2) unsupported(c);
            const detail::Source b = source(c.cta, c.w, c.d, 1);
            const FloatFormat f = format_of(dt);
            lanes(c, [&](unsigned l) {
                std::uint64_t hi = soft_convert(a[l] & 0xffffffffU, f32_format, f, m, ftz);
                std::uint64_t lo = soft_convert(b[l] & 0xffffffffU, f32_format, f, m, ftz);
                if (sat) {
                    hi = saturate(hi, f);
                    lo = saturate(lo, f);
                }
                dst[l] = lo | (hi << 16);
            });
            return;
        }
        if (is_packed_half(st)) unsupported(c);
        if (is_float(dt) && is_float(st)) {
            const FloatFormat df = format_of(dt), sf = format_of(st);
            const bool integral = is_integer_rounding(i.rounding);
            lanes(c, [&](unsigned l) {
                std::uint64_t x = a[l] & low_mask(sbits);
                std::uint64_t r = 0;
                if (integral) {
                    // Round to an integral value, then to the destination format (exact when it is as wide).
                    const std::uint64_t whole = soft_round_integral(x, sf, m, ftz);
                    r = soft_convert(whole, sf, df, RoundMode::nearest_even, ftz);
                } else {
                    r = soft_convert(x, sf, df, m, ftz);
                }
                dst[l] = sat ? saturate(r, df) : r;
            });
            return;
        }
        if (is_float(dt)) { // integer -> float
            const FloatFormat df = format_of(dt);
            const bool is_signed = is_signed_int(st);
            lanes(c, [&](unsigned l) {
                const std::uint64_t x = a[l] & low_mask(sbits);
                const std::int64_t sx = sign_extend(x, sbits);
                const bool negative = is_signed && sx < 0;
                const std::uint64_t magnitude = negative ? (std::uint64_t{0} - static_cast<std::uint64_t>(sx)) : x;
                const std::uint64_t r = soft_from_integer(negative, magnitude, df, m, ftz);
                dst[l] = sat ? saturate(r, df) : r;
            });
            return;
        }
        if (is_float(st)) { // float -> integer: always saturating, NaN -> 0
            const FloatFormat sf = format_of(st);
            const bool is_signed = is_signed_int(dt);
            const bool wide = is_signed && reg_bits > dbits;
            lanes(c, [&](unsigned l) {
                const std::uint64_t r = soft_to_integer(a[l] & low_mask(sbits), sf, m, is_signed, dbits, ftz);
                dst[l] = wide ? detail::extend(r, dbits, true, reg_bits) : r;
            });
            return;
        }
        // integer -> integer: extend by the source type, then truncate (or saturate) to the destination type,
        // then extend by the destination type into a wider destination register.
        const bool src_signed = is_signed_int(st), dst_signed = is_signed_int(dt);
        lanes(c, [&](unsigned l) {
            const std::uint64_t raw = a[l] & low_mask(sbits);
            std::uint64_t r = 0;
            if (sat) {
                if (src_signed) {
                    const std::int64_t v = sign_extend(raw, sbits);
                    const std::int64_t lo = dst_signed ? (dbits >= 64 ? INT64_MIN : -(std::int64_t{1} << (dbits - 1))) : 0;
                    const std::int64_t hi = dst_signed ? static_cast<std::int64_t>(low_mask(dbits - 1))
                                                       : (dbits >= 64 ? INT64_MAX : static_cast<std::int64_t>(low_mask(dbits)));
                    r = static_cast<std::uint64_t>(std::clamp(v, lo, hi)) & low_mask(dbits);
                    if (!dst_signed && dbits >= 64 && v >= 0) r = static_cast<std::uint64_t>(v);
                } else {
                    const std::uint64_t hi = dst_signed ? low_mask(dbits - 1) : low_mask(dbits);
                    r = std::min(raw, hi);
                }
            } else {
                r = detail::extend(raw, sbits, src_signed, 64) & low_mask(dbits);
            }
            dst[l] = detail::extend(r, dbits, dst_signed, reg_bits);
        });
    }

    void convert_address(const Ctx& c) {
        const ir::Instruction& i = *c.d.inst;
        const detail::Source a = source(c.cta, c.w, c.d, 0);
        std::uint64_t* dst = dst_row(c);
        const std::uint64_t base = generic_window_base(i.space);
        const std::uint64_t mask = low_mask(std::max(32U, size_bytes(c.d.type) * 8));
        if (i.to_space) lanes(c, [&](unsigned l) { dst[l] = (a[l] - base) & mask; });
        else lanes(c, [&](unsigned l) { dst[l] = (a[l] + base) & mask; });
    }

    void move(const Ctx& c) {
        const DecodedInstruction& d = c.d;
        const unsigned bits = d.type == ir::ScalarType::pred ? 1 : size_bytes(d.type) * 8;
        if (bits == 0) unsupported(c);
        if (d.dst_count > 0) { // unpack: mov.b64 {lo, hi}, x
            const detail::Source a = source(c.cta, c.w, d, 0);
            const unsigned part = bits / d.dst_count;
            for (unsigned e = 0; e < d.dst_count; ++e) {
                if (d.dst_vector[e] == ir::no_reg) continue;
                std::uint64_t* row = c.w.row(d.dst_vector[e]);
                lanes(c, [&](unsigned l) { row[l] = (a[l] >> (e * part)) & low_mask(part); });
            }
            return;
        }
        std::uint64_t* dst = dst_row(c);
        if (d.num_sources > 1) { // pack: mov.b64 x, {lo, hi}
            const unsigned part = bits / d.num_sources;
            std::array<detail::Source, 4> parts{};
            for (unsigned e = 0; e < d.num_sources && e < 4; ++e) parts[e] = source(c.cta, c.w, d, e);
            const unsigned n = std::min<unsigned>(d.num_sources, 4);
            lanes(c, [&](unsigned l) {
                std::uint64_t v = 0;
                for (unsigned e = 0; e < n; ++e) v |= (parts[e][l] & low_mask(part)) << (e * part);
                dst[l] = v;
            });
            return;
        }
        const detail::Source a = source(c.cta, c.w, d, 0);
        const std::uint64_t mask = low_mask(bits);
        lanes(c, [&](unsigned l) { dst[l] = a[l] & mask; });
    }

    void special_function(const Ctx& c) {
        const ir::Instruction& i = *c.d.inst;
        const detail::Source a = source(c.cta, c.w, c.d, 0);
        std::uint64_t* dst = dst_row(c);
        if (!is_float(c.d.type)) unsupported(c);
        const FloatFormat f = format_of(c.d.type);
        const bool ftz = i.ftz;
        if (!i.approx && (i.op == ir::Opcode::rcp || i.op == ir::Opcode::sqrt)) { // IEEE .rn/.rz/.rm/.rp
            if (c.d.type != ir::ScalarType::f32 && c.d.type != ir::ScalarType::f64) unsupported(c);
            const RoundMode m = round_mode(i.rounding);
            if (i.op == ir::Opcode::rcp)
                elementwise1(c, a, dst, [&](std::uint64_t x) { return float_arith(Arith::div, f.one(), x, f, m, ftz); });
            else
                elementwise1(c, a, dst, [&](std::uint64_t x) { return float_sqrt(x, f, m, ftz); });
            return;
        }
        Approx fn = Approx::rcp;
        switch (i.op) {
        case ir::Opcode::rcp: fn = Approx::rcp; break;
        case ir::Opcode::sqrt: fn = Approx::sqrt; break;
        case ir::Opcode::rsqrt: fn = Approx::rsqrt; break;
        case ir::Opcode::sin: fn = Approx::sin; break;
        case ir::Opcode::cos: fn = Approx::cos; break;
        case ir::Opcode::lg2: fn = Approx::lg2; break;
        case ir::Opcode::ex2: fn = Approx::ex2; break;
        case ir::Opcode::tanh: fn = Approx::tanh; break;
        default: unsupported(c);
        }
        elementwise1(c, a, dst, [&](std::uint64_t x) { return float_approx(fn, x, f, ftz); });
    }

    void float_misc(const Ctx& c) {
        if (c.d.type != ir::ScalarType::f32 && c.d.type != ir::ScalarType::f64) unsupported(c);
        const FloatFormat f = format_of(c.d.type);
        const detail::Source a = source(c.cta, c.w, c.d, 0);
        std::uint64_t* dst = dst_row(c);
        const std::uint64_t mask = low_mask(size_bytes(c.d.type) * 8);
        if (c.d.op == ir::Opcode::testp) {
            const ir::TestKind kind = c.d.inst->test;
            lanes(c, [&](unsigned l) { dst[l] = float_test(kind, a[l] & mask, f) ? 1 : 0; });
            return;
        }
        // copysign d, a, b: the magnitude of b with the sign of a.
        const detail::Source b = source(c.cta, c.w, c.d, 1);
        const std::uint64_t sign = f.sign_bit();
        lanes(c, [&](unsigned l) { dst[l] = ((b[l] & ~sign) | (a[l] & sign)) & mask; });
    }

    // ---- memory --------------------------------------------------------------------------------------------

    // Maps a lane's address to host bytes, resolving generic addresses to their window. Faults on misalignment,
    // out-of-bounds and writes to read-only spaces.
    std::uint8_t* resolve(const Ctx& c, unsigned lane, std::uint64_t address, unsigned bytes, bool write,
                          ir::StateSpace& space, std::uint64_t& space_address) {
        // Fast path for the common case, an aligned in-bounds shared or global access named by its space: the same
        // checks as resolve_checked, without building its messages. Anything else takes the full path.
        space = c.d.space;
        space_address = address;
        const bool aligned = (bytes & (bytes - 1)) == 0 ? (address & (bytes - 1)) == 0 : address % bytes == 0;
        if (aligned) {
            if (space == ir::StateSpace::shared) {
                const std::uint64_t size = c.cta.shared.size();
                if (address <= size && bytes <= size - address) return c.cta.shared.data() + address;
            } else if (space == ir::StateSpace::global) {
                if (std::uint8_t* p = device_->translate(address, bytes)) return p;
            } else if (space == ir::StateSpace::param && !write) {
                // Kernel parameters (a call's .param storage lives at call_param_base and up: the full path).
                const std::uint64_t size = params_.size();
                if (address <= size && bytes <= size - address && address < call_param_base) return params_.data() + address;
            }
        }
        return resolve_checked(c, lane, address, bytes, write, space, space_address);
    }
    [[gnu::noinline]] std::uint8_t* resolve_checked(const Ctx& c, unsigned lane, std::uint64_t address, unsigned bytes,
                                                    bool write, ir::StateSpace& space, std::uint64_t& space_address) {
        space = c.d.space;
        space_address = address;
        if (space == ir::StateSpace::generic) {
            space = ir::StateSpace::global;
            for (ir::StateSpace s : {ir::StateSpace::shared, ir::StateSpace::local, ir::StateSpace::constant,
                                     ir::StateSpace::param}) {
                const std::uint64_t base = generic_window_base(s);
                if (address >= base && address - base < generic_window_bytes) {
                    space = s;
                    space_address = address - base;
                    break;
                }
            }
        }
        const char* what = c.d.op == ir::Opcode::ld         ? "load"
                           : c.d.op == ir::Opcode::st       ? "store"
                           : c.d.op == ir::Opcode::cp_async ? "cp.async read"
                                                            : "atomic";
        auto describe = [&] {
            return std::string(ir::name(space)) + " " + what + " of " + std::to_string(bytes) + " bytes";
        };
        if (space_address % bytes != 0)
            fault(c.cta, c.w, c.pc, static_cast<int>(lane), "misaligned " + describe() +
                                                                 " (the address must be a multiple of " +
                                                                 std::to_string(bytes) + ")",
                  address, KernelErrorKind::misaligned_address);
        auto in_bounds = [&](std::uint64_t size) { return space_address <= size && bytes <= size - space_address; };
        switch (space) {
        case ir::StateSpace::global: {
            std::uint8_t* p = device_->translate(space_address, bytes);
            if (p == nullptr)
                fault(c.cta, c.w, c.pc, static_cast<int>(lane),
                      "out-of-bounds " + describe() + ": " + device_->describe_fault(space_address, bytes), address,
                      KernelErrorKind::illegal_address);
            return p;
        }
        case ir::StateSpace::shared:
            if (!in_bounds(c.cta.shared.size()))
                fault(c.cta, c.w, c.pc, static_cast<int>(lane),
                      "out-of-bounds " + describe() + ": the CTA has " + std::to_string(c.cta.shared.size()) +
                          " bytes of shared memory",
                      address, KernelErrorKind::illegal_address);
            return c.cta.shared.data() + space_address;
        case ir::StateSpace::local:
            return local_bytes(c, lane, space_address, bytes, address, describe);
        case ir::StateSpace::constant:
            if (write) fault(c.cta, c.w, c.pc, static_cast<int>(lane), describe() + ": constant memory is read-only", address,
                             KernelErrorKind::illegal_address);
            if (!in_bounds(variables_->constant.size()))
                fault(c.cta, c.w, c.pc, static_cast<int>(lane),
                      "out-of-bounds " + describe() + ": the module has " +
                          std::to_string(variables_->constant.size()) + " bytes of constant memory",
                      address, KernelErrorKind::illegal_address);
            return variables_->constant.data() + space_address;
        case ir::StateSpace::param:
            if (space_address >= call_param_base)
                return local_bytes(c, lane, space_address - call_param_base, bytes, address, describe);
            if (write) fault(c.cta, c.w, c.pc, static_cast<int>(lane), describe() + ": kernel parameters are read-only", address,
                             KernelErrorKind::illegal_address);
            if (!in_bounds(params_.size()))
                fault(c.cta, c.w, c.pc, static_cast<int>(lane),
                      "out-of-bounds " + describe() + ": the kernel has " + std::to_string(params_.size()) +
                          " bytes of parameters",
                      address, KernelErrorKind::illegal_address);
            return params_.data() + space_address;
        default: break;
        }
        fault(c.cta, c.w, c.pc, static_cast<int>(lane), describe() + ": unsupported state space", address,
              KernelErrorKind::illegal_address);
    }

    template <class Describe>
    std::uint8_t* local_bytes(const Ctx& c, unsigned lane, std::uint64_t offset, unsigned bytes, std::uint64_t address,
                              Describe&& describe) {
        const std::uint64_t frame = c.cta.local_frame_bytes;
        if (offset > frame || bytes > frame - offset)
            fault(c.cta, c.w, c.pc, static_cast<int>(lane),
                  "out-of-bounds " + describe() + ": each thread has " + std::to_string(frame) +
                      " bytes of local memory",
                  address, KernelErrorKind::illegal_address);
        return c.cta.local.data() + (std::uint64_t{c.w.first_thread} + lane) * frame + offset;
    }

    // A scalar load from .shared whose active lanes are all aligned and in bounds, without the per-lane checks of
    // resolve (the most frequent memory instruction of tiled kernels). Returns false, having changed nothing that
    // the general path does not overwrite (destination lanes and recorded addresses only), when some lane is not:
    // the general path then faults on it exactly as before.
    template <bool Record>
    bool shared_load_fast_path(const Ctx& c, StepResult* out, const detail::Source& base, std::uint64_t* dst,
                               unsigned element, bool is_signed, unsigned reg_bits) {
        const std::uint64_t size = c.cta.shared.size();
        if (c.d.elements != 1 || size < element || (element & (element - 1)) != 0) return false;
        // A destination that is also the address register: lanes written before a faulting lane would change the
        // addresses the general path recomputes, so the general path alone handles it.
        if (base.data == dst) return false;
        // Loads as wide as the register (no extension) are one fixed-size copy per lane; others are extended.
        if (element * 8 == reg_bits && element == 4) return shared_load_lanes<Record, 4>(c, out, base, dst, 4, false, 32);
        if (element * 8 == reg_bits && element == 8) return shared_load_lanes<Record, 8>(c, out, base, dst, 8, false, 64);
        return shared_load_lanes<Record, 0>(c, out, base, dst, element, is_signed, reg_bits);
    }
    // shared_load_fast_path's lane loop: a counted loop over a word whose 64 lanes all execute, else the set bits.
    // Element: the access size when known at compile time (then as wide as the register), 0 for `element`.
    template <bool Record, unsigned Element>
    bool shared_load_lanes(const Ctx& c, StepResult* out, const detail::Source& base, std::uint64_t* dst,
                           unsigned element, bool is_signed, unsigned reg_bits) {
        const unsigned bytes = Element != 0 ? Element : element;
        const std::uint8_t* memory = c.cta.shared.data();
        const std::uint64_t offset = c.d.address_offset, address_mask = c.d.address_mask;
        const std::uint64_t last = c.cta.shared.size() - bytes;
        auto load_lane = [&](unsigned l) {
            const std::uint64_t a = (base[l] + offset) & address_mask;
            if ((a & (bytes - 1)) != 0 || a > last) return false;
            if constexpr (Record) {
                out->addresses[l] = a;
                out->lane_spaces[l] = ir::StateSpace::shared;
            }
            if constexpr (Element != 0) {
                std::uint64_t v = 0;
                std::memcpy(&v, memory + a, Element);
                dst[l] = v;
            } else {
                dst[l] = detail::extend(detail::load_le(memory + a, bytes), bytes * 8, is_signed, reg_bits);
            }
            return true;
        };
        for (unsigned word = 0; word * 64 < width_; ++word) {
            const unsigned lanes_here = std::min(64U, width_ - word * 64);
            const std::uint64_t bits = c.exec.word(word) & low_mask(lanes_here);
            if (bits == low_mask(lanes_here)) { // every lane: a counted loop
                for (unsigned l = word * 64; l < word * 64 + lanes_here; ++l)
                    if (!load_lane(l)) return false;
                continue;
            }
            for (std::uint64_t rest = bits; rest != 0; rest &= rest - 1)
                if (!load_lane(word * 64 + static_cast<unsigned>(std::countr_zero(rest)))) return false;
        }
        return true;
    }

    template <bool Record>
    void memory(const Ctx& c, StepResult* out) {
        const DecodedInstruction& d = c.d;
        const unsigned element = d.element_bytes, count = d.elements;
        const unsigned bytes = element * count;
        const detail::Source base = d.address_base == ir::no_reg ? detail::Source{&zero_, 0U, false}
                                                                 : detail::Source{c.w.row(d.address_base), ~0U, false};
        const std::uint64_t offset = d.address_offset, address_mask = d.address_mask;
        if constexpr (Record) {
            out->is_memory = true;
            out->is_load = d.op == ir::Opcode::ld;
            out->is_store = d.op == ir::Opcode::st;
            out->is_atomic = d.op == ir::Opcode::atom || d.op == ir::Opcode::red;
            out->space = d.space;
            out->access_bytes = bytes;
            out->accessed = c.exec;
        }
        auto record = [&](unsigned l, ir::StateSpace s, std::uint64_t a) {
            if constexpr (Record) {
                out->addresses[l] = a;
                out->lane_spaces[l] = s;
            }
        };
        ir::StateSpace space{};
        std::uint64_t space_address = 0;
        if (d.op == ir::Opcode::ld) {
            const bool is_signed = is_signed_int(d.type);
            const unsigned ebits = element * 8;
            const unsigned reg_bits = std::max<unsigned>(d.dst_bits, ebits);
            if (d.dst_count == 0) {
                std::uint64_t* dst = dst_row(c);
                if (d.space == ir::StateSpace::shared && shared_load_fast_path<Record>(c, out, base, dst, element,
                                                                                       is_signed, reg_bits))
                    return;
                lanes(c, [&](unsigned l) {
                    const std::uint8_t* p = resolve(c, l, (base[l] + offset) & address_mask, bytes, false, space, space_address);
                    record(l, space, space_address);
                    dst[l] = detail::extend(detail::load_le(p, element), ebits, is_signed, reg_bits);
                });
            } else {
                lanes(c, [&](unsigned l) {
                    const std::uint8_t* p = resolve(c, l, (base[l] + offset) & address_mask, bytes, false, space, space_address);
                    record(l, space, space_address);
                    for (unsigned e = 0; e < count && e < d.dst_count; ++e) {
                        if (d.dst_vector[e] == ir::no_reg) continue;
                        c.w.row(d.dst_vector[e])[l] =
                            detail::extend(detail::load_le(p + e * element, element), ebits, is_signed, reg_bits);
                    }
                });
            }
            return;
        }
        if (d.op == ir::Opcode::st) {
            std::array<detail::Source, 4> values{};
            const unsigned n = std::min<unsigned>(count, d.num_sources);
            if (n < count) unsupported(c);
            for (unsigned e = 0; e < n && e < 4; ++e) values[e] = source(c.cta, c.w, d, e);
            lanes(c, [&](unsigned l) {
                std::uint8_t* p = resolve(c, l, (base[l] + offset) & address_mask, bytes, true, space, space_address);
                record(l, space, space_address);
                for (unsigned e = 0; e < n; ++e) detail::store_le(p + e * element, values[e][l], element);
            });
            return;
        }
        // atom / red: lanes apply their operation one after another, in lane order.
        const bool has_dst = d.op == ir::Opcode::atom;
        const detail::Source b = source(c.cta, c.w, d, 0);
        const detail::Source cc = d.num_sources > 1 ? source(c.cta, c.w, d, 1) : detail::Source{&zero_, 0U, false};
        std::uint64_t* dst = has_dst ? dst_row(c) : nullptr;
        const ir::AtomOp op = d.inst->atom_op;
        lanes(c, [&](unsigned l) {
            std::uint8_t* p = resolve(c, l, (base[l] + offset) & address_mask, bytes, true, space, space_address);
            if (space != ir::StateSpace::global && space != ir::StateSpace::shared)
                fault(c.cta, c.w, c.pc, static_cast<int>(l),
                      "atomic on ." + std::string(ir::name(space)) + " memory (only global and shared are atomic)",
                      (base[l] + offset) & address_mask, KernelErrorKind::illegal_address);
            record(l, space, space_address);
            const std::uint64_t old = detail::load_le(p, element);
            // CUDA Programming Guide, "Floating-Point Standard": f32 atomic add on global memory flushes
            // subnormals (FADD.FTZ.RN); on shared memory it keeps them.
            const bool ftz = space == ir::StateSpace::global;
            const std::uint64_t updated = atomic_update(c, op, old, b[l], cc[l], ftz);
            detail::store_le(p, updated, element);
            if (has_dst) dst[l] = old;
        });
    }

    std::uint64_t atomic_update(const Ctx& c, ir::AtomOp op, std::uint64_t old, std::uint64_t b, std::uint64_t cv,
                                bool ftz_f32) {
        const ir::ScalarType t = c.d.type;
        const unsigned bits = size_bytes(t) * 8;
        const std::uint64_t mask = low_mask(bits);
        switch (op) {
        case ir::AtomOp::exch: return b & mask;
        case ir::AtomOp::cas: return old == (b & mask) ? (cv & mask) : old;
        case ir::AtomOp::and_: return old & b & mask;
        case ir::AtomOp::or_: return (old | b) & mask;
        case ir::AtomOp::xor_: return (old ^ b) & mask;
        case ir::AtomOp::inc: { // ((old >= b) ? 0 : old + 1), unsigned 32-bit
            if (t != ir::ScalarType::u32) unsupported(c);
            const std::uint64_t bb = b & mask;
            return old >= bb ? 0 : old + 1;
        }
        case ir::AtomOp::dec: { // ((old == 0 || old > b) ? b : old - 1)
            if (t != ir::ScalarType::u32) unsupported(c);
            const std::uint64_t bb = b & mask;
            return (old == 0 || old > bb) ? bb : old - 1;
        }
        case ir::AtomOp::add:
            if (is_float(t)) {
                const FloatFormat f = format_of(t);
                if (is_packed_half(t)) {
                    const std::uint64_t lo = float_arith(Arith::add, old & 0xffffU, b & 0xffffU, f, RoundMode::nearest_even, false);
                    const std::uint64_t hi =
                        float_arith(Arith::add, (old >> 16) & 0xffffU, (b >> 16) & 0xffffU, f, RoundMode::nearest_even, false);
                    return lo | (hi << 16);
                }
                const bool ftz = t == ir::ScalarType::f32 && ftz_f32;
                return float_arith(Arith::add, old, b & mask, f, RoundMode::nearest_even, ftz);
            }
            return (old + b) & mask;
        case ir::AtomOp::min:
        case ir::AtomOp::max: {
            std::uint64_t r = 0;
            const bool is_max = op == ir::AtomOp::max;
            const bool ok = detail::dispatch_integer(t, [&]<class T>(T) {
                const T x = static_cast<T>(old), y = static_cast<T>(b);
                r = detail::to_bits(is_max ? std::max(x, y) : std::min(x, y));
            });
            if (!ok) unsupported(c);
            return r;
        }
        case ir::AtomOp::none: break;
        }
        unsupported(c);
    }

    // The `trap %rd` that ends an indirect call's dispatch (ptx/inliner.hpp): no function of the module with the
    // call's prototype has the target address. Reported at the lowest such lane, with the address.
    [[noreturn]] void bad_indirect_call(const Ctx& c) {
        const auto lane = static_cast<int>(c.exec.find_first());
        const std::uint64_t target = c.w.row(c.d.inst->operands[0].reg)[lane];
        std::ostringstream text;
        text << "indirect call to 0x" << std::hex << target << std::dec
             << ", which is not the address of a function of this module with the call's prototype"
             << (target == 0 ? " (a null function pointer)" : "");
        fault(c.cta, c.w, c.pc, lane, text.str(), std::nullopt, KernelErrorKind::illegal_instruction);
    }

    // ---- out-of-line calls (recursion; ptx/inliner.hpp, ir::CallFrame) ---------------------------------------
    //
    // A call pushes, per executing lane, the callee's frame (its registers, then its per-thread symbols as 64-bit
    // words, then the call link's index) onto the lane's call stack, copies the arguments into the callee's
    // formal parameters, and pushes a SIMT entry for the calling lanes at the callee's entry; the calling entry
    // goes on after the call. The callee's branches reconverge at its single return (the inliner guarantees it
    // has no exit), so the return is executed by that entry with all its lanes: each lane's return value is read,
    // its frame restored, and the value written to the caller's return symbols; then the entry is popped.

    std::uint8_t* thread_local_bytes(CtaState& cta, const WarpState& w, unsigned lane, ir::SymbolId symbol) const {
        return cta.local.data() + (std::uint64_t{w.first_thread} + lane) * cta.local_frame_bytes +
               kernel_->symbols[symbol].offset;
    }

    void call_out_of_line(CtaState& cta, WarpState& w, const DecodedInstruction& d, ir::Pc pc, const core::WarpMask& exec) {
        w.stack.back().pc = pc + 1;
        if (exec.none()) return;
        const auto link_index = static_cast<std::size_t>(d.inst->operands[1].imm_bits);
        const ir::CallLink& link = kernel_->call_links.at(link_index);
        const ir::CallFrame& frame = kernel_->call_frames.at(link.frame);
        if (w.call_stack.size() != width_) {
            w.call_stack.resize(width_);
            w.call_depth.assign(width_, 0);
        }
        bool overflow = false;
        int overflow_lane = -1;
        detail::for_each_lane(exec, width_, [&](unsigned l) {
            if (!overflow && w.call_depth[l] >= options_.max_call_depth) {
                overflow = true;
                overflow_lane = static_cast<int>(l);
            }
        });
        if (overflow)
            fault(cta, w, pc, overflow_lane,
                  "call stack overflow: calling '" + frame.function + "' would exceed " +
                      std::to_string(options_.max_call_depth) +
                      " nested calls of recursive functions (LaunchOptions::max_call_depth)",
                  std::nullopt, KernelErrorKind::limit);
        detail::for_each_lane(exec, width_, [&](unsigned l) {
            std::vector<std::uint64_t>& stack = w.call_stack[l];
            for (std::uint32_t r = 0; r < frame.registers; ++r) stack.push_back(w.row(frame.first_register + r)[l]);
            for (ir::SymbolId s : frame.saved_symbols) {
                const std::uint64_t size = kernel_->symbols[s].size_bytes;
                const std::uint8_t* bytes = thread_local_bytes(cta, w, l, s);
                for (std::uint64_t at = 0; at < size; at += 8) {
                    std::uint64_t word = 0;
                    std::memcpy(&word, bytes + at, std::min<std::uint64_t>(8, size - at));
                    stack.push_back(word);
                }
            }
            stack.push_back(link_index);
            ++w.call_depth[l];
            for (std::size_t i = 0; i < link.args.size(); ++i) {
                const ir::SymbolId formal = frame.formal_args[i];
                const std::uint64_t size = kernel_->symbols[formal].size_bytes;
                std::memcpy(thread_local_bytes(cta, w, l, formal), thread_local_bytes(cta, w, l, link.args[i]), size);
            }
        });
        w.stack.push_back(SimtEntry{frame.entry, ir::no_pc, exec});
    }

    void return_from_call(CtaState& cta, WarpState& w, const DecodedInstruction& d, ir::Pc pc, const core::WarpMask& exec) {
        const auto frame_index = static_cast<std::uint32_t>(d.inst->operands[0].imm_bits);
        const ir::CallFrame& frame = kernel_->call_frames.at(frame_index);
        std::vector<std::uint8_t> value;
        detail::for_each_lane(exec, width_, [&](unsigned l) {
            if (w.call_stack.size() != width_ || w.call_stack[l].empty())
                fault(cta, w, pc, static_cast<int>(l),
                      "return from '" + frame.function + "' without a call in progress", std::nullopt,
                      KernelErrorKind::illegal_instruction);
            std::vector<std::uint64_t>& stack = w.call_stack[l];
            const ir::CallLink& link = kernel_->call_links.at(static_cast<std::size_t>(stack.back()));
            stack.pop_back();
            --w.call_depth[l];
            // The return values, before the restore overwrites the formal parameters that hold them.
            value.clear();
            for (ir::SymbolId formal : frame.formal_returns) {
                const std::uint8_t* bytes = thread_local_bytes(cta, w, l, formal);
                value.insert(value.end(), bytes, bytes + kernel_->symbols[formal].size_bytes);
            }
            for (auto s = frame.saved_symbols.rbegin(); s != frame.saved_symbols.rend(); ++s) {
                const std::uint64_t size = kernel_->symbols[*s].size_bytes;
                const std::uint64_t words = (size + 7) / 8;
                std::uint8_t* bytes = thread_local_bytes(cta, w, l, *s);
                const std::size_t first = stack.size() - words;
                for (std::uint64_t k = 0; k < words; ++k)
                    std::memcpy(bytes + 8 * k, &stack[first + k], std::min<std::uint64_t>(8, size - 8 * k));
                stack.resize(first);
            }
            for (std::uint32_t r = frame.registers; r-- > 0;) {
                w.row(frame.first_register + r)[l] = stack.back();
                stack.pop_back();
            }
            std::size_t at = 0;
            for (std::size_t i = 0; i < link.returns.size(); ++i) {
                const std::uint64_t size = kernel_->symbols[frame.formal_returns[i]].size_bytes;
                std::memcpy(thread_local_bytes(cta, w, l, link.returns[i]), value.data() + at, size);
                at += size;
            }
        });
        w.stack.pop_back();
    }

    // ---- device runtime: vprintf and __assertfail -------------------------------------------------------------

    // Host bytes of [address, address + bytes) in generic space as lane `lane` sees it (its own local segment),
    // or nullptr when the range is not readable; never faults (printf and assert report their own errors).
    const std::uint8_t* generic_view(const Ctx& c, unsigned lane, std::uint64_t address, std::uint64_t bytes) {
        const auto within = [&](std::uint64_t offset, std::uint64_t size) { return offset <= size && bytes <= size - offset; };
        const std::uint64_t frame = c.cta.local_frame_bytes;
        const std::uint8_t* local = c.cta.local.data() + (std::uint64_t{c.w.first_thread} + lane) * frame;
        for (const ir::StateSpace s : {ir::StateSpace::shared, ir::StateSpace::local, ir::StateSpace::constant,
                                       ir::StateSpace::param}) {
            const std::uint64_t base = generic_window_base(s);
            if (address < base || address - base >= generic_window_bytes) continue;
            const std::uint64_t offset = address - base;
            switch (s) {
            case ir::StateSpace::shared: return within(offset, c.cta.shared.size()) ? c.cta.shared.data() + offset : nullptr;
            case ir::StateSpace::local: return within(offset, frame) ? local + offset : nullptr;
            case ir::StateSpace::constant:
                return within(offset, variables_->constant.size()) ? variables_->constant.data() + offset : nullptr;
            default:
                if (offset >= call_param_base) return within(offset - call_param_base, frame) ? local + offset - call_param_base : nullptr;
                return within(offset, params_.size()) ? params_.data() + offset : nullptr;
            }
        }
        return device_->translate(address, bytes);
    }

    // The call-sequence .param storage that source operand `i` of a vprintf/__assertfail names, for lane `lane`.
    std::uint8_t* call_param(const Ctx& c, unsigned lane, unsigned i, unsigned bytes) {
        const std::uint64_t address = c.d.sources[i].imm; // call_param_base + the symbol's offset (decode.hpp)
        return local_bytes(c, lane, address - call_param_base, bytes, address, [&] {
            return "the .param argument " + std::to_string(i + 1) + " of " + std::string(ir::name(c.d.op));
        });
    }

    // vprintf(format, args): each executing lane in ascending order formats its call and appends the text to the
    // Device's console; the return value (arguments consumed, CUDA's vprintf result) goes to the return .param.
    void device_printf(const Ctx& c) {
        lanes(c, [&](unsigned l) {
            const std::uint64_t format = detail::load_le(call_param(c, l, 0, 8), 8);
            const std::uint64_t args = detail::load_le(call_param(c, l, 1, 8), 8);
            PrintfResult r;
            try {
                r = format_device_printf([&](std::uint64_t a, std::uint64_t n) { return generic_view(c, l, a, n); },
                                         format, args);
            } catch (const PrintfFault& f) {
                fault(c.cta, c.w, c.pc, static_cast<int>(l), f.message, f.address, KernelErrorKind::illegal_address);
            }
            if (r.truncated)
                r.text += "\n[gpuarch: this printf's output was cut at " + std::to_string(printf_max_output) + " bytes]\n";
            append_console(r.text);
            if (c.d.num_sources > 2) detail::store_le(call_param(c, l, 2, 4), static_cast<std::uint32_t>(r.arguments), 4);
        });
    }

    // Appends to the console within console_limit_per_launch; the first call that does not fit is replaced by one
    // line saying so, and every later one is dropped (a GPU's full printf FIFO drops records too).
    void append_console(const std::string& text) {
        if (console_full_) return;
        if (text.size() > console_limit_per_launch - console_bytes_) {
            console_full_ = true;
            device_->console() += "[gpuarch: device printf output of this launch exceeded " +
                                  std::to_string(console_limit_per_launch) +
                                  " bytes (CUDA's default printf FIFO size); later output is dropped]\n";
            return;
        }
        console_bytes_ += text.size();
        device_->console() += text;
    }

    // __assertfail(message, file, line, function, charSize): the lowest executing lane's assertion stops the
    // launch with the text a GPU prints for it (CUDA C++ Programming Guide, "Assertion"), then the fault site.
    [[noreturn]] void assertion_failed(const Ctx& c) {
        const unsigned l = static_cast<unsigned>(c.exec.find_first());
        const auto memory = [&](std::uint64_t a, std::uint64_t n) { return generic_view(c, l, a, n); };
        const auto text = [&](unsigned i, std::string_view what) {
            const std::uint64_t pointer = detail::load_le(call_param(c, l, i, 8), 8);
            if (pointer == 0) return std::string("<null>");
            try {
                return detail::read_device_string(memory, pointer, printf_max_string, "assert: the " + std::string(what));
            } catch (const PrintfFault& f) {
                fault(c.cta, c.w, c.pc, static_cast<int>(l), f.message, f.address, KernelErrorKind::illegal_address);
            }
        };
        const std::string message = text(0, "message"), file = text(1, "file name"), function = text(3, "function name");
        const auto line = static_cast<std::uint32_t>(detail::load_le(call_param(c, l, 2, 4), 4));
        const Dim3& b = c.cta.id;
        fault(c.cta, c.w, c.pc, static_cast<int>(l),
              file + ":" + std::to_string(line) + ": " + function + ": block: [" + std::to_string(b.x) + "," +
                  std::to_string(b.y) + "," + std::to_string(b.z) + "], thread: [" + std::to_string(c.w.tid_x[l]) + "," +
                  std::to_string(c.w.tid_y[l]) + "," + std::to_string(c.w.tid_z[l]) + "] Assertion `" + message +
                  "` failed.",
              std::nullopt, KernelErrorKind::assertion);
    }

    // ---- device heap: malloc and free (issue 20) ------------------------------------------------------------

    // malloc(size): each executing lane in ascending order allocates from the Device's heap (func/device.hpp) and
    // receives the pointer, or NULL when the heap is exhausted, in the return .param (when the call names one).
    void device_malloc(const Ctx& c) {
        lanes(c, [&](unsigned l) {
            const std::uint64_t bytes = detail::load_le(call_param(c, l, 0, 8), 8);
            const DevPtr p = device_->device_malloc(bytes);
            if (c.d.num_sources > 1) detail::store_le(call_param(c, l, 1, 8), p, 8);
        });
    }

    // free(ptr): each executing lane in ascending order; free(NULL) does nothing. A pointer that is not a live
    // device-heap allocation stops the launch at the first lane that passes one (CUDA leaves this undefined).
    void device_free(const Ctx& c) {
        lanes(c, [&](unsigned l) {
            const std::uint64_t p = detail::load_le(call_param(c, l, 0, 8), 8);
            if (!device_->device_free(p))
                fault(c.cta, c.w, c.pc, static_cast<int>(l),
                      "free of 0x" + detail::hex(p) + ", which is not a live allocation of the device heap: it is " +
                          device_->describe_heap_free(p),
                      p, KernelErrorKind::illegal_address);
        });
    }

    // ---- cp.async (issue 20) --------------------------------------------------------------------------------

    // cp.async.{ca,cg}.shared.global [dst], [src], cp-size [, src-size | ignore-src] (PTX ISA 9.0, Sec.
    // 9.7.9.25.3): each executing lane in ascending order copies the first src-size bytes of [src] (all cp-size
    // bytes without the operand; none when ignore-src is true) to [dst] and zero-fills the rest of the cp-size
    // bytes. The copy happens here, at execution, so the data is in shared memory by the time any later
    // cp.async.wait_group or wait_all completes, as the PTX ISA requires (docs/ptx.md, "Asynchronous copies").
    // Both addresses must be aligned to cp-size and in bounds; a src-size above cp-size is an error (the PTX ISA
    // leaves it undefined). With Record, the lanes that read at least one byte are the global load timing sees.
    template <bool Record>
    void async_copy(const Ctx& c, StepResult* out) {
        const DecodedInstruction& d = c.d;
        const unsigned size = static_cast<unsigned>(d.sources[0].imm);
        const detail::Source src = d.address_base == ir::no_reg ? detail::Source{&zero_, 0U, false}
                                                                : detail::Source{c.w.row(d.address_base), ~0U, false};
        const detail::Source dst = d.shared_base == ir::no_reg ? detail::Source{&zero_, 0U, false}
                                                               : detail::Source{c.w.row(d.shared_base), ~0U, false};
        const bool has_fourth = d.num_sources > 1;
        const bool ignore_src = has_fourth && d.inst->src_type == ir::ScalarType::pred;
        const detail::Source fourth = has_fourth ? source(c.cta, c.w, d, 1) : detail::Source{&zero_, 0U, false};
        core::WarpMask accessed;
        lanes(c, [&](unsigned l) {
            std::uint64_t n = size;
            if (ignore_src) n = fourth.pred(l) ? 0 : size;
            else if (has_fourth) n = fourth[l] & 0xffffffffU;
            if (n > size)
                fault(c.cta, c.w, c.pc, static_cast<int>(l),
                      "cp.async src-size " + std::to_string(n) + " exceeds cp-size " + std::to_string(size), std::nullopt,
                      KernelErrorKind::illegal_instruction);
            const std::uint64_t to = (dst[l] + d.shared_offset) & d.shared_mask;
            if (to % size != 0)
                fault(c.cta, c.w, c.pc, static_cast<int>(l),
                      "misaligned cp.async shared-memory destination (the address must be a multiple of " +
                          std::to_string(size) + ")",
                      shared_window_base + to, KernelErrorKind::misaligned_address);
            if (to > c.cta.shared.size() || size > c.cta.shared.size() - to)
                fault(c.cta, c.w, c.pc, static_cast<int>(l),
                      "out-of-bounds cp.async shared-memory destination of " + std::to_string(size) +
                          " bytes: the CTA has " + std::to_string(c.cta.shared.size()) + " bytes of shared memory",
                      shared_window_base + to, KernelErrorKind::illegal_address);
            std::uint8_t* target = c.cta.shared.data() + to;
            const std::uint64_t from = (src[l] + d.address_offset) & d.address_mask;
            if (n > 0) {
                if (from % size != 0)
                    fault(c.cta, c.w, c.pc, static_cast<int>(l),
                          "misaligned cp.async global source (the address must be a multiple of " + std::to_string(size) +
                              ")",
                          from, KernelErrorKind::misaligned_address);
                ir::StateSpace space{};
                std::uint64_t space_address = 0;
                const std::uint8_t* p = resolve(c, l, from, static_cast<unsigned>(n), false, space, space_address);
                std::memmove(target, p, n);
                accessed.set(l);
                if constexpr (Record) {
                    out->addresses[l] = from;
                    out->lane_spaces[l] = ir::StateSpace::global;
                }
            }
            std::memset(target + n, 0, size - n);
        });
        if constexpr (Record) {
            if (accessed.none()) return; // every lane zero-fills only: nothing for the caches to do
            out->is_memory = true;
            out->is_load = true;
            out->space = ir::StateSpace::global;
            out->access_bytes = size;
            out->accessed = accessed;
        }
    }

    // prefetch / prefetchu (PTX ISA 9.0, Sec. 9.7.9.15) change no value, so without Record there is nothing to do.
    // With it, each executed lane's address is resolved to its space as a load's would be, and the lanes whose line a
    // cache can hold become the access timing sees: global and local lines for prefetch, global lines for
    // prefetchu. The PTX ISA makes a prefetch to shared memory (and prefetchu to const, local or shared memory) a
    // no-op; a prefetch is a hint and never faults, so a lane whose address lies in no allocation or outside the
    // thread's local frame is dropped as well (as are const and param addresses, which no data cache holds). The
    // access takes the space of its first accessing lane; lanes of a generic prefetch that fall in the other space
    // (global and local addresses in one warp) are not timed (docs/ptx.md, "Prefetch").
    template <bool Record>
    void prefetch(const Ctx& c, StepResult* out) {
        if constexpr (Record) {
            const DecodedInstruction& d = c.d;
            const detail::Source base = d.address_base == ir::no_reg ? detail::Source{&zero_, 0U, false}
                                                                     : detail::Source{c.w.row(d.address_base), ~0U, false};
            core::WarpMask accessed;
            ir::StateSpace first = ir::StateSpace::none;
            lanes(c, [&](unsigned l) {
                std::uint64_t address = (base[l] + d.address_offset) & d.address_mask;
                ir::StateSpace space = d.space;
                if (space == ir::StateSpace::generic) {
                    space = ir::StateSpace::global;
                    for (ir::StateSpace s : {ir::StateSpace::shared, ir::StateSpace::local, ir::StateSpace::constant,
                                             ir::StateSpace::param}) {
                        const std::uint64_t window = generic_window_base(s);
                        if (address >= window && address - window < generic_window_bytes) {
                            space = s;
                            address -= window;
                            break;
                        }
                    }
                }
                bool cached = false;
                if (space == ir::StateSpace::global) cached = device_->translate(address, 1) != nullptr;
                else if (space == ir::StateSpace::local) cached = d.op == ir::Opcode::prefetch && address < c.cta.local_frame_bytes;
                if (!cached) return;
                if (first == ir::StateSpace::none) first = space;
                if (space != first) return;
                accessed.set(l);
                out->addresses[l] = address;
                out->lane_spaces[l] = space;
            });
            if (first == ir::StateSpace::none) return; // every lane a no-op: nothing for the caches to do
            out->is_memory = true;
            out->is_load = true;
            out->space = first;
            out->access_bytes = 1; // the line holding the byte addressed
            out->accessed = accessed;
        }
    }

    // ---- textures and surfaces (issue 20) ---------------------------------------------------------------------
    // The texel arithmetic is func/texture.hpp's; here each lane's object handle is looked up in the Device's table
    // and faults get the kernel's position. Results are gathered for every lane before any destination register is
    // written, so a destination that is also a coordinate or handle register reads its old value in every lane.
    // Timing sees one address per lane in the global space: the first texel the fetch read (the footprint's first
    // in-range corner under linear filtering), or the surface bytes accessed; lanes that read only border or
    // out-of-range texels (and .zero surface accesses out of range) access nothing (docs/ptx.md, "Textures and
    // surfaces").

    [[noreturn]] void object_fault(const Ctx& c, unsigned lane, const std::string& what,
                                   KernelErrorKind kind = KernelErrorKind::illegal_address) const {
        fault(c.cta, c.w, c.pc, static_cast<int>(lane), what, std::nullopt, kind);
    }
    static std::string handle_text(std::uint64_t handle) {
        std::ostringstream text;
        text << "0x" << std::hex << handle;
        return text.str();
    }

    template <bool Record>
    void texture_fetch(const Ctx& c, StepResult* out) {
        const ir::Instruction& i = *c.d.inst;
        const ir::Operand& coords = i.operands[2];
        const std::uint64_t* handles = c.w.row(i.operands[1].reg);
        const bool integer_coords = i.src_type == ir::ScalarType::s32;
        const TextureTable& table = device_->textures();
        texel_scratch_.resize(width_);
        core::WarpMask accessed;
        unsigned access_bytes = 0;
        lanes(c, [&](unsigned l) {
            const std::uint64_t h = handles[l];
            const TextureObject* t = table.texture(h);
            if (t == nullptr) object_fault(c, l, "tex through " + table.describe(h, TextureTable::Kind::texture));
            std::array<std::uint32_t, 4> xyz{};
            for (unsigned e = 0; e < coords.vector_count; ++e)
                xyz[e] = static_cast<std::uint32_t>(c.w.row(coords.vector[e])[l]);
            const auto read = [&](std::uint64_t address, std::uint64_t bytes) -> const std::uint8_t* {
                const std::uint8_t* p = device_->translate(address, bytes);
                if (p == nullptr)
                    object_fault(c, l, "tex through texture object " + handle_text(h) + " reads a texel outside its memory: " +
                                           device_->describe_fault(address, bytes));
                return p;
            };
            TexFetch f;
            TexelView view;
            try {
                view = table.resolve(t->resource);
                f = fetch(view, t->desc, i.geometry, integer_coords, xyz, read);
            } catch (const KernelError&) {
                throw;
            } catch (const Error& e) {
                object_fault(c, l, "tex through texture object " + handle_text(h) + ": " + e.what(),
                             KernelErrorKind::illegal_instruction);
            }
            for (unsigned e = 0; e < 4; ++e) texel_scratch_[l][e] = f.value[e];
            if constexpr (Record) {
                if (f.first_address != 0) {
                    accessed.set(l);
                    out->addresses[l] = f.first_address;
                    out->lane_spaces[l] = ir::StateSpace::global;
                    if (access_bytes == 0) access_bytes = view.format.texel_bytes();
                }
            }
        });
        const ir::Operand& dst = i.operands[0];
        for (unsigned e = 0; e < dst.vector_count; ++e) {
            if (dst.vector[e] == ir::no_reg) continue;
            std::uint64_t* row = c.w.row(dst.vector[e]);
            lanes(c, [&](unsigned l) { row[l] = texel_scratch_[l][e]; });
        }
        if constexpr (Record) {
            if (accessed.none()) return; // every lane read border or out-of-range texels only
            out->is_memory = true;
            out->is_load = true;
            out->space = ir::StateSpace::global;
            out->access_bytes = access_bytes;
            out->accessed = accessed;
        }
    }

    // suld.b / sust.b (PTX ISA 9.0, Secs. 9.7.10.7-8): x is a byte offset into the row, y and z are element
    // coordinates; an access must lie within one row and be aligned to its size. Out of range: .trap faults, .clamp
    // moves to the nearest in-range access of the same size, .zero loads zeros and drops stores.
    template <bool Record>
    void surface_access(const Ctx& c, StepResult* out) {
        const ir::Instruction& i = *c.d.inst;
        const bool store = i.op == ir::Opcode::sust;
        const std::uint64_t* handles = c.w.row(i.operands[store ? 0 : 1].reg);
        const ir::Operand& coords = i.operands[store ? 1 : 2];
        const ir::Operand& data = i.operands[store ? 2 : 0];
        const unsigned element = size_bytes(i.type), count = i.vector_width, bytes = element * count;
        const unsigned dims = i.geometry == ir::TexGeometry::d1 ? 1 : i.geometry == ir::TexGeometry::d2 ? 2 : 3;
        const char* what = store ? "sust" : "suld";
        const TextureTable& table = device_->textures();
        texel_scratch_.resize(width_);
        core::WarpMask accessed;
        lanes(c, [&](unsigned l) {
            const std::uint64_t h = handles[l];
            const SurfaceObject* s = table.surface(h);
            if (s == nullptr) object_fault(c, l, std::string(what) + " through " + table.describe(h, TextureTable::Kind::surface));
            const CudaArray* a = table.array(s->array);
            if (a == nullptr)
                object_fault(c, l, std::string(what) + " through surface object " + handle_text(h) + ": its " +
                                       table.describe(s->array, TextureTable::Kind::array));
            if (a->dims != dims)
                object_fault(c, l, std::string(what) + "." + std::string(ir::name(i.geometry)) + " through surface object " +
                                       handle_text(h) + ", whose CUDA array is " + std::to_string(a->dims) + "D",
                             KernelErrorKind::illegal_instruction);
            std::array<std::int64_t, 3> at{0, 0, 0};
            for (unsigned d = 0; d < dims; ++d) at[d] = static_cast<std::int32_t>(c.w.row(coords.vector[d])[l]);
            const std::int64_t row_bytes = static_cast<std::int64_t>(a->row_bytes());
            const std::array<std::int64_t, 3> limit{row_bytes - bytes, std::int64_t{a->height} - 1, std::int64_t{a->depth} - 1};
            if (at[0] % bytes != 0)
                object_fault(c, l, std::string(what) + " of " + std::to_string(bytes) + " bytes at byte x = " +
                                       std::to_string(at[0]) + " through surface object " + handle_text(h) +
                                       " is misaligned (x must be a multiple of the access size)",
                             KernelErrorKind::misaligned_address);
            bool inside = true;
            for (unsigned d = 0; d < 3; ++d) inside = inside && at[d] >= 0 && at[d] <= limit[d];
            if (!inside) {
                if (i.surface_clamp == ir::SurfaceClamp::zero) {
                    if (!store) texel_scratch_[l] = {};
                    return;
                }
                if (i.surface_clamp != ir::SurfaceClamp::clamp || limit[0] < 0) {
                    std::ostringstream text;
                    text << what << "." << ir::name(i.surface_clamp) << " out of range through surface object "
                         << handle_text(h) << ": byte x = " << at[0] << ", y = " << at[1] << ", z = " << at[2] << " for a "
                         << bytes << "-byte access of a surface " << row_bytes << " bytes wide, " << a->height
                         << " high and " << a->depth << " deep";
                    object_fault(c, l, text.str());
                }
                at[0] = std::clamp<std::int64_t>(at[0], 0, limit[0]) / bytes * bytes;
                for (unsigned d = 1; d < 3; ++d) at[d] = std::clamp<std::int64_t>(at[d], 0, limit[d]);
            }
            const std::uint64_t address = a->data + static_cast<std::uint64_t>(at[2]) * a->slice_bytes() +
                                          static_cast<std::uint64_t>(at[1]) * a->row_bytes() + static_cast<std::uint64_t>(at[0]);
            std::uint8_t* p = device_->translate(address, bytes);
            if (p == nullptr) object_fault(c, l, std::string(what) + ": the surface's CUDA array memory is gone");
            if (store) {
                for (unsigned e = 0; e < count; ++e) {
                    const std::uint64_t v = data.vector[e] == ir::no_reg ? 0 : c.w.row(data.vector[e])[l];
                    std::memcpy(p + e * element, &v, element); // little-endian host: the low bytes
                }
            } else {
                for (unsigned e = 0; e < count; ++e) texel_scratch_[l][e] = detail::load_le(p + e * element, element);
            }
            if constexpr (Record) {
                accessed.set(l);
                out->addresses[l] = address;
                out->lane_spaces[l] = ir::StateSpace::global;
            }
        });
        if (!store) {
            for (unsigned e = 0; e < count; ++e) {
                if (data.vector[e] == ir::no_reg) continue;
                std::uint64_t* row = c.w.row(data.vector[e]);
                lanes(c, [&](unsigned l) { row[l] = texel_scratch_[l][e]; });
            }
        }
        if constexpr (Record) {
            if (accessed.none()) return;
            out->is_memory = true;
            out->is_load = !store;
            out->is_store = store;
            out->space = ir::StateSpace::global;
            out->access_bytes = bytes;
            out->accessed = accessed;
        }
    }

    // dp4a, dp2a, sad and vabsdiff4: the pure functions of int_ops.hpp per lane (type rules in ptx/parser.hpp).
    void byte_arithmetic(const Ctx& c) {
        const ir::Instruction& i = *c.d.inst;
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1),
                             cc = source(c.cta, c.w, c.d, 2);
        std::uint64_t* dst = dst_row(c);
        const auto u32 = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
        const bool a_signed = is_signed_int(i.src_type), b_signed = is_signed_int(i.b_type);
        switch (c.d.op) {
        case ir::Opcode::dp4a:
            lanes(c, [&](unsigned l) { dst[l] = dot4a(u32(a[l]), u32(b[l]), u32(cc[l]), a_signed, b_signed); });
            break;
        case ir::Opcode::dp2a: {
            const bool hi = i.mul_mode == ir::MulMode::hi;
            lanes(c, [&](unsigned l) { dst[l] = dot2a(u32(a[l]), u32(b[l]), u32(cc[l]), a_signed, b_signed, hi); });
            break;
        }
        case ir::Opcode::sad: {
            const unsigned width = size_bytes(c.d.type) * 8;
            const bool is_signed = is_signed_int(c.d.type);
            lanes(c, [&](unsigned l) { dst[l] = sum_abs_diff(a[l], b[l], cc[l], width, is_signed); });
            break;
        }
        case ir::Opcode::vabsdiff4: {
            const bool d_signed = is_signed_int(c.d.type);
            lanes(c, [&](unsigned l) {
                dst[l] = vabsdiff4(u32(a[l]), u32(b[l]), u32(cc[l]), a_signed, b_signed, d_signed, i.sat, i.accumulate);
            });
            break;
        }
        default: unsupported(c);
        }
    }

    // ---- warp-level intrinsics (per aligned 32-lane group) ---------------------------------------------------

    // redux.sync (PTX ISA 9.0, Sec. 9.7.13.10): every executing lane of a 32-lane group that is in membermask gets
    // the reduction of `a` over those lanes: .add wraps modulo 2^32, .min/.max compare as .u32 or .s32,
    // .and/.or/.xor are bitwise on .b32.
    void reduce(const Ctx& c) {
        const detail::Source a = source(c.cta, c.w, c.d, 0);
        std::uint64_t* dst = dst_row(c);
        const ir::AtomOp op = c.d.inst->atom_op;
        const bool is_signed = is_signed_int(c.d.type);
        const unsigned groups = width_ / 32;
        for (unsigned g = 0; g < groups; ++g) {
            const std::uint32_t executing = c.exec.group32(g);
            if (executing == 0) continue;
            const unsigned first = g * 32 + static_cast<unsigned>(std::countr_zero(executing));
            const std::uint32_t part = executing & member_mask(c, 1, first);
            std::uint32_t result = 0;
            bool seen = false;
            for (std::uint32_t bits = part; bits != 0; bits &= bits - 1) {
                const auto v = static_cast<std::uint32_t>(a[g * 32 + static_cast<unsigned>(std::countr_zero(bits))]);
                if (!seen) {
                    result = v;
                    seen = true;
                    continue;
                }
                switch (op) {
                case ir::AtomOp::add: result += v; break;
                case ir::AtomOp::min:
                    result = is_signed ? (static_cast<std::int32_t>(v) < static_cast<std::int32_t>(result) ? v : result)
                                       : std::min(v, result);
                    break;
                case ir::AtomOp::max:
                    result = is_signed ? (static_cast<std::int32_t>(v) > static_cast<std::int32_t>(result) ? v : result)
                                       : std::max(v, result);
                    break;
                case ir::AtomOp::and_: result &= v; break;
                case ir::AtomOp::or_: result |= v; break;
                case ir::AtomOp::xor_: result ^= v; break;
                default: unsupported(c);
                }
            }
            for (std::uint32_t bits = executing; bits != 0; bits &= bits - 1)
                dst[g * 32 + static_cast<unsigned>(std::countr_zero(bits))] = result;
        }
    }

    std::uint32_t member_mask(const Ctx& c, unsigned index, unsigned lane) {
        if (c.d.num_sources <= index) return 0xffffffffU;
        return static_cast<std::uint32_t>(source(c.cta, c.w, c.d, index)[lane]);
    }

    // shfl.sync (PTX ISA, shfl.sync pseudo-code): c packs the clamp value (bits 4:0) and the segment mask
    // (bits 12:8); a lane whose computed source is out of its segment reads its own value and gets p = false.
    void shuffle(const Ctx& c) {
        const detail::Source a = source(c.cta, c.w, c.d, 0), b = source(c.cta, c.w, c.d, 1),
                             cc = source(c.cta, c.w, c.d, 2);
        std::uint64_t* copy = c.cta.shuffle.data();
        for (unsigned l = 0; l < width_; ++l) copy[l] = a[l]; // every lane's value before any write
        std::uint64_t* dst = dst_row(c);
        std::uint64_t* p = c.d.dst2 == ir::no_reg ? nullptr : c.w.row(c.d.dst2);
        const ir::ShflMode mode = c.d.inst->shfl_mode;
        const std::uint64_t mask = low_mask(std::max(32U, size_bytes(c.d.type) * 8));
        lanes(c, [&](unsigned l) {
            const int lane = static_cast<int>(l & 31U);
            const int bval = static_cast<int>(b[l] & 31U);
            const int cval = static_cast<int>(cc[l] & 31U);
            const int segmask = static_cast<int>((cc[l] >> 8) & 31U);
            const int max_lane = (lane & segmask) | (cval & ~segmask);
            const int min_lane = lane & segmask;
            int j = lane;
            bool valid = false;
            switch (mode) {
            case ir::ShflMode::up: j = lane - bval; valid = j >= max_lane; break;
            case ir::ShflMode::down: j = lane + bval; valid = j <= max_lane; break;
            case ir::ShflMode::bfly: j = lane ^ bval; valid = j <= max_lane; break;
            case ir::ShflMode::idx: j = min_lane | (bval & ~segmask); valid = j <= max_lane; break;
            case ir::ShflMode::none: unsupported(c);
            }
            if (!valid) j = lane;
            dst[l] = copy[(l & ~31U) + static_cast<unsigned>(j)] & mask;
            if (p != nullptr) p[l] = valid ? 1 : 0;
        });
    }

    // vote.sync over the lanes of each 32-lane group that execute it and are in membermask.
    void vote(const Ctx& c) {
        const detail::Source pred = source(c.cta, c.w, c.d, 0);
        std::uint64_t* dst = dst_row(c);
        const ir::VoteMode mode = c.d.inst->vote_mode;
        const unsigned groups = width_ / 32;
        for (unsigned g = 0; g < groups; ++g) {
            const std::uint32_t executing = c.exec.group32(g);
            if (executing == 0) continue;
            const unsigned first = g * 32 + static_cast<unsigned>(std::countr_zero(executing));
            const std::uint32_t part = executing & member_mask(c, 1, first);
            std::uint32_t ballot = 0;
            for (std::uint32_t bits = part; bits != 0; bits &= bits - 1) {
                const unsigned i = static_cast<unsigned>(std::countr_zero(bits));
                if (pred.pred(g * 32 + i)) ballot |= 1U << i;
            }
            std::uint64_t result = 0;
            switch (mode) {
            case ir::VoteMode::ballot: result = ballot; break;
            case ir::VoteMode::all: result = ballot == part ? 1 : 0; break;
            case ir::VoteMode::any: result = ballot != 0 ? 1 : 0; break;
            case ir::VoteMode::uni: result = (ballot == 0 || ballot == part) ? 1 : 0; break;
            case ir::VoteMode::none: unsupported(c);
            }
            for (std::uint32_t bits = executing; bits != 0; bits &= bits - 1)
                dst[g * 32 + static_cast<unsigned>(std::countr_zero(bits))] = result;
        }
    }

    // match.any / match.all over the lanes of each 32-lane group that execute it and are in membermask.
    void match(const Ctx& c) {
        const detail::Source a = source(c.cta, c.w, c.d, 0);
        std::uint64_t* dst = dst_row(c);
        std::uint64_t* p = c.d.dst2 == ir::no_reg ? nullptr : c.w.row(c.d.dst2);
        const std::uint64_t mask = low_mask(size_bytes(c.d.type) * 8);
        const bool all = c.d.inst->vote_mode == ir::VoteMode::all;
        const unsigned groups = width_ / 32;
        for (unsigned g = 0; g < groups; ++g) {
            const std::uint32_t executing = c.exec.group32(g);
            if (executing == 0) continue;
            const unsigned first = g * 32 + static_cast<unsigned>(std::countr_zero(executing));
            const std::uint32_t part = executing & member_mask(c, 1, first);
            for (std::uint32_t bits = executing; bits != 0; bits &= bits - 1) {
                const unsigned l = g * 32 + static_cast<unsigned>(std::countr_zero(bits));
                std::uint32_t same = 0;
                for (std::uint32_t others = part; others != 0; others &= others - 1) {
                    const unsigned k = static_cast<unsigned>(std::countr_zero(others));
                    if ((a[g * 32 + k] & mask) == (a[l] & mask)) same |= 1U << k;
                }
                if (all) {
                    const bool equal = same == part;
                    dst[l] = equal ? part : 0;
                    if (p != nullptr) p[l] = equal ? 1 : 0;
                } else {
                    dst[l] = same;
                }
            }
        }
    }

    Device* device_;
    Module module_;
    const ir::Kernel* kernel_;
    LaunchConfig config_;
    LaunchOptions options_;
    std::vector<std::uint8_t> params_;
    Device::ModuleVariables* variables_ = nullptr;
    std::vector<DecodedInstruction> code_;
    std::vector<ir::RegId> live_at_entry_; // ir::registers_live_at_entry of the kernel
    unsigned width_ = 32;
    unsigned threads_per_cta_ = 0;
    unsigned warps_per_cta_ = 0;
    std::uint64_t shared_bytes_ = 0;
    StepCounts counts_;
    std::vector<std::uint8_t> private_step_; // per PC: touches_only_cta
    std::uint64_t console_bytes_ = 0;        // bytes this launch appended to the Device's console
    bool console_full_ = false;              // console_limit_per_launch was reached
    std::uint64_t zero_ = 0;
    detail::GridWorkspace workspace_;    // a cooperative launch's grid workspace (address 0 otherwise)
    bool reads_grid_workspace_ = false; // the kernel reads %envreg1 or %envreg2
    std::vector<std::array<std::uint64_t, 4>> texel_scratch_; // tex/suld results per lane before they are written
};

} // namespace func
