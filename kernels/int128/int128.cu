// unsigned/signed __int128 arithmetic: full 64x64->128 products, 128-bit add with carry,
// shifts, 128/64 division and modulo, signed 128 multiply and comparison.
typedef unsigned __int128 u128;
typedef __int128 s128;
extern "C" __global__ void i128_ops(const unsigned long long* a, const unsigned long long* b,
                                    unsigned long long* out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = a[i], y = b[i];
  u128 p = (u128)x * y;
  u128 s = p + ((u128)y << 64) + x;          // wraps mod 2^128
  u128 q = s / (y | 1);                      // 128 / 64
  u128 r = s % (y | 1);
  u128 sh = s >> (x & 127);
  s128 sp = (s128)(long long)x * (s128)(long long)y;
  s128 sq = sp / -7;
  unsigned long long* o = out + (size_t)i * 12;
  o[0] = (unsigned long long)p; o[1] = (unsigned long long)(p >> 64);
  o[2] = (unsigned long long)s; o[3] = (unsigned long long)(s >> 64);
  o[4] = (unsigned long long)q; o[5] = (unsigned long long)(q >> 64);
  o[6] = (unsigned long long)r; o[7] = (unsigned long long)sh;
  o[8] = (unsigned long long)(sh >> 64);
  o[9] = (unsigned long long)sq; o[10] = (unsigned long long)(sq >> 64);
  o[11] = (sp < (s128)x * 3) | ((s > p) << 1) | ((u128)sp > s ? 4 : 0);
}
