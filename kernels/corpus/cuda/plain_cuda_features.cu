// corpus: rdc
// corpus: no-G
#include <cstdio>
#include <cassert>
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

__managed__ int g_managed_counter;
__device__ float g_table[4][8] = {{1, 2}, {3}, {}, {4, 5, 6, 7, 8, 9, 10, 11}};
__constant__ double c_coeffs[5] = {1.0, 0.5, 0.25, 0.125, 1e-300};

__global__ void reduce_sum(const float* in, float* out, int n) {
  extern __shared__ float sdata[];
  float s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += in[i];
  sdata[threadIdx.x] = s;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 32; st >>= 1) { if (threadIdx.x < st) sdata[threadIdx.x] += sdata[threadIdx.x + st]; __syncthreads(); }
  if (threadIdx.x < 32) {
    float v = sdata[threadIdx.x] + sdata[threadIdx.x + 32];
    for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if (threadIdx.x == 0) atomicAdd(out, v);
  }
}

__global__ void coop(float* data, int n, unsigned long long* total) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<16>(block);
  auto w = cg::tiled_partition<32>(block);
  float v = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) v += data[i];
  float r = cg::reduce(tile, v, cg::plus<float>());
  int mx = cg::reduce(tile, (int)v, cg::greater<int>());
  unsigned bits = cg::reduce(tile, (unsigned)v, cg::bit_xor<unsigned>());
  grid.sync();
  if (tile.thread_rank() == 0) atomicAdd(total, (unsigned long long)(r + mx + bits));
  w.sync();
  int any = w.any(v > 0) + w.all(v > 1) + __popc(w.ballot(v > 2));
  auto ct = cg::coalesced_threads();
  if (v > 3) { auto c2 = cg::coalesced_threads(); any += c2.size() + c2.shfl(any, 0); }
  grid.sync();
  for (int i = grid.thread_rank(); i < n; i += grid.size()) data[i] = data[i] * any + ct.thread_rank() + w.match_any(any);
}

__global__ void atomics(int* p, float* f, double* d, __half2* h, __nv_bfloat162* b, unsigned long long* u) {
  cuda::atomic_ref<int, cuda::thread_scope_device> a(p[0]);
  a.fetch_add(1, cuda::memory_order_relaxed);
  a.store(3, cuda::memory_order_release);
  int exp = 3;
  a.compare_exchange_strong(exp, 4, cuda::memory_order_acq_rel);
  cuda::atomic_ref<int, cuda::thread_scope_system> s(p[1]);
  s.fetch_max(threadIdx.x, cuda::memory_order_seq_cst);
  s.fetch_or(1);
  cuda::atomic_ref<int, cuda::thread_scope_block> bl(p[2]);
  bl.exchange(7, cuda::memory_order_acquire);
  while (bl.load(cuda::memory_order_acquire) == 0) {}
  cuda::atomic_ref<float, cuda::thread_scope_device> af(f[0]);
  af.fetch_add(1.5f);
  atomicAdd(d, 2.0);
  atomicAdd(h, __floats2half2_rn(1, 2));
  atomicAdd(b, __floats2bfloat162_rn(1, 2));
  atomicAdd(reinterpret_cast<__half*>(h + 1), __float2half(1.f));
  atomicMax(u, 5ull); atomicMin(p + 3, -5); atomicInc((unsigned*)p + 4, 10); atomicDec((unsigned*)p + 5, 10);
  atomicCAS(u + 1, 0ull, 1ull); atomicExch(f + 1, 2.f); atomicAnd(p + 6, 3); atomicXor(p + 7, 3);
  atomicAdd_block(p + 8, 1); atomicAdd_system(p + 9, 1);
  __threadfence(); __threadfence_block(); __threadfence_system();
}

