// atomicMin/atomicMax (signed and unsigned), atomicAnd/atomicOr/atomicXor on
// shared memory: every thread of a block hits 8 shared slots (colliding);
// thread 0 then folds the block's slots into global memory with the same
// atomics, so the final values are order-independent.
extern "C" __global__ void shared_atomics_minmax(unsigned n, const unsigned* __restrict__ in,
                                                 unsigned* __restrict__ gu, int* __restrict__ gs,
                                                 unsigned* __restrict__ per_block) {
    __shared__ unsigned su[6];
    __shared__ int ss[2];
    if (threadIdx.x == 0) {
        su[0] = 0xFFFFFFFFu;  // min
        su[1] = 0u;           // max
        su[2] = 0xFFFFFFFFu;  // and
        su[3] = 0u;           // or
        su[4] = 0u;           // xor
        su[5] = 0u;           // xor of (value & 0xFF) on 4 lanes' groups
        ss[0] = 0x7FFFFFFF;   // signed min
        ss[1] = (int)0x80000000;  // signed max
    }
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned v = in[i];
        atomicMin(&su[0], v);
        atomicMax(&su[1], v);
        atomicAnd(&su[2], v | 0x00010000u);
        atomicOr(&su[3], v & 0x0F0F0F0Fu);
        atomicXor(&su[4], v);
        atomicXor(&su[5], v & 0xFFu);
        atomicMin(&ss[0], (int)v);
        atomicMax(&ss[1], (int)v);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int k = 0; k < 6; k++) per_block[blockIdx.x * 8 + k] = su[k];
        per_block[blockIdx.x * 8 + 6] = (unsigned)ss[0];
        per_block[blockIdx.x * 8 + 7] = (unsigned)ss[1];
        atomicMin(&gu[0], su[0]);
        atomicMax(&gu[1], su[1]);
        atomicAnd(&gu[2], su[2]);
        atomicOr(&gu[3], su[3]);
        atomicXor(&gu[4], su[4]);
        atomicXor(&gu[5], su[5]);
        atomicMin(&gs[0], ss[0]);
        atomicMax(&gs[1], ss[1]);
    }
}
