#pragma once
// CUDA arrays, texture objects and surface objects on a Device, and the texel arithmetic of tex, suld and sust.
//
// Contract:
// - Every array, texture object and surface object gets a handle from one counter that starts at 1 and never
//   reuses a value, so a handle names at most one object ever and a fetch through a destroyed object is told apart
//   from one through a handle that was never created (describe()).
// - An array's texels live in one device allocation (Device::malloc, made by the caller): layer-major, then depth
//   slice, then row, rows packed (row_bytes = width x texel bytes). Texel addresses are device addresses, so timing
//   models route texture fetches and surface accesses through the memory hierarchy like global accesses.
// - Sampling follows the CUDA C++ Programming Guide, appendix "Texture Fetching": point sampling reads T[floor(x)];
//   linear filtering reads T[i] and T[i + 1] (per dimension) at xB = x - 0.5, i = floor(xB), weighted by
//   alpha = frac(xB) "stored in 9-bit fixed point format with 8 bits of fractional value" (rounded here to the
//   nearest 1/256). Normalised coordinates are scaled by the extent first. Address modes act on each texel index:
//   clamp to [0, N - 1], wrap modulo N, mirror reflecting every N texels, border giving the border colour. Wrap and
//   mirror "are only supported for normalized texture coordinates" (same appendix); with unnormalised coordinates
//   they clamp. Integer (.s32) coordinates are texel indices.
// - Read modes (cudaReadModeElementType / cudaReadModeNormalizedFloat, Programming Guide "Texture Memory"): 8- and
//   16-bit integer channels read as normalised floats map unsigned values to [0, 1] (v / (2^n - 1)) and signed ones
//   to [-1, 1] (max(v / (2^(n-1) - 1), -1)); float channels (16 or 32 bits) always read as f32. Missing channels
//   read as 0, and a missing fourth channel as 1 (1.0f for float results), the Direct3D convention.
// - A texture object over linear memory (cudaResourceTypeLinear) is read by tex1Dfetch only: integer coordinates,
//   no filtering, and a coordinate outside [0, width) reads zero.
// - Cube maps (Programming Guide, "Cubemap Textures", Table "Cubemap Fetch"): a cubemap array is a 2D layered
//   array of square layers, six per cube in the order +x, -x, +y, -y, +z, -z. tex.cube reads direction (x, y, z):
//   the face is the coordinate of largest magnitude m, and the face is read at ((s/m + 1)/2, (t/m + 1)/2) with s, t
//   from the guide's table. Those face coordinates are normalised whatever the object's normalizedCoords says, and
//   addressing clamps at the face's edges: filtering does not cross faces (seamlessCubemap, which would, is refused
//   by the runtime for linear filtering). Where the guide's strict inequalities leave a tie (|x| = |y|, say), the
//   face is the first of x, y, z among the largest. A zero or non-finite direction reads the centre of face +x.
//   tex.acube's first coordinate selects the cube (clamped, like a layer index).
// - Mipmapped arrays are not modelled: tex.level reads level 0, which is the only level a non-mipmapped resource
//   has. Gathers (tld4), queries (txq, suq) and layered surfaces are rejected by the parser.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <string>

#include <gpuarch/core/error.hpp>
#include <gpuarch/func/softfloat.hpp>
#include <gpuarch/ir/names.hpp>
#include <gpuarch/ir/types.hpp>

namespace gpuarch::func {

// cudaChannelFormatKind's three numeric kinds (cudaChannelFormatKindSigned, Unsigned, Float).
enum class ChannelKind : std::uint8_t { signed_int, unsigned_int, floating };

// A texel format as cudaChannelFormatDesc gives it: bits per channel x, y, z, w (0: absent) and the kind.
struct ChannelFormat {
    std::array<std::uint8_t, 4> bits{};
    ChannelKind kind = ChannelKind::floating;

    unsigned channels() const {
        unsigned n = 0;
        while (n < 4 && bits[n] != 0) ++n;
        return n;
    }
    unsigned channel_bytes() const { return bits[0] / 8U; }
    unsigned texel_bytes() const { return channels() * channel_bytes(); }