__global__ void pipeline_kernel(const float* g, float* out, int n) {
  __shared__ float buf[2][256];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, buf[0], g, sizeof(float) * 256, bar);
  bar.arrive_and_wait();
  out[threadIdx.x] = buf[0][threadIdx.x];
  constexpr int S = 2;
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, S> ps;
  auto pipe = cuda::make_pipeline(block, &ps);
  for (int t = 0; t < n; ++t) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf[t % 2], g + t * 256, cuda::aligned_size_t<16>(sizeof(float) * 256), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    out[t * 256 + threadIdx.x] += buf[t % 2][threadIdx.x];
    pipe.consumer_release();
  }
  cg::memcpy_async(block, buf[1], g, sizeof(float) * 256);
  cg::wait(block);
}

__global__ void mixed_precision(const __nv_bfloat162* a, const __half2* b, const __nv_fp8_e4m3* c, const __nv_fp8x2_e5m2* c2,
                                float* out, __nv_fp8x4_e4m3* q) {
  int i = threadIdx.x;
  __nv_bfloat162 x = a[i], y = a[i + 1];
  __nv_bfloat162 z = __hfma2(x, y, __hmul2(x, x));
  z = __hmax2(z, __habs2(y)); z = __hneg2(z); z = h2exp(z); z = h2sqrt(__hadd2(z, x));
  __half2 hx = b[i], hy = b[i + 1];
  __half2 hz = __hfma2_sat(hx, hy, hx); hz = h2rcp(hz); hz = h2log2(hz); hz = __hmin2(hz, hy);
  bool gt = __hbgt2(hx, hy);
  float f = float(c[i]) + float(__nv_fp8_e4m3(__low2float(z)));
  float2 ff = float2(c2[i]);
  __half hh = __float2half_rz(f);
  out[i] = __low2float(z) + __high2float(z) + __low2float(hz) + gt + f + ff.x + ff.y + __half2float(hh) + __bfloat162float(__float2bfloat16_rz(f));
  q[i] = __nv_fp8x4_e4m3(make_float4(f, ff.x, ff.y, out[i]));
  out[i + 1] = __half2float(__hdiv(hh, __float2half(3.f))) + (float)__double2half(c_coeffs[i & 3]) + __int2float_rz(i) + __uint2double_rn(i);
  out[i + 2] = __fdividef(out[i], 3.f) + __saturatef(out[i]) + rintf(out[i]) + erfcf(out[i]) + lgammaf(out[i]) + powf(out[i], 2.3f); sincospif(out[i], &out[i + 3], &out[i+4]);
  out[i + 5] = (float)(sqrt((double)out[i]) + cbrt((double)out[i]) + fma((double)out[i], 2.0, 1.0) + tgamma((double)out[i]));
}

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ int acker(int m, int n) { if (m == 0) return n + 1; if (n == 0) return acker(m - 1, 1); return acker(m - 1, acker(m, n - 1)); }

struct Shape { __device__ virtual float area() const = 0; __device__ virtual ~Shape() {} int tag; };
struct Circle : Shape { float r; __device__ Circle(float r_) : r(r_) {} __device__ float area() const override { return 3.14159f * r * r; } };
struct Rect : Shape { float w, h; __device__ Rect(float a, float b) : w(a), h(b) {} __device__ float area() const override { return w * h; } };
struct Big { double d[24]; int x[9]; char c[13]; };
__device__ __noinline__ Big make_big(int s) { Big b; for (int i = 0; i < 24; ++i) b.d[i] = s * i; for (int i = 0; i < 9; ++i) b.x[i] = s - i; for (int i = 0; i < 13; ++i) b.c[i] = 'a' + i; return b; }
__device__ __noinline__ double use_big(Big b, Big c) { double s = 0; for (int i = 0; i < 24; ++i) s += b.d[i] * c.d[23 - i]; return s + b.x[3] + c.c[5]; }
typedef float (*unop)(float);
__device__ float f_sq(float x) { return x * x; }
__device__ float f_neg(float x) { return -x; }
__device__ float f_sin(float x) { return sinf(x); }
__device__ unop g_ops[3] = {f_sq, f_neg, f_sin};

