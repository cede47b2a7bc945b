extern "C" __global__ void at_global_ok(int* ctr) {
    atomicAdd(&ctr[0], 1);
    atomicMax(&ctr[1], (int)(blockIdx.x * blockDim.x + threadIdx.x));
    atomicCAS(&ctr[2], 0, 7);
}
