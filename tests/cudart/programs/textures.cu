// Texture and surface objects through gpuarch's runtime, checked against CPU references written from the CUDA
// Programming Guide's "Texture Fetching" appendix (linear filtering with 9-bit fixed-point weights, 8 fractional
// bits). `textures` runs every check and prints "textures: ok"; `textures destroyed` and `textures unbound` fetch
// through a destroyed or never-created object and expect cudaErrorIllegalAddress.
#include "check.cuh"

#include <cmath>
#include <cstring>
#include <vector>

__global__ void sample2d(cudaTextureObject_t t, const float2* at, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(t, at[i].x, at[i].y);
}
__global__ void sample2d4(cudaTextureObject_t t, const float2* at, float4* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(t, at[i].x, at[i].y);
}
__global__ void fetch1d(cudaTextureObject_t t, int* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, i - 2); // two below and two past the end read zero
}
__global__ void sample3d(cudaTextureObject_t t, float* out, int w, int h, int d) {
    const int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
    out[(z * h + y) * w + x] = tex3D<float>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}
// dir[i] is a direction and, for the layered cube map, w is the cube index.
__global__ void sample_cube(cudaTextureObject_t layered, cudaTextureObject_t single, const float4* dir, float* out) {
    const int i = threadIdx.x;
    out[2 * i] = texCubemapLayered<float>(layered, dir[i].x, dir[i].y, dir[i].z, static_cast<int>(dir[i].w));
    out[2 * i + 1] = texCubemap<float>(single, dir[i].x, dir[i].y, dir[i].z);
}
// Reads `in` through a surface, writes 3 * v + x to `out` through another.
__global__ void surface_map(cudaSurfaceObject_t in, cudaSurfaceObject_t out) {
    const int x = threadIdx.x, y = blockIdx.x;
    int v;
    surf2Dread(&v, in, x * 4, y);
    surf2Dwrite(3 * v + x, out, x * 4, y);
}

namespace {

// The guide's linear filter: xB = x - 0.5, i = floor(xB), alpha = frac(xB) rounded to 1/256.
float weight(float xb) { return std::nearbyint((xb - std::floor(xb)) * 256.0f) / 256.0f; }
int wrap(int i, int n) { return ((i % n) + n) % n; }
int clamp(int i, int n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

// Bilinear with normalised coordinates and wrap addressing.
float bilinear_wrap(const std::vector<float>& t, int w, int h, float u, float v) {
    const float xb = u * w - 0.5f, yb = v * h - 0.5f;
    const int i = static_cast<int>(std::floor(xb)), j = static_cast<int>(std::floor(yb));
    const float a = weight(xb), b = weight(yb);
    auto T = [&](int x, int y) { return t[wrap(y, h) * w + wrap(x, w)]; };
    float s = 0;
    s += (1 - a) * (1 - b) * T(i, j);
    s += a * (1 - b) * T(i + 1, j);
    s += (1 - a) * b * T(i, j + 1);
    s += a * b * T(i + 1, j + 1);
    return s;
}

bool near(float a, float b) { return std::fabs(a - b) <= 1e-5f * (1 + std::fabs(b)); }

void run_all() {
    const int w = 16, h = 8;
    std::vector<float> texels(w * h);
    for (int i = 0; i < w * h; ++i) texels[i] = static_cast<float>((i * 37) % 101) * 0.25f;

    // A 2D float array, filled through cudaMemcpy2DToArray from a host buffer with padded rows.
    const cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
    cudaArray_t array = nullptr;
    CHECK(cudaMallocArray(&array, &fdesc, w, h, cudaArraySurfaceLoadStore));
    std::vector<float> padded(w * 2 * h, -1.0f);
    for (int y = 0; y < h; ++y) std::memcpy(&padded[y * w * 2], &texels[y * w], w * sizeof(float));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, padded.data(), w * 2 * sizeof(float), w * sizeof(float), h,
                              cudaMemcpyHostToDevice));
    cudaChannelFormatDesc got{};
    CHECK(cudaGetChannelDesc(&got, array));
    EXPECT(got.x == 32 && got.y == 0 && got.f == cudaChannelFormatKindFloat, "channel desc %d %d", got.x, got.f);

