// Hot spots (issue 47): samples named by function and offset, laid over a disassembly made later; the
// trace round trip; what a machine without PMU counters shows; and, where perf_event_open works here, a
// real CPU matmul sampled end to end, its samples matching the machine code compiled again from its source.
#include <QTemporaryDir>
#include <QtTest>

#include "engine/recorded_tool_output.h"

#include "exec/kernel_sampling.h"
#include "inspect/hotspot_annotation.h"
#include "inspect/hotspot_report.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/device.h"
#include "runtime/llvm/llvm_device.h"
#include "runtime/profile/hotspot_sampler.h"
#include "runtime/profile/sample_attribution.h"
#include "support/elf_symbols.h"
#include "support/error.h"
#include "support/options.h"
#include "tensor/tensor.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"
#include "tst_render_kernels.h"

using namespace loupe;

namespace {

// A disassembly as inspect/machine_code.h makes one: the kernel's function at 0x1100, the shim after it.
MachineListing synthetic_listing() {
  MachineListing l;
  l.kind = "asm";
  auto row = [&](const char* text, int line) {
    l.lines.push_back(text);
    l.source_lines.push_back(line);
  };
  row("<k>:", 0);           // row 0
  row("1100:  pushq   %rbp", 2);  // +0x0
  row("1101:  movl    %esi, %eax", 3);  // +0x1
  row("1104:  vfmadd231ps %zmm1, %zmm2, %zmm3", 5);  // +0x4
  row("110a:  cmpl    %edx, %eax", 3);  // +0xa
  row("110c:  jl      0x1104 <k+0x4>", 3);  // +0xc
  row("", 0);
  row("<loupe_entry>:", 0);
  row("1120:  jmpq    *%rax", 0);
  return l;
}

KernelSamples synthetic_samples() {
  KernelSamples s;
  s.clock = "cpu-clock";
  s.period = 100000;
  s.runs = 2;
  s.in_code = {{{"k", 0x4}, 50}, {{"k", 0xa}, 20}, {{"k", 0xc}, 10}, {{"k", 0x1}, 5}, {{"loupe_entry", 0}, 3}};
  s.outside = {{"pthread_cond_wait", 8}, {"?", 4}};
  s.function_sizes = {{"k", 0x12}, {"loupe_entry", 8}};
  return s;
}

} // namespace

class TestHotspots : public QObject {
  Q_OBJECT
private slots:
  // Offsets land on the listing's instructions; lines sum their instructions' samples; the shim and the
  // rest are counted apart; shares are of every sample.
  void samplesAreAttributedToInstructionsAndLinesExactly() {
    HotspotAnnotation a = annotate_hotspots(synthetic_listing(), "k", synthetic_samples());
    QVERIFY2(a.matches, a.mismatch.c_str());
    QCOMPARE(a.total, int64_t(100));
    QCOMPARE(a.in_function, int64_t(85));
    QCOMPARE(a.attributed, int64_t(85));
    QCOMPARE(a.in_entry, int64_t(3));
    const std::vector<int64_t> rows = {0, 0, 5, 50, 20, 10, 0, 0, 0};
    QCOMPARE(a.row_samples, rows);
    const std::map<int, int64_t> lines = {{3, 35}, {5, 50}};
    QCOMPARE(a.line_samples, lines);
    QCOMPARE(a.hottest_line(), 5);
    QCOMPARE(a.hottest_rows(2), (std::vector<size_t>{3, 4}));
    QCOMPARE(a.outside.front().first, std::string("pthread_cond_wait"));
    QCOMPARE(a.share(a.line_samples.at(5)), 0.5);
  }

  // A listing of other code (a sampled offset inside an instruction, or a longer function) attributes
  // nothing rather than something wrong, and says why.
  void codeThatDiffersFromWhatRanIsRefused() {
    KernelSamples s = synthetic_samples();
    s.in_code[{"k", 0x5}] = 1;  // inside the 6-byte FMA at +0x4
    HotspotAnnotation a = annotate_hotspots(synthetic_listing(), "k", s);
    QVERIFY(!a.matches);
    QVERIFY2(a.mismatch.find("not instructions of the code compiled here") != std::string::npos, a.mismatch.c_str());
    QVERIFY(a.line_samples.empty());
    QCOMPARE(a.attributed, int64_t(0));

    KernelSamples shorter = synthetic_samples();
    shorter.function_sizes["k"] = 0x8;  // ran as 8 bytes: the listing's +0xa and +0xc cannot be it
    shorter.in_code = {{{"k", 0x4}, 1}};
    HotspotAnnotation b = annotate_hotspots(synthetic_listing(), "k", shorter);
    QVERIFY(!b.matches);
    QVERIFY2(b.mismatch.find("8 bytes") != std::string::npos, b.mismatch.c_str());
  }

