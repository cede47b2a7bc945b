// Theme: entry directives: .maxntid/.minnctapersm (__launch_bounds__),
// .maxclusterrank (3-argument __launch_bounds__), .reqntid (__block_size__),
// .reqnctapercluster/.explicitcluster (__cluster_dims__), .maxnreg
// (__maxnreg__).

// Cluster attributes exist only on sm_90+; the sm_80 builds drop them.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define CORPUS_CLUSTER_DIMS(...)
#define CORPUS_BLOCK_SIZE(...)
#define CORPUS_LB3(t, m, c) __launch_bounds__(t, m)
#else
#define CORPUS_CLUSTER_DIMS(...) __cluster_dims__(__VA_ARGS__)
#define CORPUS_BLOCK_SIZE(...) __block_size__((__VA_ARGS__))
#define CORPUS_LB3(t, m, c) __launch_bounds__(t, m, c)
#endif

__global__ void __launch_bounds__(256, 2) lb_256_2(float *x)
{
    x[blockIdx.x * 256 + threadIdx.x] *= 2.0f;
}

__global__ void __launch_bounds__(1024) lb_1024(float *x)
{
    x[blockIdx.x * 1024 + threadIdx.x] += 1.0f;
}

__global__ void CORPUS_LB3(128, 4, 4) lb_cluster_rank(float *x)
{
    x[blockIdx.x * 128 + threadIdx.x] -= 1.0f;
}

__global__ void CORPUS_CLUSTER_DIMS(2, 1, 1) cluster_2x1x1(float *x)
{
    x[blockIdx.x * blockDim.x + threadIdx.x] = 3.0f;
}

__global__ void CORPUS_CLUSTER_DIMS(2, 2, 1) __launch_bounds__(64) cluster_2x2x1(float *x)
{
    unsigned rank = 0;
#if __CUDA_ARCH__ >= 900
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
#endif
    x[blockIdx.x * blockDim.x + threadIdx.x] = (float)rank;
}

__global__ void __maxnreg__(64) maxnreg_64(float *x, int n)
{
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc += x[k] * x[(k + 7) % n];
    x[threadIdx.x] = acc;
}

__global__ void CORPUS_BLOCK_SIZE(128, 1, 1) reqntid_128(float *x)
{
    x[blockIdx.x * 128 + threadIdx.x] *= 0.5f;
}

__global__ void CORPUS_BLOCK_SIZE(32, 4, 2) reqntid_3d(int *x)
{
    x[(threadIdx.z * 4 + threadIdx.y) * 32 + threadIdx.x] = blockIdx.x;
}
