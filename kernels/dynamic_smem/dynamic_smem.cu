// Dynamic shared memory (extern __shared__, size from the launch): the first
// blockDim.x words hold the block's u32 keys, the following blockDim.x words
// hold float copies. Each block reverses its keys through shared memory and
// writes key + the float neighbour (converted back) as a second output.
extern __shared__ unsigned char smem[];
extern "C" __global__ void dynamic_smem(const unsigned* __restrict__ in, unsigned* __restrict__ rev,
                                        float* __restrict__ sums) {
    unsigned* keys = reinterpret_cast<unsigned*>(smem);
    float* vals = reinterpret_cast<float*>(smem + blockDim.x * sizeof(unsigned));
    unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    keys[t] = in[g];
    vals[t] = (float)(in[g] & 0xFFFF);
    __syncthreads();
    rev[g] = keys[blockDim.x - 1 - t];
    sums[g] = vals[t] + vals[(t + 1) % blockDim.x];
}
