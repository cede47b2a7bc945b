extern "C" __global__ void ic_partial_bytes(int* buf, int* out) {
    if (threadIdx.x == 0) ((unsigned char*)buf)[0] = 1;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = buf[0]; // <- finding [R]
}
