// CPU reference for scripts/hopper_third_party/attention.py: causal (or full)
// varlen multi-head attention with grouped KV heads, in double, from the exact
// bf16 inputs. Independent of any kernel: softmax(Q K^T * scale + mask) V.
//
//   attention_ref DTYPE Q K V OUT.f64 CU_SEQLENS(comma list) NHEADS NKV HEADDIM CAUSAL SCALE [WABS.f64]
//
// DTYPE (bf16 or f64) is the type of the input files. Q is [total, NHEADS,
// HEADDIM] row-major, K and V [total, NKV, HEADDIM];
// query head h reads KV head h / (NHEADS / NKV). OUT is [total, NHEADS, HEADDIM]
// doubles. The causal mask is bottom-right aligned (key j is visible to query i
// of a sequence when j <= i + seqlen_k - seqlen_q), as FlashAttention defines it;
// here seqlen_q == seqlen_k. WABS, when given, receives sum_j p_j |v_j| for
// every output element (the exact softmax weights applied to |V|), from which
// the caller bounds the effect of rounding P to a narrow type.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static std::vector<double> read_values(const std::string &dtype, const char *path, size_t count) {
    std::vector<double> out(count);
    if (dtype == "f64") {
        FILE *f = std::fopen(path, "rb");
        if (!f || std::fread(out.data(), 8, count, f) != count) {
            std::fprintf(stderr, "attention_ref: cannot read %zu doubles from %s\n", count, path);
            std::exit(2);
        }
        std::fclose(f);
        return out;
    }
    if (dtype != "bf16") {
        std::fprintf(stderr, "attention_ref: unknown input type %s\n", dtype.c_str());
        std::exit(2);
    }
    std::vector<uint16_t> raw(count);
    FILE *f = std::fopen(path, "rb");
    if (!f || std::fread(raw.data(), 2, count, f) != count) {
        std::fprintf(stderr, "attention_ref: cannot read %zu bf16 values from %s\n", count, path);
        std::exit(2);
    }
    std::fclose(f);
    for (size_t i = 0; i < count; ++i) {
        uint32_t bits = uint32_t(raw[i]) << 16;  // bf16 is the top half of an f32
        float x;
        std::memcpy(&x, &bits, 4);
        out[i] = x;
    }
    return out;
}

static void write_doubles(const char *path, const std::vector<double> &values) {
    FILE *f = std::fopen(path, "wb");
    if (!f || std::fwrite(values.data(), sizeof(double), values.size(), f) != values.size()) {
        std::fprintf(stderr, "attention_ref: cannot write %s\n", path);
        std::exit(2);
    }
    std::fclose(f);
}

int main(int argc, char **argv) {
    if (argc != 12 && argc != 13) {
        std::fprintf(stderr, "usage: attention_ref DTYPE Q K V OUT CU_SEQLENS NHEADS NKV HEADDIM CAUSAL SCALE [WABS]\n");
        return 2;
    }
    const std::string dtype = argv[1];
    ++argv;  // the rest as before the DTYPE argument
    std::vector<int> cu;
    for (const char *p = argv[5]; *p;) {
        cu.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
    }
    const int nheads = std::atoi(argv[6]), nkv = std::atoi(argv[7]), hd = std::atoi(argv[8]);
    const bool causal = std::atoi(argv[9]) != 0;
    const double scale = std::strtod(argv[10], nullptr);
    const size_t total = size_t(cu.back());
    const std::vector<double> q = read_values(dtype, argv[1], total * nheads * hd);
    const std::vector<double> k = read_values(dtype, argv[2], total * nkv * hd);
    const std::vector<double> v = read_values(dtype, argv[3], total * nkv * hd);
    const char *wabs_path = argc == 13 ? argv[11] : nullptr;
    std::vector<double> o(total * nheads * hd, 0.0), wabs(wabs_path ? o.size() : 0, 0.0);
    const int group = nheads / nkv;
    std::vector<double> s;
    for (size_t b = 0; b + 1 < cu.size(); ++b) {
        const int start = cu[b], len = cu[b + 1] - cu[b];
        for (int h = 0; h < nheads; ++h) {
            const int kh = h / group;
            for (int i = 0; i < len; ++i) {
                const double *qi = &q[(size_t(start + i) * nheads + h) * hd];
                const int visible = causal ? i + 1 : len;  // seqlen_q == seqlen_k
                s.assign(visible, 0.0);
                double mx = -INFINITY;
                for (int j = 0; j < visible; ++j) {
                    const double *kj = &k[(size_t(start + j) * nkv + kh) * hd];
                    double dot = 0;
                    for (int d = 0; d < hd; ++d) dot += qi[d] * kj[d];
                    s[j] = dot * scale;
                    if (s[j] > mx) mx = s[j];
                }
                double sum = 0;
                for (int j = 0; j < visible; ++j) sum += (s[j] = std::exp(s[j] - mx));
                double *oi = &o[(size_t(start + i) * nheads + h) * hd];
                for (int j = 0; j < visible; ++j) {
                    const double *vj = &v[(size_t(start + j) * nkv + kh) * hd];
                    const double p = s[j] / sum;
                    for (int d = 0; d < hd; ++d) oi[d] += p * vj[d];
                    if (wabs_path)
                        for (int d = 0; d < hd; ++d) wabs[oi - o.data() + d] += p * std::fabs(vj[d]);
                }
            }
        }
    }
    write_doubles(argv[4], o);
    if (wabs_path) write_doubles(wabs_path, wabs);
    return 0;
}
