#include <cuda_bf16.h>
#include <stdint.h>
__device__ __forceinline__ uint32_t sm(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp16(void* s, const void* g) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" :: "r"(sm(s)), "l"(g));
}
__device__ __forceinline__ void cp8_zfill(void* s, const void* g, int n) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" :: "r"(sm(s)), "l"(g), "r"(n));
}
__device__ __forceinline__ void cp4_ignore(void* s, const void* g, bool pred) {
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %2, 0;\n"
               " cp.async.ca.shared::cta.global [%0], [%1], 4, p; }\n" :: "r"(sm(s)), "l"(g), "r"((int)pred));
}
__device__ __forceinline__ float ex2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ uint32_t pack_bf16(float a, float b) {
  uint32_t r; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(b), "f"(a)); return r;
}
__device__ __forceinline__ float warp_max_bfly(float v) {
  #pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    float t;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(t) : "f"(v), "r"(o));
    v = fmaxf(v, t);
  }
  return v;
}
template <int HD>
__global__ void __launch_bounds__(128) flash_decode(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                                                     const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o,
                                                     const int* __restrict__ seqlens, float sm_scale_log2, int kv_stride) {
  __shared__ __align__(128) __nv_bfloat16 sQ[16 * HD];
  __shared__ __align__(128) __nv_bfloat16 sK[2][64 * HD];
  __shared__ __align__(128) __nv_bfloat16 sV[2][64 * HD];
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  int b = blockIdx.y, h = blockIdx.x;
  int L = seqlens[b];
  const __nv_bfloat16* kb = k + (size_t)b * kv_stride + h * HD;
  const __nv_bfloat16* vb = v + (size_t)b * kv_stride + h * HD;
  for (int i = tid; i < 16 * HD / 8; i += 128) cp16(&sQ[i * 8], q + ((size_t)b * gridDim.x + h) * 16 * HD + i * 8);
  auto load_kv = [&](int st, int n0) {
    for (int i = tid; i < 64 * HD / 8; i += 128) {
      int row = i / (HD / 8), col = (i % (HD / 8)) * 8;
      if (n0 + row < L) { cp16(&sK[st][row * HD + col], kb + (size_t)(n0 + row) * HD * 16 + col);
                          cp16(&sV[st][row * HD + col], vb + (size_t)(n0 + row) * HD * 16 + col); }
      else { cp8_zfill(&sK[st][row * HD + col], kb, 0); cp4_ignore(&sV[st][row*HD+col], vb, false); }
    }
    asm volatile("cp.async.commit_group;\n" ::);
  };
  load_kv(0, 0);
  float m_i[2] = {-INFINITY, -INFINITY}, l_i[2] = {0.f, 0.f};
  float acc[HD / 8][4];
  #pragma unroll
  for (int i = 0; i < HD / 8; ++i) for (int j = 0; j < 4; ++j) acc[i][j] = 0.f;
  int ntiles = (L + 63) / 64;
  for (int t = 0; t < ntiles; ++t) {
    if (t + 1 < ntiles) { load_kv((t + 1) & 1, (t + 1) * 64); asm volatile("cp.async.wait_group 1;\n" ::); }
    else asm volatile("cp.async.wait_all;\n" ::);
    __syncthreads();
    int st = t & 1;
    // S = Q K^T for this warp's 16 keys
    float s[2][4] = {{0}};
    #pragma unroll
    for (int kk = 0; kk < HD / 16; ++kk) {
      uint32_t a0, a1, a2, a3, b0, b1, b2, b3;
      const __nv_bfloat16* qa = &sQ[(lane % 16) * HD + kk * 16 + (lane / 16) * 8];
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(sm(qa)));
      const __nv_bfloat16* kp = &sK[st][(warp * 16 + (lane % 16)) * HD + kk * 16 + (lane / 16) * 8];
      asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared::cta.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(b0), "=r"(b1), "=r"(b2), "=r"(b3) : "r"(sm(kp)));
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(s[0][0]), "+f"(s[0][1]), "+f"(s[0][2]), "+f"(s[0][3])
                   : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b2));
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(s[1][0]), "+f"(s[1][1]), "+f"(s[1][2]), "+f"(s[1][3])
                   : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b1), "r"(b3));
    }
    // online softmax
    float mx[2];
    #pragma unroll
    for (int r = 0; r < 2; ++r) {
      float m = fmaxf(fmaxf(s[0][2 * r], s[0][2 * r + 1]), fmaxf(s[1][2 * r], s[1][2 * r + 1]));
      m = warp_max_bfly(m);
      mx[r] = fmaxf(m_i[r], m);
      float corr = ex2((m_i[r] - mx[r]) * sm_scale_log2);
      l_i[r] *= corr;
      for (int i = 0; i < HD / 8; ++i) { acc[i][2 * r] *= corr; acc[i][2 * r + 1] *= corr; }
      m_i[r] = mx[r];
      for (int n = 0; n < 2; ++n) for (int c = 0; c < 2; ++c) {
        float p = ex2(s[n][2 * r + c] * sm_scale_log2 - mx[r] * sm_scale_log2);
        s[n][2 * r + c] = p; l_i[r] += p;
      }
    }
    uint32_t pa[4] = {pack_bf16(s[0][0], s[0][1]), pack_bf16(s[0][2], s[0][3]), pack_bf16(s[1][0], s[1][1]), pack_bf16(s[1][2], s[1][3])};
    #pragma unroll
    for (int d = 0; d < HD / 8; d += 2) {
      uint32_t v0, v1, v2, v3;
      const __nv_bfloat16* vp = &sV[st][(warp * 16 + (lane % 16)) * HD + d * 8 + (lane / 16) * 8];
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(sm(vp)));
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(acc[d][0]), "+f"(acc[d][1]), "+f"(acc[d][2]), "+f"(acc[d][3])
                   : "r"(pa[0]), "r"(pa[1]), "r"(pa[2]), "r"(pa[3]), "r"(v0), "r"(v1));
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(acc[d + 1][0]), "+f"(acc[d + 1][1]), "+f"(acc[d + 1][2]), "+f"(acc[d + 1][3])
                   : "r"(pa[0]), "r"(pa[1]), "r"(pa[2]), "r"(pa[3]), "r"(v2), "r"(v3));
    }
    uint32_t x1, x2;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(x1) : "r"(sm(&sV[st][0])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(x2), "=r"(x1) : "r"(sm(&sK[st][0])));
    acc[0][0] += __uint_as_float(x1 ^ x2);
    __syncthreads();
  }
  for (int r = 0; r < 2; ++r) {
    float l = l_i[r];
    for (int o2 = 1; o2 < 4; o2 <<= 1) l += __shfl_xor_sync(0xffffffff, l, o2);
    float inv; asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(inv) : "f"(l));
    for (int i = 0; i < HD / 8; ++i) {
      uint32_t pk = pack_bf16(acc[i][2 * r] * inv, acc[i][2 * r + 1] * inv);
      *reinterpret_cast<uint32_t*>(o + ((size_t)b * gridDim.x + h) * 16 * HD + (lane / 4 + 8 * r) * HD + i * 8 + (lane % 4) * 2) = pk;
    }
  }
}
template __global__ void flash_decode<64>(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, const int*, float, int);
