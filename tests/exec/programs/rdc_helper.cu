// The second translation unit of rdc_main.cu.
__device__ int offset = 5;
__device__ int twice(int x) { return 2 * x; }
