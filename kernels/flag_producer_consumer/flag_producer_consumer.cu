// Two CTAs that communicate through global memory: block 0 (producer) writes
// data, issues __threadfence(), and then thread 0 sets a volatile flag; block 1
// (consumer) has thread 0 spin on the volatile flag, then the block reads the
// data (after a fence) and writes out[i] = 3 * data[i] + 1. Block 1 is the one
// that waits, so a simulator that runs block 1 to completion before starting
// block 0 never terminates.
extern "C" __global__ void flag_producer_consumer(unsigned* data, volatile unsigned* flag, unsigned* out, unsigned n) {
    if (blockIdx.x == 0) {
        for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
            data[i] = i * i + 7u;
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0)
            *flag = 1u;
    } else {
        if (threadIdx.x == 0)
            while (*flag == 0u) {
            }
        __syncthreads();
        __threadfence();
        for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
            out[i] = 3u * ((volatile unsigned*)data)[i] + 1u;
    }
}
