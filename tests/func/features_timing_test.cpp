// The kernels of kernels/features/ on whole timed GPUs of every example machine (Fermi, Kepler, Southern Islands)
// with several schedulers: the SM accepts every new op class and the outputs, console text and errors are those
// of the functional engine (feature_kernels.hpp). Kept in its own translation unit: three machines are the
// heaviest instantiation of this folder.
#include "feature_kernels.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

#include <memory>

namespace {
using namespace gpuarch;
using namespace gpuarch::func::test::features;

// A launcher that runs the launch on a fresh Machine GPU with Scheduler and checks it took cycles. Register
// counts come from the .resources file beside the PTX (TimingOptions::registers_per_thread = 0).
template <class Machine, class Scheduler> Launcher timed() {
    return Launcher{[](func::Device& device, const func::Module& module, std::string_view entry,
                       const func::LaunchConfig& config, const func::Args& args, bool cooperative) {
                        using Gpu = typename Machine::template gpu<Scheduler>;
                        auto gpu = std::make_unique<Gpu>(Machine::template config<Gpu>());
                        TimingOptions options;
                        options.cooperative = cooperative;
                        const LaunchResult r = gpu->launch(device, module, entry, config, args, options);
                        CHECK(r.cycles > 0);
                    },
                    Machine::Frontend::warp_width};
}

template <class F> void on_every_machine(F&& check) {
    check(timed<machines::Fermi, sched::GTO>());
    check(timed<machines::Fermi, sched::LRR>());
    check(timed<machines::Kepler, sched::GTO>());
    check(timed<machines::Kepler, sched::TwoLevel<8>>());
    check(timed<machines::SouthernIslands, sched::LRR>());
    check(timed<machines::SouthernIslands, sched::GTO>());
}
} // namespace

TEST_CASE("device printf under timing prints the functional engine's text on every machine and scheduler") {
    on_every_machine(check_printf_formats);
    on_every_machine(check_printf_string);
}

TEST_CASE("device assert and trap under timing stop the launch with their kind on every machine and scheduler") {
    on_every_machine(check_assert);
    on_every_machine(check_trap);
}

TEST_CASE(
    "rsqrt.approx.f64, WARP_SZ (the machine's warp width) and predicate immediates under timing on every machine") {
    on_every_machine(check_plain_forms);
}

TEST_CASE("dp4a, dp2a, sad, vabsdiff4 and redux.sync under timing on every machine") {
    on_every_machine(check_byte_dot);
    on_every_machine(check_redux);
}

TEST_CASE("prefetch under timing on every machine: values unchanged") { on_every_machine(check_prefetch); }

TEST_CASE("grid.sync() under timing on every machine; a cooperative grid that cannot be resident is refused") {
    on_every_machine(check_grid_sync);
    using Gpu = machines::Kepler::gpu<sched::GTO>;
    auto gpu = std::make_unique<Gpu>(machines::Kepler::config<Gpu>());
    func::Device device;
    const func::Module module = func::test::features::load("grid_sync");
    const func::DevPtr a = device.malloc(4), b = device.malloc(4);
    TimingOptions options;
    options.cooperative = true;
    // 1024-thread CTAs: at most 2 per Kepler SM (2048 threads), so 2 x SMs + 1 CTAs cannot all be resident.
    const unsigned too_many = 2 * machines::Kepler::sms + 1;
    const func::KernelError e = func::test::features::error_of([&] {
        gpu->launch(device, module, "grid_ring",
                    func::LaunchConfig{func::Dim3{too_many, 1, 1}, func::Dim3{1024, 1, 1}, 0},
                    func::Args(a, b, 1, 0, 1), options);
    });
    CHECK(e.kind() == func::KernelErrorKind::cooperative_too_large);
    CHECK(std::string(e.what()).find("cannot all be resident") != std::string::npos);
    CHECK(device.bytes_in_use() == 8); // nothing ran, no workspace left behind
}

TEST_CASE("tex, suld and sust under timing on every machine give the functional engine's values and errors") {
    on_every_machine(check_textures_2d);
    on_every_machine(check_textures_other);
    on_every_machine(check_textures_cube);
    on_every_machine(check_surfaces);
    on_every_machine(check_texture_errors);
}

