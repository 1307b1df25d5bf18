#pragma once
// One kernel launch, executed one warp-instruction at a time.
//
// Contract:
// - KernelExecution owns everything a launch needs (the parameter buffer, the decoded kernel, a reference to the
//   Device and to the module's variables on it). start_cta(id) creates the architectural state of one CTA;
//   step(cta, warp, out) executes that warp's next instruction (the SIMT-stack top) and describes it in `out`.
//   Any interleaving of steps over warps and CTAs is allowed; the engine itself never reorders anything.
// - Values are exact: every instruction follows the PTX ISA semantics (see int_ops.hpp, float_ops.hpp and
//   docs/functional.md for the choices where the ISA leaves a result unspecified). The semantics live in
//   func/semantics/, one header per opcode family, as free functions over semantics::Context; this class keeps
//   the launch's state, the step loop and the dispatch on the opcode.
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
#include <gpuarch/core/separate_compilation.hpp>
#include <gpuarch/func/decode.hpp>
#include <gpuarch/func/device.hpp>
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

#include <gpuarch/func/semantics/arithmetic.hpp>
#include <gpuarch/func/semantics/bitwise.hpp>
#include <gpuarch/func/semantics/compare.hpp>
#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/semantics/control.hpp>
#include <gpuarch/func/semantics/conversion.hpp>
#include <gpuarch/func/semantics/device_runtime.hpp>
#include <gpuarch/func/semantics/float.hpp>
#include <gpuarch/func/semantics/lane_ops.hpp>
#include <gpuarch/func/semantics/memory.hpp>
#include <gpuarch/func/semantics/operands.hpp>
#include <gpuarch/func/semantics/texture.hpp>
#include <gpuarch/func/semantics/warp.hpp>

namespace gpuarch::func {

class KernelExecution {
public:
    KernelExecution(Device& device, const Module& module, std::string_view entry, const LaunchConfig& config,
                    const Args& args, const LaunchOptions& options = {});

    const ir::Kernel& kernel() const { return *launch_.kernel; }
    const Module& module() const { return launch_.module; }
    const LaunchConfig& config() const { return launch_.config; }
    const LaunchOptions& options() const { return launch_.options; }
    Device& device() const { return *launch_.device; }
    unsigned warp_width() const { return launch_.width; }
    unsigned warps_per_cta() const { return warps_per_cta_; }
    std::uint64_t cta_count() const { return launch_.config.grid.count(); }
    // Warp- and thread-instructions stepped so far, including the StepCounts that callers folded in (add_counts).
    std::uint64_t warp_instructions() const { return counts_.warp_instructions; }
    std::uint64_t thread_instructions() const { return counts_.thread_instructions; }
    const std::vector<std::uint8_t>& parameter_buffer() const { return launch_.params; }
    const DecodedInstruction& decoded(ir::Pc pc) const { return code_[pc]; }

    // Creates CTA `linear_cta_id` (x fastest) with every warp at PC 0; `sm_id` is what %smid reads.
    CtaState start_cta(std::uint64_t linear_cta_id, unsigned sm_id = 0) const {
        CtaState cta;
        start_cta(cta, linear_cta_id, sm_id);
        return cta;
    }

    // The same, reusing the buffers of `cta` (a CTA of this launch that finished, or a default-constructed one).
    void start_cta(CtaState& cta, std::uint64_t linear_cta_id, unsigned sm_id = 0) const;

    // Executes warp `warp`'s next instruction and describes it in `out` (sized to the warp width).
    void step(CtaState& cta, unsigned warp, StepResult& out) { step(cta, warp, out, counts_); }
    // Executes warp `warp`'s next instruction without describing it (the functional-only path).
    void step(CtaState& cta, unsigned warp) { step_impl<false>(cta, check_steppable(cta, warp), nullptr, counts_); }

    // Executes up to `max_steps` instructions of warp `warp` without describing them, stopping early when it
    // finishes or waits at a barrier; returns how many it executed. The same as calling step(cta, warp) while the
    // warp can step, with the per-step checks and call taken once (the functional-only path, func::run_ctas).
    // Precondition: the warp can step and max_steps > 0.
    unsigned run_steps(CtaState& cta, unsigned warp, unsigned max_steps);

