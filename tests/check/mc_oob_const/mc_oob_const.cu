__constant__ int c_table[16];
__constant__ int c_after[16];
extern "C" __global__ void mc_oob_const(int* out, int n) {
    out[threadIdx.x] = c_table[(threadIdx.x + n) % 32] + c_after[threadIdx.x % 16]; // <- finding [R]
}
