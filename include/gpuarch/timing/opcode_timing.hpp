#pragma once
// Per-opcode latency and initiation interval, as GPGPU-Sim's -ptx_opcode_latency_{int,fp,dp,sfu} and
// -ptx_opcode_initiation_* tables give them. A frontend that declares `static constexpr OpcodeTimingTable
// opcode_timing` has each arithmetic instruction timed from the table instead of from its unit's UnitSpec
// (exec/simd_exec.hpp); the table does not choose the unit, the frontend's unit_for still does.
//
// Classification (GPGPU-Sim's ptx_instruction::set_opcode_and_latency, public gpgpu-sim_distribution source):
//   add sub addc subc           column ADD of the instruction type's table (f32: fp, f64: dp, others: int)
//   min max                     column MAX
//   mul                         column MUL;  mul24: int MUL + 1 (latency and interval)
//   mad madc fma                column MAD;  mad24: int MAD + 1
//   div rem                     column DIV
//   shfl                        int column SHFL
//   rcp sqrt rsqrt sin cos lg2 ex2 tanh                 the SFU entry
//   anything else (mov, setp, logic, shifts, cvt, branches, ...)  latency 1, interval 1
// Memory instructions never reach the table: the L1 slot times them.
#include <array>

#include <gpuarch/ir/instruction.hpp>

namespace gpuarch::timing {

struct OpTiming {
    unsigned latency = 1;
    unsigned initiation_interval = 1;
    friend constexpr bool operator==(const OpTiming&, const OpTiming&) = default;
};

struct OpcodeTimingTable {
    enum Column : unsigned { add = 0, max = 1, mul = 2, mad = 3, div = 4, shfl = 5 };
    std::array<OpTiming, 6> integer{}; // ADD, MAX, MUL, MAD, DIV, SHFL
    std::array<OpTiming, 5> fp32{}; // ADD, MAX, MUL, MAD, DIV
    std::array<OpTiming, 5> fp64{}; // ADD, MAX, MUL, MAD, DIV
    OpTiming sfu{};
    OpTiming other{1, 1};
};

constexpr OpTiming lookup(const OpcodeTimingTable& table, const ir::Instruction& inst) {
    using ir::Opcode;
    using ir::ScalarType;
    const auto column = [&](unsigned c) -> OpTiming {
        if (inst.type == ScalarType::f32) return table.fp32[c];
        if (inst.type == ScalarType::f64) return table.fp64[c];
        return table.integer[c];
    };
    const auto plus_one = [](OpTiming t) { return OpTiming{t.latency + 1, t.initiation_interval + 1}; };
    switch (inst.op) {
    case Opcode::add:
    case Opcode::sub:
    case Opcode::addc:
    case Opcode::subc: return column(OpcodeTimingTable::add);
    case Opcode::min:
    case Opcode::max: return column(OpcodeTimingTable::max);
    case Opcode::mul: return column(OpcodeTimingTable::mul);
    case Opcode::mad:
    case Opcode::madc:
    case Opcode::fma: return column(OpcodeTimingTable::mad);
    case Opcode::mul24: return plus_one(table.integer[OpcodeTimingTable::mul]);
    case Opcode::mad24: return plus_one(table.integer[OpcodeTimingTable::mad]);
    case Opcode::div:
    case Opcode::rem: return column(OpcodeTimingTable::div);
    case Opcode::shfl: return table.integer[OpcodeTimingTable::shfl];
    case Opcode::rcp:
    case Opcode::sqrt:
    case Opcode::rsqrt:
    case Opcode::sin:
    case Opcode::cos:
    case Opcode::lg2:
    case Opcode::ex2:
    case Opcode::tanh: return table.sfu;
    default: return table.other;
    }
}

} // namespace gpuarch::timing