namespace {
// One warp loads a[tid] and b[tid] (one 128-byte block each) and stores their sum; with `prefetches` it first
// prefetches a's block into the L1, b's into the L2 only, and a shared address (a no-op, PTX ISA).
std::string prefetch_probe_ptx(bool prefetches) {
    return std::string(".version 8.0\n.target sm_80\n.address_size 64\n"
                       ".visible .entry probe(.param .u64 pa, .param .u64 pb, .param .u64 pout) {\n"
                       ".reg .b32 %r<4>; .reg .b64 %rd<10>;\n.shared .align 4 .b8 s[128];\n"
                       "ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pout];\n"
                       "mov.u32 %r1, %tid.x; mul.wide.u32 %rd4, %r1, 4;\n"
                       "add.s64 %rd5, %rd1, %rd4; add.s64 %rd6, %rd2, %rd4; add.s64 %rd7, %rd3, %rd4;\n"
                       "mov.u64 %rd8, s; cvta.shared.u64 %rd9, %rd8;\n") +
           (prefetches ? "prefetch.global.L1 [%rd5];\nprefetch.global.L2 [%rd6];\nprefetch.L1 [%rd9];\n" : "") +
           "ld.global.u32 %r2, [%rd5]; ld.global.u32 %r3, [%rd6];\n"
           "add.s32 %r2, %r2, %r3; st.global.u32 [%rd7], %r2;\nret;\n}\n";
}

// Runs a one-warp probe kernel `probe(a, b, out)` that must write out[i] = a[i] + b[i] for a[i] = i, b[i] = 1000 i
// on a fresh Machine GPU with GTO, checks that sum and returns the launch's result.
template <class Machine> LaunchResult run_sum_probe(const std::string& ptx) {
    func::Device device;
    const func::Module module = func::Module::from_string(ptx, "probe.ptx");
    std::vector<int> a(32), b(32);
    for (int i = 0; i < 32; ++i) a[static_cast<std::size_t>(i)] = i, b[static_cast<std::size_t>(i)] = 1000 * i;
    const func::DevPtr pa = upload(device, a), pb = upload(device, b), out = device.malloc(32 * sizeof(int));
    using Gpu = typename Machine::template gpu<sched::GTO>;
    auto gpu = std::make_unique<Gpu>(Machine::template config<Gpu>());
    func::LaunchConfig config{func::Dim3{1, 1, 1}, func::Dim3{32, 1, 1}, 0};
    TimingOptions options;
    options.registers_per_thread = 16;
    const LaunchResult r = gpu->launch(device, module, "probe", config, func::Args(pa, pb, out), options);
    const std::vector<int> got = download<int>(device, out, 32);
    for (int i = 0; i < 32; ++i) CHECK(got[static_cast<std::size_t>(i)] == 1001 * i);
    return r;
}

template <class Machine> LaunchResult run_prefetch_probe(bool prefetches) {
    return run_sum_probe<Machine>(prefetch_probe_ptx(prefetches));
}

template <class Machine> void check_prefetch_fills() {
    const LaunchResult plain = run_prefetch_probe<Machine>(false), fetched = run_prefetch_probe<Machine>(true);
    const auto& p = plain.stats;
    const auto& f = fetched.stats;
    // Without prefetches both loads miss (a's and b's lines), nothing hits and nothing bypasses the L1.
    REQUIRE(p.counter("sm.l1.misses") > 0);
    CHECK(p.counter("sm.l1.prefetches") == 0);
    CHECK(p.counter("sm.l1.hits") + p.counter("sm.l1.mshr_merges") == 0);
    // prefetch.global.L1 takes a's misses ahead of the load, which then finds its lines (filled or in flight);
    // prefetch.global.L2 fetches b's sectors around the L1, so b's load still misses; the shared prefetch does nothing.
    CHECK(f.counter("sm.l1.prefetches") == 2);
    CHECK(f.counter("sm.l1.loads") == p.counter("sm.l1.loads") + 2);
    CHECK(f.counter("sm.l1.misses") == p.counter("sm.l1.misses"));
    CHECK(f.counter("sm.l1.hits") + f.counter("sm.l1.mshr_merges") == p.counter("sm.l1.misses") / 2);
    CHECK(f.counter("sm.l1.bypass_requests") > p.counter("sm.l1.bypass_requests"));
    CHECK(fetched.warp_instructions == plain.warp_instructions + 3);
}
} // namespace

TEST_CASE("prefetch.L1 fills the L1 ahead of a load, prefetch.L2 bypasses it, a shared prefetch does nothing") {
    check_prefetch_fills<machines::Fermi>();
    check_prefetch_fills<machines::Kepler>();
}

TEST_CASE("indirect calls under timing on every machine") { on_every_machine(check_indirect_calls); }

TEST_CASE("recursion under timing on every machine") { on_every_machine(check_recursion); }

