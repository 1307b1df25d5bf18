// SIMT execution: divergence and reconvergence on the post-dominator stack with exact active masks per step,
// early exit, loops with breaks, wide warps, and what StepResult reports to a timing model.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ptx_harness.hpp"

using namespace gpuarch;
using namespace gpuarch::func;

namespace {

struct TraceStep {
    ir::Pc pc;
    std::uint64_t active; // lanes 0..63
    bool operator==(const TraceStep&) const = default;
};

struct Traced {
    std::vector<TraceStep> steps;
    std::vector<std::uint32_t> out;
    Module module;
    std::uint64_t warp_instructions = 0, thread_instructions = 0;
    std::size_t max_stack_depth = 0;

    ir::Pc label(const std::string& name) const {
        for (const auto& [n, pc] : module.kernel("k").labels)
            if (n == name) return pc;
        FAIL("no label " << name);
        return ir::no_pc;
    }
};

// Runs one CTA of `threads` threads, stepping warp 0 to completion (then the others), recording warp 0's steps.
Traced trace(const std::string& body, unsigned threads, unsigned width = 32) {
    Device device;
    Traced t{{}, {}, Module::from_string(test::wrap_body(body), "simt.ptx")};
    const DevPtr out = device.malloc(threads * 4);
    const DevPtr in = device.malloc(4);
    KernelExecution ex(device, t.module, "k", LaunchConfig{Dim3{1, 1, 1}, Dim3{threads, 1, 1}, 0}, Args(out, in),
                       LaunchOptions{width});
    CtaState cta = ex.start_cta(0);
    StepResult step(width);
    while (!cta.warp_finished(0)) {
        ex.step(cta, 0, step);
        t.steps.push_back({step.pc, step.active.word(0)});
        t.max_stack_depth = std::max(t.max_stack_depth, cta.warps[0].stack.size());
        REQUIRE(t.steps.size() < 10000);
    }
    for (unsigned w = 1; w < cta.warp_count(); ++w)
        while (!cta.warp_finished(w)) ex.step(cta, w);
    t.out = device.download<std::uint32_t>(out, threads);
    t.warp_instructions = ex.warp_instructions();
    t.thread_instructions = ex.thread_instructions();
    return t;
}

constexpr std::uint64_t all32 = 0xffffffffULL;
constexpr std::uint64_t even32 = 0x55555555ULL;
constexpr std::uint64_t odd32 = 0xaaaaaaaaULL;

const char* if_else = R"(
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra EVEN;
    mov.u32 %r3, 100;
    bra JOIN;
EVEN:
    mov.u32 %r3, 200;
JOIN:
    mul.wide.u32 %rd1, %r1, 4;
    add.s64 %rd2, %rd62, %rd1;
    st.global.u32 [%rd2], %r3;
)";

} // namespace

TEST_CASE("if/else: the taken path runs first with its lanes, then the fall-through, then all lanes reconverge") {
    const Traced t = trace(if_else, 32);
    const ir::Pc even = t.label("EVEN"), join = t.label("JOIN"), branch = even - 3;
    std::vector<TraceStep> expected;
    for (ir::Pc pc = 0; pc <= branch; ++pc) expected.push_back({pc, all32});
    expected.push_back({even, even32}); // taken path
    expected.push_back({branch + 1, odd32}); // fall-through path
    expected.push_back({branch + 2, odd32}); // its `bra JOIN`
    for (ir::Pc pc = join; pc <= join + 3; ++pc) expected.push_back({pc, all32}); // reconverged, then ret
    CHECK(t.steps == expected);
    for (unsigned i = 0; i < 32; ++i) CHECK(t.out[i] == (i % 2 == 0 ? 200U : 100U));
    CHECK(t.warp_instructions == expected.size());
    // Thread instructions count the lanes whose guard holds: 11 full-warp steps, and 4 half-warp ones (the
    // guarded branch, taken by the even lanes only, and the three steps of the two paths).
    CHECK(t.thread_instructions == 11 * 32 + 4 * 16);
}

