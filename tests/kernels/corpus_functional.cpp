// Every corpus kernel, run by the functional executor from its checked-in PTX, reproduces its CPU reference at both
// input sizes and at warp widths 32 and 64 (the Fermi/Kepler and Southern-Islands-like widths).
#include <corpus/corpus.hpp>

#include <gpuarch/func/host.hpp>

#include <doctest/doctest.h>

#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef GPUARCH_KERNELS_DIR
#define GPUARCH_KERNELS_DIR "kernels"
#endif

namespace {

using namespace gpuarch;
using kernels::Size;

const func::Module& corpus_module(const kernels::CaseInfo& info) {
    static std::map<std::string, func::Module, std::less<>> modules;
    auto it = modules.find(info.ptx_file);
    if (it == modules.end()) {
        const std::filesystem::path path = std::filesystem::path(GPUARCH_KERNELS_DIR) / "ptx" / info.ptx_file;
        it = modules.emplace(std::string(info.ptx_file), func::Module::from_file(path)).first;
    }
    return it->second;
}

// The functional-only launcher of the corpus contract, counting what it executed.
struct FunctionalLauncher {
    func::Device* device;
    std::uint32_t warp_width;
    std::uint64_t launches = 0;
    std::uint64_t thread_instructions = 0;

    void operator()(const func::Module& module, std::string_view entry, const func::LaunchConfig& config,
                    const func::Args& args) {
        func::LaunchOptions options;
        options.warp_width = warp_width;
        const func::FunctionalStats stats = func::launch(*device, module, entry, config, args, options);
        ++launches;
        thread_instructions += stats.thread_instructions;
    }
};

struct Outcome {
    kernels::CaseResult result;
    std::uint64_t launches = 0;
    std::uint64_t thread_instructions = 0;
};

Outcome run_functional(const kernels::CaseInfo& info, Size size, std::uint32_t warp_width) {
    func::Device device;
    FunctionalLauncher launcher{&device, warp_width};
    Outcome outcome;
    try {
        outcome.result = kernels::run_case(info.name, device, corpus_module(info), launcher, size);
    } catch (const std::exception& e) {
        outcome.result = kernels::CaseResult{false, std::string("threw: ") + e.what(), 0};
    }
    outcome.launches = launcher.launches;
    outcome.thread_instructions = launcher.thread_instructions;
    return outcome;
}

// Names of the cases that have a TEST_CASE below, filled during static initialisation.
std::set<std::string_view>& tested_cases() {
    static std::set<std::string_view> names;
    return names;
}

void check_case(std::string_view name) {
    const kernels::CaseInfo& info = kernels::find_case(name);
    for (const Size size : {Size::small, Size::large}) {
        for (const std::uint32_t warp_width : {32U, 64U}) {
            CAPTURE(kernels::size_name(size));
            CAPTURE(warp_width);
            const Outcome outcome = run_functional(info, size, warp_width);
            CHECK_MESSAGE(outcome.result.passed, outcome.result.message);
            CHECK(outcome.result.values_checked > 0);
            CHECK(outcome.launches > 0);
            // Size contract (kernels/corpus/common.hpp): small stays cheap, large is a real workload.
            if (size == Size::small) {
                CHECK(outcome.thread_instructions < 2'000'000);
            } else {
                CHECK(outcome.thread_instructions >= 100'000);
                CHECK(outcome.thread_instructions <= 20'000'000);
            }
        }
    }
}

} // namespace

#define GPUARCH_CORPUS_TEST(name)                                                                                      \
    [[maybe_unused]] static const bool registered_##name = tested_cases().insert(#name).second;                        \
    TEST_CASE("corpus kernel " #name " matches its CPU reference at both sizes and warp widths 32 and 64") {           \
        check_case(#name);                                                                                             \
    }

GPUARCH_CORPUS_TEST(vector_add)
GPUARCH_CORPUS_TEST(saxpy)
GPUARCH_CORPUS_TEST(reduce_shared)
GPUARCH_CORPUS_TEST(reduce_shfl)
GPUARCH_CORPUS_TEST(scan_block)
GPUARCH_CORPUS_TEST(histogram_shared)
GPUARCH_CORPUS_TEST(histogram_global)
GPUARCH_CORPUS_TEST(sgemm_naive)
GPUARCH_CORPUS_TEST(sgemm_tiled)
GPUARCH_CORPUS_TEST(transpose_naive)
GPUARCH_CORPUS_TEST(transpose_tiled)
GPUARCH_CORPUS_TEST(spmv_csr_scalar)
GPUARCH_CORPUS_TEST(bfs)
GPUARCH_CORPUS_TEST(jacobi2d)
GPUARCH_CORPUS_TEST(hotspot)
GPUARCH_CORPUS_TEST(nw)
GPUARCH_CORPUS_TEST(kmeans_assign)
GPUARCH_CORPUS_TEST(bitonic_sort)
GPUARCH_CORPUS_TEST(conv2d)
GPUARCH_CORPUS_TEST(atax)
GPUARCH_CORPUS_TEST(bicg)
GPUARCH_CORPUS_TEST(mvt)
GPUARCH_CORPUS_TEST(devfunc_local)
GPUARCH_CORPUS_TEST(mandelbrot)

TEST_CASE("every corpus case has a functional test above") {
    std::set<std::string_view> registry;
    for (const kernels::CaseInfo& info : kernels::corpus_cases()) registry.insert(info.name);
    CHECK(tested_cases() == registry);
}

TEST_CASE("every entry listed in a resources file is a kernel of the parsed module") {
    for (const kernels::CaseInfo& info : kernels::corpus_cases()) {
        CAPTURE(info.name);
        const func::Module& module = corpus_module(info);
        std::string resources_name(info.ptx_file);
        resources_name.replace(resources_name.size() - 4, 4, ".resources");
        std::ifstream in(std::filesystem::path(GPUARCH_KERNELS_DIR) / "ptx" / resources_name);
        REQUIRE(in.good());
        std::string line;
        while (std::getline(in, line)) {
            const std::string entry = line.substr(0, line.find(' '));
            CAPTURE(entry);
            CHECK_NOTHROW((void)module.kernel(entry));
        }
        CHECK_THROWS((void)module.kernel("not_an_entry_of_this_module"));
    }
}

TEST_CASE("every driver rejects a launcher that never runs the kernel") {
    // Outputs are poisoned or hold inputs the kernel must change, so skipping the launch cannot pass a comparison.
    auto skip_launch = [](const func::Module&, std::string_view, const func::LaunchConfig&, const func::Args&) {};
    for (const kernels::CaseInfo& info : kernels::corpus_cases()) {
        CAPTURE(info.name);
        func::Device device;
        const kernels::CaseResult result =
            kernels::run_case(info.name, device, corpus_module(info), skip_launch, Size::small);
        CHECK_FALSE(result.passed);
        CHECK_FALSE(result.message.empty());
    }
}

TEST_CASE("run_case rejects a name that is not in the corpus") {
    func::Device device;
    auto skip_launch = [](const func::Module&, std::string_view, const func::LaunchConfig&, const func::Args&) {};
    CHECK_THROWS_AS(kernels::run_case("no_such_kernel", device, corpus_module(kernels::find_case("saxpy")), skip_launch,
                                      Size::small),
                    gpuarch::Error);
}