namespace {
// One warp fetches texel tid of a texture over linear memory twice (tex1Dfetch), then stores the sum: the texture
// cache is the L1 (CacheTextureLoads), so the second fetch finds the first one's lines (hit or MSHR merge) even on
// Kepler, whose global loads bypass the L1; with l1.cache_texture_loads = false both go around the L1.
const char* texture_probe_ptx = ".version 8.0\n.target sm_75\n.address_size 64\n"
                                ".visible .entry probe(.param .u64 pt, .param .u64 pout) {\n"
                                ".reg .b32 %r<4>; .reg .f32 %f<12>; .reg .b64 %rd<6>;\n"
                                "ld.param.u64 %rd1, [pt]; ld.param.u64 %rd2, [pout];\nmov.u32 %r1, %tid.x;\n"
                                "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];\n"
                                "tex.1d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd1, {%r1}];\n"
                                "add.f32 %f9, %f1, %f5;\nmul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3; "
                                "st.global.f32 [%rd4], %f9;\nret;\n}\n";

template <class Machine> LaunchResult run_texture_probe(bool cache_texture_loads) {
    func::Device device;
    const func::Module module = func::Module::from_string(texture_probe_ptx, "probe.ptx");
    std::vector<float> values(32);
    for (int i = 0; i < 32; ++i) values[static_cast<std::size_t>(i)] = 0.5F * static_cast<float>(i);
    func::TextureObject t;
    t.resource.kind = func::ResourceKind::linear;
    t.resource.base = upload(device, values);
    t.resource.bytes = 32 * sizeof(float);
    t.resource.format = func::test::features::channels(32, 1, func::ChannelKind::floating);
    const std::uint64_t handle = device.textures().create_texture(t);
    const func::DevPtr out = device.malloc(32 * sizeof(float));
    using Gpu = typename Machine::template gpu<sched::GTO>;
    auto config = Machine::template config<Gpu>();
    config.l1.cache_texture_loads = cache_texture_loads;
    auto gpu = std::make_unique<Gpu>(config);
    TimingOptions options;
    options.registers_per_thread = 16;
    const LaunchResult r =
        gpu->launch(device, module, "probe", func::LaunchConfig{func::Dim3{1, 1, 1}, func::Dim3{32, 1, 1}, 0},
                    func::Args(static_cast<unsigned long long>(handle), out), options);
    const std::vector<float> got = download<float>(device, out, 32);
    for (int i = 0; i < 32; ++i) CHECK(got[static_cast<std::size_t>(i)] == static_cast<float>(i));
    return r;
}

template <class Machine> void check_texture_cache() {
    const LaunchResult cached = run_texture_probe<Machine>(true), bypassed = run_texture_probe<Machine>(false);
    const auto& c = cached.stats;
    const auto& b = bypassed.stats;
    CHECK(c.counter("sm.l1.texture_loads") == 2);
    CHECK(b.counter("sm.l1.texture_loads") == 2);
    // 32 lanes x 4 bytes: one 128-byte line, missed once and found by the second fetch.
    CHECK(c.counter("sm.l1.texture_misses") == 1);
    CHECK(c.counter("sm.l1.hits") + c.counter("sm.l1.mshr_merges") == 1);
    CHECK(c.counter("sm.l1.bypass_requests") == 0);
    CHECK(b.counter("sm.l1.texture_misses") == 0);
    CHECK(b.counter("sm.l1.bypass_requests") > 0);
}
} // namespace

TEST_CASE(
    "the texture cache is the L1: a repeated tex fetch finds its line on Fermi and Kepler; the knob sends it around") {
    check_texture_cache<machines::Fermi>();
    check_texture_cache<machines::Kepler>();
}

// ---- issue 20: device-side malloc/free and cp.async ----

TEST_CASE("device malloc/free under timing on every machine: the functional engine's values, heap and errors") {
    on_every_machine(check_malloc_sum);
    on_every_machine(check_malloc_exhaustion);
    on_every_machine(check_free_errors);
}

TEST_CASE("cp.async under timing on every machine: the functional engine's values") {
    on_every_machine(check_cp_async);
}