TEST_CASE("nested branches reconverge innermost first and each region runs with exactly its lanes") {
    const Traced t = trace(R"(
        mov.u32 %r1, %tid.x;
        mov.u32 %r3, 0;
        setp.lt.u32 %p1, %r1, 16;
        @!%p1 bra OUTER_END;
        setp.lt.u32 %p2, %r1, 8;
        @!%p2 bra INNER_END;
    INNER:
        add.u32 %r3, %r3, 1;
    INNER_END:
        add.u32 %r3, %r3, 10;
    OUTER_END:
        add.u32 %r3, %r3, 100;
        mul.wide.u32 %rd1, %r1, 4;
        add.s64 %rd2, %rd62, %rd1;
        st.global.u32 [%rd2], %r3;
    )",
                           32);
    auto mask_at = [&](ir::Pc pc) {
        std::vector<std::uint64_t> masks;
        for (const TraceStep& s : t.steps)
            if (s.pc == pc) masks.push_back(s.active);
        return masks;
    };
    CHECK(mask_at(t.label("INNER")) == std::vector<std::uint64_t>{0xffULL});
    CHECK(mask_at(t.label("INNER_END")) == std::vector<std::uint64_t>{0xffffULL});
    CHECK(mask_at(t.label("OUTER_END")) == std::vector<std::uint64_t>{all32});
    for (unsigned i = 0; i < 32; ++i) CHECK(t.out[i] == (i < 8 ? 111U : i < 16 ? 110U : 100U));
}

TEST_CASE("a loop with a per-lane break keeps iterating the remaining lanes and reconverges once after the loop") {
    const Traced t = trace(R"(
        mov.u32 %r1, %tid.x;
        mov.u32 %r3, 0;
        mov.u32 %r4, 0;
    LOOP:
        add.u32 %r3, %r3, %r1;
        add.u32 %r4, %r4, 1;
        setp.ge.u32 %p1, %r4, %r1;
        @%p1 bra DONE;
        setp.lt.u32 %p2, %r4, 100;
        @%p2 bra LOOP;
    DONE:
        mul.wide.u32 %rd1, %r1, 4;
        add.s64 %rd2, %rd62, %rd1;
        st.global.u32 [%rd2], %r3;
    )",
                           32);
    for (unsigned i = 0; i < 32; ++i) CHECK(t.out[i] == i * (i == 0 ? 1 : i));
    std::vector<std::uint64_t> at_done, at_loop;
    for (const TraceStep& s : t.steps) {
        if (s.pc == t.label("DONE")) at_done.push_back(s.active);
        if (s.pc == t.label("LOOP")) at_loop.push_back(s.active);
    }
    CHECK(at_done == std::vector<std::uint64_t>{all32});
    // Iteration k (1-based) runs the lanes that have not broken yet: lanes with tid > k - 1, plus lane 0 on the
    // first iteration (it needs one iteration to see 1 >= 0).
    REQUIRE(at_loop.size() == 31);
    CHECK(at_loop[0] == all32);
    CHECK(at_loop[1] == (all32 & ~0x3ULL));
    CHECK(at_loop[30] == 0x80000000ULL);
    CHECK(t.max_stack_depth <= 3); // the loop's divergent exits do not pile up entries
}

TEST_CASE("lanes that exit early leave the warp; the rest continue and the warp finishes with its last lanes") {
    Device device;
    const Module module = Module::from_string(test::wrap_body(R"(
        mov.u32 %r1, %tid.x;
        setp.ge.u32 %p1, %r1, 20;
        @%p1 ret;
        setp.lt.u32 %p2, %r1, 4;
        @%p2 bra SKIP;
        exit;
    SKIP:
        mul.wide.u32 %rd1, %r1, 4;
        add.s64 %rd2, %rd62, %rd1;
        st.global.u32 [%rd2], 7;
    )"),
                                              "exit.ptx");
    const DevPtr out = device.malloc(32 * 4);
    KernelExecution ex(device, module, "k", LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0}, Args(out, out));
    CtaState cta = ex.start_cta(0);
    StepResult step(32);
    std::vector<std::uint64_t> store_masks;
    bool finished_flag = false;
    while (!cta.warp_finished(0)) {
        ex.step(cta, 0, step);
        if (step.is_store) store_masks.push_back(step.executed.word(0));
        finished_flag = step.warp_finished;
    }
    CHECK(finished_flag);
    CHECK(cta.finished());
    CHECK(store_masks == std::vector<std::uint64_t>{0xfULL});
    const auto values = device.download<std::uint32_t>(out, 32);
    for (unsigned i = 0; i < 32; ++i) CHECK(values[i] == (i < 4 ? 7U : 0U));
}

