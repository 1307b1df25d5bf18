#pragma once
// A decoded PTX instruction. The parser fills the syntactic part; ir analysis fills `op_class`,
// `defs`/`uses` and `reconvergence_pc`.
// Contract: registers are numbered per kernel, densely, in declaration order (`.reg .b32 %r<4>` gives
// %r0..%r3 consecutive ids), so the numbering is stable across runs and a banked register file can map a
// register id to a bank. Predicate registers share the same id space.
#include <array>
#include <cstdint>
#include <limits>

#include <gpuarch/ir/types.hpp>

namespace gpuarch::ir {

using RegId = std::uint32_t;
inline constexpr RegId no_reg = std::numeric_limits<RegId>::max();
using Pc = std::uint32_t; // index into Kernel::code
inline constexpr Pc no_pc = std::numeric_limits<Pc>::max();
using SymbolId = std::uint32_t; // index into Kernel::symbols (kernel scope) or Module::globals, see SymbolRef
inline constexpr SymbolId no_symbol = std::numeric_limits<SymbolId>::max();

enum class OperandKind : std::uint8_t {
    none,
    reg, // a register; `reg2` holds the second destination of `d|p` forms (setp, shfl)
    imm, // an immediate; `imm_bits` is its bit pattern, `imm_type` says how to read it
    special, // a special register (%tid.x, ...)
    address, // [base + offset] or [symbol + offset]; base may be no_reg, symbol may be no_symbol
    vector, // {a, b, c, d}: up to 4 registers; an element may be no_reg for the sink `_`
    symbol, // a symbol used as a value (mov.u64 %rd, shared_array; cvta of a variable): its address
    label, // a branch target; `target` is the Pc after label resolution
    sink, // `_` as a whole destination
};

enum class ImmType : std::uint8_t { integer, f32, f64 };

// Where a symbol lives: kernel-local (declared inside the body, including parameters) or module-global.
enum class SymbolScope : std::uint8_t { kernel_param, kernel_local, module };

struct Operand {
    OperandKind kind = OperandKind::none;
    ImmType imm_type = ImmType::integer;
    SymbolScope symbol_scope = SymbolScope::module;
    bool negated = false; // `!%p` as a source predicate (setp/selp combine operands)
    std::uint8_t vector_count = 0; // for vector operands
    SpecialReg special = SpecialReg::tid_x;
    RegId reg = no_reg; // reg: the register; address: the base register (or no_reg)
    RegId reg2 = no_reg; // second destination in `d|p`
    SymbolId symbol = no_symbol; // address/symbol operands
    std::int64_t offset = 0; // address offset in bytes
    std::uint64_t imm_bits = 0; // immediate: integers sign-extended to 64 bits; f32 as float bits; f64 as double bits
    Pc target = no_pc; // label
    std::array<RegId, 4> vector{no_reg, no_reg, no_reg, no_reg};
    // Appended after the first contract: constant elements of a mov packing source (`mov.b32 %f1, {0, %rs1}`,
    // as cuda_bf16.hpp emits). Bit e set: element e is a constant, vector[e] is no_reg, and the constant's bits
    // sit in imm_bits at that element's bit position (e * element width); imm_bits is 0 at register elements.
    std::uint8_t vector_imm_mask = 0;
};

struct Guard {
    RegId reg = no_reg; // no_reg: unguarded
    bool negated = false;
};

struct Instruction {
    Opcode op = Opcode::mov;
    ScalarType type = ScalarType::none; // the instruction type (.s32, .f32, ...); for cvt the destination type
    ScalarType src_type = ScalarType::none; // cvt source type; set/slct comparison type
    StateSpace space = StateSpace::none; // ld/st/atom/red/cvta/prefetch state space (generic when omitted)
    CompareOp cmp = CompareOp::none;
    BoolOp bool_op = BoolOp::none; // setp/set .and/.or/.xor combining predicate
    Rounding rounding = Rounding::none;
    MulMode mul_mode = MulMode::none;
    AtomOp atom_op = AtomOp::none;
    ShflMode shfl_mode = ShflMode::none;
    VoteMode vote_mode = VoteMode::none;
    MemOrder order = MemOrder::none;
    Scope scope = Scope::none;
    BarrierMode barrier = BarrierMode::none;
    TestKind test = TestKind::none;
    PrmtMode prmt = PrmtMode::none;
    std::uint8_t vector_width = 1; // .v2 / .v4 on ld/st
    // Modifier flags.
    bool ftz = false, sat = false, approx = false, full = false, uni = false;
    bool carry_out = false; // .cc: writes the carry flag
    bool to_space = false; // cvta.to.<space> (generic -> space) vs cvta.<space> (space -> generic)
    bool non_coherent = false; // ld.global.nc
    bool shiftamt = false; // bfind.shiftamt
    bool clamp = false; // shf/shl .clamp (reserved), also shfl sync forms
    bool aligned = true; // barrier.sync vs barrier.sync.aligned / bar.sync (aligned)
    // Appended after the first contract.
    bool funnel_right = false; // shf.r (shf.l when false); .clamp vs .wrap is `clamp`
    bool propagate_nan = false; // min/max .NaN: a NaN input gives canonical NaN instead of the other operand
    // Appended. dp4a/dp2a/vabsdiff4 name the types of a and b: `type` is the result (vabsdiff4's .dtype;
    // dp4a/dp2a: .u32 when both sources are .u32, else .s32, as PTX types c and d), `src_type` is .atype and
    // `b_type` .btype. dp2a's .lo/.hi is `mul_mode`; redux.sync's operation is `atom_op`.
    ScalarType b_type = ScalarType::none;
    bool accumulate = false; // vabsdiff4.add: d = c + the sum of the byte differences
    CacheLevel cache_level = CacheLevel::none; // prefetch/prefetchu: .L1, .L2 or an L2 eviction priority
    // Appended (textures). tex: `type` is .dtype (f32/s32/u32), `src_type` the coordinate type .ctype
    // (f32/s32), vector_width 4. suld/sust: `type` is the element (.b8...b64), vector_width 1, 2 or 4.
    TexGeometry geometry = TexGeometry::none;
    bool tex_level = false; // tex.level: the last operand is the level of detail
    SurfaceClamp surface_clamp = SurfaceClamp::none; // suld/sust .trap/.clamp/.zero

    Guard guard;
    std::uint8_t num_operands = 0;
    std::array<Operand, 6> operands{}; // operands[0] is the destination for instructions that have one

    // Source position in the PTX text (1-based), kept through inlining so errors can name the PTX line.
    std::uint32_t line = 0;
    std::uint32_t column = 0;

    // Filled by ir analysis.
    OpClass op_class = OpClass::int_alu;
    Pc reconvergence_pc = no_pc; // for branches: the immediate post-dominator (no_pc: reconverge at exit)
    std::uint8_t num_defs = 0, num_uses = 0;
    std::array<RegId, 8> defs{}; // registers written (vector elements expanded)
    std::array<RegId, 12> uses{}; // registers read, including the guard predicate and address bases
};

} // namespace gpuarch::ir