    // Why this format is not one a texture can hold, or "" when it is.
    std::string invalid_reason() const {
        const unsigned n = channels();
        if (n == 0) return "the channel format has no channels (x has 0 bits)";
        if (n == 3) return "3-channel formats are not supported by CUDA arrays (use 1, 2 or 4 channels)";
        for (unsigned c = n; c < 4; ++c)
            if (bits[c] != 0)
                return "channel bits must be contiguous from x (a zero-bit channel precedes a non-zero one)";
        for (unsigned c = 1; c < n; ++c)
            if (bits[c] != bits[0]) return "every channel must have the same number of bits";
        const unsigned b = bits[0];
        if (kind == ChannelKind::floating && b != 16 && b != 32) return "float channels have 16 or 32 bits";
        if (kind != ChannelKind::floating && b != 8 && b != 16 && b != 32)
            return "integer channels have 8, 16 or 32 bits";
        return {};
    }
};

// What kind of cube map an array is (cudaArrayCubemap, with or without cudaArrayLayered).
enum class CubeShape : std::uint8_t { none, cubemap, cubemap_layered };

// A CUDA array (cudaMallocArray, cudaMalloc3DArray). Extents are at least 1 in every dimension it has; `dims` is
// 1, 2 or 3 and `layers` is 0 for an unlayered array. A cube map is 2D with width == height and 6 layers per cube.
struct CudaArray {
    ChannelFormat format;
    unsigned dims = 1;
    std::uint32_t width = 1, height = 1, depth = 1, layers = 0;
    CubeShape cube = CubeShape::none;
    bool surface_load_store = false; // cudaArraySurfaceLoadStore: a surface object may be created over it
    std::uint64_t data = 0; // device address of texel (0, 0, 0) of layer 0
    std::uint64_t row_bytes() const { return std::uint64_t{width} * format.texel_bytes(); }
    std::uint64_t slice_bytes() const { return row_bytes() * height; }
    std::uint64_t layer_bytes() const { return slice_bytes() * depth; }
    std::uint64_t bytes() const { return layer_bytes() * std::max<std::uint32_t>(layers, 1); }
};

enum class ResourceKind : std::uint8_t { array, linear, pitch2d };

// What a texture or surface object reads: an array (by handle), or linear / pitched device memory.
struct Resource {
    ResourceKind kind = ResourceKind::array;
    std::uint64_t array = 0; // ResourceKind::array
    std::uint64_t base = 0; // linear, pitch2d: device address
    ChannelFormat format; // linear, pitch2d
    std::uint64_t bytes = 0; // linear: size in bytes
    std::uint32_t width = 0, height = 0; // pitch2d: in texels
    std::uint64_t pitch = 0; // pitch2d: bytes per row
};

enum class AddressMode : std::uint8_t { wrap, clamp, mirror, border };
enum class FilterMode : std::uint8_t { point, linear };
enum class ReadMode : std::uint8_t { element_type, normalized_float };

struct TextureDesc {
    std::array<AddressMode, 3> address{AddressMode::wrap, AddressMode::wrap, AddressMode::wrap};
    FilterMode filter = FilterMode::point;
    ReadMode read = ReadMode::element_type;
    bool normalized_coords = false;
    std::array<float, 4> border{};
};

struct TextureObject {
    Resource resource;
    TextureDesc desc;
};
struct SurfaceObject {
    std::uint64_t array = 0;
};

// The resolved shape of a resource at fetch time: where texel (0, 0, 0) of layer 0 is and how to step.
struct TexelView {
    ChannelFormat format;
    unsigned dims = 1;
    bool linear_memory = false;
    std::uint32_t width = 1, height = 1, depth = 1, layers = 0;
    CubeShape cube = CubeShape::none;
    std::uint64_t base = 0, row_bytes = 0, slice_bytes = 0, layer_bytes = 0;
};

class TextureTable {
public:
    enum class Kind : std::uint8_t { array, texture, surface };

