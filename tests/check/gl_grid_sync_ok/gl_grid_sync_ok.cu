#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void gl_grid_sync_ok(const int* in, int* buf, int* out) {
    int b = blockIdx.x, t = threadIdx.x;
    buf[b * 32 + t] = in[b * 32 + t] * 2;
    cg::this_grid().sync();
    out[b * 32 + t] = buf[(1 - b) * 32 + t];
}
