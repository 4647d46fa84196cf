// What the machine ran (issue 23): the listings' parsers on each tool's real output format, and on real
// traces, a CPU kernel's machine code whose every instruction is linked to a line of its source (the
// store line has the store, the loop line its compare), the LLVM device's optimized IR and machine code,
// and the reasons given where a listing cannot be made.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/recorded_tool_output.h"

#include "engine/cli_process.h"
#include "inspect/machine_code.h"
#include "runtime/device.h"
#include "support/error.h"

using namespace loupe;
using namespace loupe::testing;

namespace {

const char* kProgram = "a = (Tensor.arange(64 * 64).reshape(64, 64).cast(dtypes.float32) / 4096).realize()\n"
                       "b = (a @ a.T).relu().realize()\n"
                       "out = (b.sum(axis=1) + 1).realize().numpy()\n";

QString record(const QTemporaryDir& dir, const QString& name, const QByteArray& device) {
  const QString script = write_script(dir.path(), name + ".py", kProgram);
  const QString trace = dir.filePath(name + ".loupe");
  qputenv("DEVICE", device);
  auto r = run_cli({"run", script, "--trace", trace, "--compare-noopt"});
  qunsetenv("DEVICE");
  if (r.code != 0) qWarning() << r.err;
  return r.code == 0 ? trace : QString();
}

QJsonObject disasm(const QString& trace, const QString& kernel, bool noopt = false) {
  QStringList args{"trace", trace, "--disasm", kernel, "--json"};
  if (noopt) args << "--noopt";
  auto r = run_cli(args);
  if (r.code != 0) qWarning() << r.err;
  return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

QStringList kernelNames(const QString& trace) {
  auto r = run_cli({"trace", trace, "--profile", "--json"});
  QStringList names;
  for (const QJsonValue& e : QJsonDocument::fromJson(r.out.toUtf8()).object().value("events").toArray())
    if (e.toObject().value("kind").toString() == "kernel" && !names.contains(e.toObject().value("name").toString()))
      names << e.toObject().value("name").toString();
  return names;
}

QString kernelSource(const QString& trace, const QString& kernel, const QString& variant) {
  auto r = run_cli({"trace", trace, "--kernel", kernel, "--json"});
  QJsonArray ks = QJsonDocument::fromJson(r.out.toUtf8()).array();
  for (const QJsonValue& s : ks.at(0).toObject().value("sources").toArray())
    if (s.toObject().value("variant").toString() == variant) return s.toObject().value("source").toString();
  return {};
}

} // namespace

class TestMachineCode : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString cpuTrace_;

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    cpuTrace_ = record(dir_, "cpu", "CPU");
    QVERIFY(!cpuTrace_.isEmpty());
  }

  void llvmObjdumpLinksInstructionsToTheirLines() {
    const std::string text =
        "\nk.so:\tfile format elf64-x86-64\n\nDisassembly of section .text:\n\n"
        "0000000000001100 <E_4>:\n; E_4():\n; /tmp/x/E_4.c:3\n    1100:      \tvmovups\t(%rsi), %ymm0\n"
        "; /tmp/x/E_4.c:4\n    1104:      \tvfmadd213ps\t%ymm1, %ymm0, %ymm0\n    1109:      \tvmovups\t%ymm0, (%rdi)\n"
        "; /usr/include/math.h:40\n    110d:      \tvsqrtps\t%ymm0, %ymm0\n; /tmp/x/E_4.c:6\n    1111:      \tretq\n";
    MachineListing l;
    l.kind = "asm";
    parse_objdump(text, "E_4.c", l);
    QCOMPARE(int(l.lines.size()), 6);
    QCOMPARE(QString::fromStdString(l.lines[0]), QStringLiteral("<E_4>:"));
    QCOMPARE(QString::fromStdString(l.lines[1]), QStringLiteral("1100:  vmovups (%rsi), %ymm0"));
    QCOMPARE(l.source_lines, (std::vector<int>{0, 3, 4, 4, 0, 6}));  // math.h is another file: no link
    QCOMPARE(l.instruction_count(), size_t(5));
    QCOMPARE(l.lines_of(4), (std::vector<int>{2, 3}));
    QVERIFY(l.linked());
  }

  void gnuObjdumpMarkersToo() {
    const std::string text = "Disassembly of section .text:\n\n0000000000001100 <E_4>:\nE_4():\n/tmp/E_4.c:7\n"
                             "    1100:\tmov    (%rsi),%eax\n/tmp/E_4.c:8 (discriminator 2)\n    1102:\tret    \n";
    MachineListing l;
    l.kind = "asm";
    parse_objdump(text, "/elsewhere/E_4.c", l);
    QCOMPARE(l.source_lines, (std::vector<int>{0, 7, 8}));
    QCOMPARE(QString::fromStdString(l.lines[1]), QStringLiteral("1100:  mov    (%rsi),%eax"));
  }

  void ptxLocDirectivesLinkTheInstructionsAfterThem() {
    const std::string text = ".version 8.0\n.target sm_90\n.visible .entry E_8(\n\t.param .u64 E_8_param_0\n)\n{\n"
                             "\t.reg .f32 \t%f<3>;\n\t.loc\t1 4 3\n\tld.param.u64 \t%rd1, [E_8_param_0];\n"
                             "\t.loc\t2 10 1\n\tmov.u32 \t%r1, %tid.x;\n\t.loc\t1 5 7\n\tst.global.f32 \t[%rd1], %f1;\n\tret;\n}\n"
                             "\t.file\t1 \"/tmp/E_8.cu\"\n\t.file\t2 \"/usr/include/cuda_fp16.hpp\"\n"
                             "\t.section\t.debug_str\n\t{\n$L__info_string0:\n}\n";
    MachineListing l;
    l.kind = "ptx";
    parse_ptx(text, "E_8.cu", l);
    // .file comes after the code in NVRTC's PTX: links are resolved against the whole text
    std::vector<int> lines;
    for (size_t i = 0; i < l.lines.size(); i++)
      if (l.source_lines[i]) lines.push_back(l.source_lines[i]);
    QCOMPARE(lines, (std::vector<int>{4, 5, 5}));
    QCOMPARE(l.instruction_count(), size_t(4));
    for (const std::string& s : l.lines) QVERIFY2(s.find(".loc") == std::string::npos && s.find("debug") == std::string::npos, s.c_str());
  }

  void nvdisasmLineInfoComments() {
    const std::string& text = loupe::testing::kNvdisasmE8;
    MachineListing l;
    l.kind = "sass";
    parse_nvdisasm(text, "E_8.cu", l);
    QCOMPARE(l.source_lines, (std::vector<int>{0, 4, 6, 7}));
    QCOMPARE(l.instruction_count(), size_t(3));
  }

  void kernelFunctionNames_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("name");
    QTest::newRow("C") << "#include <math.h>\nvoid r_16_16(float* restrict data0) {\n}" << "r_16_16";
    QTest::newRow("LLVM, helper first") << "define internal float @loupe_exp2(float %x) {\n}\ndefine void @E_4(ptr %d) {\n}" << "E_4";
    QTest::newRow("CUDA") << "extern \"C\" __global__ void __launch_bounds__(256) E_8_32(float* data0) {\n}" << "E_8_32";
    QTest::newRow("OpenCL") << "__kernel void r_4(__global float* data0) {\n}" << "r_4";
    QTest::newRow("none") << "int x;" << "fallback";
  }
  void kernelFunctionNames() {
    QFETCH(QString, source);
    QFETCH(QString, name);
    QCOMPARE(QString::fromStdString(kernel_function_name(source.toStdString(), "fallback")), name);
  }

  void cpuKernelsOfARealTraceAreLinkedLineByLine() {
    const QStringList names = kernelNames(cpuTrace_);
    QVERIFY2(names.size() >= 3, qPrintable(names.join(", ")));
    int storesFound = 0;
    for (const QString& name : names) {
      const QJsonObject o = disasm(cpuTrace_, name);
      const QJsonArray listings = o.value("listings").toArray();
      QCOMPARE(listings.size(), 1);
      const QJsonObject asmL = listings.at(0).toObject();
      QCOMPARE(asmL.value("kind").toString(), QStringLiteral("asm"));
      QVERIFY(asmL.value("how").toString().contains("-march=native"));
      const QStringList source = kernelSource(cpuTrace_, name, "opt").split('\n');
      int instructions = 0, linked = 0;
      QMap<int, QStringList> byLine;
      for (const QJsonValue& v : asmL.value("lines").toArray()) {
        const QJsonObject row = v.toObject();
        const QString text = row.value("text").toString();
        if (!QRegularExpression("^[0-9a-f]+:  ").match(text).hasMatch()) continue;
        instructions++;
        const int line = row.value("source_line").toInt();
        if (line == 0) continue;
        linked++;
        QVERIFY2(line >= 1 && line <= source.size(), qPrintable(QString("%1: line %2 of %3").arg(name).arg(line).arg(source.size())));
        byLine[line] << text;
      }
      QCOMPARE(asmL.value("instructions").toInt(), instructions);
      QVERIFY2(instructions > 3, qPrintable(name));
      // clang gives nearly every instruction a line (a few prologue/padding ones may have none)
      QVERIFY2(linked * 10 >= instructions * 9, qPrintable(QString("%1: %2 of %3 linked").arg(name).arg(linked).arg(instructions)));
      // the line that stores the output has a store to memory (AT&T: the destination is last)
      for (int i = 0; i < source.size(); i++) {
        // a scalar store *(data0+i) = ..., a vector store *((float8*)((data0+i))) = ..., or data0[i] = ...
        const QString line = source[i].trimmed();
        if (!(line.startsWith("*(") && line.contains("data0+")) && !line.startsWith("data0[")) continue;
        if (!source[i].contains('=')) continue;
        for (const QString& ins : byLine.value(i + 1))
          if (ins.contains("mov") && ins.trimmed().endsWith(')')) {
            storesFound++;
            break;
          }
      }
    }
    QVERIFY2(storesFound >= int(names.size()) - 1, qPrintable(QString("stores found on %1 kernels").arg(storesFound)));
  }

  void nooptSourceIsCompiledUnderItsOwnName() {
    const QStringList names = kernelNames(cpuTrace_);
    bool sawRenamed = false;
    for (const QString& name : names) {
      const QString noopt = kernelSource(cpuTrace_, name, "noopt");
      const QString fn = QString::fromStdString(kernel_function_name(noopt.toStdString(), ""));
      const QJsonObject o = disasm(cpuTrace_, name, true);
      QCOMPARE(o.value("variant").toString(), QStringLiteral("noopt"));
      const QJsonArray rows = o.value("listings").toArray().at(0).toObject().value("lines").toArray();
      QVERIFY(!rows.isEmpty());
      QCOMPARE(rows.at(0).toObject().value("text").toString(), QStringLiteral("<%1>:").arg(fn));
      sawRenamed |= fn != name;
    }
    QVERIFY2(sawRenamed, "a NOOPT kernel named after its own shape");
  }

  void llvmDeviceShowsOptimizedIrAndMachineCode() {
    if (!device_status("LLVM").available) QSKIP("no LLVM device in this build");
    const QString trace = record(dir_, "llvm", "LLVM");
    QVERIFY(!trace.isEmpty());
    const QString name = kernelNames(trace).value(0);
    const QJsonObject o = disasm(trace, name);
    const QJsonArray ls = o.value("listings").toArray();
    QCOMPARE(ls.size(), 2);
    QCOMPARE(ls.at(0).toObject().value("kind").toString(), QStringLiteral("llvm-ir"));
    bool defines = false;
    for (const QJsonValue& v : ls.at(0).toObject().value("lines").toArray())
      defines |= v.toObject().value("text").toString().startsWith(QStringLiteral("define void @%1(").arg(name));
    QVERIFY(defines);
    QCOMPARE(ls.at(1).toObject().value("kind").toString(), QStringLiteral("asm"));
    QVERIFY(ls.at(1).toObject().value("instructions").toInt() > 3);
  }

  // --disasm --target: a CPU kernel planned again for each AMD GPU and compiled by clang-15 into a code
  // object; its ISA rows linked to the lines of the source planned for it (which --json does not give,
  // so the rows' lines are checked against the listing's own range). An unknown arch is named.
  void amdTargetsOfACpuKernel() {
    if (QStandardPaths::findExecutable("clang-15").isEmpty() || QStandardPaths::findExecutable("llvm-objdump-15").isEmpty())
      QSKIP("clang-15 and llvm-objdump-15 are not installed");
    QVERIFY(!cpuTrace_.isEmpty());
    QString matmul;
    for (const QString& n : kernelNames(cpuTrace_))
      if (n.startsWith("r_") && matmul.isEmpty()) matmul = n;
    QVERIFY(!matmul.isEmpty());
    for (const char* target : {"AMD:gfx1100", "amd:GFX942"}) {
      auto r = run_cli({"trace", cpuTrace_, "--disasm", matmul, "--target", target, "--json"});
      QVERIFY2(r.code == 0, qPrintable(r.err));
      QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
      const bool rdna = QByteArray(target).contains("1100");
      QCOMPARE(o.value("backend").toString(), rdna ? QStringLiteral("AMD:gfx1100") : QStringLiteral("AMD:gfx942"));
      QVERIFY(o.value("variant").toString().contains(rdna ? "for AMD:gfx1100" : "for AMD:gfx942"));
      QJsonObject l = o.value("listings").toArray().at(0).toObject();
      QCOMPARE(l.value("title").toString(), rdna ? QStringLiteral("AMD RDNA3 (gfx1100) ISA") : QStringLiteral("AMD CDNA3 (gfx942, as gfx940) ISA"));
      QVERIFY(l.value("how").toString().contains(rdna ? "-mcpu=gfx1100" : "-mcpu=gfx940"));
      QVERIFY(l.value("instructions").toInt() > 20);
      int linked = 0;
      bool endpgm = false;
      for (const QJsonValue& row : l.value("lines").toArray()) {
        linked += row.toObject().contains("source_line");
        endpgm = endpgm || row.toObject().value("text").toString().contains("s_endpgm");
      }
      QVERIFY(linked > 10);
      QVERIFY(endpgm);
    }
    auto bad = run_cli({"trace", cpuTrace_, "--disasm", matmul, "--target", "AMD:gfx90a"});
    QVERIFY(bad.code != 0);
    QVERIFY2(bad.err.contains("unknown AMD target 'AMD:gfx90a'") && bad.err.contains("AMD:gfx942"), qPrintable(bad.err));
  }

  void listingsThatCannotBeMadeSayWhy() {
    MachineCode ocl = machine_code("OPENCL", "E_4", "__kernel void E_4(__global float* d) { d[0] = 1.0f; }");
    QVERIFY(ocl.listings.empty());
    QCOMPARE(int(ocl.missing.size()), 1);
    QVERIFY(QString::fromStdString(ocl.missing[0]).contains("driver"));
    if (!device_status("CUDA").available) {
      MachineCode cuda = machine_code("CUDA:1", "E_4", "extern \"C\" __global__ void E_4(float* d) {}");
      QCOMPARE(int(cuda.missing.size()), 1);
      QVERIFY2(QString::fromStdString(cuda.missing[0]).contains("CUDA is not available here"), cuda.missing[0].c_str());
    }
    try {
      machine_code("CPU", "E_bad", "void E_bad(float* d) { d[0] = undefined_thing; }");
      QFAIL("a source that does not compile must raise");
    } catch (const Error& e) {
      const QString msg = e.what();
      QVERIFY2(msg.contains("compiling kernel E_bad") && msg.contains("undefined_thing"), qPrintable(msg));
    }
    auto r = run_cli({"trace", cpuTrace_, "--disasm", "no_such_kernel"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("no kernel 'no_such_kernel'"), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestMachineCode)
#include "tst_machine_code.moc"
