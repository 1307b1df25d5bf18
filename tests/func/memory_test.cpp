// Memory spaces (global, shared incl. dynamic, local, const, param, generic windows), module variables with
// initializers, the Device API, and the faults: out-of-bounds, misaligned, read-only, freed memory.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ptx_harness.hpp"

using namespace gpuarch;
using namespace gpuarch::func;

namespace {

// Runs `body` and returns the KernelError it raises.
KernelError fault_of(const std::string& body, LaunchConfig config = {Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0},
                     const std::string& decls = "") {
    try {
        test::run_body(body, 64, test::bytes_of(std::vector<std::uint32_t>(16, 0)), config, {}, decls);
    } catch (const KernelError& e) {
        return e;
    }
    FAIL("the kernel did not fault");
    return KernelError("unreachable");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST_CASE("const and global module variables start from their initializers and global ones persist across launches") {
    Device device;
    const Module module = Module::from_string(
        test::wrap_body(R"(
        ld.const.u32 %r1, [ctab+8];
        mov.u64 %rd1, ctab;
        cvta.const.u64 %rd2, %rd1;
        ld.u32 %r2, [%rd2+12];
        ld.global.u32 %r3, [gvar+4];
        mov.u64 %rd3, gvar;
        ld.global.u32 %r4, [%rd3];
        atom.global.add.u32 %r5, [gvar], 1;
        st.global.v4.u32 [%rd62], {%r1, %r2, %r3, %r4};
        st.global.u32 [%rd62+16], %r5;
    )",
                        ".const .align 4 .b32 ctab[4] = {10, 20, 30, 40};\n.global .align 4 .b32 gvar[2] = {5, 6};\n"),
        "vars.ptx");
    const DevPtr out = device.malloc(20);
    launch(device, module, "k", LaunchConfig{}, Args(out, out));
    auto v = device.download<std::uint32_t>(out, 5);
    CHECK(v == std::vector<std::uint32_t>{30, 40, 6, 5, 5});
    launch(device, module, "k", LaunchConfig{}, Args(out, out));
    v = device.download<std::uint32_t>(out, 5);
    CHECK(v[3] == 6); // the first launch's atomic add is still there
    CHECK(v[4] == 6);
    std::uint32_t g[2] = {};
    device.copy_from_symbol(g, module, "gvar", 8);
    CHECK(g[0] == 7);
    const std::uint32_t replacement[4] = {1, 2, 3, 4};
    device.copy_to_symbol(module, "ctab", replacement, sizeof replacement);
    launch(device, module, "k", LaunchConfig{}, Args(out, out));
    CHECK(device.download<std::uint32_t>(out, 1)[0] == 3);
    CHECK(device.symbol_address(module, "gvar") != 0);
    CHECK_THROWS_AS(device.symbol_address(module, "ctab"), Error);
    CHECK_THROWS_AS(device.copy_to_symbol(module, "gvar", replacement, 12), Error);
}

TEST_CASE("local memory is per thread and reachable through ld.local and the generic local window") {
    const auto r = test::run_body(R"(
        .local .align 4 .b8 depot[16];
        mov.u32 %r1, %tid.x;
        mov.u64 %rd4, depot;
        cvta.local.u64 %rd5, %rd4;
        st.u32 [%rd5+4], %r1;
        bar.sync 0;
        ld.local.u32 %r6, [depot+4];
        mul.wide.u32 %rd1, %r1, 4;
        add.s64 %rd2, %rd62, %rd1;
        st.global.u32 [%rd2], %r6;
    )",
                                  64 * 4, {}, LaunchConfig{Dim3{1, 1, 1}, Dim3{64, 1, 1}, 0});
    for (unsigned t = 0; t < 64; ++t) CHECK(r.u32(t) == t);
}

TEST_CASE("kernel parameters are readable through the generic param window and a param-space address") {
    const auto r = test::run_body(R"(
        mov.u64 %rd1, out;
        ld.param.u64 %rd2, [%rd1];
        mov.u64 %rd3, in;
        cvta.param.u64 %rd4, %rd3;
        ld.u64 %rd5, [%rd4];
        cvta.to.global.u64 %rd6, %rd2;
        sub.s64 %rd7, %rd5, %rd6;
        st.global.v2.u64 [%rd62], {%rd6, %rd7};
    )",
                                  16, test::bytes_of(std::vector<std::uint8_t>(8, 0)));
    CHECK(r.u64(0) != 0);
    CHECK(r.u64(1) == 512); // `in` is the next allocation: 256 bytes rounded up plus the 256-byte guard
}

