extern "C" __global__ void ic_local(const int* in, int* out, int n, int k) {
    int a[16];
    for (int i = 0; i < n; ++i) a[i] = in[i];
    out[threadIdx.x] = a[(k + threadIdx.x) % 16]; // <- finding [R]
}
