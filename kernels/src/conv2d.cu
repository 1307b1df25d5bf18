// 2D convolution of a width x height float image with a 5 x 5 filter, zero padding outside the image.
// The block stages the 25 filter taps in shared memory; each thread computes one output pixel, reading its
// 5 x 5 input window from global memory (neighbouring threads share most of it).
#define RADIUS 2
#define FILTER_DIM (2 * RADIUS + 1)

extern "C" __global__ void conv2d(const float* in, const float* filter, float* out, int width, int height)
{
    __shared__ float taps[FILTER_DIM * FILTER_DIM];
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    if (tid < FILTER_DIM * FILTER_DIM) taps[tid] = filter[tid];
    __syncthreads();
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float sum = 0.0f;
        for (int ky = -RADIUS; ky <= RADIUS; ++ky) {
            for (int kx = -RADIUS; kx <= RADIUS; ++kx) {
                int ix = x + kx, iy = y + ky;
                if (ix >= 0 && ix < width && iy >= 0 && iy < height)
                    sum += taps[(ky + RADIUS) * FILTER_DIM + kx + RADIUS] * in[iy * width + ix];
            }
        }
        out[y * width + x] = sum;
    }
}
