extern "C" __global__ void mc_double_free(int* out, int again) {
    int* p = (int*)malloc(16);
    p[0] = 5;
    out[0] = p[0];
    free(p);
    if (again) free(p); // <- finding [F]
}
