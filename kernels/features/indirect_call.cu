// Function pointers: a __device__ table of functions with one signature, indexed per thread (divergent targets
// within a warp), a pointer chosen in code (mov of a function's address), a second signature whose functions are
// never candidates of the first, and a null entry whose call must be reported, not executed.
typedef int (*binary_op)(int, int);
typedef float (*unary_op)(float);

__device__ __noinline__ int add_op(int a, int b) { return a + b; }
__device__ __noinline__ int sub_op(int a, int b) { return a - b; }
__device__ __noinline__ int mul_add_op(int a, int b) { return a * b + 7; }
__device__ __noinline__ float half_op(float x) { return 0.5f * x; }
__device__ __noinline__ float square_op(float x) { return x * x; }

__device__ binary_op binary_table[4] = {add_op, sub_op, mul_add_op, nullptr};
__device__ unary_op unary_table[2] = {half_op, square_op};

// out[i] = binary_table[select[i]](a[i], b[i]) + (i odd ? sub : add)(a[i], 1); fout[i] = unary_table[i & 1](x[i]).
extern "C" __global__ void indirect_calls(const int* select, const int* a, const int* b, int* out, const float* x,
                                          float* fout, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const binary_op chosen = (i & 1) ? sub_op : add_op;
    out[i] = binary_table[select[i]](a[i], b[i]) + chosen(a[i], 1);
    fout[i] = unary_table[i & 1](x[i]);
}