    // Steps into the caller's `counts` instead of this launch's: callers that step different CTAs on different host
    // threads at once (GPU's parallel tick, pipeline/private_steps.hpp says which steps may) keep one StepCounts
    // each. Contract: the instruction-limit check reads this launch's count as of the last add_counts, so the
    // caller folds every StepCounts in (add_counts, never concurrently with any step) before the launch's count
    // could reach LaunchOptions::instruction_limit. Precondition: the warp can step (not finished, not waiting at a
    // barrier).
    void step(CtaState& cta, unsigned warp, StepResult& out, StepCounts& counts) {
        if (out.width() < launch_.width)
            throw Error("StepResult holds " + std::to_string(out.width()) + " lanes but the launch uses " +
                        std::to_string(launch_.width) + "-lane warps");
        step_impl<true>(cta, check_steppable(cta, warp), &out, counts);
    }
    // Adds counts gathered by concurrent steps to this launch's and clears them.
    void add_counts(StepCounts& counts) {
        counts_.warp_instructions += counts.warp_instructions;
        counts_.thread_instructions += counts.thread_instructions;
        counts = StepCounts{};
    }

    // Throws a KernelError describing the barrier deadlock when no unfinished warp of `cta` can step.
    void check_progress(const CtaState& cta) const;

    // Where warp `warp` of `cta` stands: kernel, CTA, the PC and PTX line of its next instruction and its first
    // active thread. For reports that stop a running launch (a cycle limit, a livelock).
    FaultSite warp_site(const CtaState& cta, unsigned warp) const;

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

    // ---- stepping ------------------------------------------------------------------------------------------

    // Defined below the class; with GPUARCH_SEPARATE_COMPILATION both instantiations are compiled in one unit only
    // (gpuarch/separate_compilation.hpp).
    template <bool Record> void step_impl(CtaState& cta, WarpState& w, StepResult* out, StepCounts& counts);
    // step_impl's body, always inlined: into both step_impl instantiations and into run_steps's loop, where the
    // per-step state then stays in registers.
    template <bool Record> void step_body(CtaState& cta, WarpState& w, StepResult* out, StepCounts& counts);

    // Writes the lanes of `active` whose guard holds into `m`, words below the warp width only (the caller's `m` has
    // no lane at or above it).
    void guard_mask(const WarpState& w, const ir::Guard& guard, const core::WarpMask& active, core::WarpMask& m) const {
        const std::uint64_t* p = w.row(guard.reg);
        const unsigned words = (launch_.width + 63) / 64;
        for (unsigned word = 0; word < words; ++word) {
            if (active.word(word) == 0) {
                m.set_word(word, 0);
                continue;
            }
            const unsigned base = word * 64, n = std::min(64U, launch_.width - base);
            std::uint64_t bits = detail::pack_low_bits(p + base, n);
            if (guard.negated) bits = ~bits;
            m.set_word(word, bits & active.word(word));
        }
    }

    template <bool Record>
    void execute(CtaState& cta, WarpState& w, const DecodedInstruction& d, ir::Pc pc, const core::WarpMask& exec,
                 StepResult* out);

    // Pops the entries that reached their reconvergence point or lost all their lanes.
    void pop_reconverged(WarpState& w) const {
        while (!w.stack.empty() &&
               (!w.stack.back().mask.any_below(launch_.width) || w.stack.back().pc == w.stack.back().reconvergence_pc))
            w.stack.pop_back();
    }

