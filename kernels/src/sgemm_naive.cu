// C = alpha * A * B + beta * C, row-major, A is M x K, B is K x N. One thread per element of C reading
// A and B straight from global memory (A row is broadcast across a warp, B row is coalesced).
extern "C" __global__ void sgemm_naive(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                                       float* C)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
        C[row * N + col] = alpha * sum + beta * C[row * N + col];
    }
}
