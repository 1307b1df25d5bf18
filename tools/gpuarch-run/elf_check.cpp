#include "elf_check.hpp"

#include <gpuarch/core/error.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace gpuarch::run {

namespace {

template <class T> T read_le(const std::vector<char>& d, std::uint64_t at) {
    T v{};
    if (at > d.size() || sizeof(T) > d.size() - at) return v;
    std::memcpy(&v, d.data() + at, sizeof v);
    return v;
}

std::string c_string(const std::vector<char>& d, std::uint64_t at) {
    std::string out;
    for (std::uint64_t i = at; i < d.size() && d[i] != '\0'; ++i) out += d[i];
    return out;
}

} // namespace

ProgramCheck check_program(const std::filesystem::path& program) {
    ProgramCheck result;
    std::error_code ec;
    if (!std::filesystem::exists(program, ec)) throw Error("no program '" + program.string() + "'");
    if (std::filesystem::is_directory(program, ec)) throw Error("'" + program.string() + "' is a directory");
    std::ifstream in(program, std::ios::binary);
    if (!in) throw Error("cannot read '" + program.string() + "'");
    const std::vector<char> d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (d.size() < 64 || std::memcmp(d.data(),
                                     "\x7f"
                                     "ELF",
                                     4) != 0) {
        result.note = "'" + program.string() +
                      "' is not an ELF executable (a script?); gpuarch's runtime is "
                      "preloaded into every program it starts";
        return result;
    }
    if (d[4] != 2) {
        result.problem = "'" + program.string() + "' is a 32-bit program; gpuarch's runtime is 64-bit only";
        return result;
    }
    const auto shoff = read_le<std::uint64_t>(d, 0x28);
    const auto shentsize = read_le<std::uint16_t>(d, 0x3a);
    const auto shnum = read_le<std::uint16_t>(d, 0x3c);
    const auto shstrndx = read_le<std::uint16_t>(d, 0x3e);
    auto section = [&](unsigned i) { return shoff + std::uint64_t{i} * shentsize; };
    const std::uint64_t names = read_le<std::uint64_t>(d, section(shstrndx) + 0x18);
    bool fatbin = false;
    std::vector<std::string> needed;
    for (unsigned i = 0; i < shnum; ++i) {
        const std::uint64_t s = section(i);
        const std::string name = c_string(d, names + read_le<std::uint32_t>(d, s));
        if (name == ".nv_fatbin" || name == ".nvFatBinSegment") fatbin = true;
        if (read_le<std::uint32_t>(d, s + 4) != 6) continue; // SHT_DYNAMIC
        const std::uint64_t offset = read_le<std::uint64_t>(d, s + 0x18), size = read_le<std::uint64_t>(d, s + 0x20);
        const std::uint64_t strtab = read_le<std::uint64_t>(d, section(read_le<std::uint32_t>(d, s + 0x28)) + 0x18);
        for (std::uint64_t e = offset; e + 16 <= offset + size && e + 16 <= d.size(); e += 16)
            if (read_le<std::int64_t>(d, e) == 1) // DT_NEEDED
                needed.push_back(c_string(d, strtab + read_le<std::uint64_t>(d, e + 8)));
    }
    for (const auto& n : needed) {
        if (n == "libcudart.so.13") return result;
        if (n.rfind("libcudart.so", 0) == 0) {
            result.problem = "'" + program.string() + "' was linked against " + n +
                             "; gpuarch implements CUDA 13's runtime (libcudart.so.13): rebuild it with CUDA 13's "
                             "nvcc -cudart shared";
            return result;
        }
    }
    if (fatbin)
        result.problem = "'" + program.string() +
                         "' carries GPU code but links the CUDA runtime statically (nvcc's "
                         "default), which gpuarch cannot replace: rebuild it with `nvcc -cudart shared`";
    else
        result.note = "'" + program.string() +
                      "' does not load the CUDA runtime; it runs, but nothing is simulated "
                      "unless a program it starts uses CUDA";
    return result;
}

} // namespace gpuarch::run