TEST_CASE("a 64-lane warp diverges and reconverges across both 32-lane halves") {
    const Traced t = trace(if_else, 64, 64);
    const ir::Pc even = t.label("EVEN");
    bool saw_even = false;
    for (const TraceStep& s : t.steps)
        if (s.pc == even) {
            CHECK(s.active == 0x5555555555555555ULL);
            saw_even = true;
        }
    CHECK(saw_even);
    for (unsigned i = 0; i < 64; ++i) CHECK(t.out[i] == (i % 2 == 0 ? 200U : 100U));
}

TEST_CASE("a partial last warp only ever activates its launched lanes") {
    const Traced t = trace(if_else, 40); // warp 1 holds 8 threads
    for (unsigned i = 0; i < 40; ++i) CHECK(t.out[i] == (i % 2 == 0 ? 200U : 100U));
    Device device;
    const Module module = Module::from_string(test::wrap_body(if_else), "partial.ptx");
    const DevPtr out = device.malloc(40 * 4);
    KernelExecution ex(device, module, "k", LaunchConfig{Dim3{1, 1, 1}, Dim3{40, 1, 1}, 0}, Args(out, out));
    CtaState cta = ex.start_cta(0);
    StepResult step(32);
    ex.step(cta, 1, step);
    CHECK(step.active.word(0) == 0xffULL);
}

TEST_CASE("StepResult reports the branch outcome, per-lane addresses and spaces, and destination values") {
    Device device;
    const Module module = Module::from_string(test::wrap_body(R"(
        .shared .align 4 .b8 buffer[256];
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd1, %r1, 8;
        add.s64 %rd2, %rd63, %rd1;
        ld.global.u32 %r2, [%rd2];
        mov.u64 %rd3, buffer;
        cvta.shared.u64 %rd4, %rd3;
        mul.wide.u32 %rd5, %r1, 4;
        add.s64 %rd6, %rd4, %rd5;
        st.u32 [%rd6], %r2;
        setp.lt.u32 %p1, %r1, 3;
        @%p1 bra END;
        add.u32 %r3, %r1, 1000;
    END:
    )"),
                                              "step.ptx");
    const DevPtr out = device.malloc(4);
    std::vector<std::uint32_t> input(64);
    for (unsigned i = 0; i < 64; ++i) input[i] = 10 * i;
    const DevPtr in = device.upload(std::span<const std::uint32_t>(input));
    KernelExecution ex(device, module, "k", LaunchConfig{Dim3{1, 1, 1}, Dim3{8, 1, 1}, 0}, Args(out, in));
    CtaState cta = ex.start_cta(0);
    StepResult step(32);
    bool saw_load = false, saw_store = false, saw_branch = false, saw_add = false;
    while (!cta.warp_finished(0)) {
        ex.step(cta, 0, step);
        const ir::Opcode op = step.instruction->op;
        if (op == ir::Opcode::ld && step.instruction->space == ir::StateSpace::global) {
            saw_load = true;
            CHECK(step.is_load);
            CHECK(step.access_bytes == 4);
            for (unsigned l = 0; l < 8; ++l) {
                CHECK(step.addresses[l] == in + 8 * l);
                CHECK(step.lane_spaces[l] == ir::StateSpace::global);
                CHECK(step.values[l] == 10 * 2 * l);
            }
        }
        if (op == ir::Opcode::st) {
            saw_store = true;
            CHECK(step.space == ir::StateSpace::generic);
            for (unsigned l = 0; l < 8; ++l) {
                CHECK(step.lane_spaces[l] == ir::StateSpace::shared);
                CHECK(step.addresses[l] == 4 * l);
            }
        }
        if (op == ir::Opcode::bra) {
            saw_branch = true;
            CHECK(step.is_branch);
            CHECK(step.diverged);
            CHECK(step.taken.word(0) == 0x7ULL);
            CHECK(step.reconvergence_pc == step.pc + 2);
            CHECK(step.next_pc == step.pc + 1); // taken lanes wait at the join point; the others run on
        }
        if (op == ir::Opcode::add && step.instruction->type == ir::ScalarType::u32) {
            saw_add = true;
            CHECK(step.active.word(0) == 0xf8ULL);
            CHECK(step.has_value);
            for (unsigned l = 3; l < 8; ++l) CHECK(step.values[l] == 1000 + l);
        }
    }
    CHECK((saw_load && saw_store && saw_branch && saw_add));
}

