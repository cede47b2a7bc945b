// Shared WAR: thread t+32 reads s[t] while thread t overwrites it.
extern "C" __global__ void sh_war_racy(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    int v = s[(t + 32) % 64]; // <- finding [R]
    s[t] = v * 2; // <- finding [W]
    __syncthreads();
    out[t] = s[t];
}