TEST_CASE("dynamic shared memory starts after the static segment and has exactly the launched size") {
    const std::string decls = ".extern .shared .align 16 .b8 dyn[];\n";
    const auto r = test::run_body(R"(
        .shared .align 4 .b8 fixed[20];
        mov.u32 %r1, %tid.x;
        mov.u32 %r2, dyn;
        mov.u32 %r3, fixed;
        shl.b32 %r4, %r1, 2;
        add.u32 %r5, %r2, %r4;
        st.shared.u32 [%r5], %r1;
        st.shared.u32 [%r3+16], 99;
        bar.sync 0;
        ld.shared.u32 %r6, [%r5];
        mov.u32 %r7, %dynamic_smem_size;
        st.global.v4.u32 [%rd62], {%r2, %r3, %r6, %r7};
    )",
                                  16, {}, LaunchConfig{Dim3{1, 1, 1}, Dim3{16, 1, 1}, 64}, {}, decls);
    CHECK(r.u32(0) == 32); // 20 bytes of static shared memory rounded up to 16
    CHECK(r.u32(1) == 0);
    CHECK(r.u32(2) == 15); // every thread stores here; lanes store in order, so thread 15's value remains
    CHECK(r.u32(3) == 64);
    const KernelError e = fault_of("mov.u32 %r2, dyn;\nld.shared.u32 %r1, [%r2+64];",
                                   LaunchConfig{Dim3{1, 1, 1}, Dim3{1, 1, 1}, 64}, decls);
    CHECK(contains(e.what(), "out-of-bounds shared load of 4 bytes"));
}

TEST_CASE("an out-of-bounds global access names the kernel, PC, PTX line, CTA, thread and address") {
    const std::string body = R"(
        mov.u32 %r1, %tid.x;
        mov.u32 %r2, %ctaid.x;
        setp.ne.u32 %p1, %r1, 3;
        @%p1 bra DONE;
        setp.ne.u32 %p2, %r2, 1;
        @%p2 bra DONE;
        ld.global.u32 %r3, [%rd63+4096];
    DONE:
    )";
    const KernelError e = fault_of(body, LaunchConfig{Dim3{2, 1, 1}, Dim3{4, 1, 1}, 0});
    const std::string what = e.what();
    const std::string text = test::wrap_body(body);
    const unsigned line =
        1 + static_cast<unsigned>(std::count(text.begin(), text.begin() + text.find("ld.global.u32 %r3"), '\n'));
    CHECK(contains(what, "kernel 'k' at PC " + std::to_string(e.site().pc) + " (test.ptx:"));
    CHECK(contains(what, "out-of-bounds global load of 4 bytes"));
    CHECK(contains(what, "CTA (1,0,0)"));
    CHECK(contains(what, "thread (3,0,0)"));
    CHECK(contains(what, "test.ptx:" + std::to_string(line))); // the ld's line in the wrapped kernel
    CHECK(contains(what, "address 0x"));
    CHECK(contains(what, "no live allocation contains it (nearest below: 0x"));
    REQUIRE(e.site().address.has_value());
    CHECK(e.site().line == line);
    CHECK(e.site().thread == Dim3{3, 0, 0});
    CHECK(e.site().cta == Dim3{1, 0, 0});
    CHECK(e.site().pc != ir::no_pc);
}

