// The checked-in corpus files agree with each other: every source has PTX, every PTX entry has a resources line,
// the registry points at real files, and the PTX stays inside the subset the simulator models.
#include <corpus/corpus.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#ifndef GPUARCH_KERNELS_DIR
#define GPUARCH_KERNELS_DIR "kernels"
#endif

namespace {

namespace fs = std::filesystem;
using gpuarch::kernels::CaseInfo;
using gpuarch::kernels::corpus_cases;

fs::path kernels_dir() { return fs::path(GPUARCH_KERNELS_DIR); }

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in.good(), "cannot open " << path.string());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::set<std::string> files_with_extension(const fs::path& dir, std::string_view ext) {
    std::set<std::string> stems;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().extension() == ext) stems.insert(entry.path().stem().string());
    return stems;
}

std::set<std::string> ptx_entries(const std::string& ptx) {
    static const std::regex entry_re(R"(\.entry\s+([A-Za-z_$][A-Za-z0-9_$]*))");
    std::set<std::string> names;
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), entry_re); it != std::sregex_iterator(); ++it)
        names.insert((*it)[1].str());
    return names;
}

struct Resources {
    unsigned registers = 0, shared = 0, local = 0, constant = 0;
};

// Parses kernels/ptx/<name>.resources: one line per entry, `<entry> registers=N shared=B local=B constant=B`
// followed by any further key=value fields regen records.
std::map<std::string, Resources> parse_resources(const std::string& text, const std::string& file) {
    static const std::regex line_re(
        R"(^([A-Za-z_$][A-Za-z0-9_$]*) registers=(\d+) shared=(\d+) local=(\d+) constant=(\d+)((?: [a-z_]+=\d+)*)$)");
    std::map<std::string, Resources> out;
    std::istringstream lines(text);
    std::string line;
    unsigned number = 0;
    while (std::getline(lines, line)) {
        ++number;
        std::smatch m;
        REQUIRE_MESSAGE(std::regex_match(line, m, line_re),
                        file << ':' << number << ": malformed line '" << line << "'");
        const auto value = [&](int i) { return static_cast<unsigned>(std::stoul(m[i].str())); };
        const bool inserted = out.emplace(m[1].str(), Resources{value(2), value(3), value(4), value(5)}).second;
        CHECK_MESSAGE(inserted, file << ": entry " << m[1].str() << " listed twice");
    }
    return out;
}

} // namespace

TEST_CASE("every kernel source has checked-in PTX, ptxas output and a resources file") {
    const std::set<std::string> sources = files_with_extension(kernels_dir() / "src", ".cu");
    const std::set<std::string> ptx = files_with_extension(kernels_dir() / "ptx", ".ptx");
    const std::set<std::string> resources = files_with_extension(kernels_dir() / "ptx", ".resources");
    CHECK(sources.size() >= 16);
    CHECK(ptx == sources);
    CHECK(resources == sources);
    for (const std::string& name : sources) {
        CAPTURE(name);
        CHECK(fs::is_regular_file(kernels_dir() / "ptx" / (name + ".ptxas.txt")));
    }
    const std::string version = read_text(kernels_dir() / "ptx" / "VERSION");
    CHECK(version.find("release") != std::string::npos);
    CHECK(version.find("-arch=compute_75") != std::string::npos);
}

TEST_CASE("every resources file parses and names exactly the .entry functions of its PTX") {
    for (const std::string& name : files_with_extension(kernels_dir() / "ptx", ".ptx")) {
        CAPTURE(name);
        const std::set<std::string> entries = ptx_entries(read_text(kernels_dir() / "ptx" / (name + ".ptx")));
        REQUIRE_FALSE(entries.empty());
        const fs::path res_path = kernels_dir() / "ptx" / (name + ".resources");
        const std::map<std::string, Resources> res = parse_resources(read_text(res_path), res_path.string());
        std::set<std::string> listed;
        for (const auto& item : res) {
            const std::string& entry = item.first;
            const Resources& r = item.second;
            listed.insert(entry);
            CAPTURE(entry);
            // sm_75 allows at most 255 registers per thread and 64 KiB of shared memory per block.
            CHECK(r.registers > 0);
            CHECK(r.registers <= 255);
            CHECK(r.shared <= 64 * 1024);
            CHECK(r.constant > 0); // the kernel parameters live in constant bank 0
        }
        CHECK(listed == entries);
    }
}

