// CUDA arrays, a texture object with point sampling and clamping, a 1-D
// layered array, and a surface object written by a kernel, each checked
// by the program against values it works out itself.
#include <cstdio>

#include "cuda_check.h"

constexpr int W = 8, H = 4, LAYERS = 3;

__global__ void sample(cudaTextureObject_t t, float* out) {
    int x = threadIdx.x, y = blockIdx.x;
    // One texel outside each edge: clamped to the edge.
    out[y * (W + 2) + x] = tex2D<float>(t, x - 1 + 0.5f, y + 0.5f);
}

__global__ void sample_layers(cudaTextureObject_t t, float* out) {
    int x = threadIdx.x, layer = blockIdx.x;
    out[layer * W + x] = tex1DLayered<float>(t, x + 0.5f, layer);
}

__global__ void write_surface(cudaSurfaceObject_t s) {
    int x = threadIdx.x, y = blockIdx.x;
    surf2Dwrite(x * 100 + y, s, x * sizeof(int), y);
}

int main() {
    int bad = 0;
    float image[H][W];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) image[y][x] = 10 * y + x;
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &f, W, H));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, image, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
    float* out;
    CHECK(cudaMalloc(&out, H * (W + 2) * sizeof(float)));
    sample<<<H, W + 2>>>(tex, out);
    float got[H][W + 2];
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W + 2; ++x) {
            int cx = x - 1 < 0 ? 0 : x - 1 >= W ? W - 1 : x - 1;
            bad += got[y][x] != image[y][cx];
        }
    std::printf("texture: %s\n", bad ? "wrong" : "ok");

    // A 1-D layered array: each layer its own row.
    float layers[LAYERS][W];
    for (int l = 0; l < LAYERS; ++l)
        for (int x = 0; x < W; ++x) layers[l][x] = 1000 * l + x;
    cudaArray_t layered;
    CHECK(cudaMalloc3DArray(&layered, &f, make_cudaExtent(W, 0, LAYERS), cudaArrayLayered));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(layers, W * sizeof(float), W, 1);
    p.dstArray = layered;
    p.extent = make_cudaExtent(W, 1, LAYERS);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    res.res.array.array = layered;
    cudaTextureObject_t tex_layers;
    CHECK(cudaCreateTextureObject(&tex_layers, &res, &td, nullptr));
    sample_layers<<<LAYERS, W>>>(tex_layers, out);
    float got_layers[LAYERS][W];
    CHECK(cudaMemcpy(got_layers, out, sizeof got_layers, cudaMemcpyDeviceToHost));
    int layer_bad = 0;
    for (int l = 0; l < LAYERS; ++l)
        for (int x = 0; x < W; ++x) layer_bad += got_layers[l][x] != layers[l][x];
    std::printf("layered: %s\n", layer_bad ? "wrong" : "ok");
    bad += layer_bad;

    // A surface written by a kernel, read back from the array.
    cudaChannelFormatDesc fi = cudaCreateChannelDesc<int>();
    cudaArray_t surface_array;
    CHECK(cudaMallocArray(&surface_array, &fi, W, H, cudaArraySurfaceLoadStore));
    res.res.array.array = surface_array;
    cudaSurfaceObject_t surf;
    CHECK(cudaCreateSurfaceObject(&surf, &res));
    write_surface<<<H, W>>>(surf);
    int written[H][W];
    CHECK(cudaMemcpy2DFromArray(written, W * sizeof(int), surface_array, 0, 0, W * sizeof(int), H,
                                cudaMemcpyDeviceToHost));
    int surface_bad = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) surface_bad += written[y][x] != x * 100 + y;
    std::printf("surface: %s\n", surface_bad ? "wrong" : "ok");
    bad += surface_bad;

    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaDestroyTextureObject(tex_layers));
    CHECK(cudaDestroySurfaceObject(surf));
    CHECK(cudaFreeArray(array));
    CHECK(cudaFreeArray(layered));
    CHECK(cudaFreeArray(surface_array));
    CHECK(cudaFree(out));
    std::printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad ? 1 : 0;
}