TEST_CASE("misaligned, out-of-bounds shared and local, read-only and null accesses fault with their reason") {
    CHECK(contains(fault_of("ld.global.u32 %r1, [%rd63+2];").what(), "misaligned global load of 4 bytes"));
    CHECK(contains(fault_of("ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd63+8];").what(),
                   "misaligned global load of 16 bytes"));
    CHECK(contains(fault_of(".shared .align 4 .b8 s[16];\nst.shared.u32 [s+16], 1;").what(),
                   "out-of-bounds shared store of 4 bytes: the CTA has 16 bytes of shared memory"));
    CHECK(contains(fault_of(".local .align 4 .b8 d[8];\nld.local.u32 %r1, [d+8];").what(),
                   "each thread has 8 bytes of local memory"));
    CHECK(contains(fault_of("mov.u64 %rd1, c;\ncvta.const.u64 %rd2, %rd1;\nst.u32 [%rd2], 1;",
                            LaunchConfig{Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0}, ".const .align 4 .b32 c[1];\n")
                       .what(),
                   "constant memory is read-only"));
    CHECK(contains(fault_of("mov.u64 %rd1, 0;\nld.u32 %r1, [%rd1];").what(), "no live allocation contains it"));
    CHECK(contains(fault_of("mov.u64 %rd1, out;\ncvta.param.u64 %rd2, %rd1;\nst.u64 [%rd2], 0;").what(),
                   "kernel parameters are read-only"));
}

// The engine checks a warp's accesses at once when all lanes fit one allocation, the shared memory, or the threads'
// local frames (semantics/memory.hpp, place_warp); lanes that do not fit go lane by lane. Either way the fault
// names the first faulting lane in lane order, and lanes spread over two allocations read what they address.
TEST_CASE("a warp access that one check cannot place still faults at its first bad lane and reads every allocation") {
    const std::string global_body = R"(
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd1, %r1, 4;
        add.u64 %rd2, %rd63, %rd1;
        ld.global.u32 %r2, [%rd2];
    )";
    const KernelError global = fault_of(global_body, LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0});
    CHECK(contains(global.what(), "out-of-bounds global load of 4 bytes"));
    CHECK(global.site().thread == Dim3{16, 0, 0}); // `in` holds 16 words: lanes 0-15 are in bounds

    const std::string local_body = R"(
        .local .align 4 .b8 d[16];
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd1, %r1, 4;
        mov.u64 %rd2, d;
        add.u64 %rd3, %rd2, %rd1;
        st.local.u32 [%rd3], %r1;
    )";
    const KernelError local = fault_of(local_body, LaunchConfig{Dim3{1, 1, 1}, Dim3{8, 1, 1}, 0});
    CHECK(contains(local.what(), "each thread has 16 bytes of local memory"));
    CHECK(local.site().thread == Dim3{4, 0, 0});

    // Lanes 0-15 read `in`, lanes 16-31 the zeroed top quarter of `out`; each lane passes the value through its
    // local frame and stores it plus its index to out[tid].
    const std::string spread_body = R"(
        .local .align 4 .b8 d[4];
        mov.u32 %r1, %tid.x;
        setp.lt.u32 %p1, %r1, 16;
        mul.wide.u32 %rd1, %r1, 4;
        add.u64 %rd2, %rd63, %rd1;
        add.u64 %rd3, %rd62, 128;
        add.u64 %rd3, %rd3, %rd1;
        selp.b64 %rd4, %rd2, %rd3, %p1;
        ld.global.u32 %r2, [%rd4];
        st.local.u32 [d], %r2;
        ld.local.u32 %r3, [d];
        add.u32 %r4, %r3, %r1;
        add.u64 %rd5, %rd62, %rd1;
        st.global.u32 [%rd5], %r4;
    )";
    std::vector<std::uint32_t> in(16);
    for (std::uint32_t i = 0; i < 16; ++i) in[i] = 1000 + 7 * i;
    const test::BodyRun run =
        test::run_body(spread_body, 256, test::bytes_of(in), LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0});
    for (std::uint32_t i = 0; i < 32; ++i) {
        CAPTURE(i);
        CHECK(run.u32(i) == (i < 16 ? in[i] : 0U) + i);
    }
}