// A caller whose timing models never read result values turns their recording off: the step then reports no value
// and leaves the values as they were, and everything else it reports is the same.
TEST_CASE("a step with record_values off reports no result value and the same everything else") {
    Device device;
    const Module module = Module::from_string(test::wrap_body(R"(
        add.s32 %r1, 0, 5;
        add.s32 %r2, %r1, 7;
        ld.global.u32 %r3, [%rd63];
    )"),
                                              "no_values.ptx");
    const std::vector<std::uint32_t> input{41};
    const DevPtr in = device.upload(input);
    KernelExecution with(device, module, "k", LaunchConfig{}, Args(in, in));
    KernelExecution without(device, module, "k", LaunchConfig{}, Args(in, in));
    CtaState cta_with = with.start_cta(0), cta_without = without.start_cta(0);
    StepResult recorded(32), unrecorded(32);
    unrecorded.record_values = false;
    std::fill(unrecorded.values.begin(), unrecorded.values.end(), 0x5a5aULL);
    unsigned steps = 0, valued = 0;
    while (!cta_with.warp_finished(0)) {
        REQUIRE_FALSE(cta_without.warp_finished(0));
        with.step(cta_with, 0, recorded);
        without.step(cta_without, 0, unrecorded);
        ++steps;
        valued += recorded.has_value ? 1U : 0U;
        CHECK_FALSE(unrecorded.has_value);
        CHECK(unrecorded.value_reg == ir::no_reg);
        CHECK(std::all_of(unrecorded.values.begin(), unrecorded.values.end(), [](auto v) { return v == 0x5a5aULL; }));
        CHECK(unrecorded.pc == recorded.pc);
        CHECK(unrecorded.next_pc == recorded.next_pc);
        CHECK(unrecorded.executed == recorded.executed);
        CHECK(unrecorded.is_load == recorded.is_load);
        CHECK(unrecorded.addresses == recorded.addresses);
    }
    CHECK(cta_without.warp_finished(0));
    CHECK(steps > 3);
    CHECK(valued >= 3); // the two adds and the load had values to record
}

TEST_CASE(
    "StepResult values are zero-extended from the destination type, and a vector load reports its first element") {
    Device device;
    const Module module = Module::from_string(test::wrap_body(R"(
        setp.eq.u32 %p1, 0, 0;
        selp.s32 %r1, -1, 0, %p1;
        add.s32 %r2, 0, -2;
        ld.global.v2.u32 {%r3, %r4}, [%rd63];
    )"),
                                              "values.ptx");
    const std::vector<std::uint32_t> input{0xdeadbeef, 7};
    const DevPtr in = device.upload(input);
    KernelExecution ex(device, module, "k", LaunchConfig{}, Args(in, in));
    CtaState cta = ex.start_cta(0);
    StepResult step(32);
    std::vector<std::uint64_t> values;
    while (!cta.warp_finished(0)) {
        ex.step(cta, 0, step);
        if (step.has_value) values.push_back(step.values[0]);
    }
    // ld.param, cvta, ld.param, cvta, setp, selp, add, ld.v2
    REQUIRE(values.size() == 8);
    CHECK(values[4] == 1);
    CHECK(values[5] == 0xffffffffULL);
    CHECK(values[6] == 0xfffffffeULL);
    CHECK(values[7] == 0xdeadbeefULL);
}

TEST_CASE("a CTA's state reused by a launch of narrower warps executes no lane at or above the new width") {
    // The lanes a guarded step executes are kept in the CtaState between steps (only the words below the warp
    // width are written); start_cta must clear what a launch of wider warps left in the words above.
    Device device;
    const Module module = Module::from_string(test::wrap_body(R"(
        mov.u32 %r1, %tid.x;
        setp.lt.u32 %p1, %r1, 1000;
        @%p1 add.u32 %r2, %r1, 1;
    )"),
                                              "guarded.ptx");
    const DevPtr out = device.malloc(4);
    auto step_to_guarded = [](KernelExecution& ex, CtaState& cta, StepResult& step) {
        do ex.step(cta, 0, step);
        while (step.instruction->guard.reg == ir::no_reg);
    };
    KernelExecution wide(device, module, "k", LaunchConfig{Dim3{1, 1, 1}, Dim3{128, 1, 1}, 0}, Args(out, out),
                         LaunchOptions{128});
    CtaState cta = wide.start_cta(0);
    StepResult step(128);
    step_to_guarded(wide, cta, step);
    REQUIRE(step.executed.popcount() == 128);
    KernelExecution narrow(device, module, "k", LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0}, Args(out, out));
    narrow.start_cta(cta, 0);
    step_to_guarded(narrow, cta, step);
    CHECK(step.executed.popcount() == 32);
    CHECK(step.executed == core::WarpMask::first(32));
}
