// The hint pass on small hand-written kernels: stall points, independent and dependent chains, barriers, memory
// hazards, renaming, branches (Format 2), the offset limit and the chain cap (Gong 2020 Sec. 5.3.1-5.3.2).
#include <doctest/doctest.h>

#include <string>

#include "hint_test_util.hpp"

using namespace gpuarch;
using namespace hints_test;
using Format = ir::InstructionHint::Format;

namespace {
ir::KernelHints hints_of(const ir::Module& m, const ir::HintPassOptions& o = {}) {
    return ir::compute_hints(m.kernels[0], o);
}
std::vector<unsigned> chain(const ir::KernelHints& h, ir::Pc s) { return fallthrough_chain(h, s); }
} // namespace

TEST_CASE("stall points: RAW and WAW on a pending long-latency result; shared and param loads are not long") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                   "ld.shared.u32 %r2, [%r3];\n" // 1 short latency
                                   "ld.param.u64 %rd2, [k_p0];\n" // 2 short latency
                                   "add.s32 %r4, %r2, 1;\n" // 3 not a stall point
                                   "ld.u32 %r5, [%rd2];\n" // 4 generic: long
                                   "mov.u32 %r5, 1;\n" // 5 WAW on pending r5: stall point
                                   "atom.global.add.u32 %r6, [%rd1], 1;\n" // 6 long
                                   "atom.shared.add.u32 %r7, [%r3], 1;\n" // 7 shared atomic: short
                                   "add.s32 %r8, %r7, %r1;\n" // 8 reads pending r1: stall point
                                   "add.s32 %r9, %r1, 1;\n" // 9 r1 already waited for: not a stall point
                                   "add.s32 %r9, %r6, 1;\n" // 10 r6 pending: stall point
                                   "ret;");
    const ir::KernelHints h = hints_of(m);
    const std::vector<bool> expected{false, false, false, false, false, true, false, false, true, false, true, false};
    CHECK(h.stall_point == expected);
    const std::vector<bool> ll{true, false, false, false, true, false, true, false, false, false, false, false};
    CHECK(h.long_latency == ll);
}

TEST_CASE("a load pending around a loop back edge makes the loop head's consumer a stall point") {
    const ir::Module m = module_of("mov.u32 %r1, 0;\n" // 0
                                   "LOOP:\n"
                                   "add.s32 %r2, %r1, 1;\n" // 1 reads r1, loaded at pc 2 on the previous trip
                                   "ld.global.u32 %r1, [%rd1];\n" // 2
                                   "setp.lt.s32 %p1, %r2, 10;\n" // 3
                                   "@%p1 bra LOOP;\n" // 4
                                   "ret;");
    const ir::KernelHints h = hints_of(m);
    CHECK(h.stall_point[1]);
    for (ir::Pc pc : {0U, 2U, 3U, 4U, 5U}) CHECK_FALSE(h.stall_point[pc]);
}

TEST_CASE("an independent chain is hinted in order; dependences are transitive") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                   "add.s32 %r2, %r1, 1;\n" // 1 S
                                   "add.s32 %r3, %r2, 1;\n" // 2 depends on S
                                   "add.s32 %r4, %r3, 1;\n" // 3 depends on 2 (skipped)
                                   "add.s32 %r5, %r6, 1;\n" // 4 independent
                                   "mul.lo.s32 %r8, %r5, %r6;\n" // 5 independent (reads hinted r5)
                                   "add.s32 %r9, %r4, %r8;\n" // 6 depends on 3
                                   "ret;");
    const ir::KernelHints h = hints_of(m);
    CHECK(h.stall_point[1]);
    CHECK(chain(h, 1) == std::vector<unsigned>{3, 4});
    for (ir::Pc pc : {2U, 3U, 6U}) CHECK(h.hint[pc].format == Format::none);
}

TEST_CASE("a fully dependent group has no chain") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n"
                                   "add.s32 %r2, %r1, 1;\n"
                                   "add.s32 %r3, %r2, 1;\n"
                                   "add.s32 %r4, %r3, %r2;\n"
                                   "ret;");
    const ir::KernelHints h = hints_of(m);
    CHECK(h.stall_point[1]);
    CHECK(h.hint[1].format == Format::format1);
    CHECK(h.hint[1].f1.target_offset == 0);
    for (ir::Pc pc = 2; pc < 5; ++pc) CHECK(h.chain_start[pc] == ir::no_pc);
}