// A whole warp's addresses in one stride take their lowest and highest from the end lanes (semantics/memory.hpp,
// compute_addresses): rows read and written backwards, a broadcast, and a backward row that runs off the start of its
// allocation, which still faults at its first bad lane.
TEST_CASE("whole warps of descending, broadcast and ascending addresses access their elements, or fault in lane order") {
    const std::string body = R"(
        mov.u32 %r1, %tid.x;
        sub.u32 %r2, 31, %r1;
        mul.wide.u32 %rd1, %r2, 4;
        add.u64 %rd2, %rd63, %rd1;
        ld.global.u32 %r3, [%rd2];
        add.u64 %rd3, %rd63, 12;
        ld.global.u32 %r4, [%rd3];
        mul.lo.u32 %r5, %r3, 1000;
        add.u32 %r5, %r5, %r4;
        mul.wide.u32 %rd4, %r1, 4;
        add.u64 %rd5, %rd62, %rd4;
        st.global.u32 [%rd5], %r5;
        add.u64 %rd6, %rd62, 128;
        add.u64 %rd6, %rd6, %rd1;
        st.global.u32 [%rd6], %r1;
    )";
    std::vector<std::uint32_t> in(32);
    for (std::uint32_t i = 0; i < 32; ++i) in[i] = 3 * i + 1;
    const test::BodyRun run = test::run_body(body, 256, test::bytes_of(in), LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0});
    for (std::uint32_t i = 0; i < 32; ++i) {
        CAPTURE(i);
        CHECK(run.u32(i) == in[31 - i] * 1000 + in[3]);
        CHECK(run.u32(32 + 31 - i) == i);
    }
    // Whole warps whose addresses step evenly but leave `in` (16 words) fault at their first bad lane: lane l reading
    // word 15 - l runs below the allocation from lane 16; a stride whose 31 steps wrap round the address space to 8
    // bytes past lane 0's address (0x7BDEF7BDEF7BDEF8 * 31 = 8 modulo 2^64) leaves both end lanes in `in` and every
    // other lane far outside it.
    const struct {
        const char* offset; // %rd1, lane l's byte offset from `in`, from %r1 = %tid.x
        unsigned first_bad_lane;
    } leaving[] = {
        {"sub.s32 %r2, 15, %r1;\n mul.wide.s32 %rd1, %r2, 4;", 16},
        {"cvt.u64.u32 %rd2, %r1;\n mul.lo.u64 %rd1, %rd2, 0x7BDEF7BDEF7BDEF8;", 1},
    };
    for (const auto& c : leaving) {
        CAPTURE(c.offset);
        const KernelError fault = fault_of(std::string("mov.u32 %r1, %tid.x;\n") + c.offset +
                                               "\n add.u64 %rd3, %rd63, %rd1;\n ld.global.u32 %r3, [%rd3];",
                                           LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0});
        CHECK(contains(fault.what(), "out-of-bounds global load of 4 bytes"));
        CHECK(fault.site().thread == Dim3{c.first_bad_lane, 0, 0});
    }
}

