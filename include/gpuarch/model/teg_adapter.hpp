#pragma once
// TEG adapter: drives the functional executor (func::KernelExecution) through a kernel launch, turns each
// executed warp instruction into a model::TraceRecord, and runs the TEG timing model (teg.hpp) on the trace.
//
// Role. In Lai 2013 (Sec. 3.3, Fig. 3.2), TEG takes its dynamic instruction trace from the Barra functional
// simulator. This header is the gpuarch equivalent of that Barra step. It is the one place where model/ reaches
// into func/: every other model header depends on nothing else in gpuarch. It reads func/ and ir/ only, never a
// timing slot, so the analytical and cycle-level paths stay independent.
//
// Contract:
//   - teg_trace executes every CTA of the launch to completion. It runs each CTA's warps up to their barriers,
//     one after the other.
//   - It emits one record per executed warp instruction, in each warp's program order. A fully predicated-off
//     instruction still issues and is recorded. Lai Sec. 3.2.2.3: masked arithmetic has the unmasked timing.
//   - Every CTA of the grid is treated as resident on the one SM that TEG models. Lai's validation used one or
//     two 8-warp blocks per SM (Sec. 3.4), so pass a grid that fits on one SM.
//   - Warp ids are linear: cta * warps_per_cta + warp. TraceRecord::cta is the linear CTA id.
//   - dst = the instruction's defs, src = its uses, both as IR register ids. Predicates and address bases
//     count: they are dependences for the scoreboard, which is all TEG reads from registers.
//
// Mapping from ir::OpClass to Lai's classes (Table 3.1 rows), and the choices where the thesis is silent:
//   int_alu, control (ret, exit, membar), branch, warp_level (vote, shfl) -> int_alu.
//       The thesis times no control instruction. We issue them like the "Integer ADD" row.
//   int_mul: mul24/mad24 and 16-bit mul/mad -> int_mul16/int_mad16, the GT200-native 16-bit rows.
//       32-bit multiply, div and rem are emulated on GT200 by sequences the thesis does not give. They are
//       rejected unless TegAdapterOptions::int_mul32_as names a class to use.
//   fp32: mul -> fp32_mul; fma/mad -> fp32_mad; every other fp32 op (add, sub, min, max, setp, cvt, ...) ->
//       fp32_add, a single SP pass like FADD. fp64 follows the same split onto fp64_mul/fp64_fma/fp64_add.
//   sfu -> sfu. The GT200 parameter set has no SFU timing, so teg_estimate then rejects the trace by name.
//   global and local loads and stores -> global_load/global_store. GT200 local memory lives in device memory.
//   shared loads and stores -> int_alu with a shared-memory operand (memory = true): a GT200 MOV with a g[]
//       operand, timed by TEG's shared-operand latency (Sec. 3.2.3.3, 74 cycles conflict-free). The conflict
//       degree is computed from the lanes' addresses: per half-warp, the most distinct 4-byte words in one of
//       16 banks (the GT200 geometry of arch_params.hpp). Identical words broadcast.
//   ld.param -> the same shared-operand form, conflict-free. Compute capability 1.x passes __global__
//       parameters in shared memory (CUDA C Programming Guide, "Function Parameters").
//   ld.const -> int_alu. GT200 reads constants as c[] operands; the thesis gives no separate latency.
//   generic accesses -> by the space the lanes' addresses fell in. Mixed spaces in one instruction are
//       rejected.
//   bar.sync -> barrier. bar.arrive and bar.red -> rejected: TEG's barrier (teg.hpp) only models
//       "wait until the whole CTA arrives", with no destination.
//   half-precision and atomics -> rejected. GT200 has no half arithmetic, and the thesis gives no atomic timing.
//   nop -> no record.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/func/device.hpp>
#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/func/launch_config.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/func/step_result.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/names.hpp>
#include <gpuarch/ir/types.hpp>
#include <gpuarch/model/arch_params.hpp>
#include <gpuarch/model/teg.hpp>
#include <gpuarch/model/trace_record.hpp>