    semantics::LaunchState launch_; // what the opcode semantics read and write (func/semantics/context.hpp)
    std::vector<DecodedInstruction> code_;
    std::vector<ir::RegId> live_at_entry_; // ir::registers_live_at_entry of the kernel
    std::vector<Dim3> thread_ids_; // %tid of each linear thread index of a CTA
    unsigned warps_per_cta_ = 0;
    StepCounts counts_;
};

// The launch's set-up and its error reports: out of line so that GPUARCH_SEPARATE_COMPILATION can compile them in
// one unit (gpuarch/core/separate_compilation.hpp).
#if GPUARCH_SEPARATE_DEFINITIONS
GPUARCH_SEPARATE_INLINE KernelExecution::KernelExecution(Device& device, const Module& module, std::string_view entry,
                                                         const LaunchConfig& config, const Args& args,
                                                         const LaunchOptions& options)
    : launch_(device, module, config, options) {
    launch_.kernel = &launch_.module.kernel(entry);
    validate_launch(*launch_.kernel, launch_.config, launch_.options);
    launch_.params = pack_arguments(*launch_.kernel, args);
    launch_.variables = &launch_.device->module_variables(launch_.module);
    const KernelDecoder decoder(launch_.module.ir(), *launch_.kernel, launch_.variables->global_base,
                                dynamic_shared_start(*launch_.kernel));
    code_ = decoder.decode();
    launch_.width = launch_.options.warp_width;
    launch_.threads_per_cta = static_cast<unsigned>(launch_.config.block.count());
    warps_per_cta_ = (launch_.threads_per_cta + launch_.width - 1) / launch_.width;
    launch_.shared_bytes = cta_shared_bytes(*launch_.kernel, launch_.config);
    live_at_entry_ = ir::registers_live_at_entry(*launch_.kernel);
    // Every CTA of the launch has the same %tid per thread: unflattened once here rather than per CTA (two
    // integer divisions per thread were most of start_cta's time on kernels of many small CTAs).
    thread_ids_.resize(launch_.threads_per_cta);
    for (unsigned t = 0; t < launch_.threads_per_cta; ++t) thread_ids_[t] = unflatten(t, launch_.config.block);
    if (launch_.options.cooperative) launch_.workspace = detail::GridWorkspace(*launch_.device);
    for (const ir::Instruction& inst : launch_.kernel->code)
        for (std::uint8_t i = 0; i < inst.num_operands; ++i)
            if (inst.operands[i].kind == ir::OperandKind::special &&
                (inst.operands[i].special == ir::SpecialReg::envreg1 ||
                 inst.operands[i].special == ir::SpecialReg::envreg2))
                launch_.reads_grid_workspace = true;
}

GPUARCH_SEPARATE_INLINE void KernelExecution::start_cta(CtaState& cta, std::uint64_t linear_cta_id,
                                                        unsigned sm_id) const {
    if (linear_cta_id >= cta_count())
        throw KernelError("kernel '" + launch_.kernel->name + "': CTA " + std::to_string(linear_cta_id) +
                          " does not exist in a grid of " + std::to_string(cta_count()) + " CTAs");
    cta.barriers = {};
    cta.guarded_lanes = core::WarpMask{}; // a reused CtaState may come from a launch of wider warps
    cta.linear_id = linear_cta_id;
    cta.id = unflatten(linear_cta_id, launch_.config.grid);
    cta.sm_id = sm_id;
    cta.shared.assign(launch_.shared_bytes, 0);
    cta.local_frame_bytes = launch_.kernel->local_bytes;
    cta.local.assign(launch_.kernel->local_bytes * launch_.threads_per_cta, 0);
    cta.warps.resize(warps_per_cta_);
    const std::size_t registers = launch_.kernel->registers.size();
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
        warp.width = launch_.width;
        warp.first_thread = w * launch_.width;
        const unsigned lanes = std::min(launch_.width, launch_.threads_per_cta - warp.first_thread);
        warp.valid = core::WarpMask::first(lanes);
        // Only the registers some thread may read before writing them start defined (zero); the rest keep
        // what the slot's previous CTA left, which no thread observes (ir/liveness.hpp). Zeroing every row
        // was up to a few hundred kilobytes of memset per CTA.
        if (warp.regs.size() != registers * launch_.width) warp.regs.assign(registers * launch_.width, 0);
        else
            for (const ir::RegId r : live_at_entry_)
                std::fill_n(warp.regs.data() + std::size_t{r} * launch_.width, launch_.width, 0);
        warp.carry.assign(launch_.width, 0);
        warp.tid_x.assign(launch_.width, 0);
        warp.tid_y.assign(launch_.width, 0);
        warp.tid_z.assign(launch_.width, 0);
        for (unsigned l = 0; l < lanes; ++l) {
            const Dim3& t = thread_ids_[warp.first_thread + l];
            warp.tid_x[l] = t.x;
            warp.tid_y[l] = t.y;
            warp.tid_z[l] = t.z;
        }
        warp.stack.clear();
        warp.stack.reserve(16);
        warp.stack.push_back(SimtEntry{0, ir::no_pc, warp.valid});
    }
    cta.live_warps = warps_per_cta_;
    for (auto& row : cta.scratch) row.assign(launch_.width, 0);
    cta.shuffle.assign(launch_.width, 0);
    if (launch_.kernel->code.empty())
        for (WarpState& warp : cta.warps) semantics::finish_warp(launch_, cta, warp);
}