TEST_CASE("resources record the shared and local memory the sources declare") {
    const fs::path dir = kernels_dir() / "ptx";
    // devfunc_local keeps a 16-float window in local memory; histogram_shared has 256 32-bit bins in shared memory.
    const auto devfunc = parse_resources(read_text(dir / "devfunc_local.resources"), "devfunc_local.resources");
    REQUIRE(devfunc.count("devfunc_local") == 1);
    CHECK(devfunc.at("devfunc_local").local == 64);
    const auto hist = parse_resources(read_text(dir / "histogram_shared.resources"), "histogram_shared.resources");
    REQUIRE(hist.count("histogram_shared") == 1);
    CHECK(hist.at("histogram_shared").shared == 1024);
}

TEST_CASE("the corpus registry names unique cases whose PTX exists and whose tags are well formed") {
    const auto cases = corpus_cases();
    CHECK(cases.size() >= 16);
    std::set<std::string_view> names;
    for (const CaseInfo& info : cases) {
        CAPTURE(info.name);
        CHECK(names.insert(info.name).second);
        CHECK(fs::is_regular_file(kernels_dir() / "ptx" / info.ptx_file));
        CHECK(fs::is_regular_file(kernels_dir() / "src" / (std::string(info.name) + ".cu")));
        CHECK(fs::is_regular_file(kernels_dir() / "corpus" / (std::string(info.name) + ".hpp")));
        // Exactly one of memory/compute and one of divergent/coherent, and nothing else.
        CHECK(gpuarch::kernels::has_tag(info, "memory") != gpuarch::kernels::has_tag(info, "compute"));
        CHECK(gpuarch::kernels::has_tag(info, "divergent") != gpuarch::kernels::has_tag(info, "coherent"));
        CHECK(std::count(info.tags.begin(), info.tags.end(), ',') == 1);
    }
    CHECK(gpuarch::kernels::find_case("bfs").name == "bfs");
    CHECK_THROWS_AS(gpuarch::kernels::find_case("no_such_kernel"), gpuarch::Error);
}

TEST_CASE("has_tag matches whole comma-separated tags only") {
    const CaseInfo info{"x", "x.ptx", "memory,divergent"};
    CHECK(gpuarch::kernels::has_tag(info, "memory"));
    CHECK(gpuarch::kernels::has_tag(info, "divergent"));
    CHECK_FALSE(gpuarch::kernels::has_tag(info, "mem"));
    CHECK_FALSE(gpuarch::kernels::has_tag(info, "coherent"));
    CHECK_FALSE(gpuarch::kernels::has_tag(info, ""));
}

TEST_CASE("the PTX avoids tensor cores, async copies, textures, surfaces and device-side runtime calls") {
    static const std::regex forbidden(
        R"(\b(wmma|mma|ldmatrix|cp\.async|tex|tld4|suld|sust|sured|mbarrier|vprintf|malloc|cudaLaunchDevice)\b|\.texref\b|\.surfref\b)");
    for (const std::string& name : files_with_extension(kernels_dir() / "ptx", ".ptx")) {
        CAPTURE(name);
        const std::string ptx = read_text(kernels_dir() / "ptx" / (name + ".ptx"));
        std::smatch m;
        CHECK_MESSAGE(!std::regex_search(ptx, m, forbidden), "found '" << m.str() << "'");
        CHECK(ptx.find("target sm_75") != std::string::npos);
        // No -lineinfo / -G debug info: no .loc or .file directives.
        CHECK(ptx.find(".loc\t") == std::string::npos);
        CHECK(ptx.find(".loc ") == std::string::npos);
        CHECK(ptx.find(".file\t") == std::string::npos);
    }
}

TEST_CASE("the corpus PTX exercises the constructs the simulator must model") {
    std::string all;
    for (const std::string& name : files_with_extension(kernels_dir() / "ptx", ".ptx"))
        all += read_text(kernels_dir() / "ptx" / (name + ".ptx"));
    const std::string devfunc = read_text(kernels_dir() / "ptx" / "devfunc_local.ptx");
    CHECK(devfunc.find(".func") != std::string::npos);
    CHECK(devfunc.find("call.uni") != std::string::npos);
    CHECK(devfunc.find(".local") != std::string::npos);
    CHECK(devfunc.find("ld.local") != std::string::npos);
    CHECK(devfunc.find("st.local") != std::string::npos);
    for (std::string_view construct : {"bar.sync", "shfl.sync.down.b32", "atom.shared.add", "atom.global.add",
                                       "atom.global.cas", "ld.shared", "st.shared", ".extern .shared", "fma.rn.f32",
                                       "add.f64", "ld.global.nc", "ld.global.u8", "rem.s32", "selp", "max.s32"}) {
        CAPTURE(construct);
        CHECK(all.find(construct) != std::string::npos);
    }
}