    cudaResourceDesc res{};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc td{};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeWrap;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    cudaTextureObject_t linear = 0;
    CHECK(cudaCreateTextureObject(&linear, &res, &td, nullptr));
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeBorder;
    td.filterMode = cudaFilterModePoint;
    td.normalizedCoords = 0;
    td.borderColor[0] = 7.5f;
    cudaTextureObject_t border = 0;
    CHECK(cudaCreateTextureObject(&border, &res, &td, nullptr));
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    cudaTextureObject_t clamped = 0;
    CHECK(cudaCreateTextureObject(&clamped, &res, &td, nullptr));
    cudaResourceDesc back{};
    CHECK(cudaGetTextureObjectResourceDesc(&back, linear));
    EXPECT(back.resType == cudaResourceTypeArray && back.res.array.array == array, "resource desc round trip");

    const int n = 96;
    std::vector<float2> at(n);
    for (int i = 0; i < n; ++i) at[i] = make_float2(-0.3f + 0.029f * i, 1.2f - 0.017f * i);
    float2* d_at = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_at, n * sizeof(float2)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemcpy(d_at, at.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    std::vector<float> out(n);

    sample2d<<<3, 32>>>(linear, d_at, d_out, n);
    CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        const float want = bilinear_wrap(texels, w, h, at[i].x, at[i].y);
        EXPECT(near(out[i], want), "linear/wrap at (%g, %g): %.7g, expected %.7g", at[i].x, at[i].y, out[i], want);
    }
    // Unnormalised texel coordinates: -4.5 .. 19.5 in x, row 3.5 - 0.1i in y.
    for (int i = 0; i < n; ++i) at[i] = make_float2(-4.5f + 0.25f * i, 3.5f - 0.1f * i);
    CHECK(cudaMemcpy(d_at, at.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    sample2d<<<3, 32>>>(border, d_at, d_out, n);
    CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        const int x = static_cast<int>(std::floor(at[i].x)), y = static_cast<int>(std::floor(at[i].y));
        const float want = x < 0 || x >= w || y < 0 || y >= h ? 7.5f : texels[y * w + x];
        EXPECT(out[i] == want, "point/border at (%g, %g): %g, expected %g", at[i].x, at[i].y, out[i], want);
    }
    sample2d<<<3, 32>>>(clamped, d_at, d_out, n);
    CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        const int x = clamp(static_cast<int>(std::floor(at[i].x)), w), y = clamp(static_cast<int>(std::floor(at[i].y)), h);
        EXPECT(out[i] == texels[y * w + x], "point/clamp at (%g, %g): %g, expected %g", at[i].x, at[i].y, out[i],
               texels[y * w + x]);
    }