TEST_CASE("predicates are registers: a guard from the load makes an instruction dependent") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                   "setp.eq.s32 %p1, %r1, 0;\n" // 1 S
                                   "@%p1 add.s32 %r3, %r4, 1;\n" // 2 guard tainted
                                   "@%p2 add.s32 %r5, %r4, 1;\n" // 3 independent guard
                                   "ret;");
    const ir::KernelHints h = hints_of(m);
    CHECK(chain(h, 1) == std::vector<unsigned>{2});
}

TEST_CASE("barriers: never hinted; independent instructions past them are, memory instructions past them are not") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                   "add.s32 %r2, %r1, 1;\n" // 1 S
                                   "ld.shared.u32 %r3, [%r4];\n" // 2 memory before the barrier: hinted
                                   "bar.sync 0;\n" // 3 never hinted
                                   "add.s32 %r5, %r6, 1;\n" // 4 independent past the barrier: hinted
                                   "ld.shared.u32 %r7, [%r4+4];\n" // 5 memory past the barrier: not hinted
                                   "add.s32 %r8, %r6, 2;\n" // 6 hinted
                                   "ret;");
    const ir::KernelHints h = hints_of(m);
    CHECK(chain(h, 1) == std::vector<unsigned>{1, 3, 5});
    CHECK(h.hint[3].format == Format::none);
    CHECK(h.hint[5].format == Format::none);
}

TEST_CASE("memory hazards: a load cannot pass a skipped aliasing store; other spaces and loads can") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                   "add.s32 %r2, %r1, 1;\n" // 1 S
                                   "st.global.u32 [%rd2], %r2;\n" // 2 dependent store: skipped
                                   "ld.global.u32 %r3, [%rd3];\n" // 3 global load after a skipped global store: no
                                   "ld.shared.u32 %r4, [%r5];\n" // 4 shared load: hinted
                                   "ld.u32 %r6, [%rd3];\n" // 5 generic load may alias the store: no
                                   "ld.param.u64 %rd4, [k_p0];\n" // 6 param: hinted
                                   "ret;");
    const ir::KernelHints h = hints_of(m);
    CHECK(chain(h, 1) == std::vector<unsigned>{3, 5});
}

TEST_CASE("memory hazards: a store cannot pass a skipped load of the same space, nor the in-flight load") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                   "add.s32 %r2, %r1, 1;\n" // 1 S
                                   "ld.shared.u32 %r3, [%r2];\n" // 2 dependent shared load: skipped
                                   "st.shared.u32 [%r5], %r6;\n" // 3 shared store after it: WAR on memory: no
                                   "st.global.u32 [%rd3], %r6;\n" // 4 global store past the in-flight global load
                                   "add.s32 %r7, %r6, 1;\n" // 5 hinted
                                   "ret;");
    CHECK(chain(hints_of(m), 1) == std::vector<unsigned>{4});
    ir::HintPassOptions o;
    o.in_flight_memory_hazards = false;
    CHECK(chain(hints_of(m, o), 1) == std::vector<unsigned>{3, 4});
}

TEST_CASE("renaming: WAR against the stall point and skipped instructions, WAW against skipped and pending writes") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                   "add.s32 %r2, %r1, %r3;\n" // 1 S reads r3
                                   "mov.u32 %r3, 5;\n" // 2 WAR with S: renamed
                                   "add.s32 %r4, %r3, 1;\n" // 3 reads the renamed r3: hinted, not renamed
                                   "add.s32 %r5, %r2, 1;\n" // 4 skipped, writes r5
                                   "mov.u32 %r5, 9;\n" // 5 WAW with 4: renamed
                                   "mov.u32 %r1, 0;\n" // 6 WAW with the pending load: renamed
                                   "mov.u32 %r6, 1;\n" // 7 nothing skipped touches r6: not renamed
                                   "ret;");
    const ir::Kernel& k = m.kernels[0];
    const ir::KernelHints h = hints_of(m);
    CHECK(chain(h, 1) == std::vector<unsigned>{1, 2, 4, 5, 6});
    const ir::RegId fresh = static_cast<ir::RegId>(k.registers.size());
    CHECK(h.hint[2].f1.rename);
    CHECK(h.hint[2].f1.dst == fresh);
    CHECK_FALSE(h.hint[3].f1.rename);
    CHECK(h.hint[3].f1.dst == reg(k, "%r4"));
    CHECK(h.hint[5].f1.rename);
    CHECK(h.hint[5].f1.dst == fresh + 1);
    CHECK(h.hint[6].f1.rename);
    CHECK(h.hint[6].f1.dst == fresh + 2);
    CHECK_FALSE(h.hint[7].f1.rename);
    CHECK(h.extra_registers == 3);
    CHECK(ir::print_hints(k, h).find("rename %r3->%haws0") != std::string::npos);

    ir::HintPassOptions no_rename;
    no_rename.rename = false;
    const ir::KernelHints hn = hints_of(m, no_rename);
    // Without renaming, mov r3 is skipped, so the add that reads r3 becomes dependent too.
    CHECK(chain(hn, 1) == std::vector<unsigned>{6});
    CHECK(hn.extra_registers == 0);
}