    // Registers an array whose texels the caller allocated at `array.data` (array.bytes() bytes).
    std::uint64_t add_array(const CudaArray& array) {
        const std::string reason = array.format.invalid_reason();
        if (!reason.empty()) throw Error("cannot create a CUDA array: " + reason);
        if (array.cube != CubeShape::none &&
            (array.dims != 2 || array.width != array.height || array.layers == 0 || array.layers % 6 != 0 ||
             (array.cube == CubeShape::cubemap && array.layers != 6)))
            throw Error(
                "cannot create a CUDA array: a cube map has square faces and 6 layers (6 per cube when layered)");
        const std::uint64_t h = take(Kind::array);
        arrays_.emplace(h, array);
        return h;
    }
    // Removes an array and returns its device allocation for the caller to free.
    std::uint64_t remove_array(std::uint64_t handle) {
        auto it = arrays_.find(handle);
        if (it == arrays_.end()) throw Error(describe(handle, Kind::array));
        const std::uint64_t data = it->second.data;
        arrays_.erase(it);
        return data;
    }
    const CudaArray* array(std::uint64_t handle) const {
        auto it = arrays_.find(handle);
        return it == arrays_.end() ? nullptr : &it->second;
    }

    std::uint64_t create_texture(const TextureObject& object) {
        const TexelView view = resolve(object.resource); // throws for a dead array or a bad shape
        const ChannelFormat& f = view.format;
        if (object.desc.read == ReadMode::normalized_float && f.kind != ChannelKind::floating && f.bits[0] == 32)
            throw Error(
                "cannot create a texture object: cudaReadModeNormalizedFloat needs 8- or 16-bit integer channels");
        const bool float_result = f.kind == ChannelKind::floating || object.desc.read == ReadMode::normalized_float;
        if (object.desc.filter == FilterMode::linear && !float_result)
            throw Error(
                "cannot create a texture object: linear filtering needs float channels or "
                "cudaReadModeNormalizedFloat (the Programming Guide allows it only for floating-point results)");
        if (view.linear_memory && object.desc.filter == FilterMode::linear)
            throw Error("cannot create a texture object: a texture over linear memory supports point filtering only");
        const std::uint64_t h = take(Kind::texture);
        textures_.emplace(h, object);
        return h;
    }
    void destroy_texture(std::uint64_t handle) {
        if (textures_.erase(handle) == 0) throw Error(describe(handle, Kind::texture));
    }
    const TextureObject* texture(std::uint64_t handle) const {
        auto it = textures_.find(handle);
        return it == textures_.end() ? nullptr : &it->second;
    }

    std::uint64_t create_surface(std::uint64_t array_handle) {
        const CudaArray* a = array(array_handle);
        if (a == nullptr) throw Error("cannot create a surface object: " + describe(array_handle, Kind::array));
        if (!a->surface_load_store)
            throw Error(
                "cannot create a surface object: the CUDA array was not allocated with cudaArraySurfaceLoadStore");
        if (a->layers != 0)
            throw Error(std::string("cannot create a surface object: ") +
                        (a->cube != CubeShape::none ? "cube-map" : "layered") + " surfaces are not supported");
        const std::uint64_t h = take(Kind::surface);
        surfaces_.emplace(h, SurfaceObject{array_handle});
        return h;
    }
    void destroy_surface(std::uint64_t handle) {
        if (surfaces_.erase(handle) == 0) throw Error(describe(handle, Kind::surface));
    }
    const SurfaceObject* surface(std::uint64_t handle) const {
        auto it = surfaces_.find(handle);
        return it == surfaces_.end() ? nullptr : &it->second;
    }

    // Why `handle` names no live object of `want`, as a phrase: destroyed, another kind, or never created.
    std::string describe(std::uint64_t handle, Kind want) const {
        std::ostringstream text;
        text << kind_name(want) << " 0x" << std::hex << handle << std::dec;
        auto it = kinds_.find(handle);
        if (handle == 0) text << " is the null handle (the object was never created or bound)";
        else if (it == kinds_.end()) text << " was never created (unbound)";
        else if (it->second != want) text << " is not one: the handle names a " << kind_name(it->second);
        else text << " was destroyed";
        return text.str();
    }

