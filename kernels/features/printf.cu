// Device-side printf: every conversion, flag, width, precision and length modifier gpuarch formats
// (tests/func/features_test.cpp checks the exact console text), and vprintf's return value.
#include <cstddef>
#include <cstdio>

extern "C" __global__ void printf_formats(int* returned, const char* name, long long big, double d, float f) {
    const int t = threadIdx.x;
    const unsigned u = 0xfffffff0u + t;
    returned[t] = printf("thread %d of %d: %s\n", t, blockDim.x, name);
    printf("[%5d|%-5d|%05d|%+d|% d|%i] [%x|%X|%#o|%#x|%u]\n", t, -t, t, t, t, -7 * t, u, u, 8 + t, 255 + t, u);
    printf("[%hhd|%hhu|%hd|%hu|%ld|%lld|%llu|%zu|%lx]\n", 120 + 10 * t, 250 + 10 * t, 32760 + 10 * t, 65530 + 10 * t,
           big * (t + 1), -big, static_cast<unsigned long long>(big) * 3u, static_cast<size_t>(t) * 1000u, big);
    printf("[%f|%.2f|%10.3e|%-10.1E|%g|%G|%a|%F]\n", d * t, f, d, -d, f * (t + 1), 1e-10 * d, 0.5 + t, d);
    printf("[%c%c] [%.3s|%8s|%-6s|%s] [%*d|%-*.*f|%.*s] %%\n", 'a' + t, 'Z', name, "ok", "left", "", 6, t, 9, 2,
           static_cast<double>(f), 2, name + t);
    returned[blockDim.x + t] = printf("no arguments\n");
}

// One %s argument that the host may point anywhere (a bad pointer must be reported, not crash), and %p.
extern "C" __global__ void printf_string(const char* s) { printf("<%s> %p\n", s, s); }
