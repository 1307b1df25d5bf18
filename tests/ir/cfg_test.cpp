// Basic blocks, edges, immediate post-dominators and branch reconvergence PCs.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <gpuarch/ir/analyse.hpp>
#include <gpuarch/ir/cfg.hpp>
#include <gpuarch/ptx/parser.hpp>

using namespace gpuarch;
using ir::BlockId;

namespace {

ir::Kernel kernel_of(const std::string& body) {
    const std::string text = ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n"
                             ".reg .pred %p<8>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n" +
                             body + "\n}\n";
    return ptx::parse(text, "cfg.ptx").kernels.at(0);
}

std::vector<ir::Pc> block_starts(const ir::Cfg& cfg) {
    std::vector<ir::Pc> starts;
    for (const auto& b : cfg.blocks) starts.push_back(b.begin);
    return starts;
}

} // namespace

TEST_CASE("if/else: four blocks, both arms post-dominated by the join") {
    const ir::Kernel k = kernel_of("setp.lt.s32 %p1, %r1, 0;\n" // 0  B0
                                   "@%p1 bra ELSE;\n" // 1
                                   "add.s32 %r2, %r1, 1;\n" // 2  B1
                                   "bra JOIN;\n" // 3
                                   "ELSE:\nsub.s32 %r2, %r1, 1;\n" // 4  B2
                                   "JOIN:\nst.global.u32 [%rd1], %r2;\n" // 5 B3
                                   "ret;"); // 6
    const ir::Cfg cfg = ir::build_cfg(k);
    CHECK(block_starts(cfg) == std::vector<ir::Pc>{0, 2, 4, 5, 7});
    CHECK(cfg.exit_block() == 4);
    CHECK(cfg.blocks[0].successors == std::vector<BlockId>{2, 1});
    CHECK(cfg.blocks[1].successors == std::vector<BlockId>{3});
    CHECK(cfg.blocks[2].successors == std::vector<BlockId>{3});
    CHECK(cfg.blocks[3].successors == std::vector<BlockId>{4});
    CHECK(cfg.blocks[3].predecessors == std::vector<BlockId>{1, 2});
    CHECK(cfg.block_of(6) == 3);
    const auto ipdom = ir::immediate_post_dominators(cfg);
    CHECK(ipdom == std::vector<BlockId>{3, 3, 3, 4, 4});
    CHECK(k.code[1].reconvergence_pc == 5);
    CHECK(k.code[3].reconvergence_pc == 5);
    CHECK(ir::post_dominates(ipdom, 3, 0));
    CHECK(!ir::post_dominates(ipdom, 1, 0));
}

TEST_CASE("nested ifs reconverge at their own joins") {
    const ir::Kernel k = kernel_of("@%p1 bra OUT;\n" // 0 B0
                                   "@%p2 bra INNER;\n" // 1 B1
                                   "add.s32 %r1, %r1, 1;\n" // 2 B2
                                   "INNER:\nadd.s32 %r2, %r2, 1;\n" // 3 B3
                                   "OUT:\nret;"); // 4 B4
    const ir::Cfg cfg = ir::build_cfg(k);
    CHECK(block_starts(cfg) == std::vector<ir::Pc>{0, 1, 2, 3, 4, 5});
    const auto ipdom = ir::immediate_post_dominators(cfg);
    CHECK(ipdom[0] == 4);
    CHECK(ipdom[1] == 3);
    CHECK(k.code[0].reconvergence_pc == 4);
    CHECK(k.code[1].reconvergence_pc == 3);
}

TEST_CASE("a loop with break and continue: exits reconverge after the loop, continue at the latch") {
    const ir::Kernel k = kernel_of("mov.u32 %r1, 0;\n" // 0  B0
                                   "LOOP:\nsetp.ge.s32 %p1, %r1, %r2;\n" // 1  B1
                                   "@%p1 bra EXIT;\n" // 2
                                   "setp.eq.s32 %p2, %r1, 5;\n" // 3  B2
                                   "@%p2 bra BREAK;\n" // 4
                                   "setp.eq.s32 %p3, %r1, 3;\n" // 5  B3
                                   "@%p3 bra CONT;\n" // 6
                                   "add.s32 %r3, %r3, %r1;\n" // 7  B4
                                   "CONT:\nadd.s32 %r1, %r1, 1;\n" // 8  B5
                                   "bra LOOP;\n" // 9
                                   "BREAK:\nadd.s32 %r3, %r3, 100;\n" // 10 B6
                                   "EXIT:\nst.global.u32 [%rd1], %r3;\n" // 11 B7
                                   "ret;"); // 12
    const ir::Cfg cfg = ir::build_cfg(k);
    CHECK(block_starts(cfg) == std::vector<ir::Pc>{0, 1, 3, 5, 7, 8, 10, 11, 13});
    CHECK(cfg.blocks[5].successors == std::vector<BlockId>{1});
    CHECK(cfg.blocks[1].predecessors == std::vector<BlockId>{0, 5});
    const auto ipdom = ir::immediate_post_dominators(cfg);
    CHECK(ipdom == std::vector<BlockId>{1, 7, 7, 5, 5, 1, 7, 8, 8});
    CHECK(k.code[2].reconvergence_pc == 11); // loop exit test
    CHECK(k.code[4].reconvergence_pc == 11); // break
    CHECK(k.code[6].reconvergence_pc == 8); // continue
    CHECK(k.code[9].reconvergence_pc == 1); // back edge: its block's post-dominator is the header
}

