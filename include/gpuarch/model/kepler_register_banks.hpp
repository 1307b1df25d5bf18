#pragma once
// The Kepler GK104 register-bank rule of Lai 2013, under the analytical model's names. The rule itself lives in
// ir/kepler_register_banks.hpp, where the banked register file (regfile/kepler_banked_rf.hpp) uses it too.
#include <gpuarch/ir/kepler_register_banks.hpp>

namespace gpuarch::model {

using ir::kepler_bank_conflict_degree;
using ir::kepler_bank_name;
using ir::kepler_bank_occupancy;
using ir::kepler_bank_throughput_factor;
using ir::kepler_register_bank;
using ir::kepler_register_bank_count;
using ir::KeplerRegBank;

} // namespace gpuarch::model
