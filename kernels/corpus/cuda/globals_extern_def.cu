// corpus: rdc
// Theme: the definitions that globals_memory.cu refers to, plus .weak
// functions/globals (template instantiations under -rdc) and a device
// function called across translation units (forward declaration).
__device__ int g_external[1024];

template <typename T>
__device__ __noinline__ T tmax(T a, T b) { return a > b ? a : b; }

template <typename T>
__device__ T g_template_var = T(42);

extern __device__ int cross_tu_helper(int);   // .extern .func

__global__ void weak_kernel(int *out, float *outf)
{
    int t = threadIdx.x;
    out[t] = tmax<int>(t, g_external[t]) + g_template_var<int> + cross_tu_helper(t);
    outf[t] = tmax<float>((float)t, 3.5f) + g_template_var<float>;
}

__device__ int cross_tu_helper(int x) { return x * 5 + 1; }
