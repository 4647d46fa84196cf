// Golden sources of the GPU renderers (tests/golden/{opencl,cuda,metal}/): elementwise, reduce (with a
// GROUPTOP through shared memory), matmul (register tiles and locals), conv, max (NaN-ignoring helper),
// integer floor division, plus the hand-made kernels of the C goldens (gated load, floor div/mod,
// float4 vectors). Each file starts with the launch dims. LOUPE_UPDATE_GOLDEN=1 rewrites the files.
#include <QtTest>

#include "engine/golden_files.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <fstream>
#include <sstream>

#include "codegen/pipeline.h"
#include "render/cuda_renderer.h"
#include "render/metal_renderer.h"
#include "render/opencl_renderer.h"
#include "tst_gpu_kernels.h"
#include "tst_render_kernels.h"

using namespace loupe;
using namespace loupe::test;

namespace {

using NamedSources = std::vector<std::pair<std::string, std::string>>;

// The golden sources of one backend: tests/golden/<backend>/*<extension>.
NamedSources golden_sources(const std::string& backend, const QString& extension) {
  NamedSources out;
  QDir goldens(qEnvironmentVariable("LOUPE_SOURCE_DIR") + QString::fromStdString("/tests/golden/" + backend));
  for (const QString& f : goldens.entryList({"*" + extension})) out.push_back({f.toStdString(), read_file(goldens.filePath(f).toStdString())});
  return out;
}

// `text` written to `path`, then `program` run with `args` (the path last): its exit code and output.
std::pair<int, QString> run_on_source(const QString& program, QStringList args, const QString& path, const std::string& text) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {-1, "cannot write " + path};
  f.write(QByteArray::fromStdString(text));
  f.close();
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  args << path;
  p.start(program, args);
  if (!p.waitForFinished(120000)) return {-1, program + " did not finish"};
  return {p.exitCode(), QString::fromUtf8(p.readAll())};
}

QString failure(const std::string& name, const std::string& text, const QString& output) {
  return QString::fromStdString(name + ":\n" + text) + "\n" + output;
}

const Renderer& renderer_for(const std::string& backend) {
  static OpenCLRenderer ocl;
  static CUDARenderer cuda = [] {
    CUDARenderer r;
    r.set_compute_capability(8, 0);  // tensor cores for the tc_* goldens; the heuristics never run here
    return r;
  }();
  static MetalRenderer metal;
  if (backend == "opencl") return ocl;
  if (backend == "cuda") return cuda;
  return metal;
}

std::string extension(const std::string& backend) { return backend == "opencl" ? ".cl" : backend == "cuda" ? ".cu" : ".metal"; }

std::vector<Opt> golden_opts(const std::string& kernel) {
  using O = OptOp;
  if (kernel == "elementwise") return {{O::UPCAST, 1, 4}, {O::LOCAL, 0, 4}};
  if (kernel == "reduce") return {{O::GROUPTOP, 0, 16}};
  // 256 threads: each warp's partials combine by shuffles, the 8 warps' through shared memory
  if (kernel == "reduce_warps") return {{O::GROUPTOP, 0, 256}, {O::UNROLL, 1, 4}};
  if (kernel == "max_reduce") return {{O::LOCAL, 0, 2}, {O::GROUP, 0, 4}};
  // a row per work-group of 64 threads: the max and sum of exps split between them (ir/cooperative_rows.h)
  if (kernel == "softmax_rows") return {{O::UPCAST, 1, 4}, {O::LOCAL, 1, 64}};
  // one UPCAST axis only: the expander orders several upcast axes by node address (not stable across runs)
  if (kernel == "matmul") return {{O::UPCAST, 1, 4}, {O::UNROLL, 0, 4}, {O::LOCAL, 0, 2}, {O::LOCAL, 1, 2}};
  if (kernel == "conv") return {{O::UPCAST, 0, 2}, {O::LOCAL, 1, 2}};
  if (kernel == "tc_matmul_half_staged")  // both operands through two shared tiles each, two K steps per iteration
    return {{O::TC, 0, 0}, {O::UPCAST, 0, 2}, {O::LOCAL, 1, 2}, {O::UNROLL, 0, 2}, {O::STAGE, 0, 2}, {O::STAGE, 1, 2}};
  if (kernel.rfind("tc_", 0) == 0) return {{O::TC, 0, 0}, {O::UPCAST, 0, 2}};
  return {};
}

