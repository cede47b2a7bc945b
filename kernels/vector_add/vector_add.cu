// c[i] = a[i] + b[i] over unsigned 32-bit integers (wrapping), grid-stride loop.
extern "C" __global__ void vector_add(unsigned n, const unsigned* __restrict__ a,
                                      const unsigned* __restrict__ b, unsigned* __restrict__ c) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}
