// Theme: warp intrinsics: shfl (predicate output), vote, match, redux,
// activemask, lanemask registers, __nanosleep, clock/globaltimer reads.
#include <cstdint>

__global__ void shfl_kernel(const float *in, float *out, const double *ind, double *outd)
{
    float v = in[threadIdx.x];
    unsigned m = __activemask();
    v += __shfl_sync(m, v, 0);
    v += __shfl_up_sync(0xffffffff, v, 1);
    v += __shfl_down_sync(0xffffffff, v, 2, 16);
    v += __shfl_xor_sync(0xffffffff, v, 4);
    double d = ind[threadIdx.x];
    d += __shfl_xor_sync(0xffffffff, d, 1);
    out[threadIdx.x] = v;
    outd[threadIdx.x] = d;
}

__global__ void vote_match_kernel(const int *in, unsigned *out, const long long *in64)
{
    int v = in[threadIdx.x];
    unsigned ballot = __ballot_sync(0xffffffff, v > 0);
    int all = __all_sync(0xffffffff, v > 0);
    int any = __any_sync(0xffffffff, v < 0);
    int uni = __uni_sync(0xffffffff, v);
    unsigned ma = __match_any_sync(0xffffffff, v);
    int pred;
    unsigned mall = __match_all_sync(0xffffffff, in64[threadIdx.x], &pred);
    unsigned ma64 = __match_any_sync(0xffffffff, in64[threadIdx.x]);
    out[threadIdx.x] = ballot + all + any + uni + ma + mall + pred + ma64 + __popc(ballot) + __clz(ballot) + __ffs(v) + __brev(v);
}

__global__ void redux_kernel(const unsigned *in, unsigned *out, const int *ins)
{
    unsigned v = in[threadIdx.x];
    int s = ins[threadIdx.x];
    out[threadIdx.x] = __reduce_add_sync(0xffffffff, v) + __reduce_min_sync(0xffffffff, v)
                     + __reduce_max_sync(0xffffffff, v) + __reduce_and_sync(0xffffffff, v)
                     + __reduce_or_sync(0xffffffff, v) + __reduce_xor_sync(0xffffffff, v)
                     + (unsigned)__reduce_min_sync(0xffffffff, s) + (unsigned)__reduce_max_sync(0xffffffff, s);
    __syncwarp();
    __syncwarp(0x0000ffff);
}

__global__ void timers_kernel(unsigned long long *out)
{
    unsigned long long t0 = clock64();
    unsigned long long g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    __nanosleep(100);
    unsigned lanemask_lt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lanemask_lt));
    unsigned smid, warpid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
    out[threadIdx.x] = clock64() - t0 + g0 + lanemask_lt + smid + warpid + clock();
    __prof_trigger(3);
}
