// CTA 0 (thread 0) spins on a flag while CTA 1 (thread 0) computes for
// millions of instructions before it sets the flag: a long wait, but the
// computing warp's state never repeats, so it is not a hang.
extern "C" __global__ void sy_spin_flag_long_ok(unsigned* flag, unsigned* out, unsigned n) {
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 1) {
        unsigned acc = 1u;
        for (unsigned i = 0; i < n; ++i) acc = acc * 1664525u + 1013904223u;
        out[1] = acc;
        __threadfence();
        *(volatile unsigned*)flag = 1u;
    } else {
        while (*(volatile unsigned*)flag == 0u) {
        }
        __threadfence();
        out[0] = out[1];
    }
}
