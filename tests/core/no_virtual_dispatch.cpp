// Zero virtual dispatch on the simulation path: no policy of an instantiated SM, nor the SM or GPU itself, is
// polymorphic. (CTest's no_vtables_in_examples inspects a built binary for the same property.)
#include <doctest/doctest.h>

#include <gpuarch/machines.hpp>
#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/regfile/banked_rf.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

#include <boost/mp11/algorithm.hpp>

#include <type_traits>

namespace {
using namespace gpuarch;

template <class SMType> constexpr bool no_polymorphic_component() {
    bool ok = !std::is_polymorphic_v<SMType>;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, typename SMType::component_types>>(
        [&](auto t) { ok = ok && !std::is_polymorphic_v<typename decltype(t)::type>; });
    return ok;
}

using Variants = boost::mp11::mp_list<
    machines::Fermi::sm<sched::GTO>, machines::Kepler::sm<sched::LRR, regfile::BankedRF<4, 4>>,
    machines::SouthernIslands::sm<sched::TwoLevel<8>>,
    SM<frontend::KeplerFrontend, sched::GTO, regfile::IdealRF, exec::SimdExec, mem::IdealMemory<10>>>;
} // namespace

TEST_CASE("no type of an instantiated SM variant is polymorphic") {
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, Variants>>([](auto t) {
        using SMType = typename decltype(t)::type;
        CHECK(no_polymorphic_component<SMType>());
        CHECK_FALSE(std::is_polymorphic_v<GPU<SMType, 2>>);
        CHECK_FALSE(std::is_polymorphic_v<mem::MemorySystem>);
    });
}

TEST_CASE("policy names label the variant") {
    CHECK(machines::Kepler::sm<sched::GTO>::variant_name().starts_with("Kepler/GTO/IdealRF/SimdExec/L1"));
}