TEST_CASE("renaming is refused for guarded writes and multi-destination instructions") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                   "add.s32 %r2, %r1, %r3;\n" // 1 S reads r1 and r3
                                   "@%p2 mov.u32 %r3, 5;\n" // 2 guarded, WAR: skipped
                                   "setp.lt.and.s32 %p3|%p4, %r2, 1, %p1;\n" // 3 dependent anyway
                                   "add.s32 %r6, %r7, 1;\n" // 4 hinted
                                   "ret;");
    const ir::KernelHints h = hints_of(m);
    CHECK(chain(h, 1) == std::vector<unsigned>{3});
    CHECK(h.extra_registers == 0);
}

TEST_CASE("branches: an independent conditional branch gets Format 2 offsets for both paths") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                   "add.s32 %r2, %r1, 1;\n" // 1 S
                                   "setp.lt.s32 %p1, %r5, 3;\n" // 2 hinted
                                   "@%p1 bra L;\n" // 3 Format 2
                                   "add.s32 %r3, %r2, 1;\n" // 4 skipped (fall-through)
                                   "add.s32 %r4, %r5, 1;\n" // 5 hinted (fall-through)
                                   "L:\n"
                                   "add.s32 %r6, %r2, 2;\n" // 6 skipped
                                   "add.s32 %r7, %r5, 2;\n" // 7 hinted (both paths)
                                   "ret;");
    const ir::KernelHints h = hints_of(m);
    CHECK(h.hint[1].f1.target_offset == 1);
    CHECK(h.hint[2].f1.target_offset == 2);
    REQUIRE(h.hint[3].format == Format::format2);
    CHECK_FALSE(h.hint[3].f2.type); // conditional
    CHECK(h.hint[3].f2.taken_offset == 6); // pc 7
    CHECK(h.hint[3].f2.not_taken_offset == 4); // pc 5
    CHECK(h.hint[5].f1.target_offset == 6); // the paths join at pc 7
    CHECK(h.hint[7].f1.target_offset == 0);
    CHECK(h.chain_start[3] == 1);

    ir::HintPassOptions no_branches;
    no_branches.follow_branches = false;
    const ir::KernelHints hn = hints_of(m, no_branches);
    CHECK(chain(hn, 1) == std::vector<unsigned>{1});
    CHECK(hn.hint[3].format == Format::none);
}

TEST_CASE("branches: a dependent branch ends the chain; an unconditional forward branch is direct (type 1)") {
    const ir::Module dep = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                     "setp.eq.s32 %p1, %r1, 0;\n" // 1 S
                                     "add.s32 %r2, %r3, 1;\n" // 2 hinted
                                     "@%p1 bra L;\n" // 3 depends on the load: ends the chain
                                     "add.s32 %r4, %r3, 1;\n" // 4 control dependent: not hinted
                                     "L:\n"
                                     "add.s32 %r5, %r3, 1;\n"
                                     "ret;");
    const ir::KernelHints hd = hints_of(dep);
    CHECK(chain(hd, 1) == std::vector<unsigned>{1});
    CHECK(hd.hint[3].format == Format::none);
    CHECK(hd.hint[4].format == Format::none);

    const ir::Module direct = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                        "add.s32 %r2, %r1, 1;\n" // 1 S
                                        "bra.uni L;\n" // 2 direct
                                        "add.s32 %r4, %r3, 1;\n" // 3 unreachable
                                        "L:\n"
                                        "add.s32 %r5, %r3, 1;\n" // 4 hinted
                                        "ret;");
    const ir::KernelHints hb = hints_of(direct);
    REQUIRE(hb.hint[2].format == Format::format2);
    CHECK(hb.hint[2].f2.type);
    CHECK(hb.hint[2].f2.taken_offset == 3);
    CHECK(hb.hint[2].f2.not_taken_offset == 0);
    CHECK(hb.hint[3].format == Format::none);
    CHECK(hb.chain_start[4] == 1);
}

