// Hostile and fuzzer-found inputs (tests/ptx/regressions/*.ptx) end in success or a clean ParseError, never in a
// crash, another exception type or unbounded time/memory. That parsing stays linear in the input size, under a
// memory bound, is checked in limits_test.cpp (1M parameters, 1M instructions) without wall-clock assertions.
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
    CHECK(error_of("huge_register_range.ptx") ==
          "register count 99999999 is too large (at most 1048576 registers per function)");
    CHECK(error_of("exponential_inlining.ptx").find("after inlining") != std::string::npos);
    CHECK(error_of("deep_scopes.ptx") == "scopes nested too deeply");
    CHECK(error_of("deep_initializer.ptx") == "initializer nested too deeply");
}
