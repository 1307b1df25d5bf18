#pragma once
// Which functional-unit class executes an instruction (timing) and how statistics bucket it.
// Contract (the table is also in docs/ptx.md):
//   int_alu    integer/bit/predicate add sub min max abs neg addc subc and or xor not cnot shl shr shf lop3
//              popc clz brev bfe bfi bfind prmt; setp/set/slct whose comparison type is an integer;
//              selp and mov of any type (including special registers, symbol addresses, packing);
//              cvt between integer types; cvta
//              vabsdiff4 (a byte-wise subtract and select, SASS VABSDIFF4) and sad (|a - b| + c, a subtract and
//              an add on the integer pipe)
//   int_mul    integer mul mad mul24 mad24 madc div rem (div/rem are multi-instruction sequences on hardware
//              that run on the integer multiply pipe; bucketed here rather than invented as a new class); dp4a
//              and dp2a (four or two multiply-adds, SASS IDP on the integer multiply-add pipe)
//   fp32       f32 add sub mul mad fma min max abs neg copysign testp, setp/set/slct comparing f32,
//              cvt between f32 and an integer, and f32->f32 rounding
//   fp64       every f64 operation except the approximate special functions below, and every cvt with an f64
//              side
//   sfu        rcp sqrt rsqrt sin cos lg2 ex2 tanh on f32/f16/bf16 (and .approx f64 rcp/sqrt/rsqrt); every f32
//              div (approx, full and IEEE forms are built on the MUFU reciprocal)
//   half       f16/f16x2/bf16/bf16x2 arithmetic and comparisons; cvt with a half-precision side (and no f64)
//   load_*     ld by state space (generic when the space is omitted); ld.param of kernel params and of inlined
//              call-sequence params is load_param
//   store_*    st by state space
//   atomic_*   atom and red by state space
//   branch     bra (and call, which never survives inlining)
//   barrier    bar / barrier (sync, arrive, red)
//   warp_level shfl vote match activemask bar.warp.sync redux.sync
//   control    ret exit membar fence nanosleep
//   system     trap and the device-runtime calls vprintf and __assertfail (the calls nvcc emits for printf and a
//              failed assert); timed by each frontend's unit_for (docs/ptx.md, "Device-side printf, assert, trap")
//   prefetch   prefetch and prefetchu in every state space: a memory instruction (ir::is_memory) that loads a
//              line and writes no register (docs/ptx.md, "Prefetch")
//   texture    tex, suld and sust: memory instructions (ir::is_memory) of the texture unit, which address texels
//              of a texture or surface object rather than bytes of a state space (docs/ptx.md, "Textures and
//              surfaces")
//   system     (device heap) also the device-runtime calls malloc and free (docs/ptx.md, "Device-side
//              malloc and free")
//   async_copy cp.async (sm_80): a memory instruction timed as a global load whose data goes to shared memory
//              and no register; cp.async.commit_group, .wait_group and .wait_all are control (docs/ptx.md,
//              "Asynchronous copies")
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/types.hpp>

