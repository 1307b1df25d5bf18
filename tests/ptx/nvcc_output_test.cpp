// Real nvcc output: tests/ptx/data/*.ptx (CUDA 13, nvcc -ptx -arch=compute_75 -O3 from the .cu beside each) and,
// when present, every kernel of the corpus in kernels/ptx/.
#include <algorithm>
#include <filesystem>
#include <string>

#include "ptx_test_support.hpp"

#ifndef GPUARCH_TEST_DATA_DIR
#define GPUARCH_TEST_DATA_DIR "tests"
#endif
#ifndef GPUARCH_KERNELS_DIR
#define GPUARCH_KERNELS_DIR "kernels"
#endif

using namespace gpuarch;
using ir::Opcode;

namespace {

ir::Module load(const std::string& name) {
    return ptx::parse_file(std::filesystem::path(GPUARCH_TEST_DATA_DIR) / "ptx" / "data" / name);
}

std::size_t count_if_op(const ir::Kernel& k, Opcode op) {
    return static_cast<std::size_t>(
        std::count_if(k.code.begin(), k.code.end(), [&](const ir::Instruction& i) { return i.op == op; }));
}

bool has(const ir::Kernel& k, Opcode op, auto&& predicate) {
    return std::any_of(k.code.begin(), k.code.end(),
                       [&](const ir::Instruction& i) { return i.op == op && predicate(i); });
}

// Invariants every parsed kernel satisfies.
void check_well_formed(const ir::Kernel& k) {
    CAPTURE(k.name);
    REQUIRE(!k.code.empty());
    for (const ir::Instruction& i : k.code) {
        CHECK(i.op != Opcode::call);
        CHECK(i.line > 0);
        if (i.op == Opcode::bra) CHECK(i.operands[0].target < k.code.size());
        if (i.op != Opcode::bra) CHECK(i.reconvergence_pc == ir::no_pc);
        for (std::uint8_t d = 0; d < i.num_defs; ++d) CHECK(i.defs[d] < k.registers.size());
        for (std::uint8_t u = 0; u < i.num_uses; ++u) CHECK(i.uses[u] < k.registers.size());
    }
    const ir::Instruction& last = k.code.back();
    CHECK((last.op == Opcode::ret || last.op == Opcode::exit || last.op == Opcode::bra));
}

} // namespace

TEST_CASE("nvcc vector_add: parameters, guarded branch reconverging at the exit block") {
    const ir::Module m = load("vector_add.ptx");
    CHECK(m.version == "9.0");
    CHECK(m.target == "sm_75");
    REQUIRE(m.kernels.size() == 1);
    const ir::Kernel& k = m.kernels[0];
    check_well_formed(k);
    CHECK(k.name == "_Z10vector_addPKfS0_Pfi");
    REQUIRE(k.params.size() == 4);
    CHECK(k.params[3].type == ir::ScalarType::u32);
    CHECK(k.param_bytes == 28);
    const auto branch = std::find_if(k.code.begin(), k.code.end(), [](const auto& i) { return i.op == Opcode::bra; });
    REQUIRE(branch != k.code.end());
    CHECK(branch->guard.reg != ir::no_reg);
    CHECK(branch->reconvergence_pc == branch->operands[0].target); // if-then: join at the branch target
    CHECK(has(k, Opcode::ld, [](const auto& i) { return i.space == ir::StateSpace::global; }));
}

TEST_CASE("nvcc block_sum: shared memory, barriers, shuffles, launch bounds") {
    const ir::Module m = load("shared_reduce.ptx");
    const ir::Kernel& k = m.kernels.at(0);
    check_well_formed(k);
    CHECK(k.directives.maxntid == std::array<std::uint32_t, 3>{256, 1, 1});
    CHECK(k.shared_bytes == 1024);
    CHECK(count_if_op(k, Opcode::bar) >= 2);
    CHECK(has(k, Opcode::shfl, [](const auto& i) { return i.shfl_mode == ir::ShflMode::down; }));
    CHECK(has(k, Opcode::atom, [](const auto& i) { return i.atom_op == ir::AtomOp::add; }));
    CHECK(has(k, Opcode::st, [](const auto& i) { return i.op_class == ir::OpClass::store_shared; }));
}

TEST_CASE("nvcc device calls: every call inlined, per-instance local depots") {
    const ir::Module m = load("device_calls.ptx");
    REQUIRE(m.kernels.size() == 1);
    const ir::Kernel& k = m.kernels[0];
    check_well_formed(k);
    CHECK(count_if_op(k, Opcode::call) == 0);
    // twice() calls square_plus twice, the kernel calls twice, square_plus and pick: 5 inlined instances.
    std::size_t instances = 0;
    for (const auto& r : k.registers)
        if (r.name.find('$') != std::string::npos)
            instances = std::max<std::size_t>(instances, std::stoul(r.name.substr(r.name.find('$') + 1)));
    CHECK(instances == 5);
    CHECK(k.local_bytes >= 32); // pick()'s float table[8]
}

