extern "C" __global__ void mc_malloc_null(int* out) {
    int* p = (int*)malloc(16u << 20);  // <- finding
    out[0] = p != nullptr;
    p[0] = 1; // <- finding [W]
}
