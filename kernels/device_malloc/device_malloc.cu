// Device-side malloc/free: a block per thread, a block per CTA shared
// through shared memory, a request larger than the heap (NULL), and blocks
// that live from one launch to the next (as in CUDA) until a kernel frees
// them.

// out[i] = sum over j < len of (3i + j)(j + 1), computed in a malloc'd array of len = i % 7 + 1.
extern "C" __global__ void per_thread(unsigned* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned len = i % 7 + 1;
    unsigned* p = static_cast<unsigned*>(malloc(len * sizeof(unsigned)));
    if (!p) {
        out[i] = 0xFFFFFFFFu;
        return;
    }
    for (unsigned j = 0; j < len; ++j) p[j] = 3 * i + j;
    unsigned s = 0;
    for (unsigned j = 0; j < len; ++j) s += p[j] * (j + 1);
    free(p);
    out[i] = s;
}

// Thread 0 mallocs one array for its block; every thread writes its slot
// and reads its mirror. too_big[b] = 1 when a 16 MiB request (more than the
// default 8 MiB heap) returns NULL.
extern "C" __global__ void per_block(unsigned* out, unsigned* too_big) {
    __shared__ unsigned* arr;
    if (threadIdx.x == 0) {
        arr = static_cast<unsigned*>(malloc(blockDim.x * sizeof(unsigned)));
        too_big[blockIdx.x] = malloc(size_t(16) << 20) == nullptr;
    }
    __syncthreads();
    arr[threadIdx.x] = threadIdx.x * threadIdx.x + blockIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = arr[blockDim.x - 1 - threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) free(arr);
}

// keep mallocs four values per block and leaves the pointer in ptrs; a
// later launch of reuse reads them, frees the block and clears the pointer.
extern "C" __global__ void keep(unsigned long long* ptrs) {
    if (threadIdx.x != 0) return;
    unsigned* p = static_cast<unsigned*>(malloc(4 * sizeof(unsigned)));
    for (unsigned j = 0; j < 4; ++j) p[j] = blockIdx.x * 100 + j;
    ptrs[blockIdx.x] = reinterpret_cast<unsigned long long>(p);
}

extern "C" __global__ void reuse(unsigned long long* ptrs, unsigned* kept) {
    unsigned* p = reinterpret_cast<unsigned*>(ptrs[blockIdx.x]);
    if (threadIdx.x < 4) kept[blockIdx.x * 4 + threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        free(p);
        ptrs[blockIdx.x] = 0;
    }
}
