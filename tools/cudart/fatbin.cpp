#include "fatbin.hpp"

#include <gpuarch/core/error.hpp>

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace gpuarch::cudart {
namespace {

template <class T> T read_le(const std::uint8_t* p) {
    T v{};
    std::memcpy(&v, p, sizeof v); // x86-64 and aarch64 hosts are little-endian, as is the format
    return v;
}

constexpr std::uint64_t flag_lz4 = 0x2000;
constexpr std::uint64_t flag_zstd = 0x8000;
// Entry header fields used here (offsets from the entry's start).
constexpr std::size_t entry_header_min = 64;

std::vector<std::uint8_t> decompress(const std::uint8_t* p, std::size_t stored, std::uint64_t uncompressed,
                                     std::uint64_t flags, std::string& how) {
    // A PTX or cubin image above 1 GiB is not something nvcc writes; refusing it bounds the allocation.
    constexpr std::uint64_t max_image = std::uint64_t{1} << 30;
    if ((flags & (flag_lz4 | flag_zstd)) == 0) {
        how = "none";
        return {p, p + stored};
    }
    if (uncompressed == 0 || uncompressed > max_image)
        throw Error("fat binary entry states an uncompressed size of " + std::to_string(uncompressed) +
                    " bytes, outside 1 byte .. 1 GiB");
    std::vector<std::uint8_t> out(uncompressed);
    if (flags & flag_zstd) {
        how = "zstd";
        const std::size_t n = ZSTD_decompress(out.data(), out.size(), p, stored);
        if (ZSTD_isError(n))
            throw Error(std::string("cannot decompress a zstd fat binary entry: ") + ZSTD_getErrorName(n));
        out.resize(n);
        return out;
    }
    how = "lz4";
    if (stored > std::size_t(std::numeric_limits<int>::max()) ||
        out.size() > std::size_t(std::numeric_limits<int>::max()))
        throw Error("LZ4 fat binary entry too large");
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(p), reinterpret_cast<char*>(out.data()),
                                      static_cast<int>(stored), static_cast<int>(out.size()));
    if (n < 0) throw Error("cannot decompress an LZ4 fat binary entry (corrupt data)");
    out.resize(static_cast<std::size_t>(n));
    return out;
}

} // namespace

const void* fatbin_from_wrapper(const void* wrapper) {
    if (wrapper == nullptr) throw Error("__cudaRegisterFatBinary was given a null fat binary");
    const auto* w = static_cast<const std::uint8_t*>(wrapper);
    const auto magic = read_le<std::uint32_t>(w);
    if (magic == fatbin_magic) return wrapper; // a bare fat binary (hand-registered), not a wrapper
    if (magic != fatbin_wrapper_magic)
        throw Error("__cudaRegisterFatBinary: unknown fat binary wrapper (magic 0x" + [&] {
            char b[16];
            std::snprintf(b, sizeof b, "%08x", magic);
            return std::string(b);
        }() + ", expected 0x466243b1)");
    const void* data = nullptr;
    std::memcpy(&data, w + 8, sizeof data);
    if (data == nullptr) throw Error("__cudaRegisterFatBinary: the wrapper's data pointer is null");
    return data;
}

