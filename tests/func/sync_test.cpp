// CTA barriers (bar.sync, bar.arrive, bar.red, exited warps, deadlock), atomics on global and shared memory, and
// the warp-level intrinsics (shfl, vote, match, activemask, %laneid, %lanemask) on 32- and 64-lane warps.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "ptx_harness.hpp"

using namespace gpuarch;
using namespace gpuarch::func;

namespace {

LaunchConfig block(unsigned threads, unsigned ctas = 1) { return {Dim3{ctas, 1, 1}, Dim3{threads, 1, 1}, 0}; }

const char* exchange_through_shared = R"(
    .shared .align 4 .b8 sh[256];
    mov.u32 %r1, %tid.x;
    mov.u32 %r10, sh;
    shl.b32 %r2, %r1, 2;
    add.u32 %r3, %r10, %r2;
    add.u32 %r4, %r1, 1000;
    st.shared.u32 [%r3], %r4;
    bar.sync 0;
    sub.u32 %r5, 63, %r1;
    shl.b32 %r6, %r5, 2;
    add.u32 %r7, %r10, %r6;
    ld.shared.u32 %r8, [%r7];
    mul.wide.u32 %rd1, %r1, 4;
    add.s64 %rd2, %rd62, %rd1;
    st.global.u32 [%rd2], %r8;
)";

} // namespace

TEST_CASE("bar.sync makes every warp's shared-memory writes visible to the CTA before any warp continues") {
    for (unsigned width : {32U, 64U}) {
        INFO("warp width " << width);
        const auto r = test::run_body(exchange_through_shared, 64 * 4, {}, block(64), LaunchOptions{width});
        for (unsigned t = 0; t < 64; ++t) CHECK(r.u32(t) == 1000 + 63 - t);
    }
}

TEST_CASE("a warp at bar.sync waits until the last warp arrives, which releases all of them") {
    Device device;
    const Module module = Module::from_string(test::wrap_body(exchange_through_shared), "bar.ptx");
    const DevPtr out = device.malloc(64 * 4);
    KernelExecution ex(device, module, "k", block(64), Args(out, out));
    CtaState cta = ex.start_cta(0);
    StepResult step(32);
    do ex.step(cta, 0, step);
    while (!step.barrier_wait);
    CHECK_FALSE(step.barrier_released);
    CHECK_FALSE(cta.warp_ready(0));
    CHECK(cta.warp_waiting(0));
    CHECK(cta.next_pc(0) == step.pc + 1);
    do ex.step(cta, 1, step);
    while (!step.barrier_released);
    CHECK(cta.warp_ready(0));
    CHECK(cta.warp_ready(1));
    CHECK_FALSE(step.barrier_wait);
}

TEST_CASE("run_steps executes what repeated steps do, stopping at a barrier, at the warp's end or after max_steps") {
    // Two launches on two devices allocated alike, so that even the registers holding addresses must agree.
    Device device_stepped, device_run;
    const Module module = Module::from_string(test::wrap_body(exchange_through_shared), "run_steps.ptx");
    const DevPtr out_stepped = device_stepped.malloc(64 * 4), out_run = device_run.malloc(64 * 4);
    REQUIRE(out_stepped == out_run);
    KernelExecution stepped(device_stepped, module, "k", block(64), Args(out_stepped, out_stepped));
    KernelExecution run(device_run, module, "k", block(64), Args(out_run, out_run));
    CtaState a = stepped.start_cta(0), b = run.start_cta(0);
    auto step_while_ready = [&](unsigned warp) {
        unsigned steps = 0;
        for (; a.warp_ready(warp); ++steps) stepped.step(a, warp);
        return steps;
    };
    // Warp 0 runs up to the barrier and waits there.
    const unsigned to_barrier = step_while_ready(0);
    REQUIRE(a.warp_waiting(0));
    CHECK(run.run_steps(b, 0, 1000) == to_barrier);
    CHECK(b.warp_waiting(0));
    CHECK(b.next_pc(0) == a.next_pc(0));
    // Warp 1 stops after max_steps; then it arrives, which releases warp 0, and goes on to its end.
    CHECK(run.run_steps(b, 1, 3) == 3);
    for (int i = 0; i < 3; ++i) stepped.step(a, 1);
    CHECK(b.next_pc(1) == a.next_pc(1));
    CHECK(run.run_steps(b, 1, 1000) == step_while_ready(1));
    CHECK(b.warp_finished(1));
    REQUIRE(b.warp_ready(0));
    CHECK(run.run_steps(b, 0, 1000) == step_while_ready(0));
    CHECK(b.finished());
    for (unsigned warp : {0U, 1U}) CHECK(b.warps[warp].regs == a.warps[warp].regs);
    CHECK(run.warp_instructions() == stepped.warp_instructions());
    CHECK(run.thread_instructions() == stepped.thread_instructions());
    CHECK(device_run.download<std::uint32_t>(out_run, 64) == device_stepped.download<std::uint32_t>(out_stepped, 64));
    CHECK_THROWS_AS(run.run_steps(b, 0, 1), gpuarch::Error); // the warp has finished
}