    // uchar4 texels read as normalised floats, over pitched linear memory (cudaMallocPitch).
    const int pw = 8, ph = 4;
    std::vector<uchar4> rgba(pw * ph);
    for (int i = 0; i < pw * ph; ++i)
        rgba[i] = make_uchar4(static_cast<unsigned char>(i * 8), static_cast<unsigned char>(255 - i),
                              static_cast<unsigned char>(i * 3), 255);
    uchar4* pitched = nullptr;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(reinterpret_cast<void**>(&pitched), &pitch, pw * sizeof(uchar4), ph));
    CHECK(cudaMemcpy2D(pitched, pitch, rgba.data(), pw * sizeof(uchar4), pw * sizeof(uchar4), ph, cudaMemcpyHostToDevice));
    cudaResourceDesc pres{};
    pres.resType = cudaResourceTypePitch2D;
    pres.res.pitch2D.devPtr = pitched;
    pres.res.pitch2D.desc = cudaCreateChannelDesc<uchar4>();
    pres.res.pitch2D.width = pw;
    pres.res.pitch2D.height = ph;
    pres.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc ntd{};
    ntd.addressMode[0] = ntd.addressMode[1] = cudaAddressModeClamp;
    ntd.filterMode = cudaFilterModePoint;
    ntd.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t normalized = 0;
    CHECK(cudaCreateTextureObject(&normalized, &pres, &ntd, nullptr));
    float4* d_out4 = nullptr;
    CHECK(cudaMalloc(&d_out4, pw * ph * sizeof(float4)));
    for (int i = 0; i < pw * ph; ++i) at[i] = make_float2(i % pw + 0.5f, i / pw + 0.5f);
    CHECK(cudaMemcpy(d_at, at.data(), pw * ph * sizeof(float2), cudaMemcpyHostToDevice));
    sample2d4<<<1, pw * ph>>>(normalized, d_at, d_out4, pw * ph);
    std::vector<float4> out4(pw * ph);
    CHECK(cudaMemcpy(out4.data(), d_out4, pw * ph * sizeof(float4), cudaMemcpyDeviceToHost));
    for (int i = 0; i < pw * ph; ++i) {
        const float4 want = make_float4(rgba[i].x / 255.0f, rgba[i].y / 255.0f, rgba[i].z / 255.0f, 1.0f);
        EXPECT(out4[i].x == want.x && out4[i].y == want.y && out4[i].z == want.z && out4[i].w == want.w,
               "normalised uchar4 texel %d: (%g %g %g %g)", i, out4[i].x, out4[i].y, out4[i].z, out4[i].w);
    }

    // tex1Dfetch over linear memory: integer indices, zero outside.
    const int ln = 40;
    std::vector<int> ints(ln);
    for (int i = 0; i < ln; ++i) ints[i] = i * i - 100;
    int* d_ints = nullptr;
    CHECK(cudaMalloc(&d_ints, ln * sizeof(int)));
    CHECK(cudaMemcpy(d_ints, ints.data(), ln * sizeof(int), cudaMemcpyHostToDevice));
    cudaResourceDesc lres{};
    lres.resType = cudaResourceTypeLinear;
    lres.res.linear.devPtr = d_ints;
    lres.res.linear.desc = cudaCreateChannelDesc<int>();
    lres.res.linear.sizeInBytes = ln * sizeof(int);
    cudaTextureDesc ltd{};
    ltd.readMode = cudaReadModeElementType;
    cudaTextureObject_t lin = 0;
    CHECK(cudaCreateTextureObject(&lin, &lres, &ltd, nullptr));
    int* d_iout = nullptr;
    CHECK(cudaMalloc(&d_iout, (ln + 4) * sizeof(int)));
    fetch1d<<<1, ln + 4>>>(lin, d_iout, ln + 4);
    std::vector<int> iout(ln + 4);
    CHECK(cudaMemcpy(iout.data(), d_iout, (ln + 4) * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < ln + 4; ++i) {
        const int want = i - 2 >= 0 && i - 2 < ln ? ints[i - 2] : 0;
        EXPECT(iout[i] == want, "tex1Dfetch(%d) = %d, expected %d", i - 2, iout[i], want);
    }

    // A 3D array through cudaMalloc3DArray and cudaMemcpy3D, sampled at texel centres.
    const int w3 = 5, h3 = 4, d3 = 3;
    std::vector<float> vol(w3 * h3 * d3);
    for (int i = 0; i < w3 * h3 * d3; ++i) vol[i] = 0.5f * i - 3.0f;
    cudaArray_t array3 = nullptr;
    CHECK(cudaMalloc3DArray(&array3, &fdesc, make_cudaExtent(w3, h3, d3), 0));
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(vol.data(), w3 * sizeof(float), w3, h3);
    p.dstArray = array3;
    p.extent = make_cudaExtent(w3, h3, d3);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    cudaResourceDesc res3{};
    res3.resType = cudaResourceTypeArray;
    res3.res.array.array = array3;
    cudaTextureDesc td3{};
    td3.filterMode = cudaFilterModePoint;
    cudaTextureObject_t t3 = 0;
    CHECK(cudaCreateTextureObject(&t3, &res3, &td3, nullptr));
    float* d_vol = nullptr;
    CHECK(cudaMalloc(&d_vol, vol.size() * sizeof(float)));
    sample3d<<<d3, dim3(w3, h3)>>>(t3, d_vol, w3, h3, d3);
    std::vector<float> vol_out(vol.size());
    CHECK(cudaMemcpy(vol_out.data(), d_vol, vol.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < vol.size(); ++i) EXPECT(vol_out[i] == vol[i], "tex3D texel %zu: %g, expected %g", i, vol_out[i], vol[i]);

    // Surfaces: read an int array through one surface object, write through another, copy back.
    const cudaChannelFormatDesc idesc = cudaCreateChannelDesc<int>();
    cudaArray_t sin = nullptr, sout = nullptr;
    CHECK(cudaMallocArray(&sin, &idesc, w, h, cudaArraySurfaceLoadStore));
    CHECK(cudaMallocArray(&sout, &idesc, w, h, cudaArraySurfaceLoadStore));
    std::vector<int> grid(w * h);
    for (int i = 0; i < w * h; ++i) grid[i] = 1000 - 7 * i;
    CHECK(cudaMemcpy2DToArray(sin, 0, 0, grid.data(), w * sizeof(int), w * sizeof(int), h, cudaMemcpyHostToDevice));
    cudaResourceDesc sres{};
    sres.resType = cudaResourceTypeArray;
    sres.res.array.array = sin;
    cudaSurfaceObject_t s_in = 0, s_out = 0;
    CHECK(cudaCreateSurfaceObject(&s_in, &sres));
    sres.res.array.array = sout;
    CHECK(cudaCreateSurfaceObject(&s_out, &sres));
    surface_map<<<h, w>>>(s_in, s_out);
    std::vector<int> mapped(w * h);
    CHECK(cudaMemcpy2DFromArray(mapped.data(), w * sizeof(int), sout, 0, 0, w * sizeof(int), h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < w * h; ++i)
        EXPECT(mapped[i] == 3 * grid[i] + i % w, "surface element %d: %d, expected %d", i, mapped[i], 3 * grid[i] + i % w);

    // Cube maps: a layered cube map of 2 cubes and a single one (its copy of cube 1), 8 x 8 faces, texel value
    // 1000 cube + 100 face + 10 y + x. Each direction picks a face by its largest component; the texel follows from
    // the Programming Guide's "Cubemap Fetch" table, worked by hand: e.g. (1, 0.5, -0.25) is face 0 (+x) at
    // s = -z = 0.25, t = -y = -0.5, i.e. u = (s + 1) / 2 = 0.625, v = 0.25, texel (5, 2) of 8 x 8.
    const int cw = 8;
    std::vector<float> cube_texels(2 * 6 * cw * cw);
    for (int c = 0; c < 2; ++c)
        for (int f = 0; f < 6; ++f)
            for (int y = 0; y < cw; ++y)
                for (int x = 0; x < cw; ++x) cube_texels[((c * 6 + f) * cw + y) * cw + x] = 1000.0f * c + 100.0f * f + 10.0f * y + x;
    cudaArray_t cubes = nullptr, cube = nullptr;
    CHECK(cudaMalloc3DArray(&cubes, &fdesc, make_cudaExtent(cw, cw, 12), cudaArrayCubemap | cudaArrayLayered));
    CHECK(cudaMalloc3DArray(&cube, &fdesc, make_cudaExtent(cw, cw, 6), cudaArrayCubemap));
    cudaExtent got_extent{};
    unsigned got_flags = 0;
    CHECK(cudaArrayGetInfo(nullptr, &got_extent, &got_flags, cubes));
    EXPECT(got_extent.depth == 12 && got_flags == (cudaArrayCubemap | cudaArrayLayered), "layered cube map: depth %zu, flags %u",
           got_extent.depth, got_flags);
    p = cudaMemcpy3DParms{};
    p.srcPtr = make_cudaPitchedPtr(cube_texels.data(), cw * sizeof(float), cw, cw);
    p.dstArray = cubes;
    p.extent = make_cudaExtent(cw, cw, 12);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    p.srcPtr = make_cudaPitchedPtr(cube_texels.data() + 6 * cw * cw, cw * sizeof(float), cw, cw);
    p.dstArray = cube;
    p.extent = make_cudaExtent(cw, cw, 6);
    CHECK(cudaMemcpy3D(&p));
    cudaArray_t not_square = nullptr;
    EXPECT(cudaMalloc3DArray(&not_square, &fdesc, make_cudaExtent(cw, cw + 1, 6), cudaArrayCubemap) == cudaErrorInvalidValue,
           "a cube map with non-square faces was accepted");
    cudaResourceDesc cres{};
    cres.resType = cudaResourceTypeArray;
    cres.res.array.array = cubes;
    cudaTextureDesc ctd{};
    ctd.filterMode = cudaFilterModeLinear;
    ctd.seamlessCubemap = 1;
    cudaTextureObject_t t_cubes = 0, t_cube = 0;
    EXPECT(cudaCreateTextureObject(&t_cubes, &cres, &ctd, nullptr) == cudaErrorNotSupported,
           "seamless linear cube-map filtering was accepted");
    ctd.filterMode = cudaFilterModePoint;
    CHECK(cudaCreateTextureObject(&t_cubes, &cres, &ctd, nullptr));
    cres.res.array.array = cube;
    CHECK(cudaCreateTextureObject(&t_cube, &cres, &ctd, nullptr));
    struct CubeCase {
        float x, y, z;
        int face, u, v;
    };
    const CubeCase cases[6] = {{1, 0.5f, -0.25f, 0, 5, 2},   {-1, 0.5f, -0.25f, 1, 3, 2}, {0.5f, 1, -0.25f, 2, 6, 3},
                               {0.5f, -1, -0.25f, 3, 6, 5},  {0.5f, -0.25f, 1, 4, 6, 5}, {0.5f, -0.25f, -1, 5, 2, 5}};
    std::vector<float4> dirs(12);
    for (int i = 0; i < 12; ++i) {
        const CubeCase& k = cases[i % 6];
        const float scale = i < 6 ? 1.0f : 2.0f; // the length of the direction does not matter
        dirs[i] = make_float4(scale * k.x, scale * k.y, scale * k.z, static_cast<float>(i / 6));
    }
    float4* d_dirs = nullptr;
    float* d_cube_out = nullptr;
    CHECK(cudaMalloc(&d_dirs, dirs.size() * sizeof(float4)));
    CHECK(cudaMalloc(&d_cube_out, 2 * dirs.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_dirs, dirs.data(), dirs.size() * sizeof(float4), cudaMemcpyHostToDevice));
    sample_cube<<<1, 12>>>(t_cubes, t_cube, d_dirs, d_cube_out);
    std::vector<float> cube_out(2 * dirs.size());
    CHECK(cudaMemcpy(cube_out.data(), d_cube_out, cube_out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 12; ++i) {
        const CubeCase& k = cases[i % 6];
        const float want = 1000.0f * (i / 6) + 100.0f * k.face + 10.0f * k.v + k.u;
        EXPECT(cube_out[2 * i] == want, "texCubemapLayered, direction %d: %g, expected %g", i, cube_out[2 * i], want);
        EXPECT(cube_out[2 * i + 1] == 1000.0f + 100.0f * k.face + 10.0f * k.v + k.u, "texCubemap, direction %d: %g", i,
               cube_out[2 * i + 1]);
    }
    CHECK(cudaDestroyTextureObject(t_cubes));
    CHECK(cudaDestroyTextureObject(t_cube));
    CHECK(cudaFreeArray(cubes));
    CHECK(cudaFreeArray(cube));

    CHECK(cudaDestroySurfaceObject(s_in));
    CHECK(cudaDestroySurfaceObject(s_out));
    CHECK(cudaDestroyTextureObject(linear));
    CHECK(cudaDestroyTextureObject(border));
    CHECK(cudaDestroyTextureObject(clamped));
    CHECK(cudaDestroyTextureObject(normalized));
    CHECK(cudaDestroyTextureObject(lin));
    CHECK(cudaDestroyTextureObject(t3));
    CHECK(cudaFreeArray(array));
    CHECK(cudaFreeArray(array3));
    CHECK(cudaFreeArray(sin));
    CHECK(cudaFreeArray(sout));
    CHECK(cudaDeviceSynchronize());
    std::printf("textures: ok\n");
}

// Fetches through a destroyed (or never-created) object and expects the GPU's error for it.
void bad_object(bool destroyed) {
    const cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
    cudaArray_t array = nullptr;
    CHECK(cudaMallocArray(&array, &fdesc, 4, 4));
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc td{};
    cudaTextureObject_t t = 0;
    CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
    if (destroyed) CHECK(cudaDestroyTextureObject(t));
    else t += 1000;
    float2* at = nullptr;
    float* out = nullptr;
    CHECK(cudaMalloc(&at, 32 * sizeof(float2)));
    CHECK(cudaMalloc(&out, 32 * sizeof(float)));
    sample2d<<<1, 32>>>(t, at, out, 32);
    const cudaError_t e = cudaDeviceSynchronize();
    EXPECT(e == cudaErrorIllegalAddress, "got %s", cudaGetErrorName(e));
}

} // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "destroyed") == 0) bad_object(true);
    else if (argc > 1 && std::strcmp(argv[1], "unbound") == 0) bad_object(false);
    else run_all();
    return 0;
}
