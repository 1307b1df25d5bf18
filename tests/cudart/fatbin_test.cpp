// The fat-binary reader of gpuarch's CUDA runtime, on fat binaries built here byte by byte: zstd, LZ4 and plain
// entries, entry selection by architecture, cubin register counts, and malformed input.
#include <fatbin.hpp>

#include <gpuarch/core/error.hpp>

#include <doctest/doctest.h>
#include <lz4.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using gpuarch::cudart::FatbinEntry;
using Bytes = std::vector<std::uint8_t>;

template <class T> void put(Bytes& b, std::size_t at, T v) {
    if (b.size() < at + sizeof v) b.resize(at + sizeof v);
    std::memcpy(b.data() + at, &v, sizeof v);
}

enum class Compression { none, zstd, lz4 };

// One entry: a 64-byte header (the field offsets fatbin.hpp documents) and the payload padded to 8 bytes.
Bytes entry(std::uint16_t kind, std::uint32_t arch, const Bytes& payload, Compression how) {
    Bytes stored = payload;
    std::uint64_t flags = 0x11;
    if (how == Compression::zstd) {
        stored.resize(ZSTD_compressBound(payload.size()));
        stored.resize(ZSTD_compress(stored.data(), stored.size(), payload.data(), payload.size(), 3));
        flags |= 0x8000;
    } else if (how == Compression::lz4) {
        stored.resize(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(payload.size()))));
        stored.resize(static_cast<std::size_t>(
            LZ4_compress_default(reinterpret_cast<const char*>(payload.data()), reinterpret_cast<char*>(stored.data()),
                                 static_cast<int>(payload.size()), static_cast<int>(stored.size()))));
        flags |= 0x2000;
    }
    const std::uint64_t padded = (stored.size() + 7) / 8 * 8;
    Bytes e(64, 0);
    put<std::uint16_t>(e, 0, kind);
    put<std::uint16_t>(e, 2, 0x0101);
    put<std::uint32_t>(e, 4, 64);
    put<std::uint64_t>(e, 8, padded);
    put<std::uint32_t>(e, 16, static_cast<std::uint32_t>(stored.size()));
    put<std::uint32_t>(e, 28, arch);
    put<std::uint64_t>(e, 40, flags);
    put<std::uint64_t>(e, 56, how == Compression::none ? 0 : payload.size());
    e.resize(64 + padded, 0);
    if (!stored.empty()) std::memcpy(e.data() + 64, stored.data(), stored.size());
    return e;
}

Bytes fatbin(const std::vector<Bytes>& entries) {
    std::size_t body = 0;
    for (const auto& e : entries) body += e.size();
    Bytes f(16 + body, 0);
    put<std::uint32_t>(f, 0, gpuarch::cudart::fatbin_magic);
    put<std::uint16_t>(f, 4, 1);
    put<std::uint16_t>(f, 6, 16);
    put<std::uint64_t>(f, 8, body);
    std::size_t at = 16;
    for (const auto& e : entries) {
        std::memcpy(f.data() + at, e.data(), e.size());
        at += e.size();
    }
    return f;
}

Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

// A 64-bit ELF with section headers [null, .shstrtab, .text.<kernel> for each kernel], each .text section's
// sh_info carrying the register count in bits 24-31 as ptxas writes it.
Bytes cubin(const std::vector<std::pair<std::string, unsigned>>& kernels) {
    std::string names("\0.shstrtab\0", 11);
    std::vector<std::uint32_t> offsets;
    for (const auto& [k, regs] : kernels) {
        offsets.push_back(static_cast<std::uint32_t>(names.size()));
        names += ".text." + k + std::string(1, '\0');
    }
    const std::uint64_t names_at = 64;
    const std::uint64_t shoff = (names_at + names.size() + 7) / 8 * 8;
    const unsigned count = 2 + static_cast<unsigned>(kernels.size());
    Bytes elf(shoff + 64 * count, 0);
    std::memcpy(elf.data(),
                "\x7f"
                "ELF",
                4);
    elf[4] = 2; // 64-bit
    elf[5] = 1; // little-endian
    std::memcpy(elf.data() + names_at, names.data(), names.size());
    put<std::uint64_t>(elf, 0x28, shoff);
    put<std::uint16_t>(elf, 0x3a, 64);
    put<std::uint16_t>(elf, 0x3c, static_cast<std::uint16_t>(count));
    put<std::uint16_t>(elf, 0x3e, 1);
    put<std::uint32_t>(elf, shoff + 64 + 0, 1); // .shstrtab's own name
    put<std::uint32_t>(elf, shoff + 64 + 4, 3); // SHT_STRTAB
    put<std::uint64_t>(elf, shoff + 64 + 0x18, names_at);
    put<std::uint64_t>(elf, shoff + 64 + 0x20, names.size());
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const std::uint64_t s = shoff + 64 * (2 + i);
        put<std::uint32_t>(elf, s + 0, offsets[i]);
        put<std::uint32_t>(elf, s + 4, 1); // SHT_PROGBITS
        put<std::uint32_t>(elf, s + 0x2c, (kernels[i].second << 24) | 0x11);
    }
    return elf;
}

const std::string ptx75 = ".version 8.8\n.target sm_75\n.address_size 64\n// compute_75\n";
const std::string ptx80 = ".version 8.8\n.target sm_80\n.address_size 64\n// compute_80\n";

} // namespace