// Lanes loop tid % 5 times (divergent exits, so a run of straight-line code reaches a reconvergence point in its
// middle), with guarded arithmetic and loads, a %clock read (which sees the warp's step count) and a lane that exits
// early; the warp ends at a reconvergence point reached inside such a run.
const char* divergent_straight_line = R"(
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 5;
    mov.u32 %r3, 0;
    mov.u32 %r4, 7;
    setp.eq.u32 %p3, %r1, 9;
    @%p3 exit;
LOOP:
    setp.ge.u32 %p1, %r3, %r2;
    @%p1 bra DONE;
    and.b32 %r5, %r3, 1;
    setp.eq.u32 %p2, %r5, 0;
    @%p2 add.u32 %r4, %r4, %r3;
    @!%p2 mul.lo.u32 %r4, %r4, 3;
    mul.wide.u32 %rd1, %r3, 4;
    add.s64 %rd2, %rd63, %rd1;
    @%p2 ld.global.u32 %r6, [%rd2];
    add.u32 %r4, %r4, %r6;
    add.u32 %r3, %r3, 1;
    bra LOOP;
DONE:
    mov.u32 %r7, %clock;
    add.u32 %r4, %r4, %r7;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd62, %rd3;
    st.global.u32 [%rd4], %r4;
)";

TEST_CASE("run_steps runs straight-line code through divergence, reconvergence, guards and the instruction limit as "
          "steps do") {
    const Module module = Module::from_string(test::wrap_body(divergent_straight_line), "straight_line.ptx");
    for (unsigned max_steps : {1U, 2U, 3U, 7U, 1000U}) {
        INFO("max_steps " << max_steps);
        Device device_stepped, device_run;
        std::vector<std::uint32_t> in(8);
        std::iota(in.begin(), in.end(), 100U);
        const DevPtr out_stepped = device_stepped.malloc(32 * 4), out_run = device_run.malloc(32 * 4);
        const DevPtr in_stepped = device_stepped.upload(in), in_run = device_run.upload(in);
        REQUIRE(out_stepped == out_run);
        REQUIRE(in_stepped == in_run);
        KernelExecution stepped(device_stepped, module, "k", block(32), Args(out_stepped, in_stepped));
        KernelExecution run(device_run, module, "k", block(32), Args(out_run, in_run));
        CtaState a = stepped.start_cta(0), b = run.start_cta(0);
        while (b.warp_ready(0)) {
            const unsigned n = run.run_steps(b, 0, max_steps);
            CHECK(n >= 1);
            CHECK(n <= max_steps);
            for (unsigned i = 0; i < n; ++i) stepped.step(a, 0);
            REQUIRE(b.next_pc(0) == a.next_pc(0)); // the same point after every turn, not only at the end
            CHECK(b.warps[0].regs == a.warps[0].regs);
            CHECK(b.warps[0].clock == a.warps[0].clock);
        }
        CHECK(a.finished());
        CHECK(run.warp_instructions() == stepped.warp_instructions());
        CHECK(run.thread_instructions() == stepped.thread_instructions());
        const auto out = device_run.download<std::uint32_t>(out_run, 32);
        CHECK(out == device_stepped.download<std::uint32_t>(out_stepped, 32));
        CHECK(out[9] == 0); // lane 9 exited before its store
        CHECK(out[1] != 0);
    }
    // The instruction limit stops a run at the same instruction as it stops steps, wherever in a run it falls.
    for (std::uint64_t limit : {1U, 6U, 9U, 20U, 41U}) {
        INFO("instruction limit " << limit);
        LaunchOptions options;
        options.instruction_limit = limit;
        auto stop = [&](bool use_run_steps) {
            Device device;
            const DevPtr out = device.malloc(32 * 4), in = device.malloc(8 * 4);
            KernelExecution ex(device, module, "k", block(32), Args(out, in), options);
            CtaState cta = ex.start_cta(0);
            try {
                while (cta.warp_ready(0)) {
                    if (use_run_steps) ex.run_steps(cta, 0, 1000);
                    else ex.step(cta, 0);
                }
            } catch (const KernelError& e) {
                CHECK(e.kind() == KernelErrorKind::limit);
                return std::pair{ex.warp_instructions(), cta.next_pc(0)};
            }
            FAIL("the launch ran past its instruction limit");
            return std::pair{std::uint64_t{0}, ir::Pc{0}};
        };
        const auto stepped = stop(false), run = stop(true);
        CHECK(stepped.first == limit);
        CHECK(run == stepped);
    }
}

