// 64-bit global atomics from every thread, all with order-independent totals:
//   acc[0] += v (atomicAdd; values above 2^32 so carries cross the halves)
//   acc[1]  = max v (atomicMax)     acc[2] = min v (atomicMin)
//   acc[3] += v via an atomicCAS retry loop
//   acc[4] |= v, acc[5] &= ~bit, acc[6] ^= v (atomicOr/And/Xor)
//   per-bucket sums: bucket[v % 16] += 1 via atomicAdd, returning old values
//   that are summed into acc[7] only as a count of "old < new" (always true).
extern "C" __global__ void atomics64(const unsigned long long* __restrict__ in, unsigned n,
                                     unsigned long long* acc, unsigned long long* bucket) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long v = in[i];
    atomicAdd(&acc[0], v);
    atomicMax(&acc[1], v);
    atomicMin(&acc[2], v);
    // The first guess is read relaxed (volatile): a plain load would race
    // with the other threads' atomicCAS (racecheck reports it).
    unsigned long long old = *(volatile unsigned long long*)&acc[3], assumed;
    do {
        assumed = old;
        old = atomicCAS(&acc[3], assumed, assumed + v);
    } while (old != assumed);
    atomicOr(&acc[4], v);
    atomicAnd(&acc[5], ~(1ull << (v & 63)));
    atomicXor(&acc[6], v);
    unsigned long long prev = atomicAdd(&bucket[v & 15], 1ull);
    if (prev < prev + 1)
        atomicAdd(&acc[7], 1ull);
}
