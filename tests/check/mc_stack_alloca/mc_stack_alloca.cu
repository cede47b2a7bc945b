extern "C" __global__ void mc_stack_alloca(const int* in, int* out, int n) {
    int* buf = (int*)alloca(n * sizeof(int)); // <- finding [A]
    for (int i = 0; i < n; ++i) buf[i] = in[i % 32];
    out[threadIdx.x] = buf[n - 1];
}
