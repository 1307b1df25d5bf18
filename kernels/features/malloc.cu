// Device-side malloc/free (CUDA C++ Programming Guide, "Dynamic Global Memory Allocation and Operations"):
// each thread allocates a buffer of 4 + tid % 5 ints, fills it, sums it back and frees it; out[i] is the sum, or
// -1 when malloc returned NULL (an exhausted heap). keep_malloc keeps its allocation (freed by a second launch).
extern "C" __global__ void malloc_sum(int* out, unsigned long long* where, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int count = 4 + i % 5;
    int* p = static_cast<int*>(malloc(count * sizeof(int)));
    where[i] = reinterpret_cast<unsigned long long>(p);
    if (p == nullptr) {
        out[i] = -1;
        return;
    }
    for (int k = 0; k < count; ++k) p[k] = i * 10 + k;
    int sum = 0;
    for (int k = 0; k < count; ++k) sum += p[k];
    out[i] = sum;
    free(p);
}

// Frees whatever pointer the host passes (NULL is a no-op; anything else that is not a live device-heap
// allocation is an error).
extern "C" __global__ void free_pointer(void* p) { free(p); }

// Allocates `bytes` per thread and keeps it: the pointers go to `where`, and a later free_kept frees them.
extern "C" __global__ void malloc_keep(unsigned long long* where, unsigned long long bytes) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    void* p = malloc(bytes);
    where[i] = reinterpret_cast<unsigned long long>(p);
}
extern "C" __global__ void free_kept(const unsigned long long* where) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    free(reinterpret_cast<void*>(where[i]));
}

// Writes one int past a 16-byte allocation: an out-of-bounds access on the device heap.
extern "C" __global__ void malloc_overrun() {
    int* p = static_cast<int*>(malloc(16));
    if (p != nullptr) {
        volatile int* q = p;
        q[4] = 1;
    }
}
