#pragma once
// Analytical performance models (gpuarch::model). They stand apart from the simulator: no
// header here includes another gpuarch folder. See docs/models.md.

#include "gpuarch/model/arch_params.hpp"
#include "gpuarch/model/kepler_register_banks.hpp"
#include "gpuarch/model/lattice_qcd_dataflow.hpp"
#include "gpuarch/model/memory_concurrency.hpp"
#include "gpuarch/model/mwp_cwp.hpp"
#include "gpuarch/model/roofline.hpp"
#include "gpuarch/model/ryoo_metrics.hpp"
#include "gpuarch/model/sgemm_bound.hpp"
#include "gpuarch/model/teg.hpp"
#include "gpuarch/model/trace_record.hpp"
#include "gpuarch/model/zhang_owens.hpp"
