extern "C" __global__ void sd_divergent_paths(int* out) {
    __shared__ int s;
    int l = threadIdx.x;
    if (l < 16) {
        if (l == 0) s = 1; // <- finding [A]
    } else {
        if (l == 16) s = 2; // <- finding [B]
    }
    __syncwarp();
    out[l] = s; // <- finding [O]
}
