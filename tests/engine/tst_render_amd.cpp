// The AMD renderer (issue 48): golden sources for RDNA3 (gfx1100) and CDNA3 (gfx942) in
// tests/golden/amd/ (elementwise, reduce with a GROUPTOP through LDS, matmul with locals, half and
// bfloat16 matmuls on the matrix unit: WMMA on RDNA3, MFMA on CDNA3), each also
// compiled by clang-15's amdgcn backend into a code object whose ISA listing has the instructions its
// kernel needs (LDS reads and writes, s_barrier) linked to source lines; the target names; the listing
// parser on llvm-objdump's AMDGPU format; and every bench workload's kernels planned by the heuristics for
// both arches and assembled ("N of N kernels assemble"). No AMD GPU is needed. LOUPE_UPDATE_GOLDEN=1
// rewrites the goldens.
#include <QtTest>

#include "engine/golden_files.h"

#include <fstream>
#include <sstream>

#include "bench/workloads.h"
#include "codegen/pipeline.h"
#include "inspect/machine_code.h"
#include "render/amd_renderer.h"
#include "runtime/interp/interp_device.h"
#include "support/error.h"
#include "support/process.h"
#include "tst_gpu_kernels.h"

using namespace loupe;
using namespace loupe::test;

namespace {

const AmdArch& arch_named(const std::string& gfx) { return gfx == "gfx942" ? amd_cdna3() : amd_rdna3(); }

std::vector<Opt> golden_opts(const std::string& kernel) {
  using O = OptOp;
  if (kernel == "elementwise") return {{O::UPCAST, 1, 4}, {O::LOCAL, 0, 4}};
  if (kernel == "reduce") return {{O::GROUPTOP, 0, 16}};
  if (kernel == "matmul") return {{O::UPCAST, 1, 4}, {O::UNROLL, 0, 4}, {O::LOCAL, 0, 2}, {O::LOCAL, 1, 2}};
  if (kernel.rfind("tc_", 0) == 0) return {{O::TC, 0, 0}};  // one WMMA / MFMA tile per wave
  return {};
}

RenderedKernel render_golden(const std::string& gfx, const std::string& kernel) {
  AMDRenderer r(arch_named(gfx));
  return plan_with_opts(last_kernel(golden_expression(kernel)).ast, r, golden_opts(kernel)).rendered;
}

std::string golden_text(const RenderedKernel& k) {
  std::ostringstream s;
  s << "/* global " << k.global[0] << "," << k.global[1] << "," << k.global[2] << " local " << k.local[0] << "," << k.local[1] << ","
    << k.local[2] << " */\n"
    << k.source;
  return s.str();
}

bool has_clang() { return find_executable("clang-15").has_value() && find_executable("llvm-objdump-15").has_value(); }

// The ISA listing of a rendered AMD kernel (its first listing), failing the test where it has none.
MachineListing isa_of(const RenderedKernel& k) {
  MachineCode mc = machine_code(k.device, k.name, k.source);
  if (mc.listings.empty()) throw Error(cat(k.name, ": no listing: ", mc.missing.empty() ? "" : mc.missing[0]));
  return mc.listings[0];
}

bool listing_has(const MachineListing& l, const std::string& what) {
  for (const std::string& line : l.lines)
    if (line.find(what) != std::string::npos) return true;
  return false;
}

} // namespace

class TestRenderAmd : public QObject {
  Q_OBJECT
private slots:
  void golden_data() {
    QTest::addColumn<QString>("gfx");
    QTest::addColumn<QString>("kernel");
    for (const char* g : {"gfx1100", "gfx942"})
      for (const char* k : {"elementwise", "reduce", "matmul", "tc_matmul_half", "tc_matmul_bf16"}) QTest::newRow((std::string(g) + " " + k).c_str()) << g << k;
  }