RenderedKernel render_golden(const std::string& backend, const std::string& kernel) {
  const Renderer& r = renderer_for(backend);
  if (kernel == "gated_load") return r.render(kernel, kernel_gated());
  if (kernel == "floor_divmod") return r.render(kernel, kernel_floor_divmod(12));
  if (kernel == "float4_scale") return r.render(kernel, kernel_float4());
  std::string expression = kernel == "tc_matmul_half_staged" ? "tc_matmul_half_64" : kernel == "reduce_warps" ? "reduce_all" : kernel;
  return plan_with_opts(last_kernel(golden_expression(expression)).ast, r, golden_opts(kernel)).rendered;
}

// A row max of `t` over 256 threads (4 rows x 64): shuffles in the warps, then shared memory.
std::string grouped_max_source(const Renderer& r, DType t) {
  return plan_with_opts(last_kernel(Tensor::empty({16, 1024}, t).max(1)).ast, r, {{OptOp::GROUP, 0, 64}, {OptOp::LOCAL, 0, 4}}).rendered.source;
}

std::string golden_text(const RenderedKernel& k) {
  std::ostringstream s;
  s << "/* global " << k.global[0] << "," << k.global[1] << "," << k.global[2] << " local " << k.local[0] << "," << k.local[1] << ","
    << k.local[2] << " */\n"
    << k.source;
  return s.str();
}

// A 4096 half matmul staged with 256x128 tiles of C and K steps of 32 (two tiles per operand): 54 KB of
// shared memory, planned for an sm_90 GPU that lets a block opt into 227 KB.
std::vector<Opt> big_staged_opts() {
  using O = OptOp;
  return {{O::TC, 0, 0},    {O::UPCAST, 0, 4}, {O::UPCAST, 0, 2}, {O::UPCAST, 1, 4}, {O::LOCAL, 0, 2},
          {O::LOCAL, 1, 4}, {O::UNROLL, 0, 2}, {O::STAGE, 0, 2},  {O::STAGE, 1, 2}};
}

int64_t big_staged_half_matmul(std::string& source) {
  CUDARenderer sm90;
  sm90.set_compute_capability(9, 0);
  sm90.set_shared_memory_optin(232448);
  // on a GPU's tensors (a product on the CPU packs a 4096 operand into panels first)
  Tensor a = Tensor::empty({4096, 4096}, dtypes::float16).to("INTERP"), b = Tensor::empty({4096, 4096}, dtypes::float16).to("INTERP");
  KernelPlan p = plan_kernel(last_kernel(a.matmul(b)).ast, sm90, big_staged_opts());
  source = p.rendered.source;
  return p.rendered.dynamic_shared_bytes;
}

} // namespace

class TestRenderGpu : public QObject {
  Q_OBJECT
private slots:
  void golden_data() {
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("kernel");
    for (const char* b : {"opencl", "cuda", "metal"})
      for (const char* k : {"elementwise", "reduce", "max_reduce", "matmul", "conv", "int_divmod", "gated_load", "floor_divmod",
                            "float4_scale"})
        QTest::newRow((std::string(b) + " " + k).c_str()) << b << k;
    for (const char* k : {"tc_matmul_half", "tc_matmul_bf16", "tc_matmul_half_staged", "reduce_warps", "softmax_rows"})
      QTest::newRow((std::string("cuda ") + k).c_str()) << "cuda" << k;
  }

  void golden() {
    QFETCH(QString, backend);
    QFETCH(QString, kernel);
    std::string b = backend.toStdString(), k = kernel.toStdString();
    std::string got = golden_text(render_golden(b, k));
    std::string path = qEnvironmentVariable("LOUPE_SOURCE_DIR").toStdString() + "/tests/golden/" + b + "/" + k + extension(b);
    if (qEnvironmentVariableIntValue("LOUPE_UPDATE_GOLDEN")) {
      std::ofstream(path) << got;
      QSKIP("golden file updated");
    }
    std::string want = read_file(path);
    if (got != want) qWarning().noquote() << QString::fromStdString("golden mismatch for " + path + ", actual:\n" + got);
    QVERIFY(got == want);
  }

