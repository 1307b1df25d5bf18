// The SouthernIslands machine's precompiled scheduler variants (one translation unit per machine keeps compile memory low).
#include <gpuarch/support/run_machine.hpp>

#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

namespace gpuarch::examples {

using SouthernIslandsSchedulers = boost::mp11::mp_list<sched::LRR, sched::GTO, sched::TwoLevel<8>>;

RunRow run_southern_islands(std::string_view scheduler, std::string_view kernel, kernels::Size size,
                            const RunKnobs& knobs) {
    return run_machine<machines::SouthernIslands, SouthernIslandsSchedulers>("southern_islands", scheduler, kernel,
                                                                             size, knobs);
}
std::vector<std::string> scheduler_names_southern_islands() { return names_of<SouthernIslandsSchedulers>(); }

} // namespace gpuarch::examples