// A branch taken by every executing lane, by none, by one lane at either end, by all but one, by alternate lanes and
// by an unguarded bra: run_steps decides the uniform outcomes of a warp of at most 64 lanes from the masks' first
// word (KernelExecution::step_body), wider warps and divergent outcomes on the SIMT stack. Each round's taken lanes
// add 5, the others multiply by 3 and add 1, so every lane's result records which side it took in every round.
TEST_CASE("branches taken by all, none, one, all but one and alternate lanes go where steps go, on every width") {
    std::string body = R"(
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd1, %r1, 4;
        add.s64 %rd2, %rd63, %rd1;
        ld.global.u32 %r2, [%rd2];
        mov.u32 %r4, 1;
    )";
    constexpr unsigned rounds = 7;
    for (unsigned k = 0; k < rounds; ++k) {
        const std::string n = std::to_string(k);
        body += "  and.b32 %r5, %r2, 1;\n  setp.ne.u32 %p1, %r5, 0;\n  @%p1 bra T" + n +
                ";\n  mad.lo.u32 %r4, %r4, 3, 1;\n  bra J" + n + ";\nT" + n + ":\n  add.u32 %r4, %r4, 5;\nJ" + n +
                ":\n  shr.u32 %r2, %r2, 1;\n";
    }
    body += "  bra END;\n  mov.u32 %r4, 0;\nEND:\n  add.s64 %rd3, %rd62, %rd1;\n  st.global.u32 [%rd3], %r4;\n";
    const Module module = Module::from_string(test::wrap_body(body), "branch_outcomes.ptx");
    for (const unsigned width : {32U, 64U, 128U}) {
        CAPTURE(width);
        const unsigned threads = 2 * width; // two warps
        // Bit k of a lane's word: whether it takes round k's branch, per warp lane `l` of `width`.
        std::vector<std::uint32_t> in(threads);
        for (unsigned t = 0; t < threads; ++t) {
            const unsigned l = t % width;
            const bool taken[rounds] = {true, false, l == 0, l == width - 1, l != 5, l % 2 == 1, l < width / 2};
            for (unsigned k = 0; k < rounds; ++k) in[t] |= (taken[k] ? 1U : 0U) << k;
        }
        std::vector<std::uint32_t> want(threads);
        for (unsigned t = 0; t < threads; ++t) {
            std::uint32_t v = 1;
            for (unsigned k = 0; k < rounds; ++k) v = (in[t] >> k & 1) != 0 ? v + 5 : v * 3 + 1;
            want[t] = v;
        }
        LaunchOptions options;
        options.warp_width = width;
        auto outputs = [&](bool use_run_steps) {
            Device device;
            const DevPtr out = device.malloc(threads * 4), in_mem = device.upload(in);
            KernelExecution ex(device, module, "k", block(threads), Args(out, in_mem), options);
            CtaState cta = ex.start_cta(0);
            for (unsigned w = 0; w < cta.warps.size(); ++w)
                while (cta.warp_ready(w)) {
                    if (use_run_steps) ex.run_steps(cta, w, 1000);
                    else ex.step(cta, w);
                }
            CHECK(cta.finished());
            return std::pair{device.download<std::uint32_t>(out, threads), ex.thread_instructions()};
        };
        const auto [run, run_lanes] = outputs(true);
        const auto [stepped, stepped_lanes] = outputs(false);
        CHECK(run == want);
        CHECK(stepped == want);
        CHECK(run_lanes == stepped_lanes);
    }
}

