// CHECK(call): a CUDA runtime call that must succeed; on failure the
// program says which and where, and main returns 1.
#pragma once
#include <cstdio>

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            return 1;                                                                                   \
        }                                                                                               \
    } while (0)
