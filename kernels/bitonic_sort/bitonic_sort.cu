// Sorts 1024 u32 keys ascending in one block of 1024 threads with a bitonic
// network in shared memory.
#define N 1024
extern "C" __global__ void bitonic_sort(unsigned* data) {
    __shared__ unsigned s[N];
    unsigned t = threadIdx.x;
    s[t] = data[t];
    __syncthreads();
    for (unsigned k = 2; k <= N; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned p = t ^ j;
            if (p > t) {
                unsigned a = s[t], b = s[p];
                bool up = (t & k) == 0;
                if ((a > b) == up) {
                    s[t] = b;
                    s[p] = a;
                }
            }
            __syncthreads();
        }
    }
    data[t] = s[t];
}
