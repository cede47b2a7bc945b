// CTA 0 (thread 0) publishes data[0] and sets a flag; CTA 1 (thread 0) spins
// on the flag and reads data[0].
extern "C" __global__ void fl_volatile_racy(int* data, unsigned* flag, int* out) {
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        data[0] = 42; // <- finding [W]
        *(volatile unsigned*)flag = 1u;
    } else {
        unsigned f = 0;
        while (f == 0) f = *(volatile unsigned*)flag;
        out[0] = data[0]; // <- finding [R]
    }
}
