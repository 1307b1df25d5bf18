#pragma once
// Printable names of the IR vocabulary. Contract: where an enumerator has a PTX spelling, name() returns exactly
// that spelling without the leading dot ("and" for Opcode::and_, "volatile" for MemOrder::volatile_, "%tid.x" for
// SpecialReg::tid_x), so the printer and the parser's modifier tables agree; `none` enumerators give "".
#include <string_view>

#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/types.hpp>

namespace gpuarch::ir {

constexpr std::string_view name(ScalarType t) {
    switch (t) {
    case ScalarType::none: return "";
    case ScalarType::pred: return "pred";
    case ScalarType::b8: return "b8";
    case ScalarType::b16: return "b16";
    case ScalarType::b32: return "b32";
    case ScalarType::b64: return "b64";
    case ScalarType::b128: return "b128";
    case ScalarType::u8: return "u8";
    case ScalarType::u16: return "u16";
    case ScalarType::u32: return "u32";
    case ScalarType::u64: return "u64";
    case ScalarType::s8: return "s8";
    case ScalarType::s16: return "s16";
    case ScalarType::s32: return "s32";
    case ScalarType::s64: return "s64";
    case ScalarType::f16: return "f16";
    case ScalarType::f16x2: return "f16x2";
    case ScalarType::bf16: return "bf16";
    case ScalarType::bf16x2: return "bf16x2";
    case ScalarType::f32: return "f32";
    case ScalarType::f64: return "f64";
    }
    return "?";
}

constexpr std::string_view name(StateSpace s) {
    switch (s) {
    case StateSpace::none: return "";
    case StateSpace::reg: return "reg";
    case StateSpace::sreg: return "sreg";
    case StateSpace::global: return "global";
    case StateSpace::shared: return "shared";
    case StateSpace::local: return "local";
    case StateSpace::constant: return "const";
    case StateSpace::param: return "param";
    case StateSpace::generic: return "generic";
    case StateSpace::tex: return "tex";
    }
    return "?";
}

constexpr std::string_view name(Opcode op) {
    switch (op) {
    case Opcode::add: return "add";
    case Opcode::sub: return "sub";
    case Opcode::mul: return "mul";
    case Opcode::mad: return "mad";
    case Opcode::mul24: return "mul24";
    case Opcode::mad24: return "mad24";
    case Opcode::div: return "div";
    case Opcode::rem: return "rem";
    case Opcode::abs: return "abs";
    case Opcode::neg: return "neg";
    case Opcode::min: return "min";
    case Opcode::max: return "max";
    case Opcode::fma: return "fma";
    case Opcode::addc: return "addc";
    case Opcode::subc: return "subc";
    case Opcode::madc: return "madc";
    case Opcode::popc: return "popc";
    case Opcode::clz: return "clz";
    case Opcode::brev: return "brev";
    case Opcode::bfe: return "bfe";
    case Opcode::bfi: return "bfi";
    case Opcode::bfind: return "bfind";
    case Opcode::prmt: return "prmt";
    case Opcode::and_: return "and";
    case Opcode::or_: return "or";
    case Opcode::xor_: return "xor";
    case Opcode::not_: return "not";
    case Opcode::cnot: return "cnot";
    case Opcode::shl: return "shl";
    case Opcode::shr: return "shr";
    case Opcode::lop3: return "lop3";
    case Opcode::setp: return "setp";
    case Opcode::selp: return "selp";
    case Opcode::set: return "set";
    case Opcode::slct: return "slct";
    case Opcode::cvt: return "cvt";
    case Opcode::cvta: return "cvta";
    case Opcode::mov: return "mov";
    case Opcode::rcp: return "rcp";
    case Opcode::sqrt: return "sqrt";
    case Opcode::rsqrt: return "rsqrt";
    case Opcode::sin: return "sin";
    case Opcode::cos: return "cos";
    case Opcode::lg2: return "lg2";
    case Opcode::ex2: return "ex2";
    case Opcode::tanh: return "tanh";
    case Opcode::copysign: return "copysign";
    case Opcode::testp: return "testp";
    case Opcode::ld: return "ld";
    case Opcode::st: return "st";
    case Opcode::atom: return "atom";
    case Opcode::red: return "red";
    case Opcode::bar: return "bar";
    case Opcode::bar_warp_sync: return "bar.warp.sync";
    case Opcode::membar: return "membar";
    case Opcode::fence: return "fence";
    case Opcode::shfl: return "shfl";
    case Opcode::vote: return "vote";
    case Opcode::activemask: return "activemask";
    case Opcode::match: return "match";
    case Opcode::bra: return "bra";
    case Opcode::call: return "call";
    case Opcode::ret: return "ret";
    case Opcode::exit: return "exit";
    case Opcode::nanosleep: return "nanosleep";
    case Opcode::shf: return "shf";
    case Opcode::trap: return "trap";
    case Opcode::vprintf: return "vprintf"; // a call target, not a PTX opcode (printer.hpp prints the call)
    case Opcode::assertfail: return "__assertfail"; // likewise
    case Opcode::vabsdiff4: return "vabsdiff4";
    case Opcode::dp4a: return "dp4a";
    case Opcode::dp2a: return "dp2a";
    case Opcode::sad: return "sad";
    case Opcode::redux: return "redux";
    case Opcode::prefetch: return "prefetch";
    case Opcode::prefetchu: return "prefetchu";
    case Opcode::tex: return "tex";
    case Opcode::suld: return "suld";
    case Opcode::sust: return "sust";
    // device heap: call targets, not PTX opcodes (printer.hpp prints the call)
    case Opcode::device_malloc: return "malloc";
    case Opcode::device_free: return "free";
    // cp.async: the whole opcode word (the parser matches head "cp" and these suffixes)
    case Opcode::cp_async: return "cp.async";
    case Opcode::cp_async_commit_group: return "cp.async.commit_group";
    case Opcode::cp_async_wait_group: return "cp.async.wait_group";
    case Opcode::cp_async_wait_all: return "cp.async.wait_all";
    }
    return "?";
}

constexpr std::string_view name(CompareOp c) {
    switch (c) {
    case CompareOp::none: return "";
    case CompareOp::eq: return "eq";
    case CompareOp::ne: return "ne";
    case CompareOp::lt: return "lt";
    case CompareOp::le: return "le";
    case CompareOp::gt: return "gt";
    case CompareOp::ge: return "ge";
    case CompareOp::lo: return "lo";
    case CompareOp::ls: return "ls";
    case CompareOp::hi: return "hi";
    case CompareOp::hs: return "hs";
    case CompareOp::equ: return "equ";
    case CompareOp::neu: return "neu";
    case CompareOp::ltu: return "ltu";
    case CompareOp::leu: return "leu";
    case CompareOp::gtu: return "gtu";
    case CompareOp::geu: return "geu";
    case CompareOp::num: return "num";
    case CompareOp::nan: return "nan";
    }
    return "?";
}

constexpr std::string_view name(BoolOp b) {
    switch (b) {
    case BoolOp::none: return "";
    case BoolOp::and_: return "and";
    case BoolOp::or_: return "or";
    case BoolOp::xor_: return "xor";
    }
    return "?";
}

constexpr std::string_view name(Rounding r) {
    switch (r) {
    case Rounding::none: return "";
    case Rounding::rn: return "rn";
    case Rounding::rz: return "rz";
    case Rounding::rm: return "rm";
    case Rounding::rp: return "rp";
    case Rounding::rna: return "rna";
    case Rounding::rni: return "rni";
    case Rounding::rzi: return "rzi";
    case Rounding::rmi: return "rmi";
    case Rounding::rpi: return "rpi";
    }
    return "?";
}

constexpr std::string_view name(MulMode m) {
    switch (m) {
    case MulMode::none: return "";
    case MulMode::lo: return "lo";
    case MulMode::hi: return "hi";
    case MulMode::wide: return "wide";
    }
    return "?";
}

constexpr std::string_view name(AtomOp a) {
    switch (a) {
    case AtomOp::none: return "";
    case AtomOp::add: return "add";
    case AtomOp::min: return "min";
    case AtomOp::max: return "max";
    case AtomOp::inc: return "inc";
    case AtomOp::dec: return "dec";
    case AtomOp::cas: return "cas";
    case AtomOp::exch: return "exch";
    case AtomOp::and_: return "and";
    case AtomOp::or_: return "or";
    case AtomOp::xor_: return "xor";
    }
    return "?";
}

constexpr std::string_view name(ShflMode m) {
    switch (m) {
    case ShflMode::none: return "";
    case ShflMode::up: return "up";
    case ShflMode::down: return "down";
    case ShflMode::bfly: return "bfly";
    case ShflMode::idx: return "idx";
    }
    return "?";
}

constexpr std::string_view name(VoteMode m) {
    switch (m) {
    case VoteMode::none: return "";
    case VoteMode::all: return "all";
    case VoteMode::any: return "any";
    case VoteMode::uni: return "uni";
    case VoteMode::ballot: return "ballot";
    }
    return "?";
}

constexpr std::string_view name(MemOrder m) {
    switch (m) {
    case MemOrder::none: return "";
    case MemOrder::weak: return "weak";
    case MemOrder::relaxed: return "relaxed";
    case MemOrder::acquire: return "acquire";
    case MemOrder::release: return "release";
    case MemOrder::acq_rel: return "acq_rel";
    case MemOrder::sc: return "sc";
    case MemOrder::volatile_: return "volatile";
    }
    return "?";
}

constexpr std::string_view name(Scope s) {
    switch (s) {
    case Scope::none: return "";
    case Scope::cta: return "cta";
    case Scope::cluster: return "cluster";
    case Scope::gpu: return "gpu";
    case Scope::sys: return "sys";
    }
    return "?";
}

constexpr std::string_view name(BarrierMode b) {
    switch (b) {
    case BarrierMode::none: return "";
    case BarrierMode::sync: return "sync";
    case BarrierMode::arrive: return "arrive";
    case BarrierMode::red_popc: return "red.popc";
    case BarrierMode::red_and: return "red.and";
    case BarrierMode::red_or: return "red.or";
    }
    return "?";
}

constexpr std::string_view name(TestKind t) {
    switch (t) {
    case TestKind::none: return "";
    case TestKind::finite: return "finite";
    case TestKind::infinite: return "infinite";
    case TestKind::number: return "number";
    case TestKind::notanumber: return "notanumber";
    case TestKind::normal: return "normal";
    case TestKind::subnormal: return "subnormal";
    }
    return "?";
}

constexpr std::string_view name(CacheLevel l) {
    switch (l) {
    case CacheLevel::none: return "";
    case CacheLevel::L1: return "L1";
    case CacheLevel::L2: return "L2";
    case CacheLevel::L2_evict_last: return "L2::evict_last";
    case CacheLevel::L2_evict_normal: return "L2::evict_normal";
    }
    return "?";
}

constexpr std::string_view name(TexGeometry g) {
    switch (g) {
    case TexGeometry::none: return "";
    case TexGeometry::d1: return "1d";
    case TexGeometry::d2: return "2d";
    case TexGeometry::d3: return "3d";
    case TexGeometry::a1d: return "a1d";
    case TexGeometry::a2d: return "a2d";
    case TexGeometry::cube: return "cube";
    case TexGeometry::acube: return "acube";
    }
    return "?";
}

constexpr std::string_view name(SurfaceClamp c) {
    switch (c) {
    case SurfaceClamp::none: return "";
    case SurfaceClamp::trap: return "trap";
    case SurfaceClamp::clamp: return "clamp";
    case SurfaceClamp::zero: return "zero";
    }
    return "?";
}

constexpr std::string_view name(PrmtMode m) {
    switch (m) {
    case PrmtMode::none: return "";
    case PrmtMode::f4e: return "f4e";
    case PrmtMode::b4e: return "b4e";
    case PrmtMode::rc8: return "rc8";
    case PrmtMode::ecl: return "ecl";
    case PrmtMode::ecr: return "ecr";
    case PrmtMode::rc16: return "rc16";
    }
    return "?";
}

constexpr std::string_view name(SpecialReg r) {
    switch (r) {
    case SpecialReg::tid_x: return "%tid.x";
    case SpecialReg::tid_y: return "%tid.y";
    case SpecialReg::tid_z: return "%tid.z";
    case SpecialReg::ntid_x: return "%ntid.x";
    case SpecialReg::ntid_y: return "%ntid.y";
    case SpecialReg::ntid_z: return "%ntid.z";
    case SpecialReg::ctaid_x: return "%ctaid.x";
    case SpecialReg::ctaid_y: return "%ctaid.y";
    case SpecialReg::ctaid_z: return "%ctaid.z";
    case SpecialReg::nctaid_x: return "%nctaid.x";
    case SpecialReg::nctaid_y: return "%nctaid.y";
    case SpecialReg::nctaid_z: return "%nctaid.z";
    case SpecialReg::laneid: return "%laneid";
    case SpecialReg::warpid: return "%warpid";
    case SpecialReg::nwarpid: return "%nwarpid";
    case SpecialReg::smid: return "%smid";
    case SpecialReg::nsmid: return "%nsmid";
    case SpecialReg::gridid: return "%gridid";
    case SpecialReg::lanemask_eq: return "%lanemask_eq";
    case SpecialReg::lanemask_lt: return "%lanemask_lt";
    case SpecialReg::lanemask_le: return "%lanemask_le";
    case SpecialReg::lanemask_gt: return "%lanemask_gt";
    case SpecialReg::lanemask_ge: return "%lanemask_ge";
    case SpecialReg::clock: return "%clock";
    case SpecialReg::clock_hi: return "%clock_hi";
    case SpecialReg::clock64: return "%clock64";
    case SpecialReg::globaltimer: return "%globaltimer";
    case SpecialReg::globaltimer_lo: return "%globaltimer_lo";
    case SpecialReg::globaltimer_hi: return "%globaltimer_hi";
    case SpecialReg::dynamic_smem_size: return "%dynamic_smem_size";
    case SpecialReg::total_smem_size: return "%total_smem_size";
    case SpecialReg::warp_sz: return "WARP_SZ";
    case SpecialReg::envreg1: return "%envreg1";
    case SpecialReg::envreg2: return "%envreg2";
    }
    return "?";
}

// Width of a special register in bytes (PTX ISA Sec. 10: %clock64, %gridid and %globaltimer are 64-bit).
constexpr unsigned size_bytes(SpecialReg r) {
    return (r == SpecialReg::clock64 || r == SpecialReg::gridid || r == SpecialReg::globaltimer) ? 8U : 4U;
}

constexpr std::string_view name(OpClass c) {
    switch (c) {
    case OpClass::int_alu: return "int_alu";
    case OpClass::int_mul: return "int_mul";
    case OpClass::fp32: return "fp32";
    case OpClass::fp64: return "fp64";
    case OpClass::sfu: return "sfu";
    case OpClass::half: return "half";
    case OpClass::load_global: return "load_global";
    case OpClass::load_shared: return "load_shared";
    case OpClass::load_local: return "load_local";
    case OpClass::load_const: return "load_const";
    case OpClass::load_param: return "load_param";
    case OpClass::load_generic: return "load_generic";
    case OpClass::store_global: return "store_global";
    case OpClass::store_shared: return "store_shared";
    case OpClass::store_local: return "store_local";
    case OpClass::store_param: return "store_param";
    case OpClass::store_generic: return "store_generic";
    case OpClass::atomic_global: return "atomic_global";
    case OpClass::atomic_shared: return "atomic_shared";
    case OpClass::atomic_generic: return "atomic_generic";
    case OpClass::branch: return "branch";
    case OpClass::barrier: return "barrier";
    case OpClass::warp_level: return "warp_level";
    case OpClass::control: return "control";
    case OpClass::system: return "system";
    case OpClass::prefetch: return "prefetch";
    case OpClass::texture: return "texture";
    case OpClass::async_copy: return "async_copy";
    case OpClass::nop: return "nop";
    }
    return "?";
}

constexpr std::string_view name(OperandKind k) {
    switch (k) {
    case OperandKind::none: return "none";
    case OperandKind::reg: return "reg";
    case OperandKind::imm: return "imm";
    case OperandKind::special: return "special";
    case OperandKind::address: return "address";
    case OperandKind::vector: return "vector";
    case OperandKind::symbol: return "symbol";
    case OperandKind::label: return "label";
    case OperandKind::sink: return "sink";
    }
    return "?";
}

constexpr std::string_view name(ImmType t) {
    switch (t) {
    case ImmType::integer: return "integer";
    case ImmType::f32: return "f32";
    case ImmType::f64: return "f64";
    }
    return "?";
}

constexpr std::string_view name(SymbolScope s) {
    switch (s) {
    case SymbolScope::kernel_param: return "kernel_param";
    case SymbolScope::kernel_local: return "kernel_local";
    case SymbolScope::module: return "module";
    }
    return "?";
}

} // namespace gpuarch::ir
