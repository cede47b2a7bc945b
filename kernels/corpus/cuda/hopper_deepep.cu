// corpus: sm90a-only
#include <stdint.h>
__device__ __forceinline__ int4 ld_nc_na(const int4* p) {
  int4 r;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  return r;
}
__device__ __forceinline__ void st_na(int4* p, int4 v) {
  asm volatile("st.global.L1::no_allocate.v4.s32 [%0], {%1, %2, %3, %4};"
               :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
}
__device__ __forceinline__ int ld_acq_sys(const int* p) { int r; asm volatile("ld.acquire.sys.global.s32 %0, [%1];" : "=r"(r) : "l"(p)); return r; }
__device__ __forceinline__ int ld_acq_gpu(const int* p) { int r; asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(r) : "l"(p)); return r; }
__device__ __forceinline__ uint64_t ld_acq_sys64(const uint64_t* p) { uint64_t r; asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(r) : "l"(p)); return r; }
__device__ __forceinline__ int ld_relaxed_sys(const int* p) { int r; asm volatile("ld.relaxed.sys.global.L1::no_allocate.b32 %0, [%1];" : "=r"(r) : "l"(p)); return r; }
__device__ __forceinline__ void st_rel_sys(int* p, int v) { asm volatile("st.release.sys.global.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ void st_rel_cta(int* p, int v) { asm volatile("st.release.cta.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ void red_rel_gpu(int* p, int v) { asm volatile("red.release.gpu.global.add.s32 [%0], %1;" :: "l"(p), "r"(v) : "memory"); }
__device__ __forceinline__ int atom_cas(int* p, int c, int v) { int r; asm volatile("atom.cas.b32 %0, [%1], %2, %3;" : "=r"(r) : "l"(p), "r"(c), "r"(v)); return r; }
__device__ __forceinline__ int atom_cas_acq(int* p, int c, int v) { int r; asm volatile("atom.acquire.gpu.global.cas.b32 %0, [%1], %2, %3;" : "=r"(r) : "l"(p), "r"(c), "r"(v) : "memory"); return r; }
__device__ __forceinline__ int atom_add_rel_sys(int* p, int v) { int r; asm volatile("atom.add.release.sys.global.s32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(v) : "memory"); return r; }
__device__ __forceinline__ int atom_exch_acq_rel(int* p, int v) { int r; asm volatile("atom.exch.acq_rel.gpu.b32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(v) : "memory"); return r; }
__device__ __forceinline__ uint64_t globaltimer() { uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ __forceinline__ float multimem_sum(const float* mc) {
  float r; asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(r) : "l"(mc) : "memory"); return r;
}
__device__ __forceinline__ void multimem_st(float* mc, float v) {
  asm volatile("multimem.st.relaxed.sys.global.f32 [%0], %1;" :: "l"(mc), "f"(v) : "memory");
}
__device__ __forceinline__ void multimem_red(int* mc, int v) {
  asm volatile("multimem.red.release.sys.global.add.u32 [%0], %1;" :: "l"(mc), "r"(v) : "memory");
}
__device__ __forceinline__ void multimem_ld4(const void* mc, uint32_t (&r)[4]) {
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.acc::f32.v4.bf16x2 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "l"(mc) : "memory");
}
__device__ __forceinline__ uint32_t ld_dsmem(const void* local, uint32_t rank) {
  uint32_t addr = (uint32_t)__cvta_generic_to_shared(local), remote, v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
  return v;
}
__device__ __forceinline__ void* mapa_generic(void* p, uint32_t rank) {
  void* r; asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(p), "r"(rank)); return r;
}

__global__ void __launch_bounds__(256, 1) dispatch(const int4* __restrict__ x, int4** __restrict__ peers, int* __restrict__ flags,
                                                   int* counters, volatile int* vflag, const float* mc, float* mcout, int* mcint,
                                                   int hidden_int4, int num_tokens, int rank, int nranks, uint64_t timeout_ns) {
  __shared__ uint32_t sbuf[256];
  int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  sbuf[tid] = tid * rank;
  __syncthreads();
  int dst = warp % nranks;
  int4* out = peers[dst];
  for (int t = blockIdx.x; t < num_tokens; t += gridDim.x) {
    const int4* src = x + (size_t)t * hidden_int4;
    int4* d = out + ((size_t)rank * num_tokens + t) * hidden_int4;
    for (int i = lane; i < hidden_int4; i += 32) st_na(d + i, ld_nc_na(src + i));
    __syncwarp();
    if (lane == 0) {
      asm volatile("fence.acq_rel.sys;" ::: "memory");
      red_rel_gpu(&counters[dst], 1);
      st_rel_sys(&flags[dst * nranks + rank], t + 1);
    }
  }
  if (tid == 0) {
    uint64_t start = globaltimer();
    int ns = 8;
    while (ld_acq_sys(&flags[rank * nranks + (rank + 1) % nranks]) == 0 && ld_acq_gpu(&counters[rank]) >= 0) {
      asm volatile("nanosleep.u32 %0;" :: "r"(ns));
      ns = ns < 256 ? ns * 2 : ns;
      if (globaltimer() - start > timeout_ns) {
        printf("timeout rank %d\n", rank);
        asm volatile("trap;");
      }
    }
    while (atom_cas(&counters[nranks], 0, 1) != 0) { asm volatile("nanosleep.u32 100;"); }
    atom_cas_acq(&counters[nranks + 1], 0, 1);
    atom_add_rel_sys(&counters[nranks + 2], 1);
    atom_exch_acq_rel(&counters[nranks + 3], 7);
    ld_acq_sys64((const uint64_t*)&counters[nranks + 4]);
    counters[0] += ld_relaxed_sys(&flags[0]);
    st_rel_cta(&counters[1], 0);
    asm volatile("st.volatile.global.u32 [%0], %1;" :: "l"(vflag), "r"(1) : "memory");
    int vv; asm volatile("ld.volatile.global.s32 %0, [%1];" : "=r"(vv) : "l"(vflag) : "memory");
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(vv) : "r"((uint32_t)__cvta_generic_to_shared(&sbuf[3])) : "memory");
    vflag[1] = vv;
    asm volatile("membar.sys;" ::: "memory");
    asm volatile("fence.sc.gpu;" ::: "memory");
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
  }
  if (rank < 0) {
    float s = multimem_sum(mc + tid);
    multimem_st(mcout + tid, s);
    multimem_red(mcint + tid, 1);
    uint32_t r4[4]; multimem_ld4(mc + 4 * tid, r4);
    mcout[tid] += __uint_as_float(r4[0] ^ r4[3]);
    uint32_t rv = ld_dsmem(&sbuf[tid], (rank + 1) & 1);
    mcout[tid] += rv;
    int* gp = (int*)mapa_generic(&sbuf[0], 1);
    mcout[tid] += *gp;
  }
}
