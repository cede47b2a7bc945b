// Stream compaction of the positive values of an s32 array, order kept:
// (1) each warp counts its positive elements per 32-element chunk with
//     __ballot_sync + __popc; (2) one block scans the chunk counts (thread 0,
//     sequentially) into offsets and the total; (3) each warp scatters its
//     positive elements to offset + __popc(ballot & lanes-below-me), and also
//     records the source index. A grid-stride loop over chunks in (1) and (3).
extern "C" __global__ void count_chunks(int n, const int* __restrict__ in, unsigned* __restrict__ counts) {
    int lane = threadIdx.x % 32;
    int nwarps = gridDim.x * blockDim.x / 32;
    int nchunks = (n + 31) / 32;
    for (int c = (blockIdx.x * blockDim.x + threadIdx.x) / 32; c < nchunks; c += nwarps) {
        int i = c * 32 + lane;
        bool keep = i < n && in[i] > 0;
        unsigned mask = __ballot_sync(0xFFFFFFFFu, keep);
        if (lane == 0) counts[c] = __popc(mask);
    }
}

extern "C" __global__ void scan_counts(int nchunks, const unsigned* __restrict__ counts,
                                       unsigned* __restrict__ offsets, unsigned* __restrict__ total) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        unsigned s = 0;
        for (int c = 0; c < nchunks; c++) {
            offsets[c] = s;
            s += counts[c];
        }
        *total = s;
    }
}

extern "C" __global__ void scatter(int n, const int* __restrict__ in, const unsigned* __restrict__ offsets,
                                   int* __restrict__ out, unsigned* __restrict__ out_index) {
    int lane = threadIdx.x % 32;
    int nwarps = gridDim.x * blockDim.x / 32;
    int nchunks = (n + 31) / 32;
    unsigned below = (1u << lane) - 1u;
    for (int c = (blockIdx.x * blockDim.x + threadIdx.x) / 32; c < nchunks; c += nwarps) {
        int i = c * 32 + lane;
        int v = i < n ? in[i] : 0;
        bool keep = v > 0;
        unsigned mask = __ballot_sync(0xFFFFFFFFu, keep);
        if (keep) {
            unsigned pos = offsets[c] + __popc(mask & below);
            out[pos] = v;
            out_index[pos] = (unsigned)i;
        }
    }
}
