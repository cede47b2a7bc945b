// corpus: rdc
// Theme: module-scope variables: __managed__, extern __shared__, __constant__
// tables with initialisers (byte arrays, float scalars, short lists that are
// zero-filled), extern __device__ variables (needs -rdc), weak inline
// globals, local arrays indexed dynamically (__local_depot), .pragma nounroll.
#include <cstdint>

__managed__ int m_counter = 7;
__managed__ float m_scale;

__constant__ unsigned char c_bytes[16] = { 0, 0, 128, 63, 0, 0, 0, 64, 1, 2, 3, 4, 255, 254, 253, 252 };
__constant__ float c_pi = 3.14159265358979f;
__constant__ double c_e = 2.718281828459045;
__constant__ float c_short_list[8] = { 1.0f, -0.5f, 1e-30f };
__constant__ int c_ints[4] = { -2147483647 - 1, 2147483647, -1, 0x7f00ff00 };
__constant__ unsigned long long c_u64 = 0xdeadbeefcafef00dULL;

__device__ int g_table[5] = { 10, 20, 30 };
__device__ int g_zeroed[32];
extern __device__ int g_external[];           // defined in another TU (.extern)
extern __shared__ float4 dyn_smem[];          // .extern .shared .align 16 .b8 []

__device__ char g_message[] = "corpus$string";

__global__ void globals_kernel(float *out, int n)
{
    int t = threadIdx.x;
    dyn_smem[t] = make_float4(c_pi, (float)c_e, c_short_list[t & 7], (float)c_bytes[t & 15]);
    __syncthreads();
    float4 v = dyn_smem[(t + 1) % blockDim.x];
    atomicAdd(&m_counter, 1);
    out[blockIdx.x * blockDim.x + t] = v.x + v.y + v.z + v.w * m_scale + g_table[t % 5]
        + g_zeroed[t & 31] + g_external[t] + c_ints[t & 3] + (float)(c_u64 >> (t & 63)) + g_message[t & 7];
}

__global__ void local_array_kernel(const int *idx, int *out, int n)
{
    int local[64];
#pragma unroll 1
    for (int k = 0; k < 64; ++k) local[k] = k * k + idx[k];
    int s = 0;
#pragma unroll 1
    for (int k = 0; k < n; ++k) s += local[idx[k] & 63];
    out[threadIdx.x] = s;
}

__global__ void alloca_kernel(const int *in, int *out, int n)
{
    // Variable-size local storage: alloca.
    int *buf = (int *)alloca(sizeof(int) * (n & 255));
    for (int k = 0; k < (n & 255); ++k) buf[k] = in[k] ^ k;
    int s = 0;
    for (int k = (n & 255) - 1; k >= 0; --k) s = s * 31 + buf[k];
    out[threadIdx.x] = s;
}