TEST_CASE("a zstd-compressed PTX entry decodes to the text nvcc stored, NUL padding removed") {
    const Bytes f = fatbin({entry(1, 75, text(ptx75 + std::string(3, '\0')), Compression::zstd)});
    const auto entries = gpuarch::cudart::read_fatbin(f.data(), f.size());
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].compression == "zstd");
    unsigned arch = 0;
    CHECK(gpuarch::cudart::select_ptx(entries, &arch) == ptx75);
    CHECK(arch == 75);
}

TEST_CASE("LZ4-compressed and uncompressed PTX entries decode too") {
    for (Compression how : {Compression::lz4, Compression::none}) {
        const Bytes f = fatbin({entry(1, 75, text(ptx75), how)});
        const auto entries = gpuarch::cudart::read_fatbin(f.data(), f.size());
        REQUIRE(entries.size() == 1);
        CHECK(entries[0].compression == (how == Compression::lz4 ? "lz4" : "none"));
        CHECK(gpuarch::cudart::select_ptx(entries) == ptx75);
    }
}

TEST_CASE("the PTX of the lowest virtual architecture is chosen, and registers come from the lowest cubin") {
    const Bytes f =
        fatbin({entry(2, 86, cubin({{"kern", 40}}), Compression::none), entry(1, 80, text(ptx80), Compression::zstd),
                entry(2, 75, cubin({{"kern", 37}, {"_Z5otherPi", 12}}), Compression::zstd),
                entry(1, 75, text(ptx75), Compression::none)});
    const auto entries = gpuarch::cudart::read_fatbin(f.data(), f.size());
    REQUIRE(entries.size() == 4);
    unsigned ptx_arch = 0, cubin_arch = 0;
    CHECK(gpuarch::cudart::select_ptx(entries, &ptx_arch) == ptx75);
    CHECK(ptx_arch == 75);
    const auto regs = gpuarch::cudart::cubin_registers(entries, &cubin_arch);
    CHECK(cubin_arch == 75);
    CHECK(regs.at("kern") == 37);
    CHECK(regs.at("_Z5otherPi") == 12);
}

TEST_CASE("a fat binary without PTX or cubin yields nothing to select") {
    const Bytes f = fatbin({});
    const auto entries = gpuarch::cudart::read_fatbin(f.data(), f.size());
    CHECK(entries.empty());
    CHECK_FALSE(gpuarch::cudart::select_ptx(entries).has_value());
    CHECK(gpuarch::cudart::cubin_registers(entries).empty());
}

TEST_CASE("malformed fat binaries are errors, never reads past the data") {
    const Bytes good = fatbin({entry(1, 75, text(ptx75), Compression::zstd)});
    SUBCASE("truncated") {
        CHECK_THROWS_WITH_AS(gpuarch::cudart::read_fatbin(good.data(), good.size() - 9),
                             doctest::Contains("fat binary truncated"), gpuarch::Error);
    }
    SUBCASE("bad magic") {
        Bytes bad = good;
        bad[0] ^= 0xff;
        CHECK_THROWS_WITH_AS(gpuarch::cudart::read_fatbin(bad.data(), bad.size()), "not a fat binary (bad magic)",
                             gpuarch::Error);
    }
    SUBCASE("corrupt zstd payload") {
        Bytes bad = good;
        bad[16 + 64] ^= 0x5a; // the zstd frame's magic number
        bad[16 + 64 + 1] ^= 0xa5;
        CHECK_THROWS_AS(gpuarch::cudart::read_fatbin(bad.data(), bad.size()), gpuarch::Error);
    }
    SUBCASE("an entry larger than the fat binary") {
        Bytes bad = good;
        put<std::uint64_t>(bad, 16 + 8, 1 << 20);
        CHECK_THROWS_WITH_AS(gpuarch::cudart::read_fatbin(bad.data(), bad.size()),
                             doctest::Contains("inconsistent sizes"), gpuarch::Error);
    }
    SUBCASE("a wrapper with the wrong magic") {
        const std::uint32_t wrapper[4] = {0x12345678, 1, 0, 0};
        CHECK_THROWS_WITH_AS(gpuarch::cudart::fatbin_from_wrapper(wrapper),
                             doctest::Contains("unknown fat binary wrapper"), gpuarch::Error);
    }
}

TEST_CASE("the wrapper nvcc registers points at the fat binary") {
    const Bytes f = fatbin({entry(1, 75, text(ptx75), Compression::none)});
    struct {
        std::int32_t magic, version;
        const void* data;
        void* unused;
    } wrapper{static_cast<std::int32_t>(gpuarch::cudart::fatbin_wrapper_magic), 1, f.data(), nullptr};
    CHECK(gpuarch::cudart::fatbin_from_wrapper(&wrapper) == f.data());
}

TEST_CASE("an ELF that is not a 64-bit cubin has no register counts") {
    const Bytes not_elf = text("not an elf file at all, but long enough to have a header of sixty-four bytes....");
    CHECK(gpuarch::cudart::elf_kernel_registers(not_elf).empty());
    Bytes elf32 = cubin({{"k", 9}});
    elf32[4] = 1;
    CHECK(gpuarch::cudart::elf_kernel_registers(elf32).empty());
    CHECK(gpuarch::cudart::elf_kernel_registers(cubin({{"k", 9}})).at("k") == 9);
}