    // The layout a resource reads now; throws when its array was freed or its shape is invalid.
    TexelView resolve(const Resource& r) const {
        TexelView v;
        switch (r.kind) {
        case ResourceKind::array: {
            const CudaArray* a = array(r.array);
            if (a == nullptr) throw Error("the resource " + describe(r.array, Kind::array));
            v.format = a->format;
            v.dims = a->dims;
            v.width = a->width;
            v.height = a->height;
            v.depth = a->depth;
            v.layers = a->layers;
            v.cube = a->cube;
            v.base = a->data;
            v.row_bytes = a->row_bytes();
            v.slice_bytes = a->slice_bytes();
            v.layer_bytes = a->layer_bytes();
            return v;
        }
        case ResourceKind::linear: {
            const std::string reason = r.format.invalid_reason();
            if (!reason.empty()) throw Error("linear texture resource: " + reason);
            v.format = r.format;
            v.linear_memory = true;
            v.width = static_cast<std::uint32_t>(std::min<std::uint64_t>(r.bytes / r.format.texel_bytes(), UINT32_MAX));
            v.base = r.base;
            v.row_bytes = r.bytes;
            return v;
        }
        case ResourceKind::pitch2d: {
            const std::string reason = r.format.invalid_reason();
            if (!reason.empty()) throw Error("pitch2D texture resource: " + reason);
            if (r.width == 0 || r.height == 0)
                throw Error("pitch2D texture resource: width and height must be non-zero");
            if (r.pitch < std::uint64_t{r.width} * r.format.texel_bytes())
                throw Error("pitch2D texture resource: the pitch is smaller than a row of texels");
            v.format = r.format;
            v.dims = 2;
            v.width = r.width;
            v.height = r.height;
            v.base = r.base;
            v.row_bytes = r.pitch;
            v.slice_bytes = r.pitch * r.height;
            return v;
        }
        }
        return v;
    }

    static std::string_view kind_name(Kind k) {
        switch (k) {
        case Kind::array: return "CUDA array";
        case Kind::texture: return "texture object";
        case Kind::surface: return "surface object";
        }
        return "?";
    }

private:
    std::uint64_t take(Kind k) {
        const std::uint64_t h = next_++;
        kinds_.emplace(h, k);
        return h;
    }

