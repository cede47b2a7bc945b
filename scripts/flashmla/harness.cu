// A host program that runs FlashMLA's decode kernel (deepseek-ai/FlashMLA,
// first public commit 414a2f3) as its csrc/flash_api.cpp does, without
// PyTorch: contiguous tensors, one KV head, every sequence s_k tokens long,
// the paged KV cache in blocks of 64 with an identity block table. Built by
// scripts/flashmla_validate.py against a FlashMLA checkout the user fetched
// (its csrc/ on the include path); nothing of FlashMLA is in this file.
//
//   harness B S_Q S_K H_Q
//
// It launches get_mla_metadata_kernel, then run_mha_fwd_splitkv_mla (the
// split-KV kernel and its combine kernel), and checks four output rows
// against a float64 reference with FlashMLA's own test's measure.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cstring>
#include <algorithm>
#include <cuda_runtime.h>
#include "flash_fwd_mla_kernel.h"
#include "flash_fwd_mla_bf16_sm90.cu"

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

int main(int argc, char** argv) {
    if (argc != 5) { std::fprintf(stderr, "usage: harness B S_Q S_K H_Q\n"); return 2; }
    const int b = std::atoi(argv[1]), s_q = std::atoi(argv[2]), s_k = std::atoi(argv[3]), h_q = std::atoi(argv[4]);
    const int h_kv = 1, d = 576, dv = 512, block_size = 64;
    const int max_seqlen_pad = (s_k + 255) / 256 * 256;
    const int blocks_per_seq = max_seqlen_pad / block_size, num_blocks = b * blocks_per_seq;
    const int ngroups = h_q / h_kv, seqlen_q = s_q * ngroups;
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int num_sm_parts = sms / h_kv / ((seqlen_q + 63) / 64);

    auto alloc = [](size_t bytes) { void* p = nullptr; CK(cudaMalloc(&p, bytes)); return p; };
    const size_t q_elems = size_t(b) * s_q * h_q * d, k_elems = size_t(num_blocks) * block_size * h_kv * d;
    std::vector<uint16_t> q_host(q_elems), k_host(k_elems);
    uint32_t x = 12345;
    auto bf16_random = [&]() { // about N(0, 1) as bf16 bits (sum of uniforms)
        float v = 0;
        for (int i = 0; i < 4; ++i) { x = x * 1664525u + 1013904223u; v += (x >> 8) * (1.0f / 16777216.0f); }
        v = (v - 2.0f) * 1.7320508f;
        uint32_t bits; std::memcpy(&bits, &v, 4);
        return uint16_t((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
    };
    void* q = alloc(q_elems * 2);
    for (size_t i = 0; i < q_elems; ++i) q_host[i] = bf16_random();
    CK(cudaMemcpy(q, q_host.data(), q_elems * 2, cudaMemcpyHostToDevice));
    void* k = alloc(k_elems * 2);
    for (size_t i = 0; i < k_elems; ++i) k_host[i] = bf16_random();
    CK(cudaMemcpy(k, k_host.data(), k_elems * 2, cudaMemcpyHostToDevice));
    std::vector<int> seqlens(b, s_k), table(size_t(b) * blocks_per_seq);
    for (size_t i = 0; i < table.size(); ++i) table[i] = int(i);
    int* seqlens_d = (int*)alloc(b * 4);
    CK(cudaMemcpy(seqlens_d, seqlens.data(), b * 4, cudaMemcpyHostToDevice));
    int* table_d = (int*)alloc(table.size() * 4);
    CK(cudaMemcpy(table_d, table.data(), table.size() * 4, cudaMemcpyHostToDevice));
    int* sched = (int*)alloc(size_t(num_sm_parts) * TileSchedulerMetaDataSize * 4);
    int* splits = (int*)alloc(size_t(b + 1) * 4);

    Mla_metadata_params mp = {};
    mp.seqlens_k_ptr = seqlens_d;
    mp.tile_scheduler_metadata_ptr = sched;
    mp.num_splits_ptr = splits;
    mp.batch_size = b;
    mp.block_size_n = 64;
    mp.fixed_overhead_num_blocks = 5;
    mp.num_sm_parts = num_sm_parts;
    get_mla_metadata_func(mp, 0);
    CK(cudaDeviceSynchronize());

    void* out = alloc(size_t(b) * seqlen_q * h_kv * dv * 2);
    void* lse = alloc(size_t(b) * h_kv * seqlen_q * 4);
    void* lse_accum = alloc(size_t(b + num_sm_parts) * h_kv * seqlen_q * 4);
    void* o_accum = alloc(size_t(b + num_sm_parts) * h_kv * seqlen_q * dv * 4);
    Flash_fwd_mla_params p = {};
    p.b = b;
    p.seqlen_q = seqlen_q;
    p.cu_seqlens_k = seqlens_d;
    p.h = h_kv;
    p.h_h_k_ratio = 1;
    p.ngroups = ngroups;
    p.is_causal = s_q > 1;
    p.d = d;
    p.d_v = dv;
    p.scale_softmax = 1.0f / std::sqrt(float(d));
    p.scale_softmax_log2 = float(p.scale_softmax * M_LOG2E);
    p.q_ptr = q;
    p.k_ptr = k;
    p.v_ptr = k;
    p.o_ptr = out;
    p.softmax_lse_ptr = lse;
    p.q_batch_stride = int64_t(seqlen_q) * h_kv * d; // q viewed as [b, seqlen_q, h_kv, d]
    p.k_batch_stride = p.v_batch_stride = int64_t(block_size) * h_kv * d;
    p.o_batch_stride = int64_t(seqlen_q) * h_kv * dv;
    p.q_row_stride = int64_t(h_kv) * d;
    p.k_row_stride = p.v_row_stride = int64_t(h_kv) * d;
    p.o_row_stride = int64_t(h_kv) * dv;
    p.q_head_stride = d;
    p.k_head_stride = p.v_head_stride = d;
    p.o_head_stride = dv;
    p.block_table = table_d;
    p.block_table_batch_stride = blocks_per_seq;
    p.page_block_size = block_size;
    p.tile_scheduler_metadata_ptr = sched;
    p.num_sm_parts = num_sm_parts;
    p.num_splits_ptr = splits;
    p.softmax_lseaccum_ptr = lse_accum;
    p.oaccum_ptr = o_accum;
    run_mha_fwd_splitkv_mla<cutlass::bfloat16_t, 576>(p, 0);
    CK(cudaDeviceSynchronize());

    // Every output finite, and four rows against a float64 reference
    // (softmax(q K^T * scale) V with V = K's first dv columns; causal rows
    // see the keys up to s_k - s_q + their query position).
    std::vector<uint16_t> o(size_t(b) * seqlen_q * dv);
    CK(cudaMemcpy(o.data(), out, o.size() * 2, cudaMemcpyDeviceToHost));
    auto f32 = [](uint16_t v) { uint32_t bits = uint32_t(v) << 16; float f; std::memcpy(&f, &bits, 4); return f; };
    size_t bad = 0;
    for (uint16_t v : o) bad += !std::isfinite(f32(v));
    double xy = 0, xx_yy = 0; // FlashMLA's own test: 1 - 2 x.y / (x.x + y.y) below 1e-5
    for (int bi : {0, b - 1})
        for (int row : {0, seqlen_q - 1}) {
            const int i_sq = row / ngroups, g = row % ngroups;
            const int keys = p.is_causal ? s_k - s_q + i_sq + 1 : s_k;
            const uint16_t* qr = &q_host[((size_t(bi) * s_q + i_sq) * h_q + g) * d];
            std::vector<double> score(keys);
            double top = -1e300;
            for (int j = 0; j < keys; ++j) {
                const uint16_t* kr = &k_host[(size_t(table[size_t(bi) * blocks_per_seq + j / block_size]) * block_size + j % block_size) * d];
                double dot = 0;
                for (int c = 0; c < d; ++c) dot += double(f32(qr[c])) * f32(kr[c]);
                score[j] = dot * p.scale_softmax;
                top = std::max(top, score[j]);
            }
            double z = 0;
            for (double& sc : score) z += (sc = std::exp(sc - top));
            for (int c = 0; c < dv; ++c) {
                double want = 0;
                for (int j = 0; j < keys; ++j)
                    want += score[j] * f32(k_host[(size_t(table[size_t(bi) * blocks_per_seq + j / block_size]) * block_size + j % block_size) * d + c]);
                want /= z;
                const double got = f32(o[(size_t(bi) * seqlen_q + row) * dv + c]);
                xy += got * want;
                xx_yy += got * got + want * want;
            }
        }
    const double diff = 1 - 2 * xy / xx_yy;
    std::printf("outputs %zu, not finite %zu, 4 rows against float64: 1 - 2x.y/(x.x+y.y) = %.2e\n", o.size(), bad, diff);
    if (!(diff < 1e-5)) ++bad;
    return bad ? 1 : 0;
}
