#pragma once
// The vocabulary of decoded PTX: data types, state spaces, opcodes and their modifiers.
// Contract: every enumerator here is something the parser can produce and the functional engine executes;
// a PTX construct outside this vocabulary is rejected by the parser with its position, never approximated.
#include <cstdint>
#include <string_view>

namespace gpuarch::ir {

enum class ScalarType : std::uint8_t {
    none,
    pred,
    b8,
    b16,
    b32,
    b64,
    b128,
    u8,
    u16,
    u32,
    u64,
    s8,
    s16,
    s32,
    s64,
    f16,
    f16x2,
    bf16,
    bf16x2,
    f32,
    f64,
};

constexpr unsigned size_bytes(ScalarType t) {
    switch (t) {
    case ScalarType::none: return 0;
    case ScalarType::pred: return 1;
    case ScalarType::b8:
    case ScalarType::u8:
    case ScalarType::s8: return 1;
    case ScalarType::b16:
    case ScalarType::u16:
    case ScalarType::s16:
    case ScalarType::f16:
    case ScalarType::bf16: return 2;
    case ScalarType::b32:
    case ScalarType::u32:
    case ScalarType::s32:
    case ScalarType::f32:
    case ScalarType::f16x2:
    case ScalarType::bf16x2: return 4;
    case ScalarType::b64:
    case ScalarType::u64:
    case ScalarType::s64:
    case ScalarType::f64: return 8;
    case ScalarType::b128: return 16;
    }
    return 0;
}
constexpr bool is_signed_int(ScalarType t) {
    return t == ScalarType::s8 || t == ScalarType::s16 || t == ScalarType::s32 || t == ScalarType::s64;
}
constexpr bool is_float(ScalarType t) {
    return t == ScalarType::f16 || t == ScalarType::f16x2 || t == ScalarType::bf16 || t == ScalarType::bf16x2 ||
           t == ScalarType::f32 || t == ScalarType::f64;
}

enum class StateSpace : std::uint8_t { none, reg, sreg, global, shared, local, constant, param, generic, tex };

enum class Opcode : std::uint16_t {
    // integer and floating-point arithmetic
    add,
    sub,
    mul,
    mad,
    mul24,
    mad24,
    div,
    rem,
    abs,
    neg,
    min,
    max,
    fma,
    addc,
    subc,
    madc,
    // bit manipulation and logic
    popc,
    clz,
    brev,
    bfe,
    bfi,
    bfind,
    prmt,
    and_,
    or_,
    xor_,
    not_,
    cnot,
    shl,
    shr,
    lop3,
    // comparison and selection
    setp,
    selp,
    set,
    slct,
    // conversion and movement
    cvt,
    cvta,
    mov,
    // floating-point special functions
    rcp,
    sqrt,
    rsqrt,
    sin,
    cos,
    lg2,
    ex2,
    tanh,
    copysign,
    testp,
    // memory
    ld,
    st,
    atom,
    red,
    // synchronisation and warp-level
    bar,
    bar_warp_sync,
    membar,
    fence,
    shfl,
    vote,
    activemask,
    match,
    // control flow
    bra,
    call,
    ret,
    exit,
    nanosleep,
    // appended after the first contract: funnel shift (shf.l / shf.r; see Instruction::funnel_right)
    shf,
    // appended: trap, and the two CUDA device-runtime functions nvcc calls as `.extern .func` (vprintf for
    // printf, __assertfail for a failed assert). The parser turns `call vprintf`/`call __assertfail` into these
    // instead of inlining a body the module does not have (ptx/inliner.hpp); their operands are the call's .param
    // symbols (see the operand table in ptx/parser.hpp).
    trap,
    vprintf,
    assertfail,
    // appended: integer video and dot-product instructions (vabsdiff4 d, a, b, c; dp4a/dp2a d, a, b, c;
    // sad d, a, b, c), the warp reduction redux.sync (sm_80), and cache prefetches (prefetch to the data caches,
    // prefetchu to the uniform cache), which change no value (PTX ISA 9.0, Secs. 9.7.1.x, 9.7.13.x, 9.7.9.15).
    vabsdiff4,
    dp4a,
    dp2a,
    sad,
    redux,
    prefetch,
    prefetchu,
    // appended (textures and surfaces): tex (texture fetch through a 64-bit texture-object register, the
    // unified mode; .level reads an explicit level of detail), suld.b (surface load) and sust.b (surface store)
    // through a surface-object register (PTX ISA 9.0, Secs. 9.7.10.3, 9.7.10.7, 9.7.10.8). Operands are in the
    // order ptx/parser/instructions.hpp parses them in (its texture and surface access).
    tex,
    suld,
    sust,
    // appended (device heap): the CUDA device-runtime functions malloc and free, which nvcc declares
    // `.extern .func` like vprintf. The inliner turns `call malloc`/`call free` into these; their operands are the
    // call's .param symbols (the input, then malloc's return; see the operand table in ptx/parser.hpp).
    device_malloc,
    device_free,
    // appended (asynchronous copies, sm_80; PTX ISA 9.0, Sec. 9.7.9.25): cp.async.{ca,cg}.shared.global
    // [dst], [src], cp-size [, src-size | ignore-src]; cp.async.commit_group; cp.async.wait_group N;
    // cp.async.wait_all.
    cp_async,
    cp_async_commit_group,
    cp_async_wait_group,
    cp_async_wait_all,
};

enum class CompareOp : std::uint8_t {
    none,
    eq,
    ne,
    lt,
    le,
    gt,
    ge,
    lo,
    ls,
    hi,
    hs, // integer (lo/ls/hi/hs: unsigned)
    equ,
    neu,
    ltu,
    leu,
    gtu,
    geu,
    num,
    nan, // float unordered variants
};
enum class BoolOp : std::uint8_t { none, and_, or_, xor_ };
// Integer .rni etc are the "integer rounding" forms used by cvt float->float-integral.
enum class Rounding : std::uint8_t { none, rn, rz, rm, rp, rna, rni, rzi, rmi, rpi };
enum class MulMode : std::uint8_t { none, lo, hi, wide };
enum class AtomOp : std::uint8_t { none, add, min, max, inc, dec, cas, exch, and_, or_, xor_ };
enum class ShflMode : std::uint8_t { none, up, down, bfly, idx };
enum class VoteMode : std::uint8_t { none, all, any, uni, ballot };
enum class MemOrder : std::uint8_t { none, weak, relaxed, acquire, release, acq_rel, sc, volatile_ };
enum class Scope : std::uint8_t { none, cta, cluster, gpu, sys };
// Barrier flavour: bar.sync / barrier.sync (aligned or not), bar.arrive, bar.red.{popc,and,or}.
enum class BarrierMode : std::uint8_t { none, sync, arrive, red_popc, red_and, red_or };
// testp predicates.
enum class TestKind : std::uint8_t { none, finite, infinite, number, notanumber, normal, subnormal };
// The cache level of a prefetch (.L1, .L2), and the L2 eviction priorities prefetch.global accepts
// (.L2::evict_last, .L2::evict_normal), which are hints only.
enum class CacheLevel : std::uint8_t { none, L1, L2, L2_evict_last, L2_evict_normal };
// The geometry of a tex/suld/sust (PTX ISA 9.0, Sec. 9.7.10.3): how many coordinates it has and whether the first
// is an array layer index (a1d, a2d).
enum class TexGeometry : std::uint8_t { none, d1, d2, d3, a1d, a2d, cube, acube };
// What suld/sust do with an out-of-range coordinate (PTX ISA 9.0, Sec. 9.7.10.7): .trap faults, .clamp uses the
// nearest element, .zero loads zero and drops stores.
enum class SurfaceClamp : std::uint8_t { none, trap, clamp, zero };
// prmt modes (default, f4e, b4e, rc8, ecl, ecr, rc16).
enum class PrmtMode : std::uint8_t { none, f4e, b4e, rc8, ecl, ecr, rc16 };

// Special registers (PTX ISA Sec. 10). Vector ones are split into .x/.y/.z.
enum class SpecialReg : std::uint8_t {
    tid_x,
    tid_y,
    tid_z,
    ntid_x,
    ntid_y,
    ntid_z,
    ctaid_x,
    ctaid_y,
    ctaid_z,
    nctaid_x,
    nctaid_y,
    nctaid_z,
    laneid,
    warpid,
    nwarpid,
    smid,
    nsmid,
    gridid,
    lanemask_eq,
    lanemask_lt,
    lanemask_le,
    lanemask_gt,
    lanemask_ge,
    clock,
    clock_hi,
    clock64,
    globaltimer,
    globaltimer_lo,
    globaltimer_hi,
    dynamic_smem_size,
    total_smem_size,
    // appended: WARP_SZ, the PTX run-time constant equal to the warp width (PTX ISA, "Identifiers": predefined
    // WARP_SZ), which nvcc emits for warpSize. The launch's warp width: 32, or 64 on large-warp machines.
    warp_sz,
    // appended: the driver-defined environment registers that cooperative groups read (CUDA's
    // cooperative_groups/details/driver_abi.h: the grid workspace address is %envreg1:%envreg2, high:low). Set for a
    // cooperative launch (func::LaunchOptions::grid_workspace), 0 otherwise. The other %envreg<n> are not modelled.
    envreg1,
    envreg2,
};

// Operation class used by timing (which unit executes it) and by the statistics. Assigned by ir analysis.
enum class OpClass : std::uint8_t {
    int_alu,
    int_mul,
    fp32,
    fp64,
    sfu,
    half,
    load_global,
    load_shared,
    load_local,
    load_const,
    load_param,
    load_generic,
    store_global,
    store_shared,
    store_local,
    store_param,
    store_generic,
    atomic_global,
    atomic_shared,
    atomic_generic,
    branch,
    barrier,
    warp_level,
    control,
    system, // device-runtime calls (vprintf, __assertfail) and trap; inserted before nop, which stays last
    prefetch, // prefetch / prefetchu: a load into a cache that writes no register; inserted before nop
    texture, // tex, suld and sust: the texture unit's loads and surface stores; inserted before nop
    // appended (cp.async): an asynchronous global-to-shared copy, timed as a global load that writes
    // no register (its commit and wait instructions are control); inserted before nop
    async_copy,
    nop,
};
constexpr bool is_memory(OpClass c) {
    return (c >= OpClass::load_global && c <= OpClass::atomic_generic) || c == OpClass::prefetch ||
           c == OpClass::texture || c == OpClass::async_copy;
}

} // namespace gpuarch::ir