  // The dialect-specific spellings the goldens rely on.
  void dialects() {
    RenderedKernel ocl = render_golden("opencl", "reduce");
    QVERIFY(ocl.source.find("__local float temp0[16];") != std::string::npos);
    QVERIFY(ocl.source.find("get_local_id(0)") != std::string::npos);
    QCOMPARE(ocl.local[0], int64_t(16));
    RenderedKernel cu = render_golden("cuda", "reduce");
    QVERIFY(cu.source.find("extern \"C\" __global__ void __launch_bounds__(16) r_") != std::string::npos);
    QVERIFY(cu.source.find("__shfl_xor_sync(0xffffu, ") != std::string::npos);  // a half-warp: no shared memory
    QVERIFY(cu.source.find("threadIdx.x") != std::string::npos);
    RenderedKernel warps = render_golden("cuda", "reduce_warps");
    QVERIFY(warps.source.find("__shared__ __align__(16) float temp0[256];") != std::string::npos);
    QVERIFY(warps.source.find("__syncthreads();") != std::string::npos);
    RenderedKernel mt = render_golden("metal", "reduce");
    QVERIFY(mt.source.find("threadgroup float temp0[16];") != std::string::npos);
    QVERIFY(mt.source.find("uint3 gid [[threadgroup_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]]) {") !=
            std::string::npos);
    // 64-bit integers: long in OpenCL and Metal, long long in CUDA
    RenderedKernel i64 = renderer_for("opencl").render("k", elementwise(dtypes::int64, {dtypes::int64}, 4, [](const auto& v) {
      return binop(Ops::SHL, v[0], UOp::cnst_int(dtypes::int64, 3));
    }));
    QVERIFY2(i64.source.find("long long") == std::string::npos && i64.source.find("ulong") != std::string::npos, i64.source.c_str());
  }

  void metal_has_no_double() {
    UOpList k = elementwise(dtypes::float64, {dtypes::float64}, 4, [](const auto& v) { return binop(Ops::ADD, v[0], v[0]); });
    QVERIFY_THROWS_EXCEPTION(Error, renderer_for("metal").render("k", k));
    QVERIFY(renderer_for("cuda").render("k", k).source.find("double") != std::string::npos);
  }

  // Launch dims past the CUDA grid's y/z limits split into the next dimension.
  void cuda_launch_limits() {
    Tensor a = Tensor::empty({70000, 3}), b = Tensor::empty({3, 70000});
    Tensor e = a + b.permute({1, 0});
    RenderedKernel k = plan_with_opts(last_kernel(e).ast, renderer_for("cuda"), {}).rendered;
    const RendererCaps& caps = renderer_for("cuda").caps();
    for (int i = 0; i < 3; i++) QVERIFY2(k.global[i] <= caps.global_max[i], k.source.c_str());
    QCOMPARE(k.global[0] * k.global[1] * k.global[2], int64_t(210000));
  }

