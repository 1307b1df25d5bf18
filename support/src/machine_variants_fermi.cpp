// The Fermi machine's precompiled scheduler variants (one translation unit per machine keeps compile memory low).
#include <gpuarch/support/run_machine.hpp>

#include <policies/memory_first.hpp>

#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

namespace gpuarch::examples {

// MemoryFirst is the worked example of docs/new_policy.md, added to the comparison demo by this list.
using FermiSchedulers = boost::mp11::mp_list<sched::LRR, sched::GTO, sched::TwoLevel<8>, policies::MemoryFirst>;

RunRow run_fermi(std::string_view scheduler, std::string_view kernel, kernels::Size size, const RunKnobs& knobs) {
    return run_machine<machines::Fermi, FermiSchedulers>("fermi", scheduler, kernel, size, knobs);
}
std::vector<std::string> scheduler_names_fermi() { return names_of<FermiSchedulers>(); }

} // namespace gpuarch::examples
