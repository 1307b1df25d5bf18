// Resource limits (ptx/limits.hpp): each CUDA limit and knob is reported as a ParseError at the declaration or
// instruction that crosses it, one byte or instruction under it is accepted, and hostile inputs end in bounded
// memory. The memory bounds are checked in forked children under setrlimit(RLIMIT_AS), never with wall-clock
// time: a child also gets an RLIMIT_CPU ceiling far above what a linear parse needs, so a parse that turned
// quadratic is killed instead of hanging the suite.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ptx_test_support.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define GPUARCH_LIMITS_TEST_NO_RLIMIT 1 // AddressSanitizer reserves terabytes of address space: RLIMIT_AS breaks it
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUARCH_LIMITS_TEST_NO_RLIMIT 1
#endif
#endif

#ifndef GPUARCH_LIMITS_TEST_NO_RLIMIT
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

using namespace gpuarch;

namespace {

const std::string header = ".version 9.0\n.target sm_75\n.address_size 64\n";

// The error of parsing `text` as "t.ptx", as "line:column: message", or "" when it parses.
std::string error_of(const std::string& text, const ptx::Limits& limits = {}) {
    try {
        (void)ptx::parse(text, "t.ptx", limits);
    } catch (const ptx::ParseError& e) {
        return std::to_string(e.where().line) + ":" + std::to_string(e.where().column) + ": " + e.message();
    }
    return "";
}

std::string kernel(const std::string& params, const std::string& body) {
    return header + ".visible .entry k(" + params + ")\n{\n" + body + "ret;\n}\n";
}

// A kernel with `n` one-line instructions on lines 7 .. 6 + n.
std::string instructions(std::size_t n) {
    std::string text = header + ".visible .entry k()\n{\n.reg .b32 %r<4>;\n";
    text.reserve(text.size() + 24 * n);
    for (std::size_t i = 0; i < n; ++i) text += "add.s32 %r1, %r1, 1;\n";
    return text + "}\n";
}

// A .func with `n` .u8 parameters, one per line (lines 5 .. 4 + n).
std::string func_params(std::size_t n) {
    std::string text = header + ".func f(\n";
    text.reserve(text.size() + 24 * n);
    for (std::size_t i = 0; i < n; ++i) text += (i ? ",\n.param .u8 p" : ".param .u8 p") + std::to_string(i);
    return text + "\n)\n{\nret;\n}\n";
}

} // namespace

TEST_CASE("CUDA's per-thread local memory limit (512 KB) is checked at the variable that crosses it") {
    CHECK(error_of(kernel("", ".local .align 4 .b8 l[524288];\n")).empty());
    CHECK(error_of(kernel("", ".local .align 4 .b8 l[100000000];\n")) ==
          "6:21: 'l' brings the local memory of 'k' to 100000000 bytes, more than the 524288 bytes per thread CUDA "
          "allows (ptx::Limits::max_local_bytes_per_thread)");
    // Call-sequence .param variables share the per-thread segment.
    CHECK(error_of(kernel("", ".local .b8 a[524000];\n{\n.param .b64 p[64];\n}\n"))
              .rfind("8:13: 'p' brings the local", 0) == 0);
}

TEST_CASE("local memory a kernel reaches only through inlining is reported at the kernel") {
    const std::string text = header + ".func f()\n{\n.local .b8 buf[300000];\nret;\n}\n"
                                      ".visible .entry k()\n{\ncall f;\ncall f;\nret;\n}\n";
    CHECK(error_of(text) == "9:17: kernel 'k' needs 600000 bytes of local memory per thread after inlining, more than "
                            "the 524288 CUDA allows (ptx::Limits::max_local_bytes_per_thread)");
}