std::vector<FatbinEntry> read_fatbin(const void* data, std::optional<std::size_t> limit) {
    const auto* base = static_cast<const std::uint8_t*>(data);
    auto need = [&](std::size_t end, const char* what) {
        if (limit && end > *limit)
            throw Error(std::string("fat binary truncated: ") + what + " runs past its " + std::to_string(*limit) +
                        " bytes");
    };
    need(16, "the header");
    if (read_le<std::uint32_t>(base) != fatbin_magic) throw Error("not a fat binary (bad magic)");
    const std::size_t header = read_le<std::uint16_t>(base + 6);
    const std::uint64_t size = read_le<std::uint64_t>(base + 8);
    if (header < 16) throw Error("fat binary header of " + std::to_string(header) + " bytes is too small");
    need(header + size, "the stated payload");
    std::vector<FatbinEntry> entries;
    std::size_t at = header;
    const std::size_t end = header + size;
    while (at + entry_header_min <= end) {
        const std::uint8_t* e = base + at;
        const auto kind = read_le<std::uint16_t>(e);
        const std::size_t entry_header = read_le<std::uint32_t>(e + 4);
        const std::uint64_t padded = read_le<std::uint64_t>(e + 8);
        const std::uint32_t stored = read_le<std::uint32_t>(e + 16);
        const std::uint32_t arch = read_le<std::uint32_t>(e + 28);
        const std::uint64_t flags = read_le<std::uint64_t>(e + 40);
        const std::uint64_t uncompressed = read_le<std::uint64_t>(e + 56);
        if (entry_header < entry_header_min || padded > end - at - std::min<std::size_t>(entry_header, end - at) ||
            stored > padded)
            throw Error("fat binary entry at offset " + std::to_string(at) + " has inconsistent sizes");
        FatbinEntry entry;
        entry.kind = kind == 1   ? FatbinEntry::Kind::ptx
                     : kind == 2 ? FatbinEntry::Kind::cubin
                                 : FatbinEntry::Kind::other;
        entry.arch = arch;
        if (entry.kind != FatbinEntry::Kind::other)
            entry.payload =
                decompress(e + entry_header, stored == 0 ? padded : stored, uncompressed, flags, entry.compression);
        entries.push_back(std::move(entry));
        at += entry_header + padded;
    }
    return entries;
}

std::optional<std::string> select_ptx(const std::vector<FatbinEntry>& entries, unsigned* arch) {
    const FatbinEntry* best = nullptr;
    for (const auto& e : entries)
        if (e.kind == FatbinEntry::Kind::ptx && (best == nullptr || e.arch < best->arch)) best = &e;
    if (best == nullptr) return std::nullopt;
    if (arch) *arch = best->arch;
    std::string text(best->payload.begin(), best->payload.end());
    while (!text.empty() && text.back() == '\0') text.pop_back();
    return text;
}

std::map<std::string, unsigned> cubin_registers(const std::vector<FatbinEntry>& entries, unsigned* arch) {
    const FatbinEntry* best = nullptr;
    for (const auto& e : entries)
        if (e.kind == FatbinEntry::Kind::cubin && (best == nullptr || e.arch < best->arch)) best = &e;
    if (best == nullptr) return {};
    if (arch) *arch = best->arch;
    return elf_kernel_registers(best->payload);
}

std::map<std::string, unsigned> elf_kernel_registers(std::span<const std::uint8_t> elf) {
    std::map<std::string, unsigned> out;
    const std::uint8_t* d = elf.data();
    const std::size_t n = elf.size();
    if (n < 64 ||
        std::memcmp(d,
                    "\x7f"
                    "ELF",
                    4) != 0 ||
        d[4] != 2)
        return out; // 64-bit ELF only
    const auto shoff = read_le<std::uint64_t>(d + 0x28);
    const auto shentsize = read_le<std::uint16_t>(d + 0x3a);
    const auto shnum = read_le<std::uint16_t>(d + 0x3c);
    const auto shstrndx = read_le<std::uint16_t>(d + 0x3e);
    if (shentsize < 64 || shstrndx >= shnum || shoff > n || std::uint64_t{shnum} * shentsize > n - shoff) return out;
    auto section = [&](unsigned i) { return d + shoff + std::uint64_t{i} * shentsize; };
    const std::uint8_t* strtab = section(shstrndx);
    const auto str_off = read_le<std::uint64_t>(strtab + 0x18);
    const auto str_size = read_le<std::uint64_t>(strtab + 0x20);
    if (str_off > n || str_size > n - str_off) return out;
    const std::string_view names(reinterpret_cast<const char*>(d + str_off), str_size);
    constexpr std::string_view text_prefix = ".text.";
    for (unsigned i = 0; i < shnum; ++i) {
        const std::uint8_t* s = section(i);
        const auto name_off = read_le<std::uint32_t>(s);
        if (name_off >= names.size()) continue;
        std::string_view name = names.substr(name_off);
        name = name.substr(0, name.find('\0'));
        if (name.substr(0, text_prefix.size()) != text_prefix) continue;
        const auto info = read_le<std::uint32_t>(s + 0x2c);
        out.emplace(std::string(name.substr(text_prefix.size())), info >> 24);
    }
    return out;
}

} // namespace gpuarch::cudart