TEST_CASE("warps that exited do not hold a barrier back") {
    const auto r = test::run_body(R"(
        mov.u32 %r1, %tid.x;
        setp.ge.u32 %p1, %r1, 32;
        @%p1 ret;
        bar.sync 0;
        mul.wide.u32 %rd1, %r1, 4;
        add.s64 %rd2, %rd62, %rd1;
        st.global.u32 [%rd2], 1;
    )",
                                  64 * 4, {}, block(64));
    for (unsigned t = 0; t < 64; ++t) CHECK(r.u32(t) == (t < 32 ? 1U : 0U));
}

TEST_CASE("threads that exit inside an if leave the rest of the warp to reach the barrier together") {
    // Found by the differential fuzzer (docs/differential_fuzzing.md): even threads take the else side, where all
    // but thread 0 exit; the odd threads and thread 0 count themselves in shared memory before bar.sync. The warp
    // reconverges after the if, so thread 0 reads every count, 32 + 1, at either warp width (before the fix: 17 on
    // 32-lane warps, 1 on a 64-lane warp, which reached the barrier diverged).
    for (const std::uint32_t width : {32U, 64U}) {
        func::LaunchOptions options;
        options.warp_width = width;
        const auto r = test::run_body(R"(
            mov.u32 %r1, %tid.x;
            and.b32 %r2, %r1, 1;
            setp.ne.u32 %p2, %r2, 0;
            setp.eq.u32 %p3, %r1, 0;
            @!%p2 bra ELSE;
            bra ENDIF;
        ELSE:
            @!%p3 exit;
        ENDIF:
            mov.u32 %r3, counter;
            red.shared.add.u32 [%r3], 1;
            bar.sync 0;
            @!%p3 bra DONE;
            ld.shared.u32 %r4, [%r3];
            st.global.u32 [%rd62], %r4;
        DONE:
        )",
                                      4, {}, block(64), options, ".shared .align 4 .b32 counter;\n");
        INFO("warp width " << width);
        CHECK(r.u32(0) == 33);
    }
}

TEST_CASE("bar.red reduces a predicate over the whole CTA: popc counts, and/or combine") {
    const auto r = test::run_body(R"(
        mov.u32 %r1, %tid.x;
        and.b32 %r2, %r1, 3;
        setp.eq.u32 %p1, %r2, 0;
        bar.red.popc.u32 %r3, 0, %p1;
        setp.lt.u32 %p2, %r1, 1000;
        bar.red.and.pred %p3, 0, %p2;
        setp.eq.u32 %p4, %r1, 5;
        bar.red.or.pred %p5, 0, %p4;
        bar.red.and.pred %p6, 0, %p4;
        selp.u32 %r4, 1, 0, %p3;
        selp.u32 %r5, 1, 0, %p5;
        selp.u32 %r6, 1, 0, %p6;
        mul.wide.u32 %rd1, %r1, 16;
        add.s64 %rd2, %rd62, %rd1;
        st.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};
    )",
                                  96 * 16, {}, block(96));
    for (unsigned t = 0; t < 96; ++t) {
        CHECK(r.u32(4 * t) == 24);
        CHECK(r.u32(4 * t + 1) == 1);
        CHECK(r.u32(4 * t + 2) == 1);
        CHECK(r.u32(4 * t + 3) == 0);
    }
}

TEST_CASE("a named barrier with a thread count pairs a producer's bar.arrive with a consumer's bar.sync") {
    const auto r = test::run_body(R"(
        .shared .align 4 .b8 sh[128];
        mov.u32 %r1, %tid.x;
        mov.u32 %r10, sh;
        setp.lt.u32 %p1, %r1, 32;
        @%p1 bra CONSUMER;
        sub.u32 %r2, %r1, 32;
        shl.b32 %r3, %r2, 2;
        add.u32 %r4, %r10, %r3;
        shl.b32 %r5, %r1, 1;
        st.shared.u32 [%r4], %r5;
        bar.arrive 1, 64;
        bra END;
    CONSUMER:
        bar.sync 1, 64;
        shl.b32 %r6, %r1, 2;
        add.u32 %r7, %r10, %r6;
        ld.shared.u32 %r8, [%r7];
        mul.wide.u32 %rd1, %r1, 4;
        add.s64 %rd2, %rd62, %rd1;
        st.global.u32 [%rd2], %r8;
    END:
    )",
                                  32 * 4, {}, block(64));
    for (unsigned t = 0; t < 32; ++t) CHECK(r.u32(t) == 2 * (t + 32));
}