GPUARCH_SEPARATE_INLINE void KernelExecution::check_progress(const CtaState& cta) const {
    if (cta.finished()) return;
    for (unsigned w = 0; w < cta.warp_count(); ++w)
        if (cta.warp_ready(w)) return;
    std::string waits;
    ir::Pc pc = ir::no_pc;
    for (unsigned b = 0; b < barrier_count; ++b) {
        const BarrierState& s = cta.barriers[b];
        if (s.arrived_warps == 0) continue;
        if (pc == ir::no_pc) pc = s.pc;
        waits +=
            (waits.empty() ? "" : "; ") + std::to_string(s.arrived_warps) + " warp(s) at barrier " + std::to_string(b) +
            (s.expected_threads != 0 ? " expecting " + std::to_string(s.expected_threads) + " threads" : std::string());
    }
    FaultSite site = semantics::site_for(launch_, cta, pc);
    throw KernelError("barrier deadlock: every unfinished warp waits at a barrier that cannot complete (" + waits +
                          "; " + std::to_string(cta.live_warps) + " warp(s) unfinished)",
                      site, KernelErrorKind::deadlock);
}

GPUARCH_SEPARATE_INLINE FaultSite KernelExecution::warp_site(const CtaState& cta, unsigned warp) const {
    const WarpState& w = cta.warps[warp];
    FaultSite site = semantics::site_for(launch_, cta, w.next_pc());
    const core::WarpMask mask = w.active_mask();
    for (unsigned lane = 0; lane < w.tid_x.size(); ++lane)
        if (mask.test(lane)) {
            site.thread = Dim3{w.tid_x[lane], w.tid_y[lane], w.tid_z[lane]};
            break;
        }
    return site;
}
#endif

template <bool Record>
void KernelExecution::step_impl(CtaState& cta, WarpState& w, StepResult* out, StepCounts& counts) {
    step_body<Record>(cta, w, out, counts);
}

