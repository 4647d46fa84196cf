// Screenshots of the Code and Compare panels on real kernels (tinygrad's 64x64 matmul+relu, C and
// OpenCL, optimized and NOOPT) in light and dark palettes. Each grab must be non-blank; the PNGs go
// to $LOUPE_SCREENSHOT_DIR (default: <tmp>/loupe-screens) for a person to look at.
#include <QApplication>
#include <QDir>
#include <QStyle>
#include <QStyleFactory>
#include <QtTest>

#include "code/codeview.h"
#include "code/compareview.h"
#include "panels/apppalette.h"
#include "tst_code_samples.h"
#include "screenshots.h"

using namespace loupe::views;

namespace {

// Saves the grab and checks it shows something: not empty and more than a handful of colours.
KernelVariant variant(const QString& name, const char* source, SourceLanguage lang, double seconds, QStringList opts,
                      QList<qint64> global, QList<qint64> local) {
  KernelVariant v;
  v.name = name;
  v.source = QString::fromUtf8(source);
  v.language = lang;
  v.seconds = seconds;
  v.flops = 2.0 * 64 * 64 * 64 + 64 * 64;
  v.bytes = 3 * 64 * 64 * 4;
  v.opts = opts;
  v.globalSize = global;
  v.localSize = local;
  return v;
}

CompareInput clInput() {
  CompareInput in;
  in.device = "OPENCL";
  in.noopt = variant("r_64_64_64", kMatmulClNoopt, SourceLanguage::OpenCL, 238.88e-6, {}, {64, 64, 1}, {1, 1, 1});
  in.optimized =
      variant("r_2_8_16_16_4_4_4", kMatmulClOpt, SourceLanguage::OpenCL, 68.84e-6,
              {"UPCAST(1, 4)", "UPCAST(0, 4)", "UNROLL(0, 4)", "LOCAL(0, 8)", "LOCAL(1, 16)"}, {2, 1, 1}, {8, 16, 1});
  return in;
}

CompareInput cInput() {
  CompareInput in;
  in.device = "CPU";
  in.noopt = variant("r_64_64_64", kMatmulCNoopt, SourceLanguage::C, 116.02e-6, {}, {}, {});
  in.optimized = variant("r_16_16_16_4_4_4", kMatmulCOpt, SourceLanguage::C, 21.02e-6,
                         {"UPCAST(1, 4)", "UPCAST(0, 4)", "UNROLL(0, 4)"}, {}, {});
  return in;
}

} // namespace

class TestCodeScreens : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { useFusionStyle(); }

  void screens_data() {
    addLightDarkRows();
  }
  void screens() {
    QFETCH(bool, dark);
    const QString suffix = usePaletteOfRow(dark);

    CompareView compare;
    compare.resize(1600, 1000);
    compare.setInput(clInput());
    grabAndCheck(&compare, "compare-opencl-" + suffix);
    compare.setInput(cInput());
    compare.nextChange();
    grabAndCheck(&compare, "compare-c-" + suffix);

    CodeView code;
    code.resize(1000, 700);
    code.setSource(QString::fromUtf8(kMatmulClOpt), SourceLanguage::OpenCL);
    grabAndCheck(&code, "code-opencl-" + suffix);

    // LLVM IR, CUDA and Metal samples, hand-written in the shape the renderers emit.
    code.resize(1000, 420);
    code.setSource(
        QStringLiteral(
            "; ModuleID = 'E_4'\n"
            "define void @E_4(ptr noalias align 32 %data0, ptr noalias align 32 %data1) #0 {\n"
            "entry:\n"
            "  %v0 = getelementptr inbounds float, ptr %data1, i32 0\n"
            "  %v1 = load <4 x float>, ptr %v0, align 16\n"
            "  %v2 = fmul nsz arcp contract afn <4 x float> %v1, <float 2.0, float 2.0, float 2.0, float 2.0>\n"
            "  store <4 x float> %v2, ptr %data0, align 16\n"
            "  ret void\n"
            "}\n"
            "attributes #0 = { alwaysinline nounwind \"no-builtins\" }"),
        SourceLanguage::LlvmIr);
    grabAndCheck(&code, "code-llvm-" + suffix);
    code.setSource(
        QStringLiteral(
            "#define INFINITY (__int_as_float(0x7f800000))\n"
            "extern \"C\" __global__ void __launch_bounds__(128) r_32_4_32(float* data0, const float* data1) {\n"
            "  __shared__ float temp[128];\n"
            "  int gidx0 = blockIdx.x; /* 32 */\n"
            "  int lidx0 = threadIdx.x; /* 128 */\n"
            "  float acc0 = 0.0f;\n"
            "  for (int ridx0 = 0; ridx0 < 32; ridx0++) { acc0 = (acc0+__ldg(data1+ridx0)); }\n"
            "  temp[lidx0] = acc0;\n"
            "  __syncthreads();\n"
            "  if (lidx0 == 0) *(data0+gidx0) = temp[0] * 1.5e-3f;\n"
            "}"),
        SourceLanguage::Cuda);
    grabAndCheck(&code, "code-cuda-" + suffix);
    code.setSource(
        QStringLiteral("#include <metal_stdlib>\n"
                       "using namespace metal;\n"
                       "kernel void E_4_4(device float* data0 [[buffer(0)]], const device half4* data1 [[buffer(1)]],\n"
                       "                  uint3 gid [[threadgroup_position_in_grid]], uint3 lid "
                       "[[thread_position_in_threadgroup]]) {\n"
                       "  int gidx0 = gid.x; /* 4 */\n"
                       "  threadgroup_barrier(mem_flags::mem_threadgroup);\n"
                       "  *((device float4*)(data0+(gidx0<<2))) = float4(data1[gidx0]) * 0.5f;\n"
                       "}"),
        SourceLanguage::Metal);
    grabAndCheck(&code, "code-metal-" + suffix);
  }
};

QTEST_MAIN(TestCodeScreens)
#include "tst_code_screens.moc"
