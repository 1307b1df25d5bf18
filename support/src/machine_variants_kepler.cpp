// The Kepler machine's precompiled scheduler variants (one translation unit per machine keeps compile memory low).
#include <gpuarch/support/run_machine.hpp>

#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

namespace gpuarch::examples {

using KeplerSchedulers = boost::mp11::mp_list<sched::LRR, sched::GTO, sched::TwoLevel<8>>;

RunRow run_kepler(std::string_view scheduler, std::string_view kernel, kernels::Size size, const RunKnobs& knobs) {
    return run_machine<machines::Kepler, KeplerSchedulers>("kepler", scheduler, kernel, size, knobs);
}
std::vector<std::string> scheduler_names_kepler() { return names_of<KeplerSchedulers>(); }

} // namespace gpuarch::examples