TEST_CASE("nvcc warp_ops: every atomic, vote, match and barrier-reduction form") {
    const ir::Kernel k = load("warp_atomics.ptx").kernels.at(0);
    check_well_formed(k);
    for (auto op : {ir::AtomOp::add, ir::AtomOp::min, ir::AtomOp::max, ir::AtomOp::inc, ir::AtomOp::dec,
                    ir::AtomOp::cas, ir::AtomOp::exch, ir::AtomOp::and_, ir::AtomOp::or_, ir::AtomOp::xor_}) {
        CAPTURE(ir::name(op));
        CHECK(has(k, Opcode::atom, [&](const auto& i) { return i.atom_op == op; }));
    }
    CHECK(has(k, Opcode::atom, [](const auto& i) { return i.type == ir::ScalarType::f64; }));
    CHECK(has(k, Opcode::bar, [](const auto& i) { return i.barrier == ir::BarrierMode::red_popc; }));
    CHECK(has(k, Opcode::bar, [](const auto& i) { return i.barrier == ir::BarrierMode::red_and; }));
    CHECK(has(k, Opcode::bar, [](const auto& i) { return i.barrier == ir::BarrierMode::red_or; }));
    CHECK(has(k, Opcode::vote, [](const auto& i) { return i.vote_mode == ir::VoteMode::ballot; }));
    CHECK(has(k, Opcode::match, [](const auto& i) { return i.vote_mode == ir::VoteMode::any; }));
    CHECK(count_if_op(k, Opcode::activemask) == 1);
    CHECK(count_if_op(k, Opcode::membar) == 1);
    CHECK(count_if_op(k, Opcode::bar_warp_sync) == 1);
}

TEST_CASE("nvcc math: special functions, fp64, half conversions and bf16 packing") {
    const ir::Kernel k = load("math_half.ptx").kernels.at(0);
    check_well_formed(k);
    CHECK(has(k, Opcode::ex2, [](const auto& i) { return i.op_class == ir::OpClass::sfu; }));
    CHECK(has(k, Opcode::sqrt,
              [](const auto& i) { return i.type == ir::ScalarType::f64 && i.op_class == ir::OpClass::fp64; }));
    CHECK(has(k, Opcode::cvt,
              [](const auto& i) { return i.type == ir::ScalarType::f16 && i.op_class == ir::OpClass::half; }));
    CHECK(has(k, Opcode::mov, [](const auto& i) { return i.operands[1].vector_imm_mask != 0; }));
    CHECK(has(k, Opcode::shf, [](const auto& i) { return i.funnel_right; }));
    CHECK(has(k, Opcode::rsqrt, [](const auto& i) { return i.approx; }));
}

TEST_CASE("nvcc control: struct parameter, constant table, dynamic shared memory, loops") {
    const ir::Module m = load("control_flow.ptx");
    const ir::Kernel& k = m.kernels.at(0);
    check_well_formed(k);
    CHECK(k.params.at(0).size_bytes == 24);
    CHECK(k.params.at(0).alignment == 8);
    CHECK(k.param_bytes == 24 + 8 + 8 + 4);
    const auto table =
        std::find_if(m.globals.begin(), m.globals.end(), [](const auto& s) { return s.name == "c_table"; });
    REQUIRE(table != m.globals.end());
    CHECK(table->space == ir::StateSpace::constant);
    CHECK(table->size_bytes == 32);
    CHECK(table->initializer.at(20) == 9);
    CHECK(k.shared_bytes == 0);
    CHECK(k.dynamic_shared_offset == 0);
    CHECK(k.local_bytes == 24);
    // A loop: some branch jumps backwards.
    bool backward = false;
    for (ir::Pc pc = 0; pc < k.code.size(); ++pc)
        if (k.code[pc].op == Opcode::bra && k.code[pc].operands[0].target <= pc) backward = true;
    CHECK(backward);
}

TEST_CASE("nvcc hints: cache operators are dropped, scoped atomics and fences keep their order and scope") {
    const ir::Kernel k = load("memory_hints.ptx").kernels.at(0);
    check_well_formed(k);
    CHECK(count_if_op(k, Opcode::ld) >= 5);
    CHECK(has(k, Opcode::atom, [](const auto& i) {
        return i.order == ir::MemOrder::relaxed && i.scope == ir::Scope::gpu && i.atom_op == ir::AtomOp::add;
    }));
    CHECK(has(k, Opcode::atom,
              [](const auto& i) { return i.order == ir::MemOrder::acquire && i.scope == ir::Scope::cta; }));
    CHECK(has(k, Opcode::ld,
              [](const auto& i) { return i.order == ir::MemOrder::acquire && i.scope == ir::Scope::gpu; }));
    CHECK(has(k, Opcode::st, [](const auto& i) { return i.order == ir::MemOrder::release; }));
    CHECK(
        has(k, Opcode::fence, [](const auto& i) { return i.order == ir::MemOrder::sc && i.scope == ir::Scope::cta; }));
    CHECK(has(k, Opcode::bar, [](const auto& i) { return i.barrier == ir::BarrierMode::sync && !i.aligned; }));
    CHECK(has(k, Opcode::mov, [](const auto& i) { return i.operands[0].kind == ir::OperandKind::vector; }));
}

TEST_CASE("every PTX file of the kernel corpus parses and is well formed") {
    const std::filesystem::path dir = std::filesystem::path(GPUARCH_KERNELS_DIR) / "ptx";
    if (!std::filesystem::exists(dir)) {
        MESSAGE("no kernel corpus at " << dir.string());
        return;
    }
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".ptx") continue;
        ++files;
        CAPTURE(entry.path().string());
        ir::Module m;
        try {
            m = ptx::parse_file(entry.path());
        } catch (const ptx::ParseError& e) {
            FAIL_CHECK(e.what());
            continue;
        }
        CHECK(!m.kernels.empty());
        for (const ir::Kernel& k : m.kernels) check_well_formed(k);
    }
    CHECK(files > 0);
}
