#pragma once
// Texture and surface semantics: tex, suld, sust over the Device's texture table (func/texture.hpp).

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/texture.hpp>

namespace gpuarch::func::semantics {

// ---- textures and surfaces ---------------------------------------------------------------------
// The texel arithmetic is func/texture.hpp's; here each lane's object handle is looked up in the Device's table
// and faults get the kernel's position. Results are gathered for every lane before any destination register is
// written, so a destination that is also a coordinate or handle register reads its old value in every lane.
// Timing sees one address per lane in the global space: the first texel the fetch read (the footprint's first
// in-range corner under linear filtering), or the surface bytes accessed; lanes that read only border or
// out-of-range texels (and .zero surface accesses out of range) access nothing (docs/ptx.md, "Textures and
// surfaces").

[[noreturn]] inline void object_fault(const Context& c, unsigned lane, const std::string& what,
                                      KernelErrorKind kind = KernelErrorKind::illegal_address) {
    fault(c, static_cast<int>(lane), what, std::nullopt, kind);
}
inline std::string handle_text(std::uint64_t handle) {
    std::ostringstream text;
    text << "0x" << std::hex << handle;
    return text.str();
}

template <bool Record> inline void texture_fetch(const Context& c, StepResult* out) {
    const ir::Instruction& i = *c.d.inst;
    const ir::Operand& coords = i.operands[2];
    const std::uint64_t* handles = c.w.row(i.operands[1].reg);
    const bool integer_coords = i.src_type == ir::ScalarType::s32;
    const TextureTable& table = c.launch.device->textures();
    c.launch.texel_scratch.resize(c.launch.width);
    core::WarpMask accessed;
    unsigned access_bytes = 0;
    lanes(c, [&](unsigned l) {
        const std::uint64_t h = handles[l];
        const TextureObject* t = table.texture(h);
        if (t == nullptr) object_fault(c, l, "tex through " + table.describe(h, TextureTable::Kind::texture));
        std::array<std::uint32_t, 4> xyz{};
        for (unsigned e = 0; e < coords.vector_count; ++e)
            xyz[e] = static_cast<std::uint32_t>(c.w.row(coords.vector[e])[l]);
        const auto read = [&](std::uint64_t address, std::uint64_t bytes) -> const std::uint8_t* {
            const std::uint8_t* p = c.launch.device->translate(address, bytes);
            if (p == nullptr)
                object_fault(c, l,
                             "tex through texture object " + handle_text(h) + " reads a texel outside its memory: " +
                                 c.launch.device->describe_fault(address, bytes));
            return p;
        };
        TexFetch f;
        TexelView view;
        try {
            view = table.resolve(t->resource);
            f = fetch(view, t->desc, i.geometry, integer_coords, xyz, read);
        } catch (const KernelError&) {
            throw;
        } catch (const Error& e) {
            object_fault(c, l, "tex through texture object " + handle_text(h) + ": " + e.what(),
                         KernelErrorKind::illegal_instruction);
        }
        for (unsigned e = 0; e < 4; ++e) c.launch.texel_scratch[l][e] = f.value[e];
        if constexpr (Record) {
            if (f.first_address != 0) {
                accessed.set(l);
                out->addresses[l] = f.first_address;
                out->lane_spaces[l] = ir::StateSpace::global;
                if (access_bytes == 0) access_bytes = view.format.texel_bytes();
            }
        }
    });
    const ir::Operand& dst = i.operands[0];
    for (unsigned e = 0; e < dst.vector_count; ++e) {
        if (dst.vector[e] == ir::no_reg) continue;
        std::uint64_t* row = c.w.row(dst.vector[e]);
        lanes(c, [&](unsigned l) { row[l] = c.launch.texel_scratch[l][e]; });
    }
    if constexpr (Record) {
        if (accessed.none()) return; // every lane read border or out-of-range texels only
        out->is_memory = true;
        out->is_load = true;
        out->space = ir::StateSpace::global;
        out->access_bytes = access_bytes;
        out->accessed = accessed;
    }
}

// suld.b / sust.b (PTX ISA 9.0, Secs. 9.7.10.7-8): x is a byte offset into the row, y and z are element
// coordinates; an access must lie within one row and be aligned to its size. Out of range: .trap faults, .clamp
// moves to the nearest in-range access of the same size, .zero loads zeros and drops stores.
template <bool Record> inline void surface_access(const Context& c, StepResult* out) {
    const ir::Instruction& i = *c.d.inst;
    const bool store = i.op == ir::Opcode::sust;
    const std::uint64_t* handles = c.w.row(i.operands[store ? 0 : 1].reg);
    const ir::Operand& coords = i.operands[store ? 1 : 2];
    const ir::Operand& data = i.operands[store ? 2 : 0];
    const unsigned element = size_bytes(i.type), count = i.vector_width, bytes = element * count;
    const unsigned dims = i.geometry == ir::TexGeometry::d1 ? 1 : i.geometry == ir::TexGeometry::d2 ? 2 : 3;
    const char* what = store ? "sust" : "suld";
    const TextureTable& table = c.launch.device->textures();
    c.launch.texel_scratch.resize(c.launch.width);
    core::WarpMask accessed;
    lanes(c, [&](unsigned l) {
        const std::uint64_t h = handles[l];
        const SurfaceObject* s = table.surface(h);
        if (s == nullptr)
            object_fault(c, l, std::string(what) + " through " + table.describe(h, TextureTable::Kind::surface));
        const CudaArray* a = table.array(s->array);
        if (a == nullptr)
            object_fault(c, l,
                         std::string(what) + " through surface object " + handle_text(h) + ": its " +
                             table.describe(s->array, TextureTable::Kind::array));
        if (a->dims != dims)
            object_fault(c, l,
                         std::string(what) + "." + std::string(ir::name(i.geometry)) + " through surface object " +
                             handle_text(h) + ", whose CUDA array is " + std::to_string(a->dims) + "D",
                         KernelErrorKind::illegal_instruction);
        std::array<std::int64_t, 3> at{0, 0, 0};
        for (unsigned d = 0; d < dims; ++d) at[d] = static_cast<std::int32_t>(c.w.row(coords.vector[d])[l]);
        const std::int64_t row_bytes = static_cast<std::int64_t>(a->row_bytes());
        const std::array<std::int64_t, 3> limit{row_bytes - bytes, std::int64_t{a->height} - 1,
                                                std::int64_t{a->depth} - 1};
        if (at[0] % bytes != 0)
            object_fault(c, l,
                         std::string(what) + " of " + std::to_string(bytes) +
                             " bytes at byte x = " + std::to_string(at[0]) + " through surface object " +
                             handle_text(h) + " is misaligned (x must be a multiple of the access size)",
                         KernelErrorKind::misaligned_address);
        bool inside = true;
        for (unsigned d = 0; d < 3; ++d) inside = inside && at[d] >= 0 && at[d] <= limit[d];
        if (!inside) {
            if (i.surface_clamp == ir::SurfaceClamp::zero) {
                if (!store) c.launch.texel_scratch[l] = {};
                return;
            }
            if (i.surface_clamp != ir::SurfaceClamp::clamp || limit[0] < 0) {
                std::ostringstream text;
                text << what << "." << ir::name(i.surface_clamp) << " out of range through surface object "
                     << handle_text(h) << ": byte x = " << at[0] << ", y = " << at[1] << ", z = " << at[2] << " for a "
                     << bytes << "-byte access of a surface " << row_bytes << " bytes wide, " << a->height
                     << " high and " << a->depth << " deep";
                object_fault(c, l, text.str());
            }
            at[0] = std::clamp<std::int64_t>(at[0], 0, limit[0]) / bytes * bytes;
            for (unsigned d = 1; d < 3; ++d) at[d] = std::clamp<std::int64_t>(at[d], 0, limit[d]);
        }
        const std::uint64_t address = a->data + static_cast<std::uint64_t>(at[2]) * a->slice_bytes() +
                                      static_cast<std::uint64_t>(at[1]) * a->row_bytes() +
                                      static_cast<std::uint64_t>(at[0]);
        std::uint8_t* p = c.launch.device->translate(address, bytes);
        if (p == nullptr) object_fault(c, l, std::string(what) + ": the surface's CUDA array memory is gone");
        if (store) {
            for (unsigned e = 0; e < count; ++e) {
                const std::uint64_t v = data.vector[e] == ir::no_reg ? 0 : c.w.row(data.vector[e])[l];
                std::memcpy(p + e * element, &v, element); // little-endian host: the low bytes
            }
        } else {
            for (unsigned e = 0; e < count; ++e)
                c.launch.texel_scratch[l][e] = detail::load_le(p + e * element, element);
        }
        if constexpr (Record) {
            accessed.set(l);
            out->addresses[l] = address;
            out->lane_spaces[l] = ir::StateSpace::global;
        }
    });
    if (!store) {
        for (unsigned e = 0; e < count; ++e) {
            if (data.vector[e] == ir::no_reg) continue;
            std::uint64_t* row = c.w.row(data.vector[e]);
            lanes(c, [&](unsigned l) { row[l] = c.launch.texel_scratch[l][e]; });
        }
    }
    if constexpr (Record) {
        if (accessed.none()) return;
        out->is_memory = true;
        out->is_load = !store;
        out->is_store = store;
        out->space = ir::StateSpace::global;
        out->access_bytes = bytes;
        out->accessed = accessed;
    }
}

} // namespace gpuarch::func::semantics
