// Several elementwise integer ops per element in a grid-stride loop over n
// elements; out holds 10 rows of n results (row r at out[r * n + i]).
extern "C" __global__ void elementwise_grid_stride(unsigned n, const unsigned* __restrict__ a,
                                                   const unsigned* __restrict__ b,
                                                   unsigned* __restrict__ out) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned x = a[i], y = b[i];
        int sx = (int)x, sy = (int)y;
        unsigned d = y | 1u;
        out[0 * n + i] = x + y;
        out[1 * n + i] = x - y;
        out[2 * n + i] = x * y;
        out[3 * n + i] = (x ^ y) | (x & ~y);
        out[4 * n + i] = x << (y & 31);
        out[5 * n + i] = (unsigned)(sx >> (y & 31));
        out[6 * n + i] = (unsigned)min(sx, sy) ^ max(x, y);
        out[7 * n + i] = __umulhi(x, y);
        out[8 * n + i] = x / d;
        out[9 * n + i] = (unsigned)(sx % (int)(d & 0xFFFF));
    }
}
