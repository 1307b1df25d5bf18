// Recursion that nvcc cannot turn into a loop: a doubly recursive Fibonacci (lanes of one warp recurse to
// different depths), mutual recursion (is_even / is_odd) and a recursive sum over a per-thread local array.
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ bool is_odd(unsigned n);
__device__ __noinline__ bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
__device__ __noinline__ bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

__device__ __noinline__ int sum_down(const int* values, int n) { return n == 0 ? 0 : values[n - 1] + sum_down(values, n - 1); }

extern "C" __global__ void recursion(const int* in, int* fibs, int* parity, int* sums, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int k = in[i];
    fibs[i] = fib(k);
    parity[i] = is_even(static_cast<unsigned>(k)) ? 1 : 0;
    int values[8];
    for (int j = 0; j < 8; ++j) values[j] = k * j - j * j;
    sums[i] = sum_down(values, (k % 8) + 1 > 8 ? 8 : (k % 8) + 1);
}

// Recursion without a base case for negative inputs: the depth limit must stop it with an error.
__device__ __noinline__ int count_down(int n) { return n == 0 ? 0 : count_down(n - 1) * 3 + 1; }

extern "C" __global__ void runaway(const int* in, int* out) { out[threadIdx.x] = count_down(in[threadIdx.x]); }
