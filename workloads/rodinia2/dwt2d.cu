// DWT2D (Rodinia 3.1 "dwt2d"): forward 2D discrete wavelet transform of an RGB image with the reversible CDF 5/3
// lifting scheme (JPEG 2000's integer wavelet), several levels. A first kernel splits the interleaved 8-bit RGB
// pixels into three integer planes (minus 128). Each level of each plane is one launch: a CTA of 64 threads loads a
// 64x16 tile of the current LL band plus a 2-left/1-right halo (mirrored at the band's edges) into shared memory,
// lifts every row horizontally (predict then update), then each thread lifts one column vertically, and the CTA
// writes its samples to the four subbands (LL top-left, HL top-right, LH bottom-left, HH bottom-right). The next
// level transforms the LL band from a second buffer and a 2D copy puts its result back in place, as the
// benchmark's recursive forward transform does.
#include <string>

#include "common.cuh"

namespace {

constexpr int kTileX = 64;  // threads per CTA, one column each in the vertical pass
constexpr int kTileY = 16;
constexpr int kHaloLo = 2, kHaloHi = 1;
constexpr int kBufX = kTileX + kHaloLo + kHaloHi;  // 67
constexpr int kBufY = kTileY + kHaloLo + kHaloHi;  // 19

__host__ __device__ inline int mirror(int i, int n) {
    if (i < 0) return -i;
    if (i >= n) return 2 * (n - 1) - i;
    return i;
}

__global__ void copy_src_to_components(const unsigned char* src, int* r, int* g, int* b, int pixels) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pixels) return;
    r[i] = static_cast<int>(src[3 * i + 0]) - 128;
    g[i] = static_cast<int>(src[3 * i + 1]) - 128;
    b[i] = static_cast<int>(src[3 * i + 2]) - 128;
}

// One level on the w x h band at the top-left of `in` (row pitch `pitch`), subbands written to `out` (same pitch).
__global__ void fdwt53(const int* in, int* out, int w, int h, int pitch) {
    __shared__ int buf[kBufY][kBufX];
    const int t = threadIdx.x;
    const int x0 = blockIdx.x * kTileX, y0 = blockIdx.y * kTileY;

    for (int i = t; i < kBufX * kBufY; i += kTileX) {
        const int r = i / kBufX, c = i % kBufX;
        const int gy = mirror(y0 - kHaloLo + r, h), gx = mirror(x0 - kHaloLo + c, w);
        buf[r][c] = in[gy * pitch + gx];
    }
    __syncthreads();

    // Horizontal lifting of every buffered row: predict the odd samples (local columns 1, 3, ..., 65), then update
    // the even ones (2, 4, ..., 64). Local parity equals global parity because x0 is even.
    constexpr int kOdd = (kBufX - 1) / 2;  // 33
    for (int i = t; i < kBufY * kOdd; i += kTileX) {
        const int r = i / kOdd, c = 2 * (i % kOdd) + 1;
        buf[r][c] -= (buf[r][c - 1] + buf[r][c + 1]) >> 1;
    }
    __syncthreads();
    constexpr int kEven = kTileX / 2;  // 32
    for (int i = t; i < kBufY * kEven; i += kTileX) {
        const int r = i / kEven, c = 2 * (i % kEven) + 2;
        buf[r][c] += (buf[r][c - 1] + buf[r][c + 1] + 2) >> 2;
    }
    __syncthreads();

    // Vertical lifting, one column per thread.
    const int c = t + kHaloLo;
    for (int r = 1; r < kBufY - 1; r += 2) buf[r][c] -= (buf[r - 1][c] + buf[r + 1][c]) >> 1;
    for (int r = 2; r < kBufY - 1; r += 2) buf[r][c] += (buf[r - 1][c] + buf[r + 1][c] + 2) >> 2;
    __syncthreads();

    const int gx = x0 + t;
    if (gx >= w) return;
    const int ox = (gx & 1) ? w / 2 + gx / 2 : gx / 2;
    for (int r = kHaloLo; r < kHaloLo + kTileY; ++r) {
        const int gy = y0 - kHaloLo + r;
        if (gy >= h) break;
        const int oy = (gy & 1) ? h / 2 + gy / 2 : gy / 2;
        out[oy * pitch + ox] = buf[r][c];
    }
}