TEST_CASE("warps waiting at different barriers are reported as a deadlock") {
    try {
        test::run_body(R"(
            mov.u32 %r1, %tid.x;
            setp.lt.u32 %p1, %r1, 32;
            @%p1 bra A;
            bar.sync 1;
            bra E;
        A:
            bar.sync 2;
        E:
        )",
                       4, {}, block(64));
        FAIL("expected a deadlock error");
    } catch (const KernelError& e) {
        const std::string what = e.what();
        CHECK(what.find("barrier deadlock") != std::string::npos);
        CHECK(what.find("kernel 'k'") != std::string::npos);
        CHECK(what.find("barrier 1") != std::string::npos);
        CHECK(what.find("barrier 2") != std::string::npos);
    }
}

TEST_CASE("atomics apply every operation once per lane and return the previous value") {
    std::vector<std::uint32_t> init(16, 0);
    init[2] = 0x80000000U; // max.s32 start
    init[3] = 0x7fffffffU; // min.s32 start
    init[6] = 0xffffffffU; // and start
    const auto r = test::run_body(R"(
        .shared .align 4 .b8 counter[8];
        mov.u32 %r1, %tid.x;
        mov.u32 %r20, %ctaid.x;
        mov.u32 %r21, %ntid.x;
        mad.lo.s32 %r22, %r20, %r21, %r1;         // global thread id
        and.b32 %r23, %r22, 31;
        shl.b32 %r24, 1, %r23;
        not.b32 %r25, %r24;
        sub.s32 %r26, %r1, 64;
        neg.s32 %r27, %r26;
        add.u32 %r28, %r22, 1;
        atom.global.add.u32 %r2, [%rd63], 1;
        atom.global.inc.u32 %r3, [%rd63+4], 9;
        atom.global.max.s32 %r4, [%rd63+8], %r26;
        atom.global.min.s32 %r5, [%rd63+12], %r27;
        atom.global.cas.b32 %r6, [%rd63+16], 0, %r28;
        atom.global.exch.b32 %r7, [%rd63+20], %r22;
        atom.global.and.b32 %r8, [%rd63+24], %r25;
        atom.global.or.b32 %r9, [%rd63+28], %r24;
        atom.global.xor.b32 %r11, [%rd63+32], %r22;
        atom.global.add.f32 %f1, [%rd63+36], 0f3F000000;
        atom.global.add.u64 %rd5, [%rd63+40], 3;
        atom.global.dec.u32 %r12, [%rd63+48], 5;
        red.global.add.u32 [%rd63+52], 2;
        atom.global.add.f64 %fd1, [%rd63+56], 0d3FD0000000000000;
        mov.u32 %r13, counter;
        atom.shared.add.u32 %r14, [%r13], 1;
        bar.sync 0;
        mul.wide.u32 %rd1, %r22, 4;
        add.s64 %rd2, %rd62, %rd1;
        st.global.u32 [%rd2], %r2;
        setp.ne.u32 %p1, %r1, 0;
        @%p1 bra DONE;
        ld.shared.u32 %r15, [%r13];
        mul.wide.u32 %rd3, %r20, 4;
        add.s64 %rd4, %rd62, %rd3;
        st.global.u32 [%rd4+1024], %r15;
    DONE:
    )",
                                  1024 + 8, test::bytes_of(init), block(128, 2));
    std::vector<std::uint32_t> old(256);
    for (unsigned t = 0; t < 256; ++t) old[t] = r.u32(t);
    std::sort(old.begin(), old.end());
    for (unsigned t = 0; t < 256; ++t) CHECK(old[t] == t); // each add saw a distinct previous value
    CHECK(r.u32(256) == 128); // shared counter, CTA 0
    CHECK(r.u32(257) == 128); // CTA 1
}