TEST_CASE("CUDA's static shared memory limit (48 KB per block) counts the module's and the kernel's variables") {
    CHECK(error_of(kernel("", ".shared .b8 s[49152];\n")).empty());
    CHECK(error_of(kernel("", ".shared .b8 s[49153];\n")) ==
          "6:13: 's' brings the static shared memory of 'k' (with the module's) to 49153 bytes, more than the 49152 "
          "bytes of static shared memory CUDA allows per block (ptx::Limits::max_static_shared_bytes)");
    CHECK(error_of(header + ".shared .b8 m[40000];\n.visible .entry k()\n{\n.shared .b8 s[10000];\nret;\n}\n")
              .rfind("7:13: 's' brings the static shared memory of 'k' (with the module's) to 50000 bytes", 0) == 0);
    CHECK(error_of(header + ".shared .b8 a[30000];\n.shared .b8 b[30000];\n")
              .rfind("5:13: 'b' brings the module's static shared memory to 60000 bytes", 0) == 0);
    // Dynamic shared memory has no static size.
    CHECK(error_of(header + ".extern .shared .align 16 .b8 dyn[];\n.visible .entry k()\n{\nret;\n}\n").empty());
}

TEST_CASE("CUDA's constant memory (64 KB) and the .global knob are checked as variables are declared") {
    CHECK(error_of(header + ".const .b8 c[65536];\n.visible .entry k()\n{\nret;\n}\n").empty());
    CHECK(error_of(header + ".const .b8 a[65000];\n.const .align 8 .b64 c[100];\n") ==
          "5:22: 'c' brings the module's constant memory to 65800 bytes, more than the 65536 bytes of constant memory "
          "CUDA provides (ptx::Limits::max_const_bytes)");
    CHECK(error_of(header + ".global .b8 g[2000000000];\n") ==
          "4:13: 'g' brings the module's .global variables to 2000000000 bytes, more than the 1073741824 bytes allowed "
          "(ptx::Limits::max_global_bytes)");
}

TEST_CASE("CUDA's kernel parameter limit (32,764 bytes) is checked at the parameter that crosses it") {
    CHECK(error_of(kernel(".param .align 4 .b8 a[32760], .param .u32 n", "")).empty());
    CHECK(error_of(kernel(".param .align 4 .b8 a[32760], .param .u64 p", "")) ==
          "4:61: parameter 'p' brings the kernel's parameters to 32768 bytes, more than the 32764 CUDA allows "
          "(ptx::Limits::max_kernel_param_bytes)");
    // A device function's parameters are per-thread .param storage, bounded by local memory at the call instead.
    CHECK(error_of(header + ".func f(.param .b8 big[40000])\n{\nret;\n}\n").empty());
}

TEST_CASE("the instruction limit applies before inlining, at the first instruction past it") {
    ptx::Limits limits;
    limits.max_function_instructions = 100;
    CHECK(error_of(instructions(99), limits).empty()); // + the ret added at the closing brace
    CHECK(error_of(instructions(101), limits) ==
          "107:1: 'k' has more than 100 instructions (ptx::Limits::max_function_instructions)");
    CHECK(error_of(instructions(100), limits) == "107:1: 'k' has more than 100 instructions with the ret added at its "
                                                 "end (ptx::Limits::max_function_instructions)");
    limits.max_function_instructions = 1000;
    limits.max_module_instructions = 150;
    std::string two = header + ".visible .entry a()\n{\n.reg .b32 %r<2>;\n";
    for (int i = 0; i < 100; ++i) two += "add.s32 %r1, %r1, 1;\n";
    two += "ret;\n}\n.visible .entry b()\n{\n.reg .b32 %r<2>;\n";
    for (int i = 0; i < 100; ++i) two += "add.s32 %r1, %r1, 1;\n";
    two += "ret;\n}\n";
    CHECK(error_of(two, limits) ==
          "161:1: the module has more than 150 instructions (ptx::Limits::max_module_instructions)");
}

TEST_CASE("a kernel that only inlining makes too long fails at the kernel, per kernel and per module") {
    ptx::Limits limits;
    limits.max_function_instructions = 50;
    std::string body;
    for (int i = 0; i < 30; ++i) body += "add.s32 %r1, %r1, 1;\n";
    const std::string text = header + ".func f()\n{\n.reg .b32 %r<2>;\n" + body + "ret;\n}\n" +
                             ".visible .entry k()\n{\ncall f;\ncall f;\nret;\n}\n";
    CHECK(error_of(text, limits) == "39:17: kernel 'k' exceeds 50 instructions after inlining");
    limits.max_function_instructions = 100;
    limits.max_module_instructions = 100;
    const std::string two = text + ".visible .entry k2()\n{\ncall f;\ncall f;\nret;\n}\n";
    CHECK(error_of(two, limits) == "45:17: with kernel 'k2' the module exceeds 100 instructions after inlining "
                                   "(ptx::Limits::max_module_instructions)");
}

