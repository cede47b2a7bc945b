extern "C" __global__ void mc_invalid_address(unsigned long long addr, int* out) {
    int* p = (int*)addr;
    out[0] = 1;
    *p = 2; // <- finding [W]
}
