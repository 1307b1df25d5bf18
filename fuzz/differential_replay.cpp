// Runs generated kernels through fuzz/differential.hpp and says where the runs disagree; prints a kernel's PTX and
// launch; reduces a failing kernel by leaving out statements while it still fails (docs/differential_fuzzing.md).
//
//   differential_replay --seed N [--count C]       seeds N .. N+C-1 (the CTest test runs such a range)
//   differential_replay FILE...                    libFuzzer inputs (crash-*) or case files (*.ptx, see
//                                                  fuzz::to_case_file; tests/fuzz/regressions/)
//   options: --print (PTX and launch of each kernel), --reduce (of each failing generated kernel: the smallest
//            failing variant found by leaving out one statement at a time), --save DIR (each failing kernel,
//            reduced when --reduce is given, as a case file DIR/<name>.ptx)
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "differential.hpp"

namespace {
using namespace gpuarch;

struct Source {
    std::string name;
    std::uint64_t seed = 0;
    std::vector<std::uint8_t> bytes;
    bool from_file = false;
    std::optional<fuzz::GeneratedKernel> saved; // a case file: the kernel itself, no generator

    fuzz::GeneratedKernel generate(const std::vector<bool>* omit = nullptr) const {
        if (saved) return *saved;
        if (from_file) return fuzz::generate_kernel(std::span<const std::uint8_t>(bytes), omit);
        return fuzz::generate_kernel(seed, omit);
    }
};

void print_kernel(const fuzz::GeneratedKernel& k) {
    std::cout << k.ptx << "// grid " << func::to_string(k.config.grid) << ", block " << func::to_string(k.config.block)
              << ", " << k.registers_per_thread << " registers, " << k.statements << " statements\n";
}

// Leaves statements out, one at a time, while the kernel still fails the same way (an error stays an error, a
// disagreement a disagreement), until no single statement can go.
fuzz::GeneratedKernel reduce(const Source& source, fuzz::DifferentialRunner& runner, bool was_error) {
    fuzz::GeneratedKernel best = source.generate();
    std::vector<bool> omit(best.statements, false);
    auto still_fails = [&](const fuzz::GeneratedKernel& k) {
        const fuzz::Verdict v = runner.check(k);
        return !v.agree && (v.report.find(" failed: ") != std::string::npos) == was_error;
    };
    for (bool progress = true; progress;) {
        progress = false;
        for (std::size_t i = 0; i < omit.size(); ++i) {
            if (omit[i]) continue;
            omit[i] = true;
            fuzz::GeneratedKernel candidate = source.generate(&omit);
            if (candidate.ptx != best.ptx && still_fails(candidate)) {
                best = std::move(candidate);
                progress = true;
            } else {
                omit[i] = false;
            }
        }
    }
    return best;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<Source> sources;
    bool print = false, reduce_failures = false;
    std::string save_dir;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--print") {
            print = true;
        } else if (arg == "--reduce") {
            reduce_failures = true;
        } else if (arg == "--save" && i + 1 < argc) {
            save_dir = argv[++i];
        } else if (arg == "--seed" && i + 1 < argc) {
            sources.push_back(
                {"seed " + std::string(argv[i + 1]), std::strtoull(argv[i + 1], nullptr, 0), {}, false, {}});
            ++i;
        } else if (arg == "--count" && i + 1 < argc && !sources.empty() && !sources.back().from_file) {
            const std::uint64_t first = sources.back().seed, count = std::strtoull(argv[++i], nullptr, 0);
            for (std::uint64_t s = first + 1; s < first + count; ++s)
                sources.push_back({"seed " + std::to_string(s), s, {}, false, {}});
        } else if (!arg.empty() && arg[0] != '-') {
            std::ifstream in(std::string(arg), std::ios::binary);
            if (!in) {
                std::cerr << "cannot open " << arg << "\n";
                return 2;
            }
            Source source{std::string(arg), 0, std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {}), true,
                          std::nullopt};
            const std::string text(source.bytes.begin(), source.bytes.end());
            if (text.find("// differential-case ") != std::string::npos) source.saved = fuzz::from_case_file(text);
            sources.push_back(std::move(source));
        } else {
            std::cerr << "usage: differential_replay [--print] [--reduce] (--seed N [--count C] | FILE...)\n";
            return 2;
        }
    }
    fuzz::DifferentialRunner runner;
    unsigned failures = 0;
    for (const Source& source : sources) {
        const fuzz::GeneratedKernel k = source.generate();
        if (print) print_kernel(k);
        const fuzz::Verdict v = runner.check(k);
        if (v.agree) {
            if (print) std::cout << source.name << ": all runs agree\n";
            continue;
        }
        ++failures;
        std::cout << source.name << ": " << v.report << "\n";
        fuzz::GeneratedKernel failing = k;
        if (reduce_failures && !source.saved) {
            failing = reduce(source, runner, v.report.find(" failed: ") != std::string::npos);
            std::cout << "reduced (" << source.name << "): " << runner.check(failing).report << "\n";
            print_kernel(failing);
        }
        if (!save_dir.empty()) {
            std::string name = source.name;
            for (char& ch : name)
                if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
            const std::string path = save_dir + "/" + name + ".ptx";
            std::ofstream(path) << fuzz::to_case_file(failing);
            std::cout << "saved " << path << "\n";
        }
    }
    std::cout << failures << " of " << sources.size() << " kernels disagree\n";
    return failures == 0 ? 0 : 1;
}
