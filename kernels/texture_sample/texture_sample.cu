// Texture and surface objects: a 2-D f32 image sampled through tex2D<float>
// (clamped point sampling at texel centres, then bilinear filtering at
// offsets that exercise the 8-bit fractional weights), an 8-bit image read
// as normalized floats, and the results written through surf2Dwrite into a
// surface (x is a byte offset there) as well as a plain buffer.
#include <cuda_runtime.h>

extern "C" __global__ void texture_sample(cudaTextureObject_t point_tex, cudaTextureObject_t linear_tex,
                                          cudaTextureObject_t unorm_tex, cudaSurfaceObject_t out_surf,
                                          float* out_linear, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    // Texel centres, shifted one texel left and up so that row and column 0
    // read outside the image (clamped to the edge).
    float p = tex2D<float>(point_tex, x - 0.5f, y - 0.5f);
    // A fraction of 1/7 and 3/11 of a texel: the weights are quantised.
    float l = tex2D<float>(linear_tex, x + 1.0f / 7.0f, y + 3.0f / 11.0f);
    float u = tex2D<float>(unorm_tex, x + 0.5f, y + 0.5f);
    surf2Dwrite(p + u, out_surf, x * (int)sizeof(float), y);
    out_linear[y * width + x] = l;
}

// The other forms nvcc emits for texture and surface objects: tex1Dfetch
// (integer coordinates, border addressing for reads past the end, as a
// linear-memory texture gives zero there), tex2DLayered (a layer past the
// last one reads the last), tex3D, a uchar4 texture read as normalized
// float4, and surf2Dread with cudaBoundaryModeClamp. Eight floats per thread.
extern "C" __global__ void texture_forms(cudaTextureObject_t ints, cudaTextureObject_t layered, cudaTextureObject_t volume,
                                         cudaTextureObject_t rgba, cudaSurfaceObject_t grid, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a = tex1Dfetch<int>(ints, i - 3);
    float b = tex2DLayered<float>(layered, i % 5 + 0.5f, i / 5 % 3 + 0.5f, i % 4);
    float c = tex3D<float>(volume, i % 4 + 0.5f, i / 4 % 4 + 0.5f, i / 16 % 4 + 0.5f);
    float4 d = tex2D<float4>(rgba, i % 8 + 0.5f, i / 8 % 2 + 0.5f);
    int e = surf2Dread<int>(grid, (i - 8) * 4, i % 3, cudaBoundaryModeClamp);
    float* o = out + 8 * i;
    o[0] = (float)a;
    o[1] = b;
    o[2] = c;
    o[3] = d.x;
    o[4] = d.y;
    o[5] = d.z;
    o[6] = d.w;
    o[7] = (float)e;
}
