#pragma once
// func::Dim3 is core::Dim3 (core/dim3.hpp): the functional engine's name for CUDA's dim3.
#include <gpuarch/core/dim3.hpp>

namespace gpuarch::func {

using core::Dim3;
using core::to_string;
using core::unflatten;

} // namespace gpuarch::func
