// Escape-time Mandelbrot: one thread per pixel iterates z = z^2 + c until |z|^2 > 4 or max_iter trips and writes
// the trip count. Neighbouring pixels escape after very different trip counts, so lanes of a warp leave the
// loop at different times (branch divergence with almost no memory traffic).
extern "C" __global__ void mandelbrot(unsigned* iterations, int width, int height, float x0, float y0, float dx,
                                      float dy, int max_iter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    float cx = x0 + px * dx;
    float cy = y0 + py * dy;
    float zx = 0.0f, zy = 0.0f;
    int it = 0;
    while (it < max_iter && zx * zx + zy * zy <= 4.0f) {
        float t = zx * zx - zy * zy + cx;
        zy = 2.0f * zx * zy + cy;
        zx = t;
        ++it;
    }
    iterations[py * width + px] = it;
}