TEST_CASE("atomic results in memory: inc/dec wrap, min/max are signed, cas succeeds once, f32/f64/u64 add") {
    Device device;
    std::vector<std::uint32_t> init(16, 0);
    init[2] = 0x80000000U;
    init[3] = 0x7fffffffU;
    init[6] = 0xffffffffU;
    const Module module = Module::from_string(test::wrap_body(R"(
        mov.u32 %r1, %tid.x;
        mov.u32 %r20, %ctaid.x;
        mov.u32 %r21, %ntid.x;
        mad.lo.s32 %r22, %r20, %r21, %r1;
        and.b32 %r23, %r22, 31;
        shl.b32 %r24, 1, %r23;
        not.b32 %r25, %r24;
        sub.s32 %r26, %r1, 64;
        neg.s32 %r27, %r26;
        add.u32 %r28, %r22, 1;
        atom.global.inc.u32 %r3, [%rd63+4], 9;
        atom.global.max.s32 %r4, [%rd63+8], %r26;
        atom.global.min.s32 %r5, [%rd63+12], %r27;
        atom.global.cas.b32 %r6, [%rd63+16], 0, %r28;
        atom.global.exch.b32 %r7, [%rd63+20], %r22;
        atom.global.and.b32 %r8, [%rd63+24], %r25;
        atom.global.or.b32 %r9, [%rd63+28], %r24;
        atom.global.xor.b32 %r11, [%rd63+32], %r22;
        atom.global.add.f32 %f1, [%rd63+36], 0f3F000000;
        atom.global.add.u64 %rd5, [%rd63+40], 3;
        atom.global.dec.u32 %r12, [%rd63+48], 5;
        red.global.add.u32 [%rd63+52], 2;
        atom.global.add.f64 %fd1, [%rd63+56], 0d3FD0000000000000;
    )"),
                                              "atom.ptx");
    const DevPtr mem = device.upload(std::span<const std::uint32_t>(init));
    launch(device, module, "k", block(128, 2), Args(mem, mem));
    const auto v = device.download<std::uint32_t>(mem, 16);
    CHECK(v[1] == 256 % 10);
    CHECK(static_cast<std::int32_t>(v[2]) == 63);
    CHECK(static_cast<std::int32_t>(v[3]) == -63); // min over -(tid - 64) for tid in 0..127
    CHECK(v[4] == 1); // only the first lane (thread 0 of CTA 0) found 0
    CHECK(v[5] == 255); // the last lane executed
    CHECK(v[6] == 0);
    CHECK(v[7] == 0xffffffffU);
    CHECK(v[8] == 0); // xor of 0..255
    float f = 0;
    std::memcpy(&f, &v[9], 4);
    CHECK(f == 128.0f);
    CHECK((std::uint64_t{v[11]} << 32 | v[10]) == 768);
    CHECK(v[12] == 2); // dec from 0 with bound 5 cycles 5,4,3,2,1,0: 256 steps end at 2
    CHECK(v[13] == 512);
    double d = 0;
    std::memcpy(&d, &v[14], 8);
    CHECK(d == 64.0);
}

TEST_CASE("f32 atomic add flushes subnormals on global memory but keeps them on shared memory") {
    const auto r = test::run_body(R"(
        .shared .align 4 .b8 s[4];
        atom.global.add.f32 %f1, [%rd63], 0f00000001;
        ld.global.f32 %f2, [%rd63];
        mov.u32 %r1, s;
        atom.shared.add.f32 %f3, [%r1], 0f00000001;
        ld.shared.f32 %f4, [%r1];
        st.global.v2.f32 [%rd62], {%f2, %f4};
    )",
                                  8, test::bytes_of(std::vector<std::uint32_t>{0}));
    CHECK(r.u32(0) == 0);
    CHECK(r.u32(1) == 1);
}