    std::uint64_t next_ = 1;
    std::map<std::uint64_t, Kind> kinds_; // every handle ever given out
    std::map<std::uint64_t, CudaArray> arrays_;
    std::map<std::uint64_t, TextureObject> textures_;
    std::map<std::uint64_t, SurfaceObject> surfaces_;
};

// ---- sampling ----------------------------------------------------------------------------------------------------

namespace texture_detail {

inline float f32_of(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}
inline std::uint32_t bits_of(float f) {
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// A texel index after the address mode; `inside` is false for a border texel.
inline std::int64_t address(std::int64_t i, std::int64_t n, AddressMode mode, bool normalized, bool& inside) {
    if (!normalized && (mode == AddressMode::wrap || mode == AddressMode::mirror)) mode = AddressMode::clamp;
    switch (mode) {
    case AddressMode::clamp: return std::clamp<std::int64_t>(i, 0, n - 1);
    case AddressMode::wrap: return ((i % n) + n) % n;
    case AddressMode::mirror: {
        const std::int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    case AddressMode::border:
        if (i < 0 || i >= n) inside = false;
        return i;
    }
    return i;
}

} // namespace texture_detail

// One texture fetch's result: four channels as f32 bits (float_result) or 32-bit integers, and the device address
// of the first texel it read (for timing; 0 when every texel was a border or out-of-range texel).
struct TexFetch {
    std::array<std::uint32_t, 4> value{};
    bool float_result = true;
    std::uint64_t first_address = 0;
};

// Reads channel values of the texel at `address` through read(address, bytes) -> const std::uint8_t* (nullptr:
// not mapped, which the caller turns into a fault).
template <class Read>
std::array<float, 4> read_texel_float(const TexelView& v, ReadMode mode, std::uint64_t address, Read&& read) {
    const ChannelFormat& f = v.format;
    const std::uint8_t* p = read(address, f.texel_bytes());
    std::array<float, 4> out{0.0F, 0.0F, 0.0F, 1.0F};
    const unsigned cb = f.channel_bytes();
    for (unsigned c = 0; c < f.channels(); ++c) {
        std::uint32_t raw = 0;
        std::memcpy(&raw, p + c * cb, cb);
        if (f.kind == ChannelKind::floating) {
            out[c] = cb == 4 ? texture_detail::f32_of(raw)
                             : texture_detail::f32_of(static_cast<std::uint32_t>(
                                   soft_convert(raw, f16_format, f32_format, RoundMode::nearest_even, false)));
        } else if (mode == ReadMode::normalized_float) {
            const unsigned bits = cb * 8;
            if (f.kind == ChannelKind::unsigned_int) {
                out[c] = static_cast<float>(raw) / static_cast<float>((std::uint32_t{1} << bits) - 1);
            } else {
                const auto s = static_cast<std::int32_t>(raw << (32 - bits)) >> (32 - bits);
                out[c] =
                    std::max(static_cast<float>(s) / static_cast<float>((std::int32_t{1} << (bits - 1)) - 1), -1.0F);
            }
        } else {
            out[c] = texture_detail::f32_of(raw); // not reached: integer element reads use read_texel_int
        }
    }
    return out;
}

template <class Read>
std::array<std::uint32_t, 4> read_texel_int(const TexelView& v, std::uint64_t address, Read&& read) {
    const ChannelFormat& f = v.format;
    const std::uint8_t* p = read(address, f.texel_bytes());
    std::array<std::uint32_t, 4> out{0, 0, 0, 1};
    const unsigned cb = f.channel_bytes();
    for (unsigned c = 0; c < f.channels(); ++c) {
        std::uint32_t raw = 0;
        std::memcpy(&raw, p + c * cb, cb);
        if (f.kind == ChannelKind::signed_int && cb < 4) {
            const unsigned bits = cb * 8;
            raw = static_cast<std::uint32_t>(static_cast<std::int32_t>(raw << (32 - bits)) >> (32 - bits));
        }
        out[c] = raw;
    }
    return out;
}

namespace texture_detail {

// The face of a cube map that direction (x, y, z) points at and the normalised coordinates on it (Programming
// Guide, Table "Cubemap Fetch"; ties and degenerate directions as the contract at the top of this file says).
struct CubeFaceCoords {
    unsigned face = 0;
    float u = 0.5F, v = 0.5F;
};
inline CubeFaceCoords cube_face(float x, float y, float z) {
    const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
    if (!std::isfinite(ax) || !std::isfinite(ay) || !std::isfinite(az) || (ax == 0.0F && ay == 0.0F && az == 0.0F))
        return {};
    CubeFaceCoords out;
    float m = 0.0F, s = 0.0F, t = 0.0F;
    if (ax >= ay && ax >= az) {
        out.face = x >= 0.0F ? 0 : 1;
        m = ax;
        s = x >= 0.0F ? -z : z;
        t = -y;
    } else if (ay >= az) {
        out.face = y >= 0.0F ? 2 : 3;
        m = ay;
        s = x;
        t = y >= 0.0F ? z : -z;
    } else {
        out.face = z >= 0.0F ? 4 : 5;
        m = az;
        s = z >= 0.0F ? x : -x;
        t = -y;
    }
    out.u = (s / m + 1.0F) / 2.0F;
    out.v = (t / m + 1.0F) / 2.0F;
    return out;
}

inline std::string shape_name(unsigned dims, bool layered) {
    return std::string(dims == 1 ? "1D" : dims == 2 ? "2D" : "3D") + (layered ? " layered" : "");
}
inline std::string shape_name(CubeShape cube) { return cube == CubeShape::cubemap ? "cube-map" : "layered cube-map"; }
inline std::string shape_name(const TexelView& v) {
    if (v.linear_memory) return "linear memory (1D)";
    if (v.cube != CubeShape::none) return shape_name(v.cube);
    return shape_name(v.dims, v.layers != 0);
}

} // namespace texture_detail

// The fetch of tex.<geometry> at `coords` (f32 bits, or s32 texel indices when integer_coords; for a1d/a2d/acube
// the first element is the layer or cube index, always an integer). Throws Error (the engine adds the kernel's
// position) when the geometry does not match the resource.
template <class Read>
TexFetch fetch(const TexelView& v, const TextureDesc& desc, ir::TexGeometry geometry, bool integer_coords,
               const std::array<std::uint32_t, 4>& coords, Read&& read) {
    using ir::TexGeometry;
    using texture_detail::shape_name;
    const auto mismatch = [&](const std::string& wanted) {
        return Error("tex." + std::string(ir::name(geometry)) + " reads a " + wanted +
                     " texture, but the object's resource is " + shape_name(v));
    };
    if (geometry == TexGeometry::cube || geometry == TexGeometry::acube) {
        const CubeShape want = geometry == TexGeometry::cube ? CubeShape::cubemap : CubeShape::cubemap_layered;
        if (v.cube != want) throw mismatch(shape_name(want));
        if (integer_coords) throw Error("tex." + std::string(ir::name(geometry)) + " reads f32 coordinates only");
        const unsigned first = geometry == TexGeometry::acube ? 1 : 0;
        std::uint64_t layer = 0;
        if (geometry == TexGeometry::acube)
            layer = 6 * static_cast<std::uint64_t>(std::clamp<std::int64_t>(static_cast<std::int32_t>(coords[0]), 0,
                                                                            std::int64_t{v.layers / 6} - 1));
        const texture_detail::CubeFaceCoords f =
            texture_detail::cube_face(texture_detail::f32_of(coords[first]), texture_detail::f32_of(coords[first + 1]),
                                      texture_detail::f32_of(coords[first + 2]));
        TexelView face = v;
        face.cube = CubeShape::none;
        face.layers = 0;
        face.base = v.base + (layer + f.face) * v.layer_bytes;
        TextureDesc on_face = desc;
        on_face.normalized_coords = true;
        on_face.address = {AddressMode::clamp, AddressMode::clamp, AddressMode::clamp};
        return fetch(face, on_face, TexGeometry::d2, false,
                     {texture_detail::bits_of(f.u), texture_detail::bits_of(f.v), 0, 0}, read);
    }
    const bool layered = geometry == TexGeometry::a1d || geometry == TexGeometry::a2d;
    const unsigned dims = geometry == TexGeometry::d1 || geometry == TexGeometry::a1d ? 1
                          : geometry == TexGeometry::d3                               ? 3
                                                                                      : 2;
    if (v.cube != CubeShape::none || v.dims != dims || (v.layers != 0) != layered)
        throw mismatch(shape_name(dims, layered));
    if (v.linear_memory && !integer_coords)
        throw Error("a texture over linear memory is read with integer coordinates (tex1Dfetch), not f32 coordinates");

    TexFetch out;
    const bool float_result = v.format.kind == ChannelKind::floating || desc.read == ReadMode::normalized_float;
    out.float_result = float_result;
    const unsigned first = layered ? 1 : 0;
    std::uint64_t base = v.base;
    if (layered) {
        const auto layer = static_cast<std::int32_t>(coords[0]);
        base +=
            static_cast<std::uint64_t>(std::clamp<std::int64_t>(layer, 0, std::int64_t{v.layers} - 1)) * v.layer_bytes;
    }
    const std::array<std::int64_t, 3> extent{v.width, v.height, v.depth};
    const std::array<std::uint64_t, 3> stride{v.format.texel_bytes(), v.row_bytes, v.slice_bytes};

    // Per dimension: up to two texel indices and the weight of the second.
    std::array<std::array<std::int64_t, 2>, 3> index{};
    std::array<float, 3> weight{};
    const bool linear = desc.filter == FilterMode::linear && !integer_coords;
    for (unsigned d = 0; d < dims; ++d) {
        const std::uint32_t c = coords[first + d];
        if (integer_coords) {
            index[d][0] = static_cast<std::int32_t>(c);
            continue;
        }
        float x = texture_detail::f32_of(c);
        if (desc.normalized_coords) x *= static_cast<float>(extent[d]);
        if (!std::isfinite(x)) x = 0.0F; // NaN and infinite coordinates: texel 0 (not specified by the guide)
        x = std::clamp(x, -1.0e9F, 1.0e9F);
        if (linear) {
            const float xb = x - 0.5F;
            const float fl = std::floor(xb);
            index[d][0] = static_cast<std::int64_t>(fl);
            index[d][1] = index[d][0] + 1;
            // 9-bit fixed point, 8 fractional bits (Programming Guide, "Linear Filtering").
            weight[d] = std::nearbyint((xb - fl) * 256.0F) / 256.0F;
        } else {
            index[d][0] = static_cast<std::int64_t>(std::floor(x));
        }
    }

    if (v.linear_memory) {
        const std::int64_t i = index[0][0];
        if (i < 0 || i >= extent[0]) return out; // out of range reads zero
        const std::uint64_t a = base + static_cast<std::uint64_t>(i) * stride[0];
        out.first_address = a;
        if (float_result) {
            const auto t = read_texel_float(v, desc.read, a, read);
            for (unsigned c = 0; c < 4; ++c) out.value[c] = texture_detail::bits_of(t[c]);
        } else {
            out.value = read_texel_int(v, a, read);
        }
        return out;
    }

    // Resolves one corner of the footprint; false for a border texel.
    const auto corner = [&](const std::array<std::int64_t, 3>& at, std::uint64_t& address) {
        bool inside = true;
        address = base;
        for (unsigned d = 0; d < dims; ++d) {
            const std::int64_t i =
                texture_detail::address(at[d], extent[d], desc.address[d], desc.normalized_coords, inside);
            if (inside) address += static_cast<std::uint64_t>(i) * stride[d];
        }
        if (inside && out.first_address == 0) out.first_address = address;
        return inside;
    };
    const std::array<float, 4>& border = desc.border;

    if (!linear) {
        std::uint64_t a = 0;
        const bool inside = corner({index[0][0], index[1][0], index[2][0]}, a);
        if (float_result) {
            const auto t = inside ? read_texel_float(v, desc.read, a, read) : border;
            for (unsigned c = 0; c < 4; ++c) out.value[c] = texture_detail::bits_of(t[c]);
        } else if (inside) {
            out.value = read_texel_int(v, a, read);
        } else {
            for (unsigned c = 0; c < 4; ++c)
                out.value[c] = static_cast<std::uint32_t>(static_cast<std::int32_t>(border[c]));
        }
        return out;
    }

    // Linear filtering (float results only, checked at creation): the weighted sum over the 2, 4 or 8 corners,
    // accumulated in the guide's order: (1 - a)(1 - b)T[i, j] + a(1 - b)T[i + 1, j] + (1 - a)bT[i, j + 1] + ...
    std::array<float, 4> sum{};
    const unsigned corners = 1U << dims;
    for (unsigned k = 0; k < corners; ++k) {
        std::array<std::int64_t, 3> at{};
        float w = 1.0F;
        for (unsigned d = 0; d < dims; ++d) {
            const unsigned bit = (k >> d) & 1U;
            at[d] = index[d][bit];
            w *= bit ? weight[d] : 1.0F - weight[d];
        }
        std::uint64_t a = 0;
        const auto t = corner(at, a) ? read_texel_float(v, desc.read, a, read) : border;
        for (unsigned c = 0; c < 4; ++c) sum[c] += w * t[c];
    }
    for (unsigned c = 0; c < 4; ++c) out.value[c] = texture_detail::bits_of(sum[c]);
    return out;
}

} // namespace gpuarch::func
