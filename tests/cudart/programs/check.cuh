// Shared by the runtime's test programs: stop with a message when a CUDA call fails.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        cudaError_t check_error_ = (call);                                                                             \
        if (check_error_ != cudaSuccess) {                                                                             \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,                            \
                         cudaGetErrorName(check_error_), cudaGetErrorString(check_error_));                            \
            std::exit(3);                                                                                              \
        }                                                                                                              \
    } while (0)

#define EXPECT(condition, ...)                                                                                         \
    do {                                                                                                               \
        if (!(condition)) {                                                                                            \
            std::fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #condition);                              \
            std::fprintf(stderr, __VA_ARGS__);                                                                         \
            std::fprintf(stderr, "\n");                                                                                \
            std::exit(4);                                                                                              \
        }                                                                                                              \
    } while (0)