  void golden() {
    QFETCH(QString, gfx);
    QFETCH(QString, kernel);
    std::string g = gfx.toStdString(), k = kernel.toStdString();
    std::string got = golden_text(render_golden(g, k));
    std::string path = qEnvironmentVariable("LOUPE_SOURCE_DIR").toStdString() + "/tests/golden/amd/" + g + "_" + k + ".c";
    if (qEnvironmentVariableIntValue("LOUPE_UPDATE_GOLDEN")) {
      std::ofstream(path) << got;
      QSKIP("golden file updated");
    }
    std::string want = read_file(path);
    if (got != want) qWarning().noquote() << QString::fromStdString("golden mismatch for " + path + ", actual:\n" + got);
    QVERIFY(got == want);
  }

  // The golden kernels compiled for their arch: a code object whose listing has what the kernel needs.
  void goldens_assemble_data() { golden_data(); }
  void goldens_assemble() {
    if (!has_clang()) QSKIP("clang-15 and llvm-objdump-15 are not installed");
    QFETCH(QString, gfx);
    QFETCH(QString, kernel);
    RenderedKernel k = render_golden(gfx.toStdString(), kernel.toStdString());
    MachineListing l = isa_of(k);
    QVERIFY2(l.instruction_count() > 10, l.title.c_str());
    QVERIFY(l.linked());
    QVERIFY(l.title.find(arch_named(gfx.toStdString()).family) != std::string::npos);
    QVERIFY(listing_has(l, "s_endpgm"));
    QVERIFY(listing_has(l, "global_load"));
    QVERIFY(listing_has(l, "global_store"));
    if (kernel.startsWith("tc_")) {  // the matrix unit's instruction, under the line that calls its helper
      const bool bf16 = kernel.endsWith("bf16"), rdna = gfx == "gfx1100";
      const std::string want = rdna ? (bf16 ? "v_wmma_f32_16x16x16_bf16" : "v_wmma_f32_16x16x16_f16")
                                    : (bf16 ? "v_mfma_f32_16x16x16_bf16" : "v_mfma_f32_16x16x16f16");
      QVERIFY2(listing_has(l, want), want.c_str());
      QVERIFY(k.source.find(rdna ? "__builtin_amdgcn_wmma_f32_16x16x16" : "__builtin_amdgcn_mfma_f32_16x16x16") != std::string::npos);
    }
    if (kernel == "reduce") {  // the GROUPTOP's partials through LDS: writes, a barrier, reads
      const bool rdna = gfx == "gfx1100";
      QVERIFY(listing_has(l, rdna ? "ds_store_b" : "ds_write_b"));
      QVERIFY(listing_has(l, rdna ? "ds_load" : "ds_read"));
      QVERIFY(listing_has(l, "s_barrier"));
      // the barrier row is linked to the source line that has the barrier
      std::vector<std::string> src = split_lines(k.source);
      bool linked_barrier = false;
      for (size_t i = 0; i < l.lines.size(); i++)
        if (l.lines[i].find("s_barrier") != std::string::npos && l.source_lines[i] > 0)
          linked_barrier = linked_barrier || src.at(size_t(l.source_lines[i]) - 1).find("s_barrier") != std::string::npos;
      QVERIFY(linked_barrier);
    }
  }

  // NOLOCALS: the global id from the group id, the group's size in the HSA dispatch packet and the item id.
  void nolocals_kernel_assembles() {
    if (!has_clang()) QSKIP("clang-15 and llvm-objdump-15 are not installed");
    RenderedKernel k = plan_with_opts(last_kernel(golden_expression("elementwise")).ast, AMDRenderer(), {{OptOp::NOLOCALS, 0, 0}}).rendered;
    QVERIFY2(k.source.find("__builtin_amdgcn_dispatch_ptr()") != std::string::npos, k.source.c_str());
    MachineListing l = isa_of(k);
    QVERIFY(listing_has(l, "global_store"));
  }

