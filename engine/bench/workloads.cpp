#include "bench/workloads.h"

#include <cmath>

#include "bench/nn_blocks.h"
#include "support/error.h"

namespace loupe::bench {

Tensor bench_data(const Shape& shape, int64_t salt, double scale) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  // (i * 331 + salt) mod 1009 spreads neighbouring elements over [0, 1009) (int32 wrap-around is fine:
  // the floor modulo stays in range)
  Tensor h = (Tensor::arange(n) * Tensor(331) + Tensor(salt)).mod(Tensor(1009)).cast(dtypes::float32);
  Tensor t = (h * Tensor(2.0 * scale / 1009.0) - Tensor(scale)).reshape(shape).contiguous();
  t.realize();
  return t;
}

namespace {

Workload matmul(int64_t n) {
  return {cat("matmul_", n), cat("float32 (", n, "x", n, ") @ (", n, "x", n, ")"), [n] {
            Tensor a = bench_data({n, n}, 1), b = bench_data({n, n}, 2);
            return OutputBuilder([a, b] { return std::vector<Tensor>{a.matmul(b)}; });
          }};
}

// (4096x4096) @ (4096x4096) in `dt`; a half product accumulates in float32 and is stored as half.
Workload matmul_4096(DType dt) {
  std::string name = dt == dtypes::float32 ? "matmul_4096" : cat("matmul_4096_", dt.short_name());
  return {name, cat(dt.short_name(), " (4096x4096) @ (4096x4096)"), [dt] {
            Tensor a = bench_data({4096, 4096}, 1).cast(dt).contiguous().realize();
            Tensor b = bench_data({4096, 4096}, 2).cast(dt).contiguous().realize();
            return OutputBuilder([a, b] { return std::vector<Tensor>{a.matmul(b)}; });
          }, true};
}

constexpr int64_t k16m = int64_t(1) << 24;

Workload add_16m() {
  return {"add_16m", "a + b, 16M float32", [] {
            Tensor a = bench_data({k16m}, 1), b = bench_data({k16m}, 2);
            return OutputBuilder([a, b] { return std::vector<Tensor>{a + b}; });
          }};
}

Workload fused_16m() {
  return {"fused_16m", "(a * b + c).relu(), 16M float32", [] {
            Tensor a = bench_data({k16m}, 1), b = bench_data({k16m}, 2), c = bench_data({k16m}, 3);
            return OutputBuilder([a, b, c] { return std::vector<Tensor>{(a * b + c).relu()}; });
          }};
}

Workload sum_16m() {
  return {"sum_16m", "sum of 16M float32", [] {
            Tensor a = bench_data({k16m}, 1);
            return OutputBuilder([a] { return std::vector<Tensor>{a.sum()}; });
          }};
}

Workload axis_sum(const std::string& name, int64_t axis) {
  return {name, cat("(4096, 4096).sum(", axis, ")"), [axis] {
            Tensor a = bench_data({4096, 4096}, 1);
            return OutputBuilder([a, axis] { return std::vector<Tensor>{a.sum(axis)}; });
          }};
}

Workload softmax_4096x1024() {
  return {"softmax_4096x1024", "softmax over the last axis of (4096, 1024)", [] {
            Tensor a = bench_data({4096, 1024}, 1, 4.0);
            return OutputBuilder([a] { return std::vector<Tensor>{softmax(a, -1)}; });
          }};
}

Workload conv2d_resnet() {
  return {"conv2d_resnet", "conv2d (8,64,56,56) * (64,64,3,3), padding 1", [] {
            Tensor x = bench_data({8, 64, 56, 56}, 1), w = bench_data({64, 64, 3, 3}, 2, 0.05);
            return OutputBuilder([x, w] { return std::vector<Tensor>{conv2d(x, w, 1)}; });
          }};
}

// A pre-LayerNorm encoder block, batch 1: attention (12 heads of 64) and a GELU MLP, both residual.
Workload transformer_block() {
  return {"transformer_block", "pre-LN transformer block: seq 128, dim 768, 12 heads, MLP 3072", [] {
            const int64_t seq = 128, dim = 768, heads = 12, hd = dim / heads, mlp = 3072;
            std::vector<Tensor> p = {
                bench_data({seq, dim}, 1),                                            // x
                bench_data({dim}, 2, 0.1) + Tensor(1.0), bench_data({dim}, 3, 0.1),  // ln1
                bench_data({dim, 3 * dim}, 4, 0.02), bench_data({3 * dim}, 5, 0.02),  // qkv
                bench_data({dim, dim}, 6, 0.02), bench_data({dim}, 7, 0.02),          // out proj
                bench_data({dim}, 8, 0.1) + Tensor(1.0), bench_data({dim}, 9, 0.1),  // ln2
                bench_data({dim, mlp}, 10, 0.02), bench_data({mlp}, 11, 0.02),        // fc1
                bench_data({mlp, dim}, 12, 0.02), bench_data({dim}, 13, 0.02)};       // fc2
            for (Tensor& t : p) t = t.contiguous().realize();
            return OutputBuilder([p, seq, dim, heads, hd] {
              const Tensor& x = p[0];
              Tensor qkv = layernorm(x, p[1], p[2]).matmul(p[3]) + p[4];  // (seq, 3*dim)
              auto heads_of = [&](int64_t i) {
                return qkv.shrink({std::nullopt, std::pair<int64_t, int64_t>{i * dim, (i + 1) * dim}})
                    .reshape({seq, heads, hd})
                    .permute({1, 0, 2});  // (heads, seq, hd)
              };
              Tensor q = heads_of(0), k = heads_of(1), v = heads_of(2);
              Tensor att = softmax(q.matmul(k.transpose(-1, -2)) * Tensor(1.0 / std::sqrt(double(hd))), -1);
              Tensor o = att.matmul(v).permute({1, 0, 2}).reshape({seq, dim});
              Tensor h = x + o.matmul(p[5]) + p[6];
              Tensor m = gelu(layernorm(h, p[7], p[8]).matmul(p[9]) + p[10]).matmul(p[11]) + p[12];
              return std::vector<Tensor>{h + m};
            });
          }};
}

// One SGD step of a small CNN on a batch of 32 28x28 images: conv 1->8 (3x3), relu, conv 8->16 (3x3),
// relu, linear 9216->10, softmax cross-entropy against one-hot labels; outputs the loss and the three
// updated weights.
Workload cnn_train_step() {
  return {"cnn_train_step", "SGD step: conv(1->8,3x3) relu conv(8->16,3x3) relu linear(9216->10), batch 32, 28x28", [] {
            const int64_t batch = 32, classes = 10;
            Tensor x = bench_data({batch, 1, 28, 28}, 1);
            Tensor labels = (Tensor::arange(batch).mod(Tensor(classes)).reshape({batch, 1}).eq(
                                 Tensor::arange(classes).reshape({1, classes})))
                                .cast(dtypes::float32)
                                .contiguous()
                                .realize();
            Tensor w1 = bench_data({8, 1, 3, 3}, 2, 0.3), w2 = bench_data({16, 8, 3, 3}, 3, 0.1);
            Tensor w3 = bench_data({16 * 24 * 24, classes}, 4, 0.01);
            return OutputBuilder([=] {
              Tensor h = conv2d(conv2d(x, w1).relu(), w2).relu().reshape({batch, 16 * 24 * 24});
              Tensor logits = h.matmul(w3);
              Tensor loss = -(log_softmax(logits, -1) * labels).sum(-1).mean();
              std::vector<Tensor> g = loss.gradient({w1, w2, w3});
              const Tensor lr(0.01);
              return std::vector<Tensor>{loss, w1 - lr * g[0], w2 - lr * g[1], w3 - lr * g[2]};
            });
          }};
}

} // namespace

const std::vector<Workload>& workloads() {
  static const std::vector<Workload> all = {
      matmul(256), matmul(512), matmul(1024), matmul(2048),
      add_16m(), fused_16m(), sum_16m(),
      axis_sum("rowsum_4096", 1), axis_sum("colsum_4096", 0),
      softmax_4096x1024(), conv2d_resnet(), transformer_block(), cnn_train_step(),
      matmul_4096(dtypes::float32), matmul_4096(dtypes::float16)};
  return all;
}

const Workload* find_workload(const std::string& name) {
  for (const Workload& w : workloads())
    if (w.name == name) return &w;
  return nullptr;
}

} // namespace loupe::bench