// Every atomic on global or shared memory, not only the integer add, serves a warp whose lanes lie in one allocation
// at once (semantics/memory.hpp, memory_lanes): each lane on its own word here, so a lane given another lane's word
// or a skipped lane shows. A warp that runs past its allocation takes the per-lane path: the lanes before the first
// bad one are applied, in lane order, and the fault names that lane.
TEST_CASE("exch, cas, min and f32 add on a warp's own words update each lane's word, or fault at the first lane outside") {
    const std::string body = R"(
        .shared .align 4 .b8 s[128];
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd1, %r1, 4;
        add.u64 %rd2, %rd63, %rd1;
        add.u32 %r2, %r1, 100;
        atom.global.exch.b32 %r3, [%rd2], %r2;
        add.u32 %r4, %r1, 200;
        atom.global.cas.b32 %r5, [%rd2], %r2, %r4;
        add.u64 %rd3, %rd62, %rd1;
        st.global.u32 [%rd3], %r3;
        st.global.u32 [%rd3+128], %r5;
        atom.global.min.u32 %r6, [%rd3], 50;
        cvt.rn.f32.u32 %f1, %r1;
        atom.global.add.f32 %f2, [%rd3+256], %f1;
        mov.u32 %r7, s;
        mul.lo.u32 %r8, %r1, 4;
        add.u32 %r9, %r7, %r8;
        atom.shared.exch.b32 %r10, [%r9], %r4;
        atom.shared.max.u32 %r11, [%r9], 250;
        ld.shared.u32 %r12, [%r9];
        st.global.u32 [%rd3+384], %r12;
    )";
    const std::string wrapped = test::wrap_body(body);
    for (const unsigned width : {32U, 64U}) {
        CAPTURE(width);
        Device device;
        const Module module = Module::from_string(wrapped, "atom_lanes.ptx");
        std::vector<std::uint32_t> in(32), out(128, 0);
        for (std::uint32_t i = 0; i < 32; ++i) in[i] = 7 * i;
        for (std::uint32_t i = 64; i < 96; ++i) { // f32 words start at 0.5
            const float half = 0.5f;
            std::memcpy(&out[i], &half, 4);
        }
        const DevPtr in_mem = device.upload(std::span<const std::uint32_t>(in));
        const DevPtr out_mem = device.upload(std::span<const std::uint32_t>(out));
        launch(device, module, "k", block(32), Args(out_mem, in_mem), LaunchOptions{width});
        const auto after_in = device.download<std::uint32_t>(in_mem, 32);
        const auto after_out = device.download<std::uint32_t>(out_mem, 128);
        for (std::uint32_t i = 0; i < 32; ++i) {
            CAPTURE(i);
            CHECK(after_in[i] == 200 + i); // exch wrote 100 + i, then cas found it and wrote 200 + i
            CHECK(after_out[32 + i] == 100 + i); // cas returned what exch left
            CHECK(after_out[i] == std::min<std::uint32_t>(7 * i, 50)); // exch's old value, then min with 50
            float f = 0;
            std::memcpy(&f, &after_out[64 + i], 4);
            CHECK(f == 0.5f + static_cast<float>(i));
            CHECK(after_out[96 + i] == std::max<std::uint32_t>(200 + i, 250));
        }
    }

    // 32 lanes on a 16-word allocation: lanes 0-15 exchange, lane 16 faults.
    Device device;
    const Module module = Module::from_string(test::wrap_body(R"(
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd1, %r1, 4;
        add.u64 %rd2, %rd63, %rd1;
        add.u32 %r2, %r1, 100;
        atom.global.exch.b32 %r3, [%rd2], %r2;
    )"),
                                              "atom_fault.ptx");
    const DevPtr in_mem = device.upload(std::span<const std::uint32_t>(std::vector<std::uint32_t>(16, 1)));
    const DevPtr out_mem = device.upload(std::span<const std::uint32_t>(std::vector<std::uint32_t>(1, 0)));
    bool faulted = false;
    try {
        launch(device, module, "k", block(32), Args(out_mem, in_mem));
    } catch (const KernelError& e) {
        faulted = true;
        CHECK(e.site().thread == Dim3{16, 0, 0});
        CHECK(std::string(e.what()).find("out-of-bounds global") != std::string::npos);
    }
    CHECK(faulted);
    const auto after = device.download<std::uint32_t>(in_mem, 16);
    for (std::uint32_t i = 0; i < 16; ++i) CHECK(after[i] == 100 + i);
}

