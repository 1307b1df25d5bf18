#pragma once
// The definitions that units built with GPUARCH_SEPARATE_COMPILATION only declare
// (gpuarch/core/separate_compilation.hpp, docs/consuming.md "Separate compilation"). Include this header in exactly
// one unit of the program, before any other gpuarch header, with GPUARCH_SEPARATE_COMPILATION defined there too.
// Without the macro the header has nothing to add: every unit compiles the definitions itself.
#ifdef GPUARCH_SEPARATE_COMPILATION
#ifdef GPUARCH_SEPARATE_DEFINITIONS
#error "include <gpuarch/separate_compilation.hpp> before any other gpuarch header of its unit"
#endif
#define GPUARCH_SEPARATE_COMPILATION_SOURCE
#endif

#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/ptx/parser.hpp>

#ifdef GPUARCH_SEPARATE_COMPILATION
namespace gpuarch::func {
template void KernelExecution::step_impl<true>(CtaState&, WarpState&, StepResult*, StepCounts&);
template void KernelExecution::step_impl<false>(CtaState&, WarpState&, StepResult*, StepCounts&);
} // namespace gpuarch::func
#endif