// Scalar loads from global memory through an address register take their own path (DecodedInstruction::
// global_scalar_load: words into registers as wide, bytes and halves extended by the type's signedness); words
// extended into wider registers and generic addresses outside global memory take memory_lanes's. Lanes gather
// elements out of order, a guarded load runs on a few lanes, and the second warp of a 40-thread CTA of 32-lane warps
// is partial.
TEST_CASE("scalar loads from global memory give each lane its element on whole, partial and 64-lane warps") {
    const std::string body = R"(
        mov.u32 %r1, %tid.x;
        mul.lo.u32 %r2, %r1, 7;
        and.b32 %r3, %r2, 31;
        mul.wide.u32 %rd1, %r3, 4;
        add.u64 %rd2, %rd63, %rd1;
        ld.global.u32 %r4, [%rd2];
        and.b32 %r5, %r2, 15;
        mul.wide.u32 %rd3, %r5, 8;
        add.u64 %rd4, %rd63, %rd3;
        ld.global.u64 %rd5, [%rd4];
        ld.u32 %r6, [%rd2];
        ld.global.s32 %rd6, [%rd2];
        setp.lt.u32 %p1, %r1, 5;
        @%p1 ld.global.u32 %r4, [%rd63+8];
        add.u64 %rd9, %rd63, %rd1;
        add.u64 %rd9, %rd9, 3;
        ld.global.u8 %r7, [%rd9];
        ld.global.s8 %r8, [%rd9];
        add.u64 %rd10, %rd63, %rd1;
        add.u64 %rd10, %rd10, 2;
        ld.global.s16 %r9, [%rd10];
        ld.global.u16 %h1, [%rd10];
        cvt.u32.u16 %r10, %h1;
        ld.global.u32 %rd11, [%rd2];
        mul.wide.u32 %rd7, %r1, 48;
        add.u64 %rd8, %rd62, %rd7;
        st.global.u32 [%rd8], %r4;
        st.global.u32 [%rd8+4], %r6;
        st.global.u64 [%rd8+8], %rd5;
        st.global.u64 [%rd8+16], %rd6;
        st.global.u32 [%rd8+24], %r7;
        st.global.u32 [%rd8+28], %r8;
        st.global.u32 [%rd8+32], %r9;
        st.global.u32 [%rd8+36], %r10;
        st.global.u64 [%rd8+40], %rd11;
    )";
    std::vector<std::uint64_t> in(16);
    for (std::uint64_t k = 0; k < 16; ++k) in[k] = (0x8000'0000ULL + 3 * k) << 32 | (0xf000'0000ULL + k);
    auto word = [&](std::uint64_t j) { return static_cast<std::uint32_t>(in[j / 2] >> (j % 2 * 32)); };
    for (unsigned width : {32U, 64U}) {
        INFO("warp width " << width);
        const unsigned threads = 40;
        const test::BodyRun run =
            test::run_body(body, threads * 48, test::bytes_of(in), LaunchConfig{Dim3{1, 1, 1}, Dim3{threads, 1, 1}, 0},
                           LaunchOptions{width});
        for (std::uint32_t t = 0; t < threads; ++t) {
            CAPTURE(t);
            const std::uint32_t w = (t * 7) & 31;
            CHECK(run.u32(t * 12) == (t < 5 ? word(2) : word(w)));
            CHECK(run.u32(t * 12 + 1) == word(w));
            CHECK(run.u64(t * 6 + 1) == in[(t * 7) & 15]);
            CHECK(run.u64(t * 6 + 2) == static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(word(w))}));
            const auto top_byte = static_cast<std::uint8_t>(word(w) >> 24);
            const auto high_half = static_cast<std::uint16_t>(word(w) >> 16);
            CHECK(run.u32(t * 12 + 6) == top_byte);
            CHECK(run.u32(t * 12 + 7) == static_cast<std::uint32_t>(std::int32_t{static_cast<std::int8_t>(top_byte)}));
            CHECK(run.u32(t * 12 + 8) ==
                  static_cast<std::uint32_t>(std::int32_t{static_cast<std::int16_t>(high_half)}));
            CHECK(run.u32(t * 12 + 9) == high_half);
            CHECK(run.u64(t * 6 + 5) == word(w));
        }
    }

    // A byte load past the end of `in` (64 bytes): the lanes are not placed at once, and the per-lane path faults at
    // the first lane outside (lane 22 reads byte 66).
    const KernelError byte = fault_of(R"(
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd1, %r1, 3;
        add.u64 %rd2, %rd63, %rd1;
        ld.global.u8 %r2, [%rd2];
    )",
                                      LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0});
    CHECK(contains(byte.what(), "out-of-bounds global load of 1 bytes"));
    CHECK(byte.site().thread == Dim3{22, 0, 0});

    // A generic address of shared memory: the global check does not place it, memory_lanes's path resolves the window.
    const std::string shared_body = R"(
        .shared .align 4 .b8 sh[128];
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd1, %r1, 4;
        mov.u64 %rd2, sh;
        cvta.shared.u64 %rd3, %rd2;
        add.u64 %rd4, %rd3, %rd1;
        add.u32 %r2, %r1, 500;
        st.u32 [%rd4], %r2;
        xor.b64 %rd5, %rd1, 4;
        add.u64 %rd6, %rd3, %rd5;
        ld.u32 %r3, [%rd6];
        add.u64 %rd7, %rd62, %rd1;
        st.global.u32 [%rd7], %r3;
    )";
    const test::BodyRun shared =
        test::run_body(shared_body, 32 * 4, {}, LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0});
    for (std::uint32_t t = 0; t < 32; ++t) CHECK(shared.u32(t) == 500 + (t ^ 1));
}

