#pragma once
// Reading what nvcc embeds in a host program: the fat binary behind __cudaRegisterFatBinary, its PTX entries
// (zstd-compressed by default since CUDA 13, LZ4 in older toolkits, or stored plain with `nvcc -no-compress`), and
// the per-kernel register counts of its cubins.
//
// Layout (no NVIDIA document describes it; these are the field positions every open reader of the format uses,
// checked here against CUDA 13.0's output, tests/cudart/fatbin_test.cpp):
// - the wrapper nvcc passes in: { int32 magic 0x466243B1; int32 version; const uint64* data; void* unused }
//   (crt/fatbinary_section.h in the toolkit declares it as __fatBinC_Wrapper_t);
// - at `data`: { uint32 magic 0xBA55ED50; uint16 version; uint16 header_size; uint64 payload_bytes } followed by
//   entries, each { uint16 kind (1 PTX, 2 ELF cubin); uint16 version; uint32 header_size; uint64 padded_size;
//   uint32 payload_size (bytes stored); uint32 -; uint32 -; uint32 sm_arch (75 = sm_75); ... ; uint64 flags at
//   offset 40; ...; uint64 uncompressed_size at offset 56 } and then `padded_size` bytes of payload;
// - flags 0x2000: LZ4-compressed payload; 0x8000: zstd-compressed payload.
// - a cubin is an ELF file whose `.text.<kernel>` section keeps the kernel's register count in bits 24-31 of
//   sh_info (what `ptxas -v` prints as "Used N registers").
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpuarch::cudart {

inline constexpr std::uint32_t fatbin_wrapper_magic = 0x466243B1;
inline constexpr std::uint32_t fatbin_magic = 0xBA55ED50;

struct FatbinEntry {
    enum class Kind : std::uint8_t { ptx, cubin, other };
    Kind kind = Kind::other;
    unsigned arch = 0; // 75 for sm_75 / compute_75
    std::string compression; // "zstd", "lz4" or "none"
    std::vector<std::uint8_t> payload; // decompressed
};

// Every entry of the fat binary at `data` (the `data` field of the wrapper). Throws gpuarch::Error naming what is
// malformed; never reads past `limit` bytes when a limit is given (tests), else past the header's stated size.
std::vector<FatbinEntry> read_fatbin(const void* data, std::optional<std::size_t> limit = std::nullopt);

// The `data` pointer of the wrapper passed to __cudaRegisterFatBinary (checks its magic).
const void* fatbin_from_wrapper(const void* wrapper);

// PTX text of the entry with the lowest virtual architecture (what the program was compiled for), trailing NULs
// removed. nullopt when the fat binary carries no PTX.
std::optional<std::string> select_ptx(const std::vector<FatbinEntry>& entries, unsigned* arch = nullptr);

// Registers per thread of each kernel in the cubin for the lowest real architecture the fat binary carries,
// keyed by the kernel's (mangled) name. Empty when there is no cubin.
std::map<std::string, unsigned> cubin_registers(const std::vector<FatbinEntry>& entries, unsigned* arch = nullptr);

// Registers per kernel from one ELF cubin image.
std::map<std::string, unsigned> elf_kernel_registers(std::span<const std::uint8_t> elf);

} // namespace gpuarch::cudart