namespace {

const char* warp_level = R"(
    mov.u32 %r1, %tid.x;
    shfl.sync.down.b32 %r2|%p1, %r1, 1, 0x1f, 0xffffffff;
    shfl.sync.up.b32 %r3|%p2, %r1, 1, 0, 0xffffffff;
    shfl.sync.bfly.b32 %r4, %r1, 3, 0x1f, 0xffffffff;
    shfl.sync.idx.b32 %r5, %r1, 5, 0x1f, 0xffffffff;
    shfl.sync.down.b32 %r6, %r1, 2, 0x181f, 0xffffffff;
    shfl.sync.idx.b32 %r7, %r1, 3, 0x181f, 0xffffffff;
    and.b32 %r8, %r1, 1;
    setp.eq.u32 %p3, %r8, 1;
    vote.sync.ballot.b32 %r9, %p3, 0xffffffff;
    vote.sync.any.pred %p4, %p3, 0xffffffff;
    vote.sync.all.pred %p5, %p3, 0xffffffff;
    vote.sync.uni.pred %p6, %p3, 0xffffffff;
    shr.u32 %r10, %r1, 2;
    match.any.sync.b32 %r11, %r10, 0xffffffff;
    match.all.sync.b32 %r12|%p7, %r10, 0xffffffff;
    mov.u32 %r14, 7;
    match.all.sync.b32 %r13|%p8, %r14, 0xffffffff;
    mov.u32 %r15, %laneid;
    mov.u32 %r16, %lanemask_lt;
    activemask.b32 %r17;
    mov.u32 %r18, 0;
    @%p3 activemask.b32 %r18;
    vote.sync.all.pred %p9, %p3, 0xaaaaaaaa;
    selp.u32 %r30, 1, 0, %p1;
    selp.u32 %r31, 1, 0, %p2;
    selp.u32 %r32, 1, 0, %p4;
    selp.u32 %r33, 1, 0, %p5;
    selp.u32 %r34, 1, 0, %p6;
    selp.u32 %r35, 1, 0, %p7;
    selp.u32 %r36, 1, 0, %p8;
    selp.u32 %r37, 1, 0, %p9;
    mul.wide.u32 %rd1, %r1, 96;
    add.s64 %rd2, %rd62, %rd1;
    st.global.v4.u32 [%rd2], {%r2, %r3, %r4, %r5};
    st.global.v4.u32 [%rd2+16], {%r6, %r7, %r9, %r11};
    st.global.v4.u32 [%rd2+32], {%r12, %r13, %r15, %r16};
    st.global.v4.u32 [%rd2+48], {%r17, %r18, %r30, %r31};
    st.global.v4.u32 [%rd2+64], {%r32, %r33, %r34, %r35};
    st.global.v2.u32 [%rd2+80], {%r36, %r37};
)";

} // namespace

TEST_CASE("shfl, vote, match and lane masks keep CUDA's 32-thread semantics on 32- and 64-lane warps") {
    for (unsigned width : {32U, 64U}) {
        INFO("warp width " << width);
        const auto r = test::run_body(warp_level, 64 * 96, {}, block(64), LaunchOptions{width});
        for (unsigned t = 0; t < 64; ++t) {
            INFO("thread " << t);
            const unsigned lane = t % 32, group = t - lane, seg = lane & ~7U;
            const std::uint32_t* v = reinterpret_cast<const std::uint32_t*>(r.out.data()) + 24 * t;
            CHECK(v[0] == (lane < 31 ? t + 1 : t));
            CHECK(v[1] == (lane > 0 ? t - 1 : t));
            CHECK(v[2] == group + (lane ^ 3U));
            CHECK(v[3] == group + 5);
            CHECK(v[4] == (lane + 2 <= seg + 7 ? t + 2 : t));
            CHECK(v[5] == group + seg + 3);
            CHECK(v[6] == 0xaaaaaaaaU);
            CHECK(v[7] == (0xfU << (lane & ~3U)));
            CHECK(v[8] == 0);
            CHECK(v[9] == 0xffffffffU);
            CHECK(v[10] == lane);
            CHECK(v[11] == (1U << lane) - 1);
            CHECK(v[12] == 0xffffffffU);
            CHECK(v[13] == (lane % 2 == 1 ? 0xaaaaaaaaU : 0U));
            CHECK(v[14] == (lane < 31 ? 1U : 0U));
            CHECK(v[15] == (lane > 0 ? 1U : 0U));
            CHECK(v[16] == 1); // any
            CHECK(v[17] == 0); // all
            CHECK(v[18] == 0); // uni
            CHECK(v[19] == 0); // match.all predicate: values differ
            CHECK(v[20] == 1); // match.all predicate: all equal
            CHECK(v[21] == 1); // vote.all restricted to the odd lanes by membermask
        }
    }
}
