// Test input for tests/ptx: cache-operator intrinsics, scoped atomics and fences (cuda::atomic_ref),
// cooperative-groups block sync (barrier.sync), packed half/bf16 arithmetic, nested register scopes.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cuda/atomic>
namespace cg = cooperative_groups;
__global__ void hints(float* a, float4* b, int* c, __nv_bfloat162* bf, __half2* h) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    float x = __ldcs(a + t) + __ldcg(a + t + 1) + __ldca(a + t + 2) + __ldlu(a + t + 3) + __ldcv(a + t + 4);
    __stcs(a + t, x);
    __stcg(a + t + 1, x);
    __stwt(a + t + 2, x);
    __stwb(a + t + 3, x);
    b[t + 1] = __ldg(b + t);
    cuda::atomic_ref<int, cuda::thread_scope_device> device_ref(c[0]);
    device_ref.fetch_add(1, cuda::memory_order_relaxed);
    int old = device_ref.load(cuda::memory_order_acquire);
    device_ref.store(old + 1, cuda::memory_order_release);
    cuda::atomic_ref<int, cuda::thread_scope_block> block_ref(c[1]);
    block_ref.fetch_max(t);
    cg::this_thread_block().sync();
    bf[t] = __hmul2(bf[t], bf[t + 1]);
    h[t] = __hfma2(h[t], h[t + 1], h[t + 2]);
    double d = __longlong_as_double(clock64());
    c[t + 2] = __double2hiint(d) + __double2loint(d);
}