namespace {
// One warp copies a[tid] into shared memory with cp.async in group 0 and b[tid] in group 1, waits (`wait`: a
// cp.async.wait_group or wait_all line, or nothing), reads both back and stores their sum. Values never depend
// on the wait (the copy is done when cp.async executes); only the cycles do.
std::string async_probe_ptx(const std::string& wait) {
    return ".version 8.0\n.target sm_80\n.address_size 64\n"
           ".visible .entry probe(.param .u64 pa, .param .u64 pb, .param .u64 pout) {\n"
           ".reg .b32 %r<8>; .reg .b64 %rd<10>;\n.shared .align 4 .b8 s[256];\n"
           "ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pout];\n"
           "mov.u32 %r1, %tid.x; mul.wide.u32 %rd4, %r1, 4;\n"
           "add.s64 %rd5, %rd1, %rd4; add.s64 %rd6, %rd2, %rd4; add.s64 %rd7, %rd3, %rd4;\n"
           "mov.u32 %r2, s; shl.b32 %r3, %r1, 2; add.s32 %r4, %r2, %r3; add.s32 %r5, %r4, 128;\n"
           "cp.async.ca.shared.global [%r4], [%rd5], 4;\ncp.async.commit_group;\n"
           "cp.async.ca.shared.global [%r5], [%rd6], 4, 4;\ncp.async.commit_group;\n" +
           wait +
           "ld.shared.u32 %r6, [%r4]; ld.shared.u32 %r7, [%r5];\n"
           "add.s32 %r6, %r6, %r7; st.global.u32 [%rd7], %r6;\nret;\n}\n";
}

template <class Machine> LaunchResult run_async_probe(const std::string& wait) {
    return run_sum_probe<Machine>(async_probe_ptx(wait));
}

// wait_group 0 (and wait_all) hold the warp until both copies' global loads have returned, a DRAM round trip
// after they issued; wait_group 2 leaves both groups pending and costs only its own issue, like no wait at all.
// The two copies are counted as cp.async warp instructions and timed as L1 loads.
template <class Machine> void check_async_waits() {
    const LaunchResult none = run_async_probe<Machine>("");
    const LaunchResult two = run_async_probe<Machine>("cp.async.wait_group 2;\n");
    const LaunchResult one = run_async_probe<Machine>("cp.async.wait_group 1;\n");
    const LaunchResult zero = run_async_probe<Machine>("cp.async.wait_group 0;\n");
    const LaunchResult all = run_async_probe<Machine>("cp.async.wait_all;\n");
    CHECK(none.stats.counter("sm.async_copies") == 2);
    CHECK(zero.stats.counter("sm.async_copies") == 2);
    CHECK(zero.stats.counter("sm.l1.loads") == none.stats.counter("sm.l1.loads"));
    CHECK(two.cycles < none.cycles + 20);
    CHECK(zero.cycles > two.cycles + 100);
    CHECK(one.cycles > two.cycles + 100); // group 0's copy was issued first; waiting for it takes the round trip
    CHECK(all.cycles == zero.cycles);
    CHECK(one.cycles <= zero.cycles);
}
} // namespace

TEST_CASE("cp.async.wait_group N holds the warp until at most N groups are pending; wait_all until none are") {
    check_async_waits<machines::Fermi>();
    check_async_waits<machines::Kepler>();
    check_async_waits<machines::SouthernIslands>();
}

TEST_CASE("with l1.flush_between_kernels a second launch misses in the L1 as the first did; without it, it hits") {
    const std::string ptx = ".version 8.0\n.target sm_75\n.address_size 64\n"
                            ".visible .entry load_all(.param .u64 p)\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<4>;\n"
                            "  .reg .f32 %f<2>;\n  ld.param.u64 %rd1, [p];\n  mov.u32 %r1, %tid.x;\n"
                            "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  ld.global.f32 %f1, [%rd3];\n"
                            "  ret;\n}\n";
    const func::Module module = func::Module::from_string(ptx, "load_all.ptx");
    using Gpu = machines::Fermi::gpu<sched::GTO, 1>;
    for (const bool flush : {false, true}) {
        CAPTURE(flush);
        auto config = machines::Fermi::config<Gpu>();
        config.l1.flush_between_kernels = flush;
        auto gpu = std::make_unique<Gpu>(config);
        func::Device device;
        const func::DevPtr data = device.malloc(256 * 4);
        const func::LaunchConfig shape{func::Dim3{1, 1, 1}, func::Dim3{256, 1, 1}, 0};
        TimingOptions options;
        options.registers_per_thread = 8;
        const LaunchResult first = gpu->launch(device, module, "load_all", shape, func::Args(data), options);
        const LaunchResult second = gpu->launch(device, module, "load_all", shape, func::Args(data), options);
        CHECK(first.stats.counter("sm.l1.misses") == 8); // 1 KB: eight 128-byte lines
        CHECK(second.stats.counter("sm.l1.misses") == (flush ? 8 : 0));
        CHECK(second.stats.counter("sm.l1.hits") == (flush ? 0 : 8));
    }
}

TEST_CASE("device malloc and free calls are counted per thread in the SM statistics") {
    func::Device device;
    const func::Module module = load("malloc");
    const func::DevPtr out = device.malloc(100 * sizeof(int)), where = device.malloc(100 * sizeof(std::uint64_t));
    using Gpu = machines::Fermi::gpu<sched::GTO>;
    auto gpu = std::make_unique<Gpu>(machines::Fermi::config<Gpu>());
    const LaunchResult r =
        gpu->launch(device, module, "malloc_sum", func::LaunchConfig{func::Dim3{4, 1, 1}, func::Dim3{32, 1, 1}, 0},
                    func::Args(out, where, 100));
    CHECK(r.stats.counter("sm.device_mallocs") == 100);
    CHECK(r.stats.counter("sm.device_frees") == 100);
    CHECK(r.stats.counter("sm.async_copies") == 0);
}
