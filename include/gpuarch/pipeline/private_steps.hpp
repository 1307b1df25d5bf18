#pragma once
// pipeline::PrivateSteps: which of a kernel's instructions the GPU's parallel tick may step off the serial path
// (FetchStage::run_private; docs/performance.md, "Parallel ticking").
//
// A step is private when it reads and writes nothing but its own CTA's state (registers, SIMT stack, barriers,
// shared and local memory, the CTA's scratch rows) and launch constants (parameters, constant memory, the decoded
// code). That is every instruction except: ld/st/atom/red/prefetch in the global or generic space (the Device and
// its translation caches); tex, suld and sust (the Device's texture table and memory); vprintf and __assertfail
// (strings in device memory, the Device's console); device malloc and free (the heap); cp.async (global memory);
// and a PC past the end of the kernel (a fault). A private step commutes with every step of every other CTA, so
// the SMs of a GPU may take theirs on different host threads at once, counting them into their own
// func::StepCounts (func::KernelExecution::step's counting overload) until the serial part folds them in.
#include <cstdint>
#include <vector>

#include <gpuarch/func/warp_state.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/module.hpp>

namespace gpuarch::pipeline {

class PrivateSteps {
public:
    // Classifies every instruction of the kernel a launch runs; called once per launch.
    void bind(const ir::Kernel& kernel) {
        private_.resize(kernel.code.size());
        for (std::size_t pc = 0; pc < kernel.code.size(); ++pc)
            private_[pc] = touches_only_cta(kernel.code[pc]) ? 1 : 0;
    }
    // Whether warp `warp` of `cta` may take its next step privately. Precondition: the warp can step (not finished,
    // not waiting at a barrier).
    bool next_is_private(const func::CtaState& cta, unsigned warp) const {
        const ir::Pc pc = cta.next_pc(warp);
        return pc < private_.size() && private_[pc] != 0;
    }

    static bool touches_only_cta(const ir::Instruction& inst) {
        switch (inst.op) {
        case ir::Opcode::ld:
        case ir::Opcode::st:
        case ir::Opcode::atom:
        case ir::Opcode::red:
        case ir::Opcode::prefetch: // a global or generic prefetch asks the Device's translation
        case ir::Opcode::prefetchu:
            // An omitted space is generic, which is not private.
            return inst.space == ir::StateSpace::shared || inst.space == ir::StateSpace::local ||
                   inst.space == ir::StateSpace::param || inst.space == ir::StateSpace::constant;
        case ir::Opcode::tex:
        case ir::Opcode::suld:
        case ir::Opcode::sust:
        case ir::Opcode::vprintf:
        case ir::Opcode::assertfail:
        case ir::Opcode::device_malloc:
        case ir::Opcode::device_free:
        case ir::Opcode::cp_async: return false;
        default: return true;
        }
    }

private:
    std::vector<std::uint8_t> private_; // per PC: touches_only_cta
};

} // namespace gpuarch::pipeline