  // Without a GPU, clang's CUDA front end checks that CUDA sources are well-formed device code: the CUDA
  // goldens, kernels under random opts, and half/bfloat16/int64/bool kernels, against stub declarations
  // of the few CUDA builtins they use (NVRTC itself needs a GPU machine).
  void cuda_sources_compile_with_clang() {
    QString clang;
    for (const char* c : {"clang++", "clang++-15", "clang++-16", "clang++-14"})
      if (!QStandardPaths::findExecutable(c).isEmpty()) {
        clang = c;
        break;
      }
    if (clang.isEmpty()) QSKIP("no clang++ to check CUDA sources with");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto write = [&](const QString& name, const std::string& text) {
      QFile f(dir.filePath(name));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(text));
    };
    write("prelude.h", R"(#include "__clang_cuda_builtin_vars.h"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
__device__ float __int_as_float(int); __device__ int __float_as_int(float);
__device__ unsigned int __float_as_uint(float); __device__ float __uint_as_float(unsigned int);
__device__ double __longlong_as_double(long long); __device__ long long __double_as_longlong(double);
__device__ void __syncthreads();
__device__ float __shfl_xor_sync(unsigned, float, int, int = 32); __device__ double __shfl_xor_sync(unsigned, double, int, int = 32);
__device__ int __shfl_xor_sync(unsigned, int, int, int = 32); __device__ unsigned __shfl_xor_sync(unsigned, unsigned, int, int = 32);
__device__ long long __shfl_xor_sync(unsigned, long long, int, int = 32);
__device__ unsigned long long __shfl_xor_sync(unsigned, unsigned long long, int, int = 32);
__device__ float sqrtf(float); __device__ float truncf(float); __device__ float floorf(float);
__device__ float fmodf(float, float); __device__ float copysignf(float, float); __device__ float fmaf(float, float, float);
__device__ double sqrt(double); __device__ double trunc(double); __device__ double floor(double);
__device__ double fmod(double, double); __device__ double copysign(double, double); __device__ double fma(double, double, double);
extern "C" __device__ void* memcpy(void*, const void*, unsigned long);
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
struct __attribute__((aligned(16))) double2 { double x, y; };
struct __attribute__((aligned(16))) longlong2 { long long x, y; };
struct __attribute__((aligned(16))) ulonglong2 { unsigned long long x, y; };
__device__ float4 make_float4(float, float, float, float); __device__ int4 make_int4(int, int, int, int);
__device__ uint4 make_uint4(unsigned int, unsigned int, unsigned int, unsigned int); __device__ double2 make_double2(double, double);
__device__ longlong2 make_longlong2(long long, long long); __device__ ulonglong2 make_ulonglong2(unsigned long long, unsigned long long);
)");
    write("cuda_fp16.h", R"(struct __half { unsigned short x; __device__ __half() {} __device__ __half(float); __device__ operator float() const; };
typedef __half half;
__device__ unsigned short __half_as_ushort(__half); __device__ __half __ushort_as_half(unsigned short);
__device__ __half __shfl_xor_sync(unsigned, __half, int, int = 32);
)");
    NamedSources sources = golden_sources("cuda", ".cu");
    const Renderer& cuda = renderer_for("cuda");
    for (DType t : {dtypes::float16, dtypes::bfloat16, dtypes::int64, dtypes::bool_, dtypes::float64, dtypes::uint8})
      sources.push_back({"cast_" + t.name(), cuda.render("k", elementwise(dtypes::float32, {t}, 8, [&](const UOpList& v) {
                                                          UOpPtr x = UOp::make(Ops::CAST, dtypes::float32, {v[0]});
                                                          return binop(Ops::MAX, binop(Ops::MUL, x, x), x);
                                                        })).source});
    sources.push_back({"half_math", cuda.render("k", elementwise(dtypes::float16, {dtypes::float16, dtypes::float16}, 8,
                                                                  [](const UOpList& v) {
                                                                    return binop(Ops::ADD, binop(Ops::FDIV, v[0], v[1]),
                                                                                 UOp::cnst(dtypes::float16, 0.1));
                                                                  })).source});
    sources.push_back({"bitcast", cuda.render("k", elementwise(dtypes::int32, {dtypes::float32}, 8, [](const UOpList& v) {
                                                return UOp::make(Ops::BITCAST, dtypes::int32, {v[0]});
                                              })).source});
    for (DType t : {dtypes::float16, dtypes::float32, dtypes::float64, dtypes::int32, dtypes::uint32, dtypes::int64, dtypes::uint64})
      sources.push_back({"grouped max " + t.name(), grouped_max_source(cuda, t)});
    for (const char* e : {"elementwise", "reduce_all", "matmul", "conv"})
      sources.push_back({std::string(e) + "_grouped", plan_with_opts(last_kernel(golden_expression(e)).ast, cuda,
                                                                       std::string(e) == "reduce_all"
                                                                           ? std::vector<Opt>{{OptOp::GROUPTOP, 0, 64}, {OptOp::UNROLL, 0, 4}}
                                                                           : std::vector<Opt>{{OptOp::LOCAL, 0, 2}})
                                                            .rendered.source});
    for (const char* e : {"elementwise", "reduce", "reduce_all", "max_reduce", "matmul", "conv", "int_divmod"})
      for (bool noopt : {false, true})  // the heuristics' GROUPTOP/LOCAL choices and the plain kernels
        sources.push_back({std::string(e) + (noopt ? " noopt" : " heuristics"),
                           plan_kernel(last_kernel(golden_expression(e)).ast, cuda, noopt).rendered.source});
    const QStringList args{"-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_80", "-fsyntax-only",
                           "-I", dir.path(), "-include", dir.filePath("prelude.h")};
    for (const auto& [name, text] : sources) {
      auto [code, out] = run_on_source(clang, args, dir.filePath("k.cu"), text);
      if (code != 0 && out.contains("cannot find CUDA")) QSKIP("clang has no CUDA support here");
      QVERIFY2(code == 0, qPrintable(failure(name, text, out)));
    }
  }

  // Over 48 KB of staged tiles a CUDA block's shared memory is dynamic: one extern array, each tile a pointer
  // into it at an aligned offset (on its own line still), and the launch's size in dynamic_shared_bytes.
  // Without the GPU's opt-in size the plan keeps to 48 KB: the same opts are refused.
  void cuda_shared_memory_over_48k_is_dynamic() {
    std::string source;
    int64_t bytes = big_staged_half_matmul(source);
    QVERIFY2(bytes > kStaticSharedMax && bytes <= 232448, qPrintable(QString::number(bytes)));
    QVERIFY2(source.find("extern __shared__ __align__(16) unsigned char loupe_smem[];") != std::string::npos, source.c_str());
    QVERIFY2(source.find("__shared__ __align__(16) half") == std::string::npos, source.c_str());
    QVERIFY2(source.find("half* tile_a = (half*)(loupe_smem + 0);") != std::string::npos, source.c_str());
    CUDARenderer plain;  // 48 KB: the same two-tile staging does not fit
    plain.set_compute_capability(9, 0);
    Tensor a = Tensor::empty({4096, 4096}, dtypes::float16).to("INTERP"), b = Tensor::empty({4096, 4096}, dtypes::float16).to("INTERP");
    QVERIFY_THROWS_EXCEPTION(KernelOptError, plan_kernel(last_kernel(a.matmul(b)).ast, plain, big_staged_opts()));
    KernelPlan small = plan_kernel(last_kernel(Tensor::empty({1024, 1024}, dtypes::float16).matmul(Tensor::empty({1024, 1024}, dtypes::float16))).ast, plain, false);
    QCOMPARE(small.rendered.dynamic_shared_bytes, int64_t(0));
  }

  // Where the CUDA toolkit is installed (no GPU needed), nvcc compiles the CUDA goldens and the kernels
  // the tensor-core heuristics stage (cp.async, ldmatrix, mma.sync inline PTX) to sm_90 machine code:
  // ptxas checks the PTX the clang check above cannot.
  void cuda_sources_assemble_with_ptxas() {
    QString nvcc = QStandardPaths::findExecutable("nvcc");
    if (nvcc.isEmpty()) nvcc = QStandardPaths::findExecutable("nvcc", {"/usr/local/cuda/bin"});
    if (nvcc.isEmpty()) QSKIP("no CUDA toolkit (nvcc) here");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    NamedSources sources = golden_sources("cuda", ".cu");
    CUDARenderer sm90;
    sm90.set_compute_capability(9, 0);
    for (DType t : {dtypes::float16, dtypes::bfloat16}) {  // big enough for 8 warps and two staged tiles each
      Tensor a = Tensor::empty({1024, 1024}, t), b = Tensor::empty({1024, 1024}, t);
      KernelPlan p = plan_kernel(last_kernel(a.matmul(b)).ast, sm90, false);
      QVERIFY2(p.rendered.source.find("ldmatrix") != std::string::npos, p.rendered.source.c_str());
      sources.push_back({"staged " + t.name(), p.rendered.source});
    }
    for (DType t : {dtypes::float16, dtypes::float64, dtypes::int32, dtypes::uint64})  // __shfl_xor_sync's overloads
      sources.push_back({"grouped max " + t.name(), grouped_max_source(sm90, t)});
    for (DType t : {dtypes::float32, dtypes::float16}) {  // one kernel, a work-group per row, as the heuristics plan it
      Tensor x = Tensor::empty({64, 1024}, t);
      sources.push_back({"softmax rows " + t.name(), plan_kernel(last_kernel(x.softmax(1)).ast, sm90, false).rendered.source});
      sources.push_back({"layernorm rows " + t.name(), plan_kernel(last_kernel(x.layernorm()).ast, sm90, false).rendered.source});
    }
    std::string dynamic_source;
    big_staged_half_matmul(dynamic_source);
    sources.push_back({"staged half, dynamic shared memory", dynamic_source});
    using O = OptOp;  // a float32 matmul staged as BEAM may choose it
    Tensor a = Tensor::empty({64, 64}), b = Tensor::empty({64, 64});
    sources.push_back({"staged float32", plan_with_opts(last_kernel(a.matmul(b)).ast, sm90,
                                                        {{O::LOCAL, 0, 8}, {O::LOCAL, 1, 8}, {O::UPCAST, 0, 2}, {O::UPCAST, 1, 2},
                                                         {O::UNROLL, 0, 16}, {O::STAGE, 0, 2}, {O::STAGE, 1, 2}})
                                                 .rendered.source});
    for (const auto& [name, text] : sources) {
      auto [code, out] = run_on_source(nvcc, {"-arch=sm_90", "-cubin", "-o", dir.filePath("k.cubin")}, dir.filePath("k.cu"), text);
      QVERIFY2(code == 0, qPrintable(failure(name, text, out)));
    }
  }

  // The Metal sources parse as the C++ that Metal is built on, against a stub metal_stdlib (no Metal
  // compiler on Linux): catches C-only spellings; Metal's own rules stay unchecked.
  void metal_sources_parse_as_cpp() {
    QString clang = QStandardPaths::findExecutable("clang++");
    if (clang.isEmpty()) clang = QStandardPaths::findExecutable("clang++-15");
    if (clang.isEmpty()) QSKIP("no clang++ to parse Metal sources with");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto write = [&](const QString& name, const std::string& text) {
      QFile f(dir.filePath(name));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(text));
    };
    write("metal_stdlib", R"(namespace metal {
typedef unsigned int uint; typedef unsigned short ushort; typedef unsigned char uchar; typedef unsigned long ulong;
typedef __fp16 half;
struct uint3 { uint x, y, z; };
struct float4 { float x, y, z, w; };
enum class mem_flags { mem_threadgroup };
void threadgroup_barrier(mem_flags);
template <typename T, typename F> T as_type(F);
float sqrt(float); float trunc(float); float floor(float); float fmod(float, float); float copysign(float, float); float rint(float);
}
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define kernel
#define device
#define threadgroup
#define constant const
)");
    NamedSources sources = golden_sources("metal", ".metal");
    const Renderer& metal = renderer_for("metal");
    for (DType t : {dtypes::float16, dtypes::bfloat16, dtypes::int64, dtypes::bool_, dtypes::uint8})
      sources.push_back({"cast_" + t.name(), metal.render("k", elementwise(dtypes::float32, {t}, 8, [&](const UOpList& v) {
                                                           UOpPtr x = UOp::make(Ops::CAST, dtypes::float32, {v[0]});
                                                           return binop(Ops::MAX, binop(Ops::MUL, x, x), x);
                                                         })).source});
    QVERIFY(!sources.empty());
    for (const auto& [name, text] : sources) {
      auto [code, out] = run_on_source(clang, {"-x", "c++", "-std=c++17", "-fsyntax-only", "-Wno-unknown-attributes", "-I", dir.path()},
                                       dir.filePath("k.metal"), text);
      QVERIFY2(code == 0, qPrintable(failure(name, text, out)));
    }
  }
};

QTEST_APPLESS_MAIN(TestRenderGpu)
#include "tst_render_gpu.moc"