TEST_CASE("the input size knob is reported at the first byte past it") {
    ptx::Limits limits;
    const std::string text = kernel("", "");
    limits.max_file_bytes = text.size();
    CHECK(error_of(text, limits).empty());
    limits.max_file_bytes = 50; // inside line 4 (".visible .entry k()" starts at byte 44)
    CHECK(
        error_of(text, limits) ==
        "4:7: the input is longer than 50 bytes (ptx::Limits::max_file_bytes); this is its first byte past the limit");
    const auto path = std::filesystem::temp_directory_path() / "gpuarch_limits_test_big.ptx";
    {
        std::ofstream out(path, std::ios::binary);
        out << text;
    }
    try {
        (void)ptx::parse_file(path, limits);
        FAIL("parse_file accepted a file over max_file_bytes");
    } catch (const ptx::ParseError& e) {
        CHECK(std::string(e.what()) == path.string() +
                                           ":4:7: the input is longer than 50 bytes "
                                           "(ptx::Limits::max_file_bytes); this is its first byte past the limit");
    }
    std::filesystem::remove(path);
}

TEST_CASE("a directory path is reported as a directory") {
    const auto dir = std::filesystem::temp_directory_path();
    try {
        (void)ptx::parse_file(dir);
        FAIL("parse_file accepted a directory");
    } catch (const ptx::ParseError& e) {
        CHECK(std::string(e.what()) == dir.string() + ": is a directory, not a PTX file");
    }
}

TEST_CASE("long identifiers are shortened in messages, with their length") {
    const std::string name(10'000'000, 'a');
    const std::string message = error_of(kernel("", name + " %r1;\n"));
    CHECK(message.size() < 400);
    CHECK(message.rfind("6:1: unsupported instruction '" + std::string(119, 'a') + "...", 0) == 0);
    CHECK(message.find("(10000002 characters)") != std::string::npos); // the name and its two quotes
    // Names of ordinary length, mangled C++ included, are kept whole.
    const std::string mangled = "_Z" + std::string(200, 'x');
    CHECK(error_of(kernel("", "bra " + mangled + ";\n")) == "6:5: unknown label '" + mangled + "'");
}

TEST_CASE("scope nesting fails at the 65th brace without reading the rest of the file") {
    // Before tokens were lexed on demand, 20 M braces took 650 MB of tokens before the depth check ran.
    const std::string text = header + ".visible .entry k()\n" + std::string(20'000'000, '{');
    CHECK(error_of(text) == "5:65: scopes nested too deeply");
}

TEST_CASE("a statement longer than the token knob is an error, not a buffer that grows") {
    ptx::Limits limits;
    limits.max_statement_tokens = 1000;
    std::string operands;
    for (int i = 0; i < 2000; ++i) operands += ", %r1";
    CHECK(error_of(kernel("", ".reg .b32 %r<2>;\nadd.s32 %r1" + operands + ";\n"), limits)
              .find("statement too long: more than 1000 tokens held at once (ptx::Limits::max_statement_tokens)") !=
          std::string::npos);
    // Lists read item by item are not statements in that sense: 5,000 parameters need no more than 1,000 tokens.
    CHECK(error_of(func_params(5000), limits).empty());
}

