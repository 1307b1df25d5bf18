// expect: a memory-aware scheduler reads each warp's next instruction, so its view must preview instructions
// OAWS decides from each warp's next instruction (timing::PreviewsInstructions). On a view that does not show it, it
// stops compilation with a sentence instead of quietly selecting as GTO.
#include <cstdint>

#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/sched/oaws.hpp>
#include <gpuarch/timing/concepts.hpp>

using namespace gpuarch;
struct PlainView {
    unsigned pool_size() const { return 1; }
    bool occupied(unsigned) const { return true; }
    bool ready(unsigned) const { return true; }
    std::uint64_t age(unsigned) const { return 0; }
    bool long_latency_pending(unsigned) const { return false; }
    timing::L1View l1() const { return {}; }
    core::Cycle now() const { return 0; }
};
struct PreviewView : PlainView {
    const ir::Instruction* next_instruction(unsigned) const { return nullptr; }
    unsigned next_active_lanes(unsigned) const { return 0; }
    ir::Pc next_pc(unsigned) const { return ir::no_pc; }
};
#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
using View = PlainView;
#else
using View = PreviewView;
#endif

int main() {
    sched::OAWSDynamic<> s(timing::SchedulerConfig{1, 0});
    return s.select(View{}) == 0 ? 0 : 1;
}