TEST_CASE("a global scalar load tells the timing model each lane's address and space") {
    const std::string body = R"(
        mov.u32 %r1, %tid.x;
        mul.lo.u32 %r2, %r1, 7;
        and.b32 %r3, %r2, 15;
        mul.wide.u32 %rd1, %r3, 4;
        add.u64 %rd2, %rd63, %rd1;
        ld.global.u32 %r4, [%rd2];
    )";
    Device device;
    const Module module = Module::from_string(test::wrap_body(body), "record.ptx");
    const DevPtr out = device.malloc(64);
    std::vector<std::uint32_t> words(16);
    for (std::uint32_t k = 0; k < 16; ++k) words[k] = 3 + k % 4;
    const DevPtr in = device.upload(words);
    KernelExecution ex(device, module, "k", LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0}, Args(out, in));
    CtaState cta = ex.start_cta(0);
    StepResult step(32);
    do ex.step(cta, 0, step);
    while (!step.is_memory || step.space != ir::StateSpace::global);
    CHECK(step.is_load);
    CHECK(step.access_bytes == 4);
    CHECK(step.accessed.popcount() == 32);
    for (unsigned l = 0; l < 32; ++l) {
        CAPTURE(l);
        CHECK(step.addresses[l] == in + 4 * ((l * 7) & 15));
        CHECK(step.lane_spaces[l] == ir::StateSpace::global);
        CHECK(cta.warps[0].row(step.instruction->operands[0].reg)[l] == 3 + ((l * 7) & 15) % 4);
    }
}

TEST_CASE("the Device's translation of recent allocations follows frees and serves many arrays in turn") {
    Device device;
    std::vector<DevPtr> arrays;
    for (std::uint32_t k = 0; k < 6; ++k) {
        arrays.push_back(device.malloc(64));
        const std::vector<std::uint32_t> values(16, 100 * k);
        device.copy_in(arrays.back(), values.data(), 64);
    }
    for (int round = 0; round < 3; ++round)
        for (std::uint32_t k = 0; k < 6; ++k) {
            const std::uint8_t* p = device.translate(arrays[k] + 60, 4);
            REQUIRE(p != nullptr);
            std::uint32_t v = 0;
            std::memcpy(&v, p, 4);
            CHECK(v == 100 * k);
            CHECK(device.translate(arrays[k] + 61, 4) == nullptr); // runs past the end
        }
    device.free(arrays[2]); // it was translated last round: the recent entries must forget it
    CHECK(device.translate(arrays[2], 4) == nullptr);
    CHECK(device.translate(arrays[3], 4) != nullptr);
}

TEST_CASE("a launch that reads freed device memory faults") {
    Device device;
    const Module module = Module::from_string(test::wrap_body("ld.global.u32 %r1, [%rd63];"), "free.ptx");
    const DevPtr in = device.malloc(16);
    device.free(in);
    CHECK_THROWS_WITH_AS(launch(device, module, "k", LaunchConfig{}, Args(in, in)),
                         doctest::Contains("out-of-bounds global load"), KernelError);
}

TEST_CASE("the Device aligns and separates allocations, bounds-checks host copies and rejects bad frees") {
    Device device(1 << 20);
    const DevPtr a = device.malloc(10), b = device.malloc(300);
    CHECK(a % 256 == 0);
    CHECK(b % 256 == 0);
    CHECK(b - a >= 256 + 256); // rounded size plus the guard gap
    const std::vector<std::uint8_t> data(10, 0xab);
    device.copy_in(a, data.data(), 10);
    CHECK(device.download<std::uint8_t>(a, 10) == data);
    CHECK_THROWS_AS(device.copy_in(a, data.data(), 11), Error);
    CHECK_THROWS_AS(device.copy_in(a + 16, data.data(), 1), Error);
    CHECK_THROWS_WITH_AS(device.copy_in(a + 8, data.data(), 4), doctest::Contains("runs past the end of the 10-byte"),
                         Error);
    device.memset(b, 0x11, 300);
    CHECK(device.download<std::uint8_t>(b, 300) == std::vector<std::uint8_t>(300, 0x11));
    CHECK(device.download<std::uint32_t>(device.malloc(8), 2) == std::vector<std::uint32_t>{0, 0}); // zeroed
    CHECK_THROWS_AS(device.free(a + 4), Error);
    device.free(a);
    CHECK_THROWS_AS(device.free(a), Error);
    CHECK_THROWS_AS(device.download<std::uint8_t>(a, 1), Error);
    device.free(0);
    CHECK_THROWS_WITH_AS(device.malloc(2 << 20), doctest::Contains("device memory exhausted"), Error);
    const std::vector<float> floats{1.5f, 2.5f};
    const DevPtr f = device.upload(floats);
    CHECK(device.download<float>(f, 2) == floats);
}
