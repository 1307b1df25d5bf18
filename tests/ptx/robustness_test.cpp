// Hostile and fuzzer-found inputs (tests/ptx/regressions/*.ptx) end in success or a clean ParseError, never in a
// crash, another exception type or unbounded time/memory; and parsing stays linear in the input size.
#include <chrono>
#include <filesystem>
#include <string>

#include "ptx_test_support.hpp"

#ifndef GPUARCH_TEST_DATA_DIR
#define GPUARCH_TEST_DATA_DIR "tests"
#endif

using namespace gpuarch;

TEST_CASE("every regression input parses or fails with a ParseError") {
    const std::filesystem::path dir = std::filesystem::path(GPUARCH_TEST_DATA_DIR) / "ptx" / "regressions";
    REQUIRE(std::filesystem::exists(dir));
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (!entry.is_regular_file()) continue;
        ++files;
        CAPTURE(entry.path().string());
        try {
            const ir::Module m = ptx::parse_file(entry.path());
            for (const auto& k : m.kernels) CHECK(!k.code.empty());
        } catch (const ptx::ParseError& e) {
            CHECK(std::string(e.what()).rfind(entry.path().string() + ":", 0) == 0);
        }
    }
    CHECK(files > 0);
}

TEST_CASE("resource limits turn hostile inputs into errors") {
    const std::filesystem::path dir = std::filesystem::path(GPUARCH_TEST_DATA_DIR) / "ptx" / "regressions";
    const auto error_of = [&](const char* name) {
        try {
            (void)ptx::parse_file(dir / name);
        } catch (const ptx::ParseError& e) {
            return std::string(e.message());
        }
        return std::string();
    };
    CHECK(error_of("huge_register_range.ptx") == "register count 99999999 is too large (at most 1048576 registers per function)");
    CHECK(error_of("exponential_inlining.ptx").find("after inlining") != std::string::npos);
    CHECK(error_of("deep_scopes.ptx") == "scopes nested too deeply");
    CHECK(error_of("deep_initializer.ptx") == "initializer nested too deeply");
}

TEST_CASE("a 5,000-line kernel parses in linear time") {
    const auto make = [](int blocks) {
        std::string text = ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry big(.param .u64 p)\n{\n"
                           ".reg .pred %p<4>;\n.reg .b32 %r<64>;\n.reg .f32 %f<64>;\n.reg .b64 %rd<8>;\n"
                           "ld.param.u64 %rd1, [p];\n";
        for (int b = 0; b < blocks; ++b) {
            const std::string n = std::to_string(b);
            text += "$L_" + n + ":\n";
            text += "\tld.global.f32 %f" + std::to_string(b % 60) + ", [%rd1+" + std::to_string(4 * b) + "];\n";
            text += "\tfma.rn.f32 %f1, %f2, %f3, %f4;\n\tadd.s32 %r1, %r1, " + n + ";\n";
            text += "\tsetp.lt.s32 %p1, %r1, %r2;\n\t@%p1 bra $L_" + n + ";\n";
            text += "\tst.global.f32 [%rd1], %f1;\n\tmul.wide.s32 %rd2, %r1, 4;\n\tadd.s64 %rd1, %rd1, %rd2;\n";
            text += "\tbar.sync 0;\n";
        }
        text += "ret;\n}\n";
        return text;
    };
    const std::string small = make(100), large = make(500); // ~1,000 and ~5,000 lines
    const auto time_parse = [](const std::string& text) {
        const auto start = std::chrono::steady_clock::now();
        const ir::Module m = ptx::parse(text, "big.ptx");
        const auto end = std::chrono::steady_clock::now();
        CHECK(m.kernels.at(0).code.size() > 900);
        return std::chrono::duration<double>(end - start).count();
    };
    (void)time_parse(small); // warm-up
    const double t_small = time_parse(small), t_large = time_parse(large);
    MESSAGE("parse time: 1,000 lines " << t_small * 1e3 << " ms, 5,000 lines " << t_large * 1e3 << " ms");
    // Generous bounds that still catch quadratic behaviour in debug and sanitizer builds.
    CHECK(t_large < 2.0);
    CHECK(t_large < 10.0 * t_small + 0.05);
}