__device__ __noinline__ int classify(int k) {
  switch (k) {
    case 0: return 11; case 1: return 27; case 2: return 3; case 3: return 99; case 4: return 5;
    case 5: return 16; case 6: return 71; case 7: return 8; case 8: return 12; case 9: return 41; default: return -1;
  }
}

__global__ void misc(float* out, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Shape* s = (i & 1) ? (Shape*)new Circle(i) : (Shape*)new Rect(i, 2);
  float a = s->area();
  delete s;
  int* m = (int*)malloc(n * sizeof(int));
  if (m) { for (int j = 0; j < n; ++j) m[j] = j; a += m[n - 1]; free(m); }
  assert(i < 1 << 30);
  printf("thread %d area %f fib %d ack %d cls %d %s %c %lld %p\n", i, a, fib(k), acker(2, k), classify(k + i), "str", 'c', (long long)i, out);
  a += g_ops[i % 3](a);
  Big b = make_big(i), c = make_big(k);
  a += use_big(b, c);
  a += g_table[k & 3][i & 7];
  float local[37];
  for (int j = 0; j < 37; ++j) local[j] = j * a;
  a += local[k % 37];
  switch (k) {
    case 10: a += 1; break; case 20: a *= 2; break; case 30: a -= 3; break; case 40: a /= 4; break;
    case 50: a = sqrtf(a); break; case 60: a = expf(a); break; default: a = 0;
  }
  g_managed_counter += 1;
  out[i] = a;
  if (a < -1e30f) __trap();
  if (a > 1e30f) __brkpt();
  __nanosleep(10);
  unsigned long long t = clock64(); out[i] += (float)(t & 1) + clock() * 0;
  int* dyn = (int*)alloca(k * sizeof(int)); dyn[0] = 1; out[i] += dyn[k - 1];
}

__global__ void tex_surf(cudaTextureObject_t tex, cudaTextureObject_t tex3, cudaSurfaceObject_t surf, float* out, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  float v = tex2D<float>(tex, x + 0.5f, y + 0.5f);
  float4 v4 = tex2DLod<float4>(tex, x, y, 1.0f);
  float4 g = tex2Dgather<float4>(tex, x, y, 1);
  float v3 = tex3D<float>(tex3, x, y, 0.5f);
  float vl = tex1Dfetch<float>(tex3, x);
  float sv; surf2Dread(&sv, surf, x * 4, y);
  surf2Dwrite(v + v4.x + g.y + v3 + vl + sv, surf, x * 4, y);
  uchar4 cv; surf2Dread(&cv, surf, x * 4, y, cudaBoundaryModeClamp); surf2Dwrite(cv, surf, x * 4, y, cudaBoundaryModeZero);
  out[y * w + x] = v + cv.x;
}

template <typename T, int N> __global__ void tmpl(T* p) { T acc = T(0); _Pragma("unroll") for (int i = 0; i < N; ++i) acc += p[i * blockDim.x + threadIdx.x] * T(i); p[threadIdx.x] = acc; }
template __global__ void tmpl<float, 1>(float*); template __global__ void tmpl<float, 3>(float*);
template __global__ void tmpl<double, 5>(double*); template __global__ void tmpl<int, 7>(int*);
template __global__ void tmpl<unsigned char, 9>(unsigned char*); template __global__ void tmpl<short, 2>(short*);
template __global__ void tmpl<long long, 4>(long long*); template __global__ void tmpl<unsigned, 16>(unsigned*);
template __global__ void tmpl<__half, 4>(__half*); template __global__ void tmpl<__nv_bfloat16, 4>(__nv_bfloat16*);
template __global__ void tmpl<signed char, 6>(signed char*); template __global__ void tmpl<unsigned long long, 8>(unsigned long long*);

__global__ void child(int* p) { p[threadIdx.x] = 1; }
__global__ void parent(int* p) { if (threadIdx.x == 0) child<<<1, 32>>>(p); }
