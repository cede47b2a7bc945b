// Theme: structs passed by value to kernels and device functions
// (.param .align 8 .b8 p[32]), struct return values, narrow parameter types
// (ld.param.v4.u8), restrict/aligned pointers.
#include <cstdint>

struct Params {
    double scale;
    float *dst;
    int n;
    int stride;
    long long bias;
};

struct alignas(16) Vec4 { float x, y, z, w; };

struct Bytes { unsigned char a, b, c, d; };

struct Pair { int lo; int hi; };

__device__ __noinline__ Pair split64(long long v)
{
    Pair p;
    p.lo = (int)(v & 0xffffffff);
    p.hi = (int)(v >> 32);
    return p;
}

__device__ __noinline__ Vec4 madd4(Vec4 a, Vec4 b, float s)
{
    Vec4 r = { a.x + s * b.x, a.y + s * b.y, a.z + s * b.z, a.w + s * b.w };
    return r;
}

__device__ __noinline__ double weigh(Params p, int i)
{
    return p.scale * (double)(i * p.stride) + (double)p.bias;
}

__global__ void struct_kernel(Params p, Vec4 v, Bytes bytes, short s16, signed char s8)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    Pair pr = split64(p.bias + i);
    Vec4 w = madd4(v, v, (float)bytes.a + bytes.b * 2 + bytes.c * 3 + bytes.d);
    p.dst[i] = (float)weigh(p, i) + w.x + w.y + w.z + w.w + pr.lo + pr.hi + s16 + s8;
}

__global__ void restrict_kernel(const float4 *__restrict__ in, float4 *__restrict__ out,
                                const int64_t *__restrict__ idx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 a = __ldg(&in[idx[i]]);
    int wide = (int)idx[i];
    out[i] = make_float4(a.x * wide, a.y, a.z, a.w);
}

__global__ void sign_extend_kernel(const int *in, long long *out, const short *in16, unsigned *out32)
{
    int i = threadIdx.x;
    long long v = in[i];           // ld.global.s32 into a 64-bit register
    out[i] = v * 7 - (long long)in16[i];
    out32[i] = (unsigned)(v >> 3);
}

__device__ __noinline__ uchar4 swizzle4(uchar4 c)
{
    return make_uchar4(c.w, c.z + 1, c.y, c.x);
}

__global__ void byte_vector_kernel(const uchar4 *in, uchar4 *out, uchar4 bias, char4 sbias)
{
    uchar4 v = swizzle4(in[threadIdx.x]);
    out[threadIdx.x] = make_uchar4(v.x + bias.x, v.y + bias.y, v.z + sbias.z, v.w + sbias.w);
}
