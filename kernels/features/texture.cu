// Texture and surface objects (CUDA 12+ has no texture references): tex.1d/2d/3d/a1d/a2d/cube/acube and tex.level with f32
// and s32 coordinates and f32/s32/u32 results, and suld.b/sust.b .trap/.clamp/.zero on 1D, 2D and 3D surfaces of
// 1-, 2-, 4-, 8- and 16-byte elements. Each thread reads its coordinates from `at`, so the host picks in-range,
// fractional and out-of-range points; tests/func/feature_kernels.hpp computes the expected texels on the CPU.

extern "C" __global__ void tex2d_float4(cudaTextureObject_t t, const float2* at, float4* out) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D<float4>(t, at[i].x, at[i].y);
}

extern "C" __global__ void tex2d_float(cudaTextureObject_t t, const float2* at, float* out) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D<float>(t, at[i].x, at[i].y);
}

extern "C" __global__ void tex2d_int(cudaTextureObject_t t, const float2* at, int4* out) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D<int4>(t, at[i].x, at[i].y);
}

extern "C" __global__ void tex2d_uint(cudaTextureObject_t t, const float2* at, uint2* out) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D<uint2>(t, at[i].x, at[i].y);
}

extern "C" __global__ void tex2d_lod(cudaTextureObject_t t, const float2* at, float* out, float lod) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2DLod<float>(t, at[i].x, at[i].y, lod);
}

extern "C" __global__ void tex1d_float(cudaTextureObject_t t, const float* at, float* out) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex1D<float>(t, at[i]);
}

// tex1Dfetch: integer texel indices into linear memory; out-of-range indices read zero.
extern "C" __global__ void tex1d_fetch(cudaTextureObject_t t, const int* at, float* out, cudaTextureObject_t ti,
                                       int* out_int) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex1Dfetch<float>(t, at[i]);
    out_int[i] = tex1Dfetch<int>(ti, at[i]);
}

extern "C" __global__ void tex3d_float(cudaTextureObject_t t, const float4* at, float* out) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex3D<float>(t, at[i].x, at[i].y, at[i].z);
}

// at[i].w is the layer.
extern "C" __global__ void tex_layered(cudaTextureObject_t t2, cudaTextureObject_t t1, const float4* at, float* out) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const int layer = static_cast<int>(at[i].w);
    out[2 * i] = tex2DLayered<float>(t2, at[i].x, at[i].y, layer);
    out[2 * i + 1] = tex1DLayered<float>(t1, at[i].x, layer);
}

// Cube maps: at[i] is a direction (x, y, z) and, for the layered cube map, w is the cube index.
extern "C" __global__ void tex_cube(cudaTextureObject_t cube, cudaTextureObject_t cubes, const float4* at, float* out) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[2 * i] = texCubemap<float>(cube, at[i].x, at[i].y, at[i].z);
    out[2 * i + 1] = texCubemapLayered<float>(cubes, at[i].x, at[i].y, at[i].z, static_cast<int>(at[i].w));
}

// Surfaces: thread (x, y) of a w x h grid reads element (x, y) of `in` (4-byte floats), writes twice the value to
// `out`, and reads its neighbour x + 1 with clamp and zero out-of-range handling; x is in bytes.
extern "C" __global__ void surf2d_float(cudaSurfaceObject_t in, cudaSurfaceObject_t out, float* edge, int w) {
    const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(blockIdx.x);
    float v;
    surf2Dread(&v, in, x * 4, y);
    surf2Dwrite(2.0f * v, out, x * 4, y);
    float clamped, zeroed;
    surf2Dread(&clamped, in, (x + 1) * 4, y, cudaBoundaryModeClamp);
    surf2Dread(&zeroed, in, (x + 1) * 4, y, cudaBoundaryModeZero);
    surf2Dwrite(-1.0f, out, (x + 1) * 4, y + 1000, cudaBoundaryModeZero); // dropped: out of range
    edge[2 * (y * w + x)] = clamped;
    edge[2 * (y * w + x) + 1] = zeroed;
}

// Vector and narrow elements: uchar4 (suld.v4.b8), short2 (v2.b16), 8-byte and 16-byte (v4.b32) elements, 1D and 3D.
extern "C" __global__ void surf_elements(cudaSurfaceObject_t s8, cudaSurfaceObject_t s16, cudaSurfaceObject_t s64,
                                         cudaSurfaceObject_t s128, cudaSurfaceObject_t s3d) {
    const int x = static_cast<int>(threadIdx.x);
    uchar4 c;
    surf2Dread(&c, s8, x * 4, 0);
    surf2Dwrite(make_uchar4(c.w, c.z, c.y, c.x), s8, x * 4, 1);
    short2 h;
    surf1Dread(&h, s16, x * 4);
    surf1Dwrite(make_short2(static_cast<short>(h.y + 1), static_cast<short>(h.x - 1)), s16, x * 4);
    unsigned long long ll;
    surf2Dread(&ll, s64, x * 8, 0);
    surf2Dwrite(ll ^ 0xffff0000ffff0000ull, s64, x * 8, 0);
    float4 f;
    surf2Dread(&f, s128, x * 16, 0);
    surf2Dwrite(make_float4(f.w, f.z, f.y, f.x), s128, x * 16, 0);
    int v;
    surf3Dread(&v, s3d, x * 4, 1, 2);
    surf3Dwrite(v * 3, s3d, x * 4, 0, 0);
}

// A fetch through whatever handle the host passes (the tests pass destroyed and never-created ones).
extern "C" __global__ void tex_through(cudaTextureObject_t t, float* out) {
    out[threadIdx.x] = tex2D<float>(t, 0.5f, 0.5f);
}

extern "C" __global__ void surf_through(cudaSurfaceObject_t s, int x) {
    surf2Dwrite(1.0f, s, x * 4, 0);
}