#ifndef GPUARCH_LIMITS_TEST_NO_RLIMIT
namespace {

struct ChildResult {
    bool exited = false; // false: killed (RLIMIT_CPU's SIGXCPU, or a crash)
    int code = -1; // 0 parsed, 1 ParseError, 2 other gpuarch::Error, 3 std::bad_alloc, 4 other exception
    long peak_kib = 0; // the child's peak resident set
    std::string message; // what() of the exception, if any
};

// Parses `text` in a forked child that may map `address_space_mib` more than it has at the fork, and use
// `cpu_seconds` of CPU.
ChildResult parse_in_child(const std::string& text, long address_space_mib, long cpu_seconds) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    std::fflush(nullptr);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        // The bound is on what the parse maps beyond what the process has mapped already (the input included).
        unsigned long pages = 0;
        if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
            if (std::fscanf(statm, "%lu", &pages) != 1) pages = 0;
            std::fclose(statm);
        }
        const rlim_t bound = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) +
                             (static_cast<rlim_t>(address_space_mib) << 20);
        const rlimit as{bound, bound};
        const rlimit cpu{static_cast<rlim_t>(cpu_seconds), static_cast<rlim_t>(cpu_seconds)};
        setrlimit(RLIMIT_AS, &as);
        setrlimit(RLIMIT_CPU, &cpu);
        int code = 0;
        std::string message;
        try {
            (void)ptx::parse(text, "big.ptx");
        } catch (const ptx::ParseError& e) {
            code = 1;
            message = e.what();
        } catch (const Error& e) {
            code = 2;
            message = e.what();
        } catch (const std::bad_alloc&) {
            code = 3;
        } catch (...) {
            code = 4;
        }
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        const std::string report = std::to_string(usage.ru_maxrss) + "\n" + message.substr(0, 400);
        (void)!write(fds[1], report.data(), report.size());
        _exit(code);
    }
    close(fds[1]);
    std::string report;
    char buffer[512];
    for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) report.append(buffer, static_cast<std::size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ChildResult result;
    result.exited = WIFEXITED(status);
    result.code = result.exited ? WEXITSTATUS(status) : -1;
    const std::size_t newline = report.find('\n');
    if (newline != std::string::npos) {
        result.peak_kib = std::stol(report.substr(0, newline));
        result.message = report.substr(newline + 1);
    }
    return result;
}

} // namespace

TEST_CASE("a 1M-parameter file parses in linear memory, under a 1 GiB address-space bound") {
    // Parameter lists were quadratic (each name compared with every earlier one): 40k parameters took 1.3 s and
    // 1M did not finish. Linear, 1M take a few CPU seconds; the 120 s CPU ceiling only stops a regression.
    const std::string quarter = func_params(250'000), full = func_params(1'000'000);
    const ChildResult small = parse_in_child(quarter, 1024, 120);
    const ChildResult large = parse_in_child(full, 1024, 120);
    MESSAGE("peak RSS: 250k parameters " << small.peak_kib / 1024 << " MiB, 1M parameters " << large.peak_kib / 1024
                                         << " MiB (input " << full.size() / (1 << 20) << " MiB)");
    REQUIRE(small.exited);
    REQUIRE(large.exited);
    CHECK_MESSAGE(small.code == 0, small.message);
    CHECK_MESSAGE(large.code == 0, large.message);
    // Four times the input, at most about four times the memory: the tokens of the list are not all kept.
    CHECK(large.peak_kib < 6 * small.peak_kib);
    CHECK(large.peak_kib < 512 * 1024);
}

TEST_CASE("a 1M-instruction kernel fails at instruction 262,145, in bounded memory") {
    // Before: accepted, 770 MB resident, although docs/ptx.md limits kernels to 262,144 instructions.
    const ChildResult result = parse_in_child(instructions(1'000'000), 1024, 120);
    MESSAGE("peak RSS " << result.peak_kib / 1024 << " MiB");
    REQUIRE(result.exited);
    CHECK(result.code == 1);
    CHECK(result.message ==
          "big.ptx:262151:1: 'k' has more than 262144 instructions (ptx::Limits::max_function_instructions)");
    CHECK(result.peak_kib < 400 * 1024);
}

TEST_CASE("running out of host memory is a ParseError with a position, never std::bad_alloc") {
    // 1M instructions in four kernels are within every limit, but need far more than the 160 MiB this child
    // may map; the allocation that fails surfaces as a ParseError at the token being read.
    std::string text = header;
    for (int k = 0; k < 4; ++k) {
        text += ".visible .entry k" + std::to_string(k) + "()\n{\n.reg .b32 %r<2>;\n";
        for (int i = 0; i < 250'000; ++i) text += "add.s32 %r1, %r1, 1;\n";
        text += "}\n";
    }
    const ChildResult result = parse_in_child(text, 160, 120);
    REQUIRE(result.exited);
    CHECK_MESSAGE(result.code == 1, result.message);
    CHECK(result.message.find("out of host memory while parsing") != std::string::npos);
    CHECK(result.message.rfind("big.ptx:", 0) == 0);
}
#endif
