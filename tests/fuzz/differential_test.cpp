// Differential fuzzing, the deterministic part (issue 24, part 5; docs/differential_fuzzing.md): kernels from
// fuzz/ptx_generator.hpp for a fixed range of seeds, and every checked-in regression, run on the functional engine
// at warp widths 32 and 64 and on timed Fermi, Kepler and Southern Islands GPUs on one and two host threads
// (fuzz/differential.hpp), and all runs must leave the same device memory. The other cases check the harness
// itself: the generator is deterministic and emits every construct it knows, a case file round-trips, and the
// comparison does report a width-dependent result and a failing run.
#include <doctest/doctest.h>

#include <differential.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

using namespace gpuarch;

namespace {
// About 300 kernels of 8 runs each take 20-30 s on the shared 2-core development machine.
constexpr std::uint64_t seed_count = 300;

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A hand-written kernel with the generator's parameter list (in, out, ctr, xchg, salt): each of 32 threads stores
// one value to its slot of `out`.
fuzz::GeneratedKernel hand_kernel(const std::string& value_source, unsigned store_offset = 0) {
    fuzz::GeneratedKernel k;
    k.ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
            ".visible .entry fuzz_kernel(.param .u64 p_in, .param .u64 p_out, .param .u64 p_ctr, "
            ".param .u64 p_xchg, .param .u32 p_salt)\n{\n"
            "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"
            "  ld.param.u64 %rd1, [p_out];\n  cvta.to.global.u64 %rd1, %rd1;\n"
            "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd1, %rd1, %rd2;\n"
            "  mov.u32 %r2, " +
            value_source +
            ";\n"
            "  st.global.u32 [%rd1+" +
            std::to_string(store_offset) + "], %r2;\n  ret;\n}\n";
    k.config = func::LaunchConfig{func::Dim3{1, 1, 1}, func::Dim3{32, 1, 1}, 0};
    k.registers_per_thread = 8;
    k.input = {0};
    k.counter_init = {0};
    k.out_words = 32;
    k.exchange_words = 32;
    return k;
}
} // namespace

TEST_CASE("generated kernels leave the same memory on both warp widths and every timed machine (seeds 0-299)") {
    fuzz::DifferentialRunner runner;
    unsigned disagreements = 0;
    for (std::uint64_t seed = 0; seed < seed_count; ++seed) {
        const fuzz::Verdict v = runner.check(fuzz::generate_kernel(seed));
        if (!v.agree) ++disagreements;
        CHECK_MESSAGE(v.agree, "seed " << seed << ": " << v.report << " (replay: differential_replay --seed " << seed
                                       << " --reduce)");
    }
    CHECK(disagreements == 0);
}