TEST_CASE("branches: a backward branch leaves the group and, with nothing after it, is not hinted") {
    const ir::Module m = module_of("LOOP:\n"
                                   "ld.global.u32 %r1, [%rd1];\n" // 0
                                   "add.s32 %r2, %r1, 1;\n" // 1 S
                                   "add.s32 %r3, %r3, 1;\n" // 2 hinted
                                   "bra.uni LOOP;\n" // 3 backward only: dropped
                                   "ret;");
    const ir::KernelHints h = hints_of(m);
    CHECK(chain(h, 1) == std::vector<unsigned>{1});
    CHECK(h.hint[3].format == Format::none);
}

TEST_CASE("the chain stops at the RCU depth (default 8) and at the chosen cap") {
    std::string body = "ld.global.u32 %r1, [%rd1];\nadd.s32 %r2, %r1, 1;\n";
    for (int i = 0; i < 10; ++i) body += "add.s32 %r" + std::to_string(10 + i) + ", %r3, " + std::to_string(i) + ";\n";
    body += "ret;";
    const ir::Module m = module_of(body);
    CHECK(chain(hints_of(m), 1) == std::vector<unsigned>{1, 2, 3, 4, 5, 6, 7, 8});
    ir::HintPassOptions o;
    o.max_chain_length = 3;
    CHECK(chain(hints_of(m, o), 1) == std::vector<unsigned>{1, 2, 3});
}

TEST_CASE("the chain stops at the 9-bit offset limit (511)") {
    // S at pc 1, then dependent instructions up to offset 510, an independent one at 511 and one at 512.
    std::string body = "ld.global.u32 %r1, [%rd1];\nadd.s32 %r2, %r1, 1;\n";
    for (int i = 1; i < 511; ++i) body += "add.s32 %r2, %r2, 1;\n";
    body += "add.s32 %r4, %r3, 1;\n"; // offset 511
    body += "add.s32 %r5, %r3, 1;\n"; // offset 512
    body += "ret;";
    const ir::Module m = module_of(body);
    const ir::KernelHints h = hints_of(m);
    CHECK(chain(h, 1) == std::vector<unsigned>{511});
    CHECK(h.hint[1 + 512].format == Format::none);
    ir::HintPassOptions o;
    o.max_offset = 100;
    CHECK(chain(hints_of(m, o), 1).empty());
    o.max_offset = 0;
    CHECK_THROWS_AS(hints_of(m, o), Error);
}

TEST_CASE("the hint group ends at the next stall point") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                   "ld.global.u32 %r2, [%rd2];\n" // 1
                                   "add.s32 %r3, %r1, 1;\n" // 2 S1
                                   "add.s32 %r4, %r5, 1;\n" // 3 hinted for S1
                                   "add.s32 %r6, %r2, 1;\n" // 4 S2 (r2 still pending)
                                   "add.s32 %r7, %r5, 1;\n" // 5 hinted for S2, not S1
                                   "ret;");
    const ir::KernelHints h = hints_of(m);
    CHECK(h.stall_point[2]);
    CHECK(h.stall_point[4]);
    CHECK(chain(h, 2) == std::vector<unsigned>{1});
    CHECK(chain(h, 4) == std::vector<unsigned>{1});
    CHECK(h.chain_start[5] == 4);
}

TEST_CASE("the carry flag is a dependence: addc after a skipped add.cc is dependent") {
    const ir::Module m = module_of("ld.global.u32 %r1, [%rd1];\n" // 0
                                   "add.cc.u32 %r2, %r1, 1;\n" // 1 S writes the carry
                                   "addc.u32 %r3, %r4, 0;\n" // 2 reads the skipped carry
                                   "add.cc.u32 %r5, %r4, 1;\n" // 3 would overwrite a carry a skipped one wrote
                                   "add.u32 %r6, %r4, 1;\n" // 4 hinted
                                   "ret;");
    CHECK(chain(hints_of(m), 1) == std::vector<unsigned>{3});
}
