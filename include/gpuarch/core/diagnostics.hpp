#pragma once
// Helpers for compile errors that read as sentences.
//
// Contract: every composition boundary (SM<...>, GPU<...>, a policy's knobs) checks its arguments with a
// `static_assert` whose message is one sentence naming the slot or knob and what is wrong with it, e.g.
// "the Scheduler policy must provide `select(context)` returning a warp slot". Concepts decide; these messages
// explain. tests/failtest/ pins the sentences.
#include <string_view>
#include <type_traits>

namespace gpuarch::core {

// For the primary template of a role that has no matching specialization (CUTLASS's idiom): the assertion
// depends on T, so it fires only when that template is instantiated.
template <class...> inline constexpr bool dependent_false = false;

template <auto...> inline constexpr bool dependent_false_v = false;

// A policy's short label, taken from its `static constexpr std::string_view name` (or "unnamed").
template <class Policy> constexpr std::string_view policy_name() {
    if constexpr (requires { Policy::name; }) return std::string_view(Policy::name);
    else return "unnamed";
}

} // namespace gpuarch::core