  void spellings() {
    RenderedKernel r = render_golden("gfx1100", "reduce");
    QCOMPARE(r.device, std::string("AMD:gfx1100"));
    QVERIFY(r.source.find("__attribute__((amdgpu_kernel)) void r_") != std::string::npos);
    QVERIFY(r.source.find("static __attribute__((address_space(3), loader_uninitialized, aligned(16))) float temp") != std::string::npos);
    QVERIFY(r.source.find("__builtin_amdgcn_s_barrier()") != std::string::npos);
    QVERIFY(r.source.find("__builtin_amdgcn_workitem_id_x()") != std::string::npos);
    AMDRenderer cdna(amd_cdna3());
    QCOMPARE(cdna.caps().matrix_unit, MatrixUnit::mfma_16x16x16_w64);
    QCOMPARE(AMDRenderer().caps().matrix_unit, MatrixUnit::wmma_16x16x16_w32);
    QCOMPARE(cdna.caps().shared_max, int64_t(65536));
    QVERIFY(!cdna.caps().warp_shuffle && !cdna.caps().async_copy);
  }

  // Each arch's matrix helper (what a WMMA op calls) compiles to its matrix instruction, for half and
  // bfloat16 inputs.
  void matrix_helpers_assemble() {
    if (!has_clang()) QSKIP("clang-15 and llvm-objdump-15 are not installed");
    for (const AmdArch* arch : {&amd_rdna3(), &amd_cdna3()})
      for (DType in : {dtypes::float16, dtypes::bfloat16}) {
        AMDRenderer r(*arch);
        const MatrixUnitShape& t = matrix_unit_shape(arch->matrix_unit);
        const DType out = dtypes::float32.vec(t.c);
        CHelper h = r.helper("wmma_" + matrix_op_kind(arch->matrix_unit, in), in);
        std::string src;
        for (const std::string& line : r.type_preamble({in, out})) src += line + "\n";
        std::string args;
        for (int i = 0; i < t.a + t.b; i++) args += cat("a[l*", t.a + t.b, "+", i, "], ");
        for (int i = 0; i < t.c; i++) args += cat("0.0f", i + 1 < t.c ? ", " : "");
        src += h.code + "\n__attribute__((amdgpu_kernel)) void k(float* restrict o, const " + r.type_name(in) + "* restrict a) {\n" +
               "  int l = (int)__builtin_amdgcn_workitem_id_x();\n  " + r.type_name(out) + " d = " + h.name + "(" + args + ");\n";
        for (int i = 0; i < t.c; i++) src += cat("  o[l*", t.c, "+", i, "] = d[", i, "];\n");
        src += "}\n";
        const bool bf16 = in == dtypes::bfloat16, wmma = arch->matrix_unit == MatrixUnit::wmma_16x16x16_w32;
        const std::string want = wmma ? (bf16 ? "v_wmma_f32_16x16x16_bf16" : "v_wmma_f32_16x16x16_f16")
                                      : (bf16 ? "v_mfma_f32_16x16x16_bf16" : "v_mfma_f32_16x16x16f16");  // gfx940's name of bf16_1k
        MachineCode mc = machine_code(arch->target, "k", src);
        QVERIFY2(!mc.listings.empty() && listing_has(mc.listings[0], want), (want + " not in the listing of\n" + src).c_str());
      }
  }

  void target_names() {
    QCOMPARE(amd_arch_of_target("AMD")->gfx, std::string("gfx1100"));
    QCOMPARE(matrix_unit_shape(amd_arch_of_target("AMD:gfx1100")->matrix_unit).lanes, 32);  // wave32
    QCOMPARE(amd_arch_of_target("AMD:gfx942")->mcpu, std::string("gfx940"));
    QCOMPARE(amd_cdna3().title(), std::string("AMD CDNA3 (gfx942, as gfx940)"));
    QVERIFY(!amd_arch_of_target("CUDA"));
    try {
      amd_arch_of_target("AMD:gfx90a");
      QFAIL("an unknown AMD arch was taken");
    } catch (const Error& e) {
      QVERIFY(std::string(e.what()).find("AMD:gfx942") != std::string::npos);
    }
    // the interpreter plans for them too
    QCOMPARE(renderer_of_target("AMD:gfx942")->caps().matrix_unit, MatrixUnit::mfma_16x16x16_w64);
    QCOMPARE(InterpRenderer("AMD").caps().local_max[0], int64_t(1024));
    QVERIFY_THROWS_EXCEPTION(Error, renderer_of_target("AMD:gfx1"));
  }