namespace gpuarch::model {

struct TegAdapterOptions {
    // Class for 32-bit integer multiply, multiply-add, div and rem. GT200 emulates them with 16-bit multiplies,
    // in sequences the thesis does not give. Empty: such an instruction is rejected with a message.
    std::optional<InstrClass> int_mul32_as;
    // Shared-memory bank geometry for the conflict degree. Lai 2013 Sec. 3.2.3.3 (arch_params.hpp,
    // gt200_gtx280): 16 banks of 4 bytes, conflicts per half-warp.
    unsigned shared_banks = *gt200_gtx280().topology.shared_banks;
    unsigned shared_bank_bytes = *gt200_gtx280().topology.shared_bank_bytes;
    unsigned shared_conflict_threads = *gt200_gtx280().topology.shared_conflict_threads;
};

// The dynamic trace of one launch, with what a reader needs to map records back to the kernel.
struct TegTrace {
    std::vector<TraceRecord> records;
    std::vector<ir::Pc> pcs; // per record: the instruction's PC (Lai's "PC trace" output)
    std::uint32_t warps_per_cta = 0;
    std::uint64_t ctas = 0;
    std::uint64_t skipped = 0; // executed instructions without a record (nop)
};

namespace detail {

[[noreturn]] inline void teg_adapter_reject(const ir::Kernel& kernel, ir::Pc pc, std::string_view why) {
    std::string msg = "teg_adapter: kernel '" + kernel.name + "'";
    if (pc < kernel.code.size()) msg += ", PTX line " + std::to_string(kernel.code[pc].line);
    msg += ": ";
    msg.append(why);
    throw std::invalid_argument(msg);
}

inline bool is_16bit_integer(ir::ScalarType t) { return t == ir::ScalarType::u16 || t == ir::ScalarType::s16; }

// The space the executed lanes of a generic access fell in (global for local, as GT200 keeps both in DRAM).
inline ir::StateSpace resolved_space(const ir::Kernel& kernel, ir::Pc pc, const func::StepResult& r) {
    if (r.space != ir::StateSpace::generic) return r.space;
    std::optional<ir::StateSpace> seen;
    for (unsigned lane = 0; lane < r.width(); ++lane) {
        if (!r.executed.test(lane)) continue;
        ir::StateSpace s = r.lane_spaces[lane];
        if (s == ir::StateSpace::local) s = ir::StateSpace::global;
        if (seen && *seen != s)
            teg_adapter_reject(kernel, pc, "a generic access whose lanes fall in different state spaces");
        seen = s;
    }
    return seen.value_or(ir::StateSpace::global);
}

} // namespace detail

// Shared-memory conflict degree of one access: per group of `conflict_threads` lanes, the most distinct
// `bank_bytes` words that fall in one of `banks` banks (1 = conflict-free; identical words broadcast).
inline unsigned shared_conflict_ways(const func::StepResult& r, unsigned banks, unsigned bank_bytes,
                                     unsigned conflict_threads) {
    if (banks == 0 || bank_bytes == 0 || conflict_threads == 0)
        throw std::invalid_argument("shared_conflict_ways: banks, bank_bytes and conflict_threads must be positive");
    unsigned worst = 1;
    std::vector<std::uint64_t> words;
    std::vector<unsigned> per_bank(banks);
    for (unsigned first = 0; first < r.width(); first += conflict_threads) {
        words.clear();
        for (unsigned lane = first; lane < std::min(r.width(), first + conflict_threads); ++lane) {
            if (!r.executed.test(lane)) continue;
            const std::uint64_t bytes = std::max<std::uint64_t>(r.access_bytes, 1);
            for (std::uint64_t w = r.addresses[lane] / bank_bytes; w <= (r.addresses[lane] + bytes - 1) / bank_bytes;
                 ++w)
                words.push_back(w);
        }
        std::sort(words.begin(), words.end());
        words.erase(std::unique(words.begin(), words.end()), words.end());
        std::fill(per_bank.begin(), per_bank.end(), 0U);
        for (std::uint64_t w : words) worst = std::max(worst, ++per_bank[static_cast<std::size_t>(w % banks)]);
    }
    return worst;
}

// The TEG class of one executed instruction, or nullopt for an instruction that gets no record (nop).
// Throws std::invalid_argument, naming the PTX line, for an instruction TEG cannot time (see above).
inline std::optional<InstrClass> teg_instruction_class(const ir::Kernel& kernel, ir::Pc pc, const func::StepResult& r,
                                                       const TegAdapterOptions& options = {}) {
    const ir::Instruction& inst = kernel.code[pc];
    using ir::OpClass;
    using ir::Opcode;
    auto by_arith = [&](InstrClass add, InstrClass mul, InstrClass fma) {
        if (inst.op == Opcode::mul) return mul;
        if (inst.op == Opcode::fma || inst.op == Opcode::mad) return fma;
        return add;
    };
    switch (inst.op_class) {
    case OpClass::int_alu:
    case OpClass::branch:
    case OpClass::control:
    case OpClass::warp_level: return InstrClass::int_alu;
    case OpClass::int_mul:
        if (inst.op == Opcode::mul24 || (inst.op == Opcode::mul && detail::is_16bit_integer(inst.type)))
            return InstrClass::int_mul16;
        if (inst.op == Opcode::mad24 || (inst.op == Opcode::mad && detail::is_16bit_integer(inst.type)))
            return InstrClass::int_mad16;
        if (options.int_mul32_as) return *options.int_mul32_as;
        detail::teg_adapter_reject(
            kernel, pc,
            "32-bit integer multiply/divide has no GT200 timing in Lai 2013 (it is emulated by a "
            "16-bit multiply sequence the thesis does not give); use mul24/16-bit operands or "
            "set TegAdapterOptions::int_mul32_as");
    case OpClass::fp32: return by_arith(InstrClass::fp32_add, InstrClass::fp32_mul, InstrClass::fp32_mad);
    case OpClass::fp64: return by_arith(InstrClass::fp64_add, InstrClass::fp64_mul, InstrClass::fp64_fma);
    case OpClass::sfu: return InstrClass::sfu;
    case OpClass::half:
        detail::teg_adapter_reject(kernel, pc, "half-precision arithmetic does not exist on GT200, which TEG models");
    case OpClass::load_const: return InstrClass::int_alu;
    case OpClass::load_param:
    case OpClass::load_shared:
    case OpClass::store_shared:
    case OpClass::store_param: return InstrClass::int_alu; // with a shared-memory operand, see teg_record
    case OpClass::load_global:
    case OpClass::load_local: return InstrClass::global_load;
    case OpClass::store_global:
    case OpClass::store_local: return InstrClass::global_store;
    case OpClass::load_generic:
    case OpClass::store_generic: {
        const ir::StateSpace s = detail::resolved_space(kernel, pc, r);
        if (s == ir::StateSpace::global) return r.is_store ? InstrClass::global_store : InstrClass::global_load;
        return InstrClass::int_alu; // shared (or another on-chip space): a shared-operand MOV
    }
    case OpClass::atomic_global:
    case OpClass::atomic_shared:
    case OpClass::atomic_generic: detail::teg_adapter_reject(kernel, pc, "atomics have no timing in Lai 2013's TEG");
    case OpClass::barrier:
        if (inst.barrier != ir::BarrierMode::sync)
            detail::teg_adapter_reject(kernel, pc,
                                       "TEG models only bar.sync (wait for the whole CTA); bar.arrive and bar.red have "
                                       "no TEG form");
        return InstrClass::barrier;
    case OpClass::system:
        detail::teg_adapter_reject(kernel, pc,
                                   "device-runtime calls (printf, assert) and trap have no timing in Lai 2013's TEG");
    case OpClass::prefetch:
        detail::teg_adapter_reject(kernel, pc,
                                   "prefetch has no timing in Lai 2013's TEG (GT200 has no prefetch instruction)");
    case OpClass::texture:
        detail::teg_adapter_reject(kernel, pc, "texture and surface instructions have no timing in Lai 2013's TEG");
    case OpClass::async_copy: // cp.async
        detail::teg_adapter_reject(kernel, pc,
                                   "cp.async has no timing in Lai 2013's TEG (GT200 has no asynchronous copies)");
    case OpClass::nop: return std::nullopt;
    }
    detail::teg_adapter_reject(kernel, pc, "instruction class unknown to the TEG adapter");
}

// The record of one executed instruction of warp `warp` (linear) in CTA `cta`; nullopt for nop.
inline std::optional<TraceRecord> teg_record(const ir::Kernel& kernel, const func::StepResult& r, std::uint32_t warp,
                                             std::uint32_t cta, const TegAdapterOptions& options = {}) {
    const ir::Pc pc = r.pc;
    const auto cls = teg_instruction_class(kernel, pc, r, options);
    if (!cls) return std::nullopt;
    const ir::Instruction& inst = kernel.code[pc];
    TraceRecord rec;
    rec.warp = warp;
    rec.cta = cta;
    rec.cls = *cls;
    auto id = [&](ir::RegId reg) {
        if (reg > 0xFFFFu) detail::teg_adapter_reject(kernel, pc, "a register id does not fit a TraceRecord (16 bits)");
        return static_cast<RegisterId>(reg);
    };
    if (*cls != InstrClass::barrier) {
        if (inst.num_defs > max_trace_destinations)
            detail::teg_adapter_reject(kernel, pc, "more destination registers than a TraceRecord holds");
        for (unsigned k = 0; k < inst.num_defs; ++k) rec.dst.push_back(id(inst.defs[k]));
    }
    if (inst.num_uses > max_trace_sources)
        detail::teg_adapter_reject(kernel, pc, "more source registers than a TraceRecord holds");
    for (unsigned k = 0; k < inst.num_uses; ++k) rec.src.push_back(id(inst.uses[k]));

    if (is_global_access(*cls)) {
        rec.memory = true;
    } else if (r.is_memory) {
        const ir::StateSpace s = detail::resolved_space(kernel, pc, r);
        if (s == ir::StateSpace::shared) {
            rec.memory = true;
            rec.shared_conflict_ways = static_cast<std::uint8_t>(
                std::min<unsigned>(255, shared_conflict_ways(r, options.shared_banks, options.shared_bank_bytes,
                                                             options.shared_conflict_threads)));
        } else if (s == ir::StateSpace::param) {
            rec.memory = true; // cc 1.x: parameters in shared memory, every lane reads the same word
            rec.shared_conflict_ways = 1;
        }
    }
    return rec;
}

// Executes the launch and returns its TEG trace.
inline TegTrace teg_trace(func::KernelExecution& execution, const TegAdapterOptions& options = {}) {
    const ir::Kernel& kernel = execution.kernel();
    TegTrace trace;
    trace.warps_per_cta = execution.warps_per_cta();
    trace.ctas = execution.cta_count();
    func::StepResult step(execution.warp_width());
    for (std::uint64_t c = 0; c < trace.ctas; ++c) {
        func::CtaState cta = execution.start_cta(c);
        const auto cta_id = static_cast<std::uint32_t>(c);
        while (!cta.finished()) {
            bool progress = false;
            for (unsigned w = 0; w < cta.warp_count(); ++w) {
                while (cta.warp_ready(w)) {
                    execution.step(cta, w, step);
                    progress = true;
                    const auto warp = static_cast<std::uint32_t>(c * trace.warps_per_cta + w);
                    if (auto rec = teg_record(kernel, step, warp, cta_id, options)) {
                        trace.records.push_back(*rec);
                        trace.pcs.push_back(step.pc);
                    } else {
                        ++trace.skipped;
                    }
                }
            }
            if (!progress) execution.check_progress(cta); // throws the barrier-deadlock report
        }
    }
    return trace;
}

struct TegKernelEstimate {
    TegTrace trace;
    TegResult result;
};

// Builds the launch, traces it and runs TEG with `params` (e.g. teg_gt200()).
inline TegKernelEstimate teg_estimate_kernel(func::Device& device, const func::Module& module, std::string_view entry,
                                             const func::LaunchConfig& config, const func::Args& args,
                                             const TegParams& params, const TegAdapterOptions& options = {}) {
    func::KernelExecution execution(device, module, entry, config, args);
    TegKernelEstimate out;
    out.trace = teg_trace(execution, options);
    out.result = teg_estimate(std::span<const TraceRecord>(out.trace.records), params);
    return out;
}

} // namespace gpuarch::model
