// Device-function calls and per-thread local memory. The helpers are __noinline__, so the PTX keeps them as
// .func bodies reached with call. window[] is indexed with a run-time value (a hash of the thread id), so it
// cannot live in registers and lands in .local (ld.local/st.local through the thread's stack frame).
// Each thread: fill a 16-entry window from `in`, then `rounds` times pick a slot by hashing and replace it by
// a cubic polynomial of itself; finally write the window sum and the last hash.
#define WINDOW 16

__device__ __noinline__ unsigned mix_hash(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__device__ __noinline__ float cubic(float x, float c0, float c1, float c2, float c3)
{
    return ((c3 * x + c2) * x + c1) * x + c0;
}

__device__ __noinline__ int wrap_index(int i, int n)
{
    int r = i % n;
    return r < 0 ? r + n : r;
}

extern "C" __global__ void devfunc_local(const float* in, float* out, unsigned* hashes, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float window[WINDOW];
    for (int k = 0; k < WINDOW; ++k) window[k] = in[wrap_index(i + k * 7 - 20, n)];
    unsigned h = static_cast<unsigned>(i);
    for (int r = 0; r < rounds; ++r) {
        h = mix_hash(h + static_cast<unsigned>(r));
        unsigned slot = h & (WINDOW - 1);
        window[slot] = cubic(window[slot], 0.5f, -0.25f, 0.125f, 0.0625f);
    }
    float acc = 0.0f;
    for (int k = 0; k < WINDOW; ++k) acc += window[k];
    out[i] = acc;
    hashes[i] = h;
}