namespace gpuarch::ir {

constexpr bool is_half_type(ScalarType t) {
    return t == ScalarType::f16 || t == ScalarType::f16x2 || t == ScalarType::bf16 || t == ScalarType::bf16x2;
}

constexpr OpClass classify(const Instruction& inst) {
    // The type that decides the arithmetic unit: set/slct compare in src_type.
    const ScalarType t = (inst.op == Opcode::set || inst.op == Opcode::slct) ? inst.src_type : inst.type;
    const auto by_float_type = [](ScalarType type, OpClass integer) {
        if (type == ScalarType::f64) return OpClass::fp64;
        if (type == ScalarType::f32) return OpClass::fp32;
        if (is_half_type(type)) return OpClass::half;
        return integer;
    };
    const auto by_space = [](StateSpace space, OpClass global, OpClass shared, OpClass local, OpClass constant,
                             OpClass param, OpClass generic) {
        switch (space) {
        case StateSpace::global: return global;
        case StateSpace::shared: return shared;
        case StateSpace::local: return local;
        case StateSpace::constant: return constant;
        case StateSpace::param: return param;
        default: return generic;
        }
    };
    switch (inst.op) {
    case Opcode::add:
    case Opcode::sub:
    case Opcode::min:
    case Opcode::max:
    case Opcode::abs:
    case Opcode::neg:
    case Opcode::setp:
    case Opcode::set:
    case Opcode::slct:
    case Opcode::copysign:
    case Opcode::testp: return by_float_type(t, OpClass::int_alu);
    case Opcode::addc:
    case Opcode::subc:
    case Opcode::popc:
    case Opcode::clz:
    case Opcode::brev:
    case Opcode::bfe:
    case Opcode::bfi:
    case Opcode::bfind:
    case Opcode::prmt:
    case Opcode::and_:
    case Opcode::or_:
    case Opcode::xor_:
    case Opcode::not_:
    case Opcode::cnot:
    case Opcode::shl:
    case Opcode::shr:
    case Opcode::shf:
    case Opcode::lop3:
    case Opcode::selp:
    case Opcode::mov:
    case Opcode::cvta:
    case Opcode::vabsdiff4:
    case Opcode::sad: return OpClass::int_alu;
    case Opcode::dp4a:
    case Opcode::dp2a: return OpClass::int_mul;
    case Opcode::prefetch:
    case Opcode::prefetchu: return OpClass::prefetch;
    case Opcode::tex:
    case Opcode::suld:
    case Opcode::sust: return OpClass::texture;
    case Opcode::mul:
    case Opcode::mad:
    case Opcode::fma:
    case Opcode::mul24:
    case Opcode::mad24:
    case Opcode::madc:
    case Opcode::rem: return by_float_type(t, OpClass::int_mul);
    case Opcode::div:
        if (t == ScalarType::f32) return OpClass::sfu;
        return by_float_type(t, OpClass::int_mul);
    case Opcode::rcp:
    case Opcode::sqrt:
    case Opcode::rsqrt:
        if (t == ScalarType::f64 && !inst.approx) return OpClass::fp64;
        return OpClass::sfu;
    case Opcode::sin:
    case Opcode::cos:
    case Opcode::lg2:
    case Opcode::ex2:
    case Opcode::tanh: return OpClass::sfu;
    case Opcode::cvt: {
        const ScalarType d = inst.type, s = inst.src_type;
        if (d == ScalarType::f64 || s == ScalarType::f64) return OpClass::fp64;
        if (is_half_type(d) || is_half_type(s)) return OpClass::half;
        if (d == ScalarType::f32 || s == ScalarType::f32) return OpClass::fp32;
        return OpClass::int_alu;
    }
    case Opcode::ld:
        return by_space(inst.space, OpClass::load_global, OpClass::load_shared, OpClass::load_local,
                        OpClass::load_const, OpClass::load_param, OpClass::load_generic);
    case Opcode::st:
        return by_space(inst.space, OpClass::store_global, OpClass::store_shared, OpClass::store_local,
                        OpClass::store_generic, OpClass::store_param, OpClass::store_generic);
    case Opcode::atom:
    case Opcode::red:
        return by_space(inst.space, OpClass::atomic_global, OpClass::atomic_shared, OpClass::atomic_generic,
                        OpClass::atomic_generic, OpClass::atomic_generic, OpClass::atomic_generic);
    case Opcode::bra:
    case Opcode::call: return OpClass::branch;
    case Opcode::bar: return OpClass::barrier;
    case Opcode::bar_warp_sync:
    case Opcode::shfl:
    case Opcode::vote:
    case Opcode::activemask:
    case Opcode::match:
    case Opcode::redux: return OpClass::warp_level;
    case Opcode::ret:
    case Opcode::exit:
    case Opcode::membar:
    case Opcode::fence:
    case Opcode::nanosleep: return OpClass::control;
    case Opcode::trap:
    case Opcode::vprintf:
    case Opcode::assertfail: return OpClass::system;
    // device heap
    case Opcode::device_malloc:
    case Opcode::device_free: return OpClass::system;
    // cp.async
    case Opcode::cp_async: return OpClass::async_copy;
    case Opcode::cp_async_commit_group:
    case Opcode::cp_async_wait_group:
    case Opcode::cp_async_wait_all: return OpClass::control;
    }
    return OpClass::control;
}

// The cache level a memory instruction fills as a prefetch: CacheLevel::none for every instruction that is not
// one; prefetchu (the uniform cache) is .L1.
constexpr CacheLevel prefetch_level(const Instruction& inst) {
    if (inst.op == Opcode::prefetchu) return CacheLevel::L1;
    return inst.op == Opcode::prefetch ? inst.cache_level : CacheLevel::none;
}

// Whether a load must observe writes made by other SMs, so a non-coherent L1 may not serve it: ld.volatile, and
// ld.relaxed / ld.acquire at .gpu or .sys scope (PTX ISA, "Memory Consistency Model": such loads are morally
// strong at that scope, and an SM's L1 is not kept coherent with the others'). The timing model sends them to
// the L2, as cooperative groups' grid.sync() spin (ld.acquire.gpu) needs in order to see the other CTAs arrive.
constexpr bool needs_coherent_load(const Instruction& inst) {
    if (inst.op != Opcode::ld) return false;
    if (inst.order == MemOrder::volatile_) return true;
    return (inst.order == MemOrder::relaxed || inst.order == MemOrder::acquire) &&
           (inst.scope == Scope::gpu || inst.scope == Scope::sys);
}

} // namespace gpuarch::ir