TEST_CASE("every kernel the fuzzer found, as a case file or a libFuzzer input, now runs the same everywhere") {
    const std::filesystem::path dir = std::filesystem::path(GPUARCH_TEST_DATA_DIR) / "fuzz" / "regressions";
    fuzz::DifferentialRunner runner;
    unsigned replayed = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string text = read_file(entry.path());
        const fuzz::GeneratedKernel k = entry.path().extension() == ".ptx"
                                            ? fuzz::from_case_file(text)
                                            : fuzz::generate_kernel(std::span<const std::uint8_t>(
                                                  reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
        const fuzz::Verdict v = runner.check(k);
        CHECK_MESSAGE(v.agree, entry.path().filename().string() << ": " << v.report);
        ++replayed;
    }
    CHECK(replayed >= 2);
}

TEST_CASE("the generator is deterministic per seed and emits every construct it knows within the seed range") {
    const std::vector<std::string> constructs = {
        "shfl.sync.idx",   "shfl.sync.up",   "shfl.sync.down", "shfl.sync.bfly", "vote.sync.ballot", "vote.sync.all",
        "vote.sync.any",   "vote.sync.uni",  "match.any.sync", "match.all.sync", "activemask",       "bar.sync",
        "barrier.sync",    "bar.red.popc",   "bar.red.and",    "bar.red.or",     "atom.global",      "red.global",
        "atom.shared",     "red.shared",     "exit;",          "ld.global.v2",   "st.global.v2",     "ld.global.nc",
        "cvta.shared",     "cvta.global",    "ld.local",       "st.local",       "bra.uni",          "$L_loop_",
        "$L_else_",        "div.rn.f64",     "fma.rn.f32",     "mul.wide.s32",   "%lanemask_lt",     "%warpid",
        "atom.global.inc", "atom.shared.dec"};
    std::vector<bool> seen(constructs.size(), false);
    bool partial_warp = false, two_dimensional = false, multi_cta = false;
    for (std::uint64_t seed = 0; seed < seed_count; ++seed) {
        const fuzz::GeneratedKernel k = fuzz::generate_kernel(seed);
        REQUIRE(fuzz::generate_kernel(seed).ptx == k.ptx);
        for (std::size_t i = 0; i < constructs.size(); ++i)
            seen[i] = seen[i] || k.ptx.find(constructs[i]) != std::string::npos;
        partial_warp = partial_warp || k.config.block.count() % 32 != 0;
        two_dimensional = two_dimensional || (k.config.block.y > 1 && k.config.grid.y > 1);
        multi_cta = multi_cta || k.config.grid.count() > 4;
    }
    for (std::size_t i = 0; i < constructs.size(); ++i) CHECK_MESSAGE(seen[i], "never generated: " << constructs[i]);
    CHECK(partial_warp);
    CHECK(two_dimensional);
    CHECK(multi_cta);
    CHECK(fuzz::generate_kernel(1).ptx != fuzz::generate_kernel(2).ptx);
}

TEST_CASE("byte-steered choices take one byte per small choice, then continue from a hash of the input") {
    const std::vector<std::uint8_t> bytes{7, 200, 3};
    fuzz::Choices a{std::span<const std::uint8_t>(bytes)};
    CHECK(a.below(10) == 7);
    CHECK(a.below(256) == 200);
    CHECK(a.below(2) == 1);
    fuzz::Choices b{std::span<const std::uint8_t>(bytes)};
    for (int i = 0; i < 3; ++i) (void)b.below(10);
    std::vector<std::uint32_t> after_a, after_b;
    for (int i = 0; i < 8; ++i) {
        after_a.push_back(a.word());
        after_b.push_back(b.word());
    }
    CHECK(after_a == after_b); // the same input continues the same way
    const std::vector<std::uint8_t> other{7, 200, 4};
    fuzz::Choices c{std::span<const std::uint8_t>(other)};
    for (int i = 0; i < 3; ++i) (void)c.below(10);
    std::vector<std::uint32_t> after_c;
    for (int i = 0; i < 8; ++i) after_c.push_back(c.word());
    CHECK(after_c != after_a); // another input, another continuation
}

TEST_CASE("a case file holds the kernel, its launch and its data, and is still valid PTX") {
    const fuzz::GeneratedKernel k = fuzz::generate_kernel(42);
    const std::string text = fuzz::to_case_file(k);
    const fuzz::GeneratedKernel back = fuzz::from_case_file(text);
    CHECK(back.ptx == k.ptx);
    CHECK(back.config.grid == k.config.grid);
    CHECK(back.config.block == k.config.block);
    CHECK(back.registers_per_thread == k.registers_per_thread);
    CHECK(back.salt == k.salt);
    CHECK(back.input == k.input);
    CHECK(back.counter_init == k.counter_init);
    CHECK(back.out_words == k.out_words);
    CHECK(back.exchange_words == k.exchange_words);
    CHECK_NOTHROW((void)func::Module::from_string(text, "case.ptx"));
    CHECK_THROWS_AS((void)fuzz::from_case_file(k.ptx), std::runtime_error);
}

TEST_CASE("the comparison reports a result that depends on the warp width, and a run that fails") {
    fuzz::DifferentialRunner runner;
    // WARP_SZ is the launch's warp width: 32 on the first functional run, 64 on the second.
    const fuzz::Verdict width = runner.check(hand_kernel("WARP_SZ"));
    CHECK_FALSE(width.agree);
    CHECK(width.report.find("out[0]") != std::string::npos);
    CHECK(width.report.find("functional, warp width 32 and functional, warp width 64") != std::string::npos);
    // A store past the end of `out` faults everywhere.
    const fuzz::Verdict fault = runner.check(hand_kernel("%tid.x", 4096));
    CHECK_FALSE(fault.agree);
    CHECK(fault.report.find("functional, warp width 32 failed: ") != std::string::npos);
    CHECK(fault.report.find("out-of-bounds global store") != std::string::npos);
    // And a kernel whose value is the same everywhere passes.
    CHECK(runner.check(hand_kernel("%tid.x")).agree);
}

TEST_CASE("a generic load or store is timed in the space its lanes reached; lanes in two spaces are an error") {
    // Found by the differential fuzzer: the SM handed the L1 StateSpace::generic, which it refuses.
    using Gpu = machines::Kepler::gpu<sched::GTO, 4>;
    const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                            ".visible .entry k(.param .u64 out, .param .u32 split)\n{\n"
                            "  .reg .pred %p<2>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<8>;\n"
                            "  .shared .align 4 .b32 s[64];\n"
                            "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n"
                            "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
                            "  cvta.global.u64 %rd3, %rd3;\n"
                            "  mov.u64 %rd4, s;\n  add.s64 %rd4, %rd4, %rd2;\n  cvta.shared.u64 %rd4, %rd4;\n"
                            "  ld.param.u32 %r5, [split];\n  setp.lt.u32 %p1, %r1, %r5;\n"
                            "  st.u32 [%rd4], %r1;\n" // generic store to shared
                            "  ld.u32 %r2, [%rd4];\n" // generic load from shared
                            "  st.u32 [%rd3], %r2;\n" // generic store to global
                            "  selp.b64 %rd5, %rd3, %rd4, %p1;\n" // lanes below `split`: global, the rest: shared
                            "  ld.u32 %r3, [%rd5];\n  ret;\n}\n";
    const func::Module module = func::Module::from_string(ptx, "generic.ptx");
    auto run = [&](std::uint32_t split) {
        func::Device device;
        const func::DevPtr out = device.malloc(64 * 4);
        Gpu gpu(machines::Kepler::config<Gpu>());
        TimingOptions options;
        options.registers_per_thread = 16;
        options.host_threads = 1;
        const LaunchResult r = gpu.launch(device, module, "k", func::LaunchConfig{{1, 1, 1}, {64, 1, 1}, 0},
                                          func::Args(out, split), options);
        CHECK(device.download<std::uint32_t>(out, 64)[63] == 63);
        return r;
    };
    const LaunchResult same_space = run(64);
    CHECK(same_space.stats.counter("sm.l1.shared_accesses") == 2 * 2); // 2 warps: the generic st and ld of s
    CHECK(same_space.stats.counter("sm.l1.stores") == 2);
    CHECK(same_space.stats.counter("sm.l1.loads") == 2);
    CHECK_THROWS_WITH(run(16), doctest::Contains("reaches several state spaces within one warp"));
}
