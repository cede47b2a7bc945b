// Kernels that launch kernels (CUDA dynamic parallelism), for
// tests/sim/device_runtime_test.cpp. Regenerate the PTX with
//   nvcc -arch=sm_90a -rdc=true -ptx dynamic_parallelism.cu -o dynamic_parallelism.sm_90a.ptx
__global__ void leaf(int* out, int slot, int value) { out[slot] = value; }

// Appends `value` to log[1...], log[0] counting.
__global__ void append(int* log, int value) {
    int i = atomicAdd(&log[0], 1);
    log[1 + i] = value;
}

// Each thread has a child write its slot; block 0's thread 0 also queues
// work whose order the test checks: a tail launch (after the rest), a
// launch into the default stream, one into a stream it creates, and a
// copy of a value the parent wrote before queueing it.
__global__ void parent(int* out, int* log) {
    const int t = threadIdx.x, b = blockIdx.x;
    leaf<<<1, 1>>>(out, b * blockDim.x + t, 1000 + b * 10 + t);
    if (t == 0 && b == 0) {
        append<<<1, 1, 0, cudaStreamTailLaunch>>>(log, 99);
        append<<<1, 1>>>(log, 1);
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        append<<<1, 1, 0, s>>>(log, 2);
        cudaStreamDestroy(s);
        out[200] = 7;
        cudaMemcpyAsync(out + 201, out + 200, sizeof(int), cudaMemcpyDeviceToDevice, 0);
        cudaMemsetAsync(out + 202, 0x01, sizeof(int), 0);
        out[203] = cudaGetLastError();
    }
}

// Every thread counts itself; thread 0 of each block launches two blocks
// more, `depth` levels down: 4 + 8 + 16 + 32 threads for depth 3.
__global__ void recurse(int* count, int depth) {
    atomicAdd(count, 1);
    if (depth > 0 && threadIdx.x == 0) recurse<<<2, 2>>>(count, depth - 1);
}

// A child that faults (an address nothing maps) ends its parent's launch.
__global__ void bad_child(int* p) { *p = 1; }
__global__ void faulting_parent() { bad_child<<<1, 1>>>(reinterpret_cast<int*>(16)); }