// Host reference: one level, rows then columns, with mirrored edges.
void lift_1d(std::vector<int>& x) {
    const int n = static_cast<int>(x.size());
    auto at = [&](int i) { return x[mirror(i, n)]; };
    for (int i = 1; i < n; i += 2) x[i] -= (at(i - 1) + at(i + 1)) >> 1;
    for (int i = 0; i < n; i += 2) x[i] += (at(i - 1) + at(i + 1) + 2) >> 2;
}

void reference_level(std::vector<int>& img, int w, int h, int pitch) {
    std::vector<int> tmp(w * h);
    for (int y = 0; y < h; ++y) {
        std::vector<int> row(img.begin() + y * pitch, img.begin() + y * pitch + w);
        lift_1d(row);
        for (int x = 0; x < w; ++x) tmp[y * w + x] = row[x];
    }
    for (int x = 0; x < w; ++x) {
        std::vector<int> col(h);
        for (int y = 0; y < h; ++y) col[y] = tmp[y * w + x];
        lift_1d(col);
        for (int y = 0; y < h; ++y) tmp[y * w + x] = col[y];
    }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int ox = (x & 1) ? w / 2 + x / 2 : x / 2, oy = (y & 1) ? h / 2 + y / 2 : y / 2;
            img[oy * pitch + ox] = tmp[y * w + x];
        }
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "dwt2d");
    // Rodinia's run script: `dwt2d 192.bmp -d 192x192 -f -5 -l 3` (192x192 RGB image, forward 5/3, 3 levels).
    const int width = 192, height = 192;  // the standard input already launches only a few dozen CTAs
    const int levels = 3;
    const int pixels = width * height;

    // Synthetic image: smooth gradients plus noise (the benchmark reads a BMP).
    workload::Random rng(192);
    std::vector<unsigned char> src(3 * pixels);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int ch = 0; ch < 3; ++ch) {
                const int v = (x * (ch + 1) + y * (3 - ch)) % 200 + static_cast<int>(rng.below(56));
                src[3 * (y * width + x) + ch] = static_cast<unsigned char>(v);
            }

    unsigned char* d_src = workload::to_device(src);
    int* d_comp[3];
    for (int*& p : d_comp) p = workload::device_zeros<int>(pixels);
    int* d_out = workload::device_zeros<int>(pixels);
    int* d_tmp = workload::device_zeros<int>(pixels);
    copy_src_to_components<<<(pixels + 255) / 256, 256>>>(d_src, d_comp[0], d_comp[1], d_comp[2], pixels);
    CHECK_LAUNCH();
    int launches = 1, copies = 0;

    std::vector<std::vector<int>> got(3);
    for (int ch = 0; ch < 3; ++ch) {
        // Level 1: component -> out; level l > 1: out's LL band -> tmp, then tmp's band copied back into out.
        int w = width, h = height;
        for (int l = 0; l < levels; ++l) {
            const dim3 grid((w + kTileX - 1) / kTileX, (h + kTileY - 1) / kTileY);
            if (l == 0) {
                fdwt53<<<grid, kTileX>>>(d_comp[ch], d_out, w, h, width);
                CHECK_LAUNCH();
            } else {
                fdwt53<<<grid, kTileX>>>(d_out, d_tmp, w, h, width);
                CHECK_LAUNCH();
                CHECK(cudaMemcpy2D(d_out, width * sizeof(int), d_tmp, width * sizeof(int), w * sizeof(int), h,
                                   cudaMemcpyDeviceToDevice));
                ++copies;
            }
            ++launches;
            w /= 2;
            h /= 2;
        }
        got[ch] = workload::to_host(d_out, pixels);
    }

    bool ok = true;
    for (int ch = 0; ch < 3 && ok; ++ch) {
        std::vector<int> img(pixels);
        for (int i = 0; i < pixels; ++i) img[i] = static_cast<int>(src[3 * i + ch]) - 128;
        int w = width, h = height;
        for (int l = 0; l < levels; ++l, w /= 2, h /= 2) reference_level(img, w, h, width);
        ok = workload::equal(ch == 0 ? "R" : ch == 1 ? "G" : "B", got[ch], img);
    }

    CHECK(cudaFree(d_src));
    for (int* p : d_comp) CHECK(cudaFree(p));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_tmp));
    return workload::finish("dwt2d", size, ok,
                            std::to_string(width) + "x" + std::to_string(height) + " RGB, 5/3, " +
                                std::to_string(levels) + " levels, " + std::to_string(launches) + " launches + " +
                                std::to_string(copies) + " 2D copies");
}