TEST_CASE("an early return: the paths meet only at the exit, and the branch reconverges at the final ret") {
    const ir::Kernel k = kernel_of("@%p1 bra EARLY;\n"
                                   "add.s32 %r1, %r1, 1;\n"
                                   "st.global.u32 [%rd1], %r1;\n"
                                   "ret;\n"
                                   "EARLY:\nret;");
    const ir::Cfg cfg = ir::build_cfg(k);
    CHECK(block_starts(cfg) == std::vector<ir::Pc>{0, 1, 4, 5});
    CHECK(cfg.blocks[1].successors == std::vector<BlockId>{3});
    CHECK(cfg.blocks[2].successors == std::vector<BlockId>{3});
    CHECK(ir::immediate_post_dominators(cfg)[0] == 3);
    // Towards the final ret (block 2), the fall-through path only leaves the kernel early: its threads exit
    // while the taken ones wait at pc 4, so the warp is whole again (what is left of it) at the final ret.
    CHECK(ir::immediate_post_dominators(cfg, 2)[0] == 2);
    CHECK(k.code[0].reconvergence_pc == 4);
}

TEST_CASE("threads that may exit inside an if do not stop the others from reconverging after it") {
    // Found by the differential fuzzer (docs/differential_fuzzing.md): with the exit's edge to the virtual exit,
    // the branch at 0 reconverged nowhere, and a warp reached a later bar.sync with half of its lanes.
    const ir::Kernel k = kernel_of("@%p1 bra ELSE;\n" // 0
                                   "bra JOIN;\n" // 1
                                   "ELSE:\n@%p2 exit;\n" // 2: guarded: exits or falls through
                                   "JOIN:\nbar.sync 0;\n" // 3
                                   "@%p3 bra DONE;\n" // 4
                                   "exit;\n" // 5: an unguarded early exit
                                   "DONE:\nst.global.u32 [%rd1], %r1;\n" // 6
                                   "ret;"); // 7
    const ir::Cfg cfg = ir::build_cfg(k);
    CHECK(ir::immediate_post_dominators(cfg)[0] == cfg.exit_block()); // the plain post-dominator
    CHECK(k.code[0].reconvergence_pc == 3);
    CHECK(k.code[4].reconvergence_pc == 6);
}

TEST_CASE("a guarded ret both exits and falls through") {
    const ir::Kernel k = kernel_of("@%p1 ret;\nadd.s32 %r1, %r1, 1;\nret;");
    const ir::Cfg cfg = ir::build_cfg(k);
    CHECK(cfg.blocks[0].successors == std::vector<BlockId>{2, 1});
    CHECK(k.code[0].reconvergence_pc == ir::no_pc); // only branches get one
}

TEST_CASE("an infinite loop has no post-dominator and no reconvergence point") {
    const ir::Kernel k = kernel_of("@%p1 bra DONE;\nSPIN:\nbra SPIN;\nDONE:\nret;");
    const ir::Cfg cfg = ir::build_cfg(k);
    const auto ipdom = ir::immediate_post_dominators(cfg);
    CHECK(ipdom[cfg.block_of(1)] == ir::no_block);
    CHECK(ipdom[0] == cfg.block_of(2));
    CHECK(k.code[1].reconvergence_pc == ir::no_pc);
    CHECK(k.code[0].reconvergence_pc == 2);
}

TEST_CASE("analyse is idempotent") {
    ir::Kernel k = kernel_of("@%p1 bra L;\nadd.s32 %r1, %r2, %r2;\nL:\nret;");
    const std::vector<ir::Instruction> before = k.code;
    ir::analyse(k);
    REQUIRE(k.code.size() == before.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        CHECK(k.code[i].reconvergence_pc == before[i].reconvergence_pc);
        CHECK(k.code[i].op_class == before[i].op_class);
        CHECK(k.code[i].num_uses == before[i].num_uses);
        CHECK(k.code[i].uses == before[i].uses);
    }
}

TEST_CASE("a branch to a pc outside the code is reported") {
    ir::Kernel k;
    k.name = "bad";
    ir::Instruction bra;
    bra.op = ir::Opcode::bra;
    bra.num_operands = 1;
    bra.operands[0].kind = ir::OperandKind::label;
    bra.operands[0].target = 7;
    bra.line = 3;
    k.code.push_back(bra);
    CHECK_THROWS_WITH_AS(ir::build_cfg(k), "kernel 'bad': branch at pc 0 (PTX line 3) has no valid target", Error);
}