  // A CUDA kernel's PC samples are (function, offset) too: laid over nvdisasm's listing with line info
  // (the recorded format of `nvdisasm -g -c`), an inlined helper's instruction counts on the kernel's line.
  void sassSamplesAreAttributedThroughNvdisasmLineInfo() {
    const std::string& text = loupe::testing::kNvdisasmE8;
    MachineListing l;
    l.kind = "sass";
    parse_nvdisasm(text, "E_8.cu", l);
    KernelSamples s;
    s.in_code = {{{"E_8", 0x0}, 1}, {{"E_8", 0x10}, 6}, {{"E_8", 0x20}, 3}};
    HotspotAnnotation a = annotate_hotspots(l, "E_8", s);
    QVERIFY2(a.matches, a.mismatch.c_str());
    QCOMPARE(a.line_samples, (std::map<int, int64_t>{{4, 1}, {6, 6}, {7, 3}}));
    QCOMPARE(a.hottest_line(), 6);
    s.in_code[{"E_8", 0x18}] = 1;  // SASS instructions are 16 bytes: not one of them
    QVERIFY(!annotate_hotspots(l, "E_8", s).matches);
  }

  // Instruction pointers are named by the function holding them, as offsets; the rest by symbol.
  void rawSamplesAreNamedByFunctionAndOffset() {
    CodeMap code({{"loupe_entry", 0x7000, 0x20}, {"k", 0x5000, 0x100}});
    QCOMPARE(code.find(0x50ff)->name, std::string("k"));
    QVERIFY(code.find(0x5100) == nullptr);
    QVERIFY(code.find(0x4fff) == nullptr);
    RawSamples raw;
    raw.ips = {0x5004, 0x5004, 0x50ff, 0x7000, 0x1};
    raw.lost = 3;
    KernelSamples s = attribute_samples(raw, code, "cycles", 250007);
    QCOMPARE(s.in_code.size(), size_t(3));
    QCOMPARE((s.in_code[{"k", 4}]), int64_t(2));
    QCOMPARE((s.in_code[{"k", 0xff}]), int64_t(1));
    QCOMPARE((s.in_code[{"loupe_entry", 0}]), int64_t(1));
    QCOMPARE(s.outside.size(), size_t(1));
    QCOMPARE(s.total(), int64_t(5));
    QCOMPARE(s.lost, int64_t(3));
    QCOMPARE(s.function_sizes.at("k"), int64_t(0x100));
  }

