#pragma once
// The registry's table: one factory per prebuilt variant. Each support/src/variants_*.cpp adds its own.
#include <gpuarch/support/simulator.hpp>

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace gpuarch::support::detail {

// A string usable as a template argument (the run-time name of a policy).
template <std::size_t N> struct FixedName {
    char chars[N]{};
    constexpr FixedName(const char (&s)[N]) { std::copy_n(s, N, chars); }
    constexpr std::string_view view() const { return {chars, N - 1}; }
};

struct VariantFactory {
    std::string_view machine, scheduler, register_file;
    MachineInfo (*machine_info)(const Settings&) = nullptr;
    Simulator (*make)(const Settings&) = nullptr;
};

// Every factory, from the generated translation units (support/CMakeLists.txt configures variants.cpp.in once per
// machine and scheduler group, and variant_units.hpp.in into the list of their entry points).
const std::vector<VariantFactory>& variant_factories();

} // namespace gpuarch::support::detail
