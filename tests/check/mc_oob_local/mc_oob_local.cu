extern "C" __global__ void mc_oob_local(const int* in, int* out, int n) {
    int a[8];
    int t = threadIdx.x;
    for (int i = 0; i < 8; ++i) a[i] = in[(t + i) % 32];
    out[t] = a[(t + n) % 16]; // <- finding [R]
}
