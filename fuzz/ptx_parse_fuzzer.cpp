// libFuzzer target for the PTX front end. Contract under test: for any input, ptx::parse either returns an
// analysed module or throws ptx::ParseError; any other exception, crash, hang or sanitizer report is a bug.
// Build and run (see docs/ptx.md, "Fuzzing"):
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude fuzz/ptx_parse_fuzzer.cpp -o ptx_fuzzer
//   ./ptx_fuzzer -max_total_time=600 -jobs=1 -rss_limit_mb=2048 -dict=fuzz/ptx.dict work_corpus fuzz/corpus
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <gpuarch/ir/cfg.hpp>
#include <gpuarch/ir/printer.hpp>
#include <gpuarch/ptx/parser.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const gpuarch::ir::Module module = gpuarch::ptx::parse(text, "fuzz.ptx");
        for (const gpuarch::ir::Kernel& kernel : module.kernels) {
            // Exercise the consumers of a parsed module: the CFG and the printer (bounded to stay linear).
            const gpuarch::ir::Cfg cfg = gpuarch::ir::build_cfg(kernel);
            (void)gpuarch::ir::immediate_post_dominators(cfg);
            std::size_t printed = 0;
            for (const gpuarch::ir::Instruction& inst : kernel.code) {
                if (++printed > 256) break;
                (void)gpuarch::ir::to_string(inst, kernel, &module);
            }
        }
    } catch (const gpuarch::ptx::ParseError&) {
        // The documented failure mode.
    }
    return 0;
}