  // Runs add up in the trace, counters included (a counter stays unknown while no run counted it).
  void samplesSurviveTheTraceRoundTrip() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("s.loupe").toStdString();
    KernelSamples first = synthetic_samples(), second = synthetic_samples();
    second.counters.cycles = 1000;
    second.counters.instructions = 2500;
    {
      TraceWriter w(path);
      KernelRecord k;
      k.name = "k";
      k.device = "CPU";
      const int64_t id = w.record_kernel(k);
      w.record_kernel_samples(id, first);
      w.record_kernel_samples(id, second);
      w.record_kernel(KernelRecord{});  // a kernel without samples
    }
    TraceReader r(path);
    QCOMPARE(r.sampled_kernels(), std::vector<int64_t>{1});
    QVERIFY(!r.kernel_samples(2));
    std::optional<KernelSamples> s = r.kernel_samples(1);
    QVERIFY(s);
    KernelSamples both = first;
    both += second;
    QCOMPARE(s->runs, int64_t(4));
    QCOMPARE(s->in_code, both.in_code);
    QCOMPARE(s->outside, both.outside);
    QCOMPARE(s->function_sizes, both.function_sizes);
    QCOMPARE(s->counters.cycles, std::optional<int64_t>(1000));
    QCOMPARE(s->counters.instructions, std::optional<int64_t>(2500));
    QVERIFY(!s->counters.cache_misses);
    QCOMPARE(s->clock, std::string("cpu-clock"));
    QCOMPARE(s->period, int64_t(100000));
  }

  // A machine whose PMU counts nothing says so; one that counts some shows what it has, and IPC.
  void unavailableCountersAreSaidToBeUnavailable() {
    QVERIFY(describe_counters(PmuCounters{}).find("counters not available") != std::string::npos);
    PmuCounters some;
    some.cycles = 2000;
    some.instructions = 3000;
    const std::string text = describe_counters(some);
    QVERIFY2(text.find("IPC 1.50") != std::string::npos, text.c_str());
    QVERIFY2(text.find("cache misses not available") != std::string::npos, text.c_str());
    KernelHotspotReport r;
    r.kernel = r.function = "k";
    r.device = "CPU";
    r.samples = synthetic_samples();
    r.annotation = annotate_hotspots(synthetic_listing(), "k", r.samples);
    r.listing = synthetic_listing();
    r.source = {"void k(float* data0) {", "  int i = 0;", "  for (;;) {", "    float x;", "    x = fmaf(x, x, x);", "}"};
    const std::string report = format_hotspot_report(r);
    QVERIFY2(report.find("counters not available") != std::string::npos, report.c_str());
    QVERIFY2(report.find("  50.00  | 5:     x = fmaf(x, x, x);") != std::string::npos, report.c_str());
    QVERIFY2(report.find("  35.00  | 3:   for (;;) {") != std::string::npos, report.c_str());
  }

  // A kernel's library names its functions with their sizes; the CPU device's code map holds both the
  // kernel and the shim that calls it (never inlined into it).
  void theCpuDeviceKnowsWhereAKernelsCodeLies() {
    auto& cpu = dynamic_cast<CpuDevice&>(get_device("CPU"));
    auto program = cpu.compile(cpu.renderer().render("E_16", loupe::test::kernel_add()));
    const CodeMap& code = program->code_map();
    const CodeSymbol* kernel = nullptr;
    const CodeSymbol* entry = nullptr;
    for (const CodeSymbol& s : code.symbols()) {
      if (s.name == "E_16") kernel = &s;
      if (s.name == "loupe_entry") entry = &s;
    }
    QVERIFY(kernel && entry);
    QVERIFY(kernel->size > 0 && entry->size > 0);
    QCOMPARE(code.find(kernel->address + kernel->size - 1), kernel);
    QCOMPARE(code.find(entry->address), entry);
    // not sampled while HOTSPOTS is off
    Tensor a = Tensor::rand({64, 64}).realize();
    (a * 2 + 1).realize();
    QVERIFY(take_sampled_kernels().empty());
  }

  // A truncated or foreign file is an error that names it, never a wild read.
  void badElfImagesAreRefused() {
    QVERIFY_THROWS_EXCEPTION(Error, elf_functions("not an elf", "x.so"));
    std::string header(64, '\0');
    header.replace(0, 4, "\x7f" "ELF");
    header[4] = 2, header[5] = 1;  // 64-bit little-endian
    header[58] = 64;               // e_shentsize
    header[60] = 3;                // 3 section headers ...
    header[40] = char(0xf0);       // ... at byte 240: past the end
    try {
      elf_functions(header, "cut.so");
      QFAIL("a section table past the end was read");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("cut.so") != std::string::npos, e.what());
    }
  }

  // The real thing where this machine allows it: a matmul's samples fall in its function, on
  // instructions of its code compiled again from its source, and mostly on its inner loop's lines.
  void aMatmulIsSampledEndToEnd_data() {
    QTest::addColumn<QString>("device");
    QTest::newRow("CPU") << "CPU";
    QTest::newRow("LLVM") << "LLVM";
  }
  void aMatmulIsSampledEndToEnd() {
    QFETCH(QString, device);
    if (auto why = hotspot_sampling_unavailable()) QSKIP(why->c_str());
    if (device == "LLVM" && llvm_unavailable_reason()) QSKIP(llvm_unavailable_reason()->c_str());
    struct DeviceScope {
      std::string saved = options().device;
      ~DeviceScope() { options().device = saved; }
    } scope;
    options().device = device.toStdString();
    options().hotspots = true;
    take_sampled_kernels();
    Tensor a = Tensor::rand({384, 384}).realize(), b = Tensor::rand({384, 384}).realize();
    for (int i = 0; i < 8; i++) (a.matmul(b) + 1).realize();
    options().hotspots = false;
    std::vector<SampledKernel> sampled = take_sampled_kernels();
    const SampledKernel* mm = nullptr;
    for (const SampledKernel& k : sampled)
      if (!mm || k.samples.total() > mm->samples.total()) mm = &k;
    QVERIFY(mm);
    QCOMPARE(mm->samples.runs, int64_t(8));
    QVERIFY2(mm->samples.total() >= 20, std::to_string(mm->samples.total()).c_str());
    KernelHotspotReport r = hotspot_report(mm->name, mm->device, mm->source, mm->samples);
    QVERIFY2(r.annotation.matches, (r.annotation.mismatch + "\n" + format_hotspot_report(r)).c_str());
    QVERIFY2(r.annotation.share(r.annotation.in_function) > 0.6, format_hotspot_report(r).c_str());
    const int hot = r.annotation.hottest_line();
    QCOMPARE(QString::fromStdString(mm->device), device);
    if (device == "LLVM") {  // its IR has no line info: instructions only, on a vector FMA or load mostly
      QCOMPARE(hot, 0);
      QVERIFY(!r.annotation.hottest_rows(1).empty());
      return;
    }
    QVERIFY(hot > 0);
    // the hottest line is inside the innermost loop: after the last `for (` line of the source
    int last_for = 0;
    for (size_t i = 0; i < r.source.size(); i++)
      if (r.source[i].find("for (") != std::string::npos) last_for = int(i + 1);
    QVERIFY2(hot > last_for, format_hotspot_report(r).c_str());
  }
};

QTEST_GUILESS_MAIN(TestHotspots)
#include "tst_hotspots.moc"