template <bool Record>
[[gnu::always_inline]] inline void KernelExecution::step_body(CtaState& cta, WarpState& w, StepResult* out,
                                                              StepCounts& counts) {
    SimtEntry& top = w.stack.back();
    const ir::Pc pc = top.pc;
    if (pc >= code_.size())
        semantics::fault(launch_, cta, w, pc, -1, "execution ran past the end of the kernel", std::nullopt,
                         KernelErrorKind::illegal_instruction);
    if (counts_.warp_instructions >= launch_.options.instruction_limit)
        semantics::fault(launch_, cta, w, pc, -1,
                         "the launch reached its instruction limit of " +
                             std::to_string(launch_.options.instruction_limit) +
                             " warp instructions (LaunchOptions::instruction_limit); the kernel may not terminate",
                         std::nullopt, KernelErrorKind::limit);
    const DecodedInstruction& d = code_[pc];
    // The lanes this step executes: the top entry's own mask, read in place (a WarpMask is 64 bytes, and copying it
    // twice per step was a measurable part of the functional engine's per-step cost), or its guarded lanes. Only
    // the control cases below change the stack, which may move `top`: they copy both masks first.
    const bool guarded = d.guard.reg != ir::no_reg;
    if (guarded) guard_mask(w, d.guard, top.mask, cta.guarded_lanes);
    const core::WarpMask& exec = guarded ? cta.guarded_lanes : top.mask;
    ++counts.warp_instructions;
    const unsigned executed_lanes = static_cast<unsigned>(exec.popcount_below(launch_.width));
    counts.thread_instructions += executed_lanes;
    if constexpr (Record) {
        out->pc = pc;
        out->instruction = d.inst;
        out->active = top.mask;
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
    // Whether the stack may need popping below: every case but the plain one, which leaves the top entry's lanes
    // (not empty, or it would have been popped) and moves it one instruction on.
    bool may_pop = true;
    switch (d.op) {
    case ir::Opcode::bra: {
        if constexpr (!Record) {
            // A warp of at most 64 lanes keeps its lanes in the masks' first word: the uniform outcomes (every
            // executing lane taken, or none) are two word operations, without the 64-byte copies below.
            if (launch_.width <= 64) {
                const std::uint64_t active = top.mask.word(0), taken = exec.word(0);
                if ((active & ~taken) == 0) {
                    top.pc = d.target;
                    break;
                }
                if (taken == 0) {
                    top.pc = pc + 1;
                    break;
                }
            }
        }
        const core::WarpMask active = top.mask, taken_or_not = exec;
        semantics::branch<Record>(w, d, pc, active, taken_or_not, out);
        break;
    }
    case ir::Opcode::ret: {
        const core::WarpMask lanes = exec;
        if (d.inst->num_operands == 1)
            semantics::return_from_call(launch_, cta, w, d, pc, lanes); // an out-of-line function returns
        else semantics::exit_lanes(w, pc, lanes);
        break;
    }
    case ir::Opcode::exit: {
        const core::WarpMask lanes = exec;
        semantics::exit_lanes(w, pc, lanes);
        break;
    }
    case ir::Opcode::call: {
        const core::WarpMask lanes = exec;
        semantics::call_out_of_line(launch_, cta, w, d, pc, lanes);
        break;
    }
    case ir::Opcode::bar:
        if (executed_lanes != 0) released = semantics::barrier(semantics::Context{launch_, cta, w, d, pc, exec});
        w.stack.back().pc = pc + 1;
        break;
    default:
        if (executed_lanes != 0) execute<Record>(cta, w, d, pc, exec, out); // changes no SIMT-stack entry
        top.pc = pc + 1;
        may_pop = top.pc == top.reconvergence_pc;
        break;
    }
    if (may_pop) pop_reconverged(w);
    ++w.clock;
    ++w.executed;
    if (w.stack.empty()) released = semantics::finish_warp(launch_, cta, w) || released;
    if constexpr (Record) {
        out->next_pc = w.next_pc();
        out->warp_finished = w.finished();
        out->barrier_wait = w.waiting();
        out->barrier_released = released;
        const ir::RegId first_dst = d.dst != ir::no_reg ? d.dst : (d.dst_count > 0 ? d.dst_vector[0] : ir::no_reg);
        if (out->record_values && !out->has_value && first_dst != ir::no_reg && ir::has_destination(*d.inst) &&
            d.op != ir::Opcode::bar) {
            out->has_value = true;
            out->value_reg = first_dst;
            const std::uint64_t* row = w.row(first_dst);
            if (executed_lanes == launch_.width)
                std::copy_n(row, launch_.width, out->values.data()); // every lane: one block copy
            else // out->executed: `exec` may name a stack entry that the steps above popped
                detail::for_each_lane(out->executed, launch_.width, [&](unsigned l) { out->values[l] = row[l]; });
        }
    }
}

// Inline, as it was inside the class: only step_impl calls it, and position-independent code may not inline a
// function that is not.
template <bool Record>
[[gnu::always_inline]] inline void KernelExecution::execute(CtaState& cta, WarpState& w, const DecodedInstruction& d,
                                                            ir::Pc pc, const core::WarpMask& exec, StepResult* out) {
    const semantics::Context c{launch_, cta, w, d, pc, exec};
    // The frequent integer forms the decoder settled (DecodedInstruction::lane_op) skip the dispatch below.
    if (d.lane_op != LaneOp::none) {
        semantics::run_lane_op(c);
        return;
    }
    using ir::Opcode;
    switch (d.op) {
    case Opcode::add:
    case Opcode::sub: semantics::add_sub(c); break;
    case Opcode::addc:
    case Opcode::subc: semantics::add_sub(c); break;
    case Opcode::mul: semantics::mul(c); break;
    case Opcode::mad:
    case Opcode::madc: semantics::mad(c); break;
    case Opcode::fma: semantics::fma(c); break;
    case Opcode::mul24:
    case Opcode::mad24: semantics::mul24_op(c); break;
    case Opcode::div: semantics::div(c); break;
    case Opcode::rem: semantics::rem(c); break;
    case Opcode::abs:
    case Opcode::neg: semantics::abs_neg(c); break;
    case Opcode::min:
    case Opcode::max: semantics::min_max(c); break;
    case Opcode::and_:
    case Opcode::or_:
    case Opcode::xor_:
    case Opcode::not_:
    case Opcode::cnot: semantics::logic(c); break;
    case Opcode::popc:
    case Opcode::clz:
    case Opcode::brev:
    case Opcode::bfind: semantics::bit_count(c); break;
    case Opcode::bfe:
    case Opcode::bfi: semantics::bit_field(c); break;
    case Opcode::prmt:
    case Opcode::lop3:
    case Opcode::shf: semantics::permute(c); break;
    case Opcode::shl:
    case Opcode::shr: semantics::shift(c); break;
    case Opcode::setp:
    case Opcode::set: semantics::compare(c); break;
    case Opcode::selp:
    case Opcode::slct: semantics::select(c); break;
    case Opcode::cvt: semantics::convert(c); break;
    case Opcode::cvta: semantics::convert_address(c); break;
    case Opcode::mov: semantics::move(c); break;
    case Opcode::rcp:
    case Opcode::sqrt:
    case Opcode::rsqrt:
    case Opcode::sin:
    case Opcode::cos:
    case Opcode::lg2:
    case Opcode::ex2:
    case Opcode::tanh: semantics::special_function(c); break;
    case Opcode::copysign:
    case Opcode::testp: semantics::float_misc(c); break;
    case Opcode::ld:
        if (d.global_scalar_load == 4) semantics::load_global_scalar<Record, 4>(c, out);
        else if (d.global_scalar_load == 8) semantics::load_global_scalar<Record, 8>(c, out);
        else semantics::memory<Record>(c, out);
        break;
    case Opcode::st:
    case Opcode::atom:
    case Opcode::red: semantics::memory<Record>(c, out); break;
    case Opcode::prefetch:
    case Opcode::prefetchu: semantics::prefetch<Record>(c, out); break;
    case Opcode::dp4a:
    case Opcode::dp2a:
    case Opcode::sad:
    case Opcode::vabsdiff4: semantics::byte_arithmetic(c); break;
    case Opcode::redux: semantics::reduce(c); break;
    case Opcode::tex: semantics::texture_fetch<Record>(c, out); break;
    case Opcode::suld:
    case Opcode::sust: semantics::surface_access<Record>(c, out); break;
    case Opcode::shfl: semantics::shuffle(c); break;
    case Opcode::vote: semantics::vote(c); break;
    case Opcode::match: semantics::match(c); break;
    case Opcode::activemask: semantics::activemask(c); break;
    // Memory ordering has no functional effect: the engine executes one instruction at a time, so every
    // access is already ordered (sequentially consistent). bar.warp.sync: lanes of a warp already execute
    // in lock step under the SIMT stack. nanosleep only delays.
    case Opcode::bar_warp_sync:
    case Opcode::membar:
    case Opcode::fence:
    case Opcode::nanosleep: break;
    case Opcode::vprintf: semantics::device_printf(c); break;
    case Opcode::assertfail: semantics::assertion_failed(c);
    case Opcode::trap: semantics::trap(c);
    // device heap and asynchronous copies
    case Opcode::device_malloc: semantics::device_malloc(c); break;
    case Opcode::device_free: semantics::device_free(c); break;
    case Opcode::cp_async: semantics::async_copy<Record>(c, out); break;
    // The copy is done when cp.async executes, so its data is in shared memory before any later instruction
    // of the thread runs; committing and waiting change no value (their cost is the timing model's).
    case Opcode::cp_async_commit_group:
    case Opcode::cp_async_wait_group:
    case Opcode::cp_async_wait_all: break;
    case Opcode::bra:
    case Opcode::ret:
    case Opcode::exit:
    case Opcode::bar:
    case Opcode::call: semantics::unsupported(c);
    }
}

#if GPUARCH_SEPARATE_DEFINITIONS
// After step_body's definition, so that the unit that defines run_steps can inline the body into the loop.
// Straight-line instructions (DecodedInstruction::straight_line) run back to back under the stack top they leave in
// place, doing what step_body does for each: the top entry, its lane count and the bounds are read once for the run
// (the per-step lane count and dispatch on control opcodes were a fifth of the functional engine's time on kernels
// whose warps run with few lanes). The run ends before any other instruction, at the instruction limit (step_body then
// faults) and after an instruction that reaches the entry's reconvergence point (popped as step_body pops).
GPUARCH_SEPARATE_INLINE unsigned KernelExecution::run_steps(CtaState& cta, unsigned warp, unsigned max_steps) {
    WarpState& w = check_steppable(cta, warp);
    const DecodedInstruction* const code = code_.data();
    const std::size_t code_size = code_.size();
    const std::uint64_t limit = launch_.options.instruction_limit;
    unsigned steps = 0;
    do {
        SimtEntry& top = w.stack.back();
        ir::Pc pc = top.pc;
        if (pc >= code_size || !code[pc].straight_line || counts_.warp_instructions >= limit) {
            step_body<false>(cta, w, nullptr, counts_);
            ++steps;
            continue;
        }
        const unsigned top_lanes = static_cast<unsigned>(top.mask.popcount_below(launch_.width));
        do {
            const DecodedInstruction& d = code[pc];
            const bool guarded = d.guard.reg != ir::no_reg;
            if (guarded) guard_mask(w, d.guard, top.mask, cta.guarded_lanes);
            const core::WarpMask& exec = guarded ? cta.guarded_lanes : top.mask;
            const unsigned executed_lanes =
                guarded ? static_cast<unsigned>(exec.popcount_below(launch_.width)) : top_lanes;
            ++counts_.warp_instructions;
            counts_.thread_instructions += executed_lanes;
            if (executed_lanes != 0) execute<false>(cta, w, d, pc, exec, nullptr);
            top.pc = ++pc;
            ++w.clock;
            ++w.executed;
            ++steps;
            if (pc == top.reconvergence_pc) {
                pop_reconverged(w);
                if (w.stack.empty()) semantics::finish_warp(launch_, cta, w);
                break;
            }
        } while (steps < max_steps && pc < code_size && code[pc].straight_line && counts_.warp_instructions < limit);
    } while (steps < max_steps && !w.finished() && !w.waiting());
    return steps;
}
#endif

#ifdef GPUARCH_SEPARATE_COMPILATION
// The interpreter is most of the code a unit that runs kernels compiles (about 10 of a registry unit's 35 CPU-seconds,
// docs/performance-history.md "Compile cost"), and it does not depend on the simulated machine: with this macro
// defined, a unit only declares the two instantiations, and gpuarch/separate_compilation.hpp, included in exactly one
// unit of the program, defines them.
extern template void KernelExecution::step_impl<true>(CtaState&, WarpState&, StepResult*, StepCounts&);
extern template void KernelExecution::step_impl<false>(CtaState&, WarpState&, StepResult*, StepCounts&);
#endif

} // namespace gpuarch::func