  // llvm-objdump's AMDGPU rows (encoding comments, no address column) become the listing's rows, under
  // the source lines of the kernel's file only.
  void parses_amdgpu_objdump() {
    const std::string text =
        "\nk.co:\tfile format elf64-amdgpu\n\nDisassembly of section .text:\n\n0000000000001600 <E_4>:\n; E_4():\n"
        "\ts_load_b64 s[2:3], s[0:1], 0x8                             // 000000001604: F4040080 F8000008\n"
        "; /tmp/x/kernel.c:11\n"
        "\tv_lshl_add_u32 v1, s15, 6, v0                              // 000000001614: D6460001 04010C0F\n"
        "; /usr/include/other.h:3\n"
        "\ts_endpgm                                                   // 000000001700: BFB00000\n";
    MachineListing l;
    l.kind = "asm";
    parse_amdgpu_objdump(text, "kernel.c", l);
    QCOMPARE(l.lines.size(), size_t(4));
    QCOMPARE(l.lines[0], std::string("<E_4>:"));
    QCOMPARE(l.lines[1], std::string("1604:  s_load_b64 s[2:3], s[0:1], 0x8"));
    QCOMPARE(l.lines[2], std::string("1614:  v_lshl_add_u32 v1, s15, 6, v0"));
    QCOMPARE(l.lines[3], std::string("1700:  s_endpgm"));
    QCOMPARE(l.source_lines, (std::vector<int>{0, 0, 11, 0}));
    QCOMPARE(l.instruction_count(), size_t(3));
  }

  void unknown_arch_is_named() {
    try {
      machine_code("AMD:gfx90a", "E_1", "void E_1() {}");
      QFAIL("an unknown AMD arch was compiled");
    } catch (const Error& e) {
      QVERIFY(std::string(e.what()).find("unknown AMD target 'AMD:gfx90a'") != std::string::npos);
    }
  }

  // Every bench workload's kernels as the heuristics plan them for each arch, compiled into code objects.
  void bench_workloads_assemble() {
    if (!has_clang()) QSKIP("clang-15 and llvm-objdump-15 are not installed");
    std::string failures;
    for (const AmdArch* arch : {&amd_rdna3(), &amd_cdna3()}) {
      AMDRenderer r(*arch);
      int total = 0, assembled = 0;
      for (const bench::Workload& w : bench::workloads()) {
        std::vector<Tensor> outs = w.prepare()();
        UOpList roots;
        for (const Tensor& t : outs) roots.push_back(t.uop());
        Schedule s = create_schedule(roots, device_schedule_options());
        for (const ScheduleItem& item : s.items) {
          if (item.ast->op != Ops::SINK) continue;  // copies and views are no kernels
          total++;
          try {
            if (isa_of(plan_kernel(item.ast, r, false).rendered).instruction_count() > 0) assembled++;
          } catch (const std::exception& e) {
            failures += cat("\n  ", arch->gfx, " ", w.name, ": ", std::string(e.what()).substr(0, 600));
          }
        }
      }
      qInfo().noquote() << QString::fromStdString(cat(arch->gfx, " (as ", arch->mcpu, "): ", assembled, " of ", total, " kernels assemble"));
      QVERIFY(total > 0);
    }
    QVERIFY2(failures.empty(), failures.c_str());
  }
};

QTEST_GUILESS_MAIN(TestRenderAmd)
#include "tst_render_amd.moc"
