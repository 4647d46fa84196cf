#include "inspect/machine_code.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/utsname.h>

#include "render/amd_renderer.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/device.h"
#include "support/compile_cache.h"
#include "support/error.h"
#include "support/isolate.h"
#include "support/private_dir.h"
#include "support/process.h"
#if LOUPE_HAVE_LLVM
#include <llvm/Config/llvm-config.h>

#include "runtime/llvm/llvm_device.h"
#endif

namespace loupe {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxToolOutput = 64u << 20;  // a fully unrolled kernel disassembles to a few MB

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

void add(MachineListing& out, std::string line, int source_line) {
  out.lines.push_back(std::move(line));
  out.source_lines.push_back(source_line);
}

// Runs a tool under the limits; its output on success, else loupe::Error naming the tool and quoting what it said.
std::string run_tool(const std::vector<std::string>& argv, const PrivateDir& dir, const std::string& what, const ProcessLimits& limits) {
  fs::path log = dir.file("tool.log");
  ProcessOutcome ran = run_process(argv, log, limits);
  std::string out = read_text_file(log, kMaxToolOutput);
  if (ran.status != 0 || ran.timed_out || ran.too_large)
    throw Error(cat(what, ": ", base_name(argv[0]), " ", ran.describe(limits), ":\n", out.substr(0, 4000)));
  return out;
}

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + base_name(a);
  return s;
}

std::string host_arch_title() {
  utsname u{};
  std::string m = uname(&u) == 0 ? u.machine : "host";
  if (m == "x86_64") m = "x86-64";
  return m + " machine code";
}

const std::vector<std::string> kObjdumps = {"llvm-objdump", "llvm-objdump-15", "objdump"};

// The disassembly of one function of an object or shared object, with line links when `source_file` is
// named by its line info.
MachineListing disassemble(const fs::path& object, const std::string& function, const std::string& source_file,
                           const PrivateDir& dir, bool with_lines, const ProcessLimits& limits) {
  auto objdump = find_first_executable(kObjdumps);
  if (!objdump) throw Error("no disassembler found (tried llvm-objdump, llvm-objdump-15, objdump): install llvm-15 or binutils");
  bool gnu = base_name(*objdump) == "objdump";
  std::vector<std::string> argv = {*objdump, "-d", "--no-show-raw-insn",
                                   gnu ? "--disassemble=" + function : "--disassemble-symbols=" + function};
  if (with_lines) argv.push_back("-l");
  argv.push_back(object.string());
  MachineListing out;
  out.kind = "asm";
  out.title = host_arch_title();
  out.how = joined(argv);
  parse_objdump(run_tool(argv, dir, "disassembling " + function, limits), source_file, out);
  return out;
}

// Every file of a listing lives in a private folder under a name made here ("kernel.c"), never under
// the kernel's name as the trace recorded it.
void cpu_listings(const std::string& name, const std::string& source, MachineCode& mc, const ProcessLimits& limits) {
  auto& cpu = dynamic_cast<CpuDevice&>(get_device("CPU"));
  PrivateDir dir("machine-code");
  const fs::path so = dir.file("kernel.so");
  // the device's own command and flags; -g adds line info and leaves the code as it is. The object is
  // only read (disassembled), never loaded.
  CpuDevice::CompileRun run = cpu.compile_file(source, name, so, {{"-g"}, dir.file("kernel.c"), limits});
  MachineListing asm_listing = disassemble(so, name, run.source_name, dir, true, limits);
  asm_listing.how = joined(run.command) + "; " + asm_listing.how;
  mc.listings.push_back(std::move(asm_listing));
}

void llvm_listings([[maybe_unused]] const std::string& name, [[maybe_unused]] const std::string& source,
                   MachineCode& mc, [[maybe_unused]] const ProcessLimits& limits) {
#if LOUPE_HAVE_LLVM
  auto& llvm = dynamic_cast<LlvmDevice&>(get_device("LLVM"));
  LlvmDevice::Compiled c = llvm.compile_for_reading(name, source, &limits);
  MachineListing ir;
  ir.kind = "llvm-ir";
  ir.title = "LLVM IR after O2";
  std::string target = llvm.target();
  ir.how = "LLVM " LLVM_VERSION_STRING " O2 pipeline for " + target.substr(0, target.find(',', target.find(',') + 1));
  for (std::string& l : split_lines(c.optimized_ir)) add(ir, std::move(l), 0);
  mc.listings.push_back(std::move(ir));
  PrivateDir dir("machine-code");
  MachineListing code = disassemble(dir.write("kernel.o", c.object), name, "", dir, false, limits);
  code.how = "LLVM " LLVM_VERSION_STRING " code generator; " + code.how;
  mc.listings.push_back(std::move(code));
#else
  mc.missing.push_back("LLVM: this build has no LLVM");
#endif
}

std::optional<std::string> find_cuda_tool(const std::string& tool) {
  if (auto p = find_executable(tool)) return p;
  for (const char* dir : {"/usr/local/cuda/bin", "/opt/cuda/bin"})
    if (auto p = find_executable(std::string(dir) + "/" + tool)) return p;
  return std::nullopt;
}

void cuda_listings(const std::string& name, const std::string& source, MachineCode& mc, const ProcessLimits& limits) {
  auto& cuda = dynamic_cast<CUDADevice&>(get_device("CUDA"));
  // NVRTC runs in a child: a source that crashes or hangs it only costs that child
  std::string ptx = run_isolated([&] { return cuda.ptx_for_reading(name, source); }, limits, cat("NVRTC compiling ", name));
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  MachineListing p;
  p.kind = "ptx";
  p.title = "PTX for " + cuda.arch();
  p.how = "NVRTC -lineinfo";
  for (const std::string& o : cuda.options()) p.how += " " + o;
  parse_ptx(ptx, name + ".cu", p);
  mc.listings.push_back(std::move(p));

  auto ptxas = find_cuda_tool("ptxas"), nvdisasm = find_cuda_tool("nvdisasm");
  if (!ptxas || !nvdisasm) {
    mc.missing.push_back(cat("SASS: ", !ptxas ? "ptxas" : "nvdisasm", " not found (on PATH or in /usr/local/cuda/bin)"));
    return;
  }
  PrivateDir dir("machine-code");
  fs::path ptx_file = dir.write("kernel.ptx", ptx), cubin = dir.file("kernel.cubin");
  std::vector<std::string> assemble = {*ptxas, "-arch=" + cuda.arch(), "-lineinfo", ptx_file.string(), "-o", cubin.string()};
  run_tool(assemble, dir, "assembling the PTX of " + name, limits);
  std::vector<std::string> dis = {*nvdisasm, "-g", "-c", cubin.string()};
  MachineListing s;
  s.kind = "sass";
  s.title = "SASS for " + cuda.arch();
  s.how = joined(assemble) + "; " + joined(dis);
  parse_nvdisasm(run_tool(dis, dir, "disassembling " + name, limits), name + ".cu", s);
  mc.listings.push_back(std::move(s));
}

// An AMD code object: the kernel source compiled by clang's amdgcn backend as C (no device library: the
// renderer uses only builtins) and linked by lld, as a GPU runtime would load it; its ISA disassembled.
void amd_listings(const AmdArch& arch, const std::string& name, const std::string& source, MachineCode& mc, const ProcessLimits& limits) {
  auto clang = find_first_executable({"clang-15", "clang"});
  if (!clang) {
    mc.missing.push_back(cat(arch.target, ": clang-15 not found: its AMDGPU backend assembles AMD code objects (install clang-15 and lld-15)"));
    return;
  }
  auto objdump = find_first_executable({"llvm-objdump-15", "llvm-objdump"});
  if (!objdump) {
    mc.missing.push_back(cat(arch.target, ": llvm-objdump-15 not found: it disassembles AMD code objects (install llvm-15)"));
    return;
  }
  PrivateDir dir("machine-code");
  fs::path c_file = dir.write("kernel.c", source), object = dir.file("kernel.co");
  std::vector<std::string> compile = amd_compile_command(*clang, arch, c_file.string(), object.string());
  run_tool(compile, dir, cat("compiling ", name, " for ", arch.mcpu), limits);
  std::vector<std::string> dis = {*objdump, "-d", "-l", "--mcpu=" + arch.mcpu, "--disassemble-symbols=" + name, object.string()};
  MachineListing l;
  l.kind = "asm";
  l.title = arch.title() + " ISA";
  l.how = joined(compile) + "; " + joined(dis);
  parse_amdgpu_objdump(run_tool(dis, dir, "disassembling " + name, limits), "kernel.c", l);
  mc.listings.push_back(std::move(l));
}

// "    1100:      \tvmovss\t3794(%rip), %xmm26" -> "1100:  vmovss  3794(%rip), %xmm26"
std::string tidy_instruction(const std::string& line) {
  size_t colon = line.find(':');
  std::string addr = trim(line.substr(0, colon)), rest = trim(line.substr(colon + 1));
  size_t tab = rest.find('\t');
  if (tab != std::string::npos) {
    std::string mnemonic = rest.substr(0, tab), operands = trim(rest.substr(tab + 1));
    if (mnemonic.size() < 7) mnemonic.resize(7, ' ');
    rest = mnemonic + " " + operands;
  }
  for (char& c : rest)
    if (c == '\t') c = ' ';
  return addr + ":  " + rest;
}

bool is_objdump_instruction(const std::string& l) {
  static const std::regex re(R"(^\s*[0-9a-f]+:\s)");
  return std::regex_search(l, re);
}

} // namespace

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    out.push_back(l);
  }
  return out;
}

MachineListing from_recorded(const RecordedListing& l) {
  return MachineListing{l.kind, l.title + " (made where it ran)", l.how, l.lines, l.source_lines, true};
}

std::string kernel_function_name(const std::string& source, const std::string& fallback) {
  static const std::regex fn(R"((?:\bvoid\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?@?|@)([A-Za-z_]\w*)\s*\()");
  for (const std::string& line : split_lines(source)) {
    if (line.find("void") == std::string::npos && line.rfind("define", 0) != 0) continue;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), fn); it != std::sregex_iterator(); ++it) {
      std::string name = (*it)[1].str();
      if (name.rfind("loupe_", 0) != 0) return name;
    }
  }
  return fallback;
}

bool MachineListing::linked() const {
  for (int l : source_lines)
    if (l > 0) return true;
  return false;
}

std::vector<int> MachineListing::lines_of(int source_line) const {
  std::vector<int> rows;
  for (size_t i = 0; i < source_lines.size(); i++)
    if (source_line > 0 && source_lines[i] == source_line) rows.push_back(int(i));
  return rows;
}

size_t MachineListing::instruction_count() const {
  size_t n = 0;
  for (const std::string& raw : lines) {
    std::string l = trim(raw);
    if (kind == "asm") n += is_objdump_instruction(raw);
    else if (kind == "sass") n += l.rfind("/*", 0) == 0 && l.find("*/") != std::string::npos && l.find(';') != std::string::npos;
    else if (kind == "ptx") n += !l.empty() && l.back() == ';' && l[0] != '.' && l[0] != '/';
    else if (kind == "llvm-ir") n += raw.rfind("  ", 0) == 0 && !l.empty() && l[0] != ';';
  }
  return n;
}

void parse_objdump(const std::string& text, const std::string& source_file, MachineListing& out) {
  static const std::regex marker(R"(^;?\s*(\S+):(\d+)(?::\d+)?(\s.*)?$)");
  static const std::regex function_name(R"(^;?\s*\S+\(\):\s*$)");
  static const std::regex label(R"(^[0-9a-f]+ <(.+)>:\s*$)");
  const std::string ours = base_name(source_file);
  bool started = false;
  int current = 0;
  std::smatch m;
  for (const std::string& line : split_lines(text)) {
    if (!started) {
      started = line.rfind("Disassembly of section", 0) == 0;
      continue;
    }
    if (line.rfind("Disassembly of section", 0) == 0 || std::regex_match(line, function_name)) continue;
    if (std::regex_match(line, m, label)) {
      if (!out.lines.empty() && !out.lines.back().empty()) add(out, "", 0);
      add(out, "<" + m[1].str() + ">:", 0);
      current = 0;
    } else if (is_objdump_instruction(line)) {
      add(out, tidy_instruction(line), current);
    } else if (std::regex_match(line, m, marker)) {
      current = !ours.empty() && base_name(m[1].str()) == ours ? std::stoi(m[2].str()) : 0;
    }
  }
  while (!out.lines.empty() && out.lines.back().empty()) {
    out.lines.pop_back();
    out.source_lines.pop_back();
  }
}

void parse_amdgpu_objdump(const std::string& text, const std::string& source_file, MachineListing& out) {
  // "\tv_add_f32_e32 v1, v2, v3        // 000000001614: 06020502" -> "    1614:\tv_add_f32_e32\tv1, v2, v3"
  static const std::regex row(R"(^\t(\S+)(?:\s+(.*?))?\s*// ([0-9A-Fa-f]+):(?: [0-9A-Fa-f]+)*\s*$)");
  std::string plain;
  std::smatch m;
  for (const std::string& line : split_lines(text)) {
    if (std::regex_match(line, m, row)) {
      std::string addr = m[3].str();
      addr.erase(0, std::min(addr.find_first_not_of('0'), addr.size() - 1));
      for (char& c : addr) c = char(std::tolower(static_cast<unsigned char>(c)));
      plain += cat("    ", addr, ":\t", m[1].str(), m[2].length() ? "\t" + m[2].str() : "", "\n");
    } else {
      plain += line + "\n";
    }
  }
  parse_objdump(plain, source_file, out);
}

void parse_ptx(const std::string& text, const std::string& source_file, MachineListing& out) {
  static const std::regex file_dir(R"(^\s*\.file\s+(\d+)\s+\"([^\"]*)\")");
  static const std::regex loc_dir(R"(^\s*\.loc\s+(\d+)\s+(\d+))");
  const std::string ours = base_name(source_file);
  const std::vector<std::string> lines = split_lines(text);
  std::vector<int> our_files;  // NVRTC writes the .file table after the code
  std::smatch m;
  for (const std::string& line : lines)
    if (std::regex_search(line, m, file_dir) && base_name(m[2].str()) == ours) our_files.push_back(std::stoi(m[1].str()));
  int current = 0;
  for (const std::string& line : lines) {
    if (std::regex_search(line, m, loc_dir)) {
      bool mine = std::find(our_files.begin(), our_files.end(), std::stoi(m[1].str())) != our_files.end();
      current = mine ? std::stoi(m[2].str()) : 0;
      continue;
    }
    std::string t = trim(line);
    if (t.rfind(".section", 0) == 0 && t.find(".debug") != std::string::npos) break;  // DWARF tables follow
    if (t.rfind(".file", 0) == 0) continue;
    add(out, line, t.empty() || t == "{" || t == "}" ? 0 : current);
  }
}

void parse_nvdisasm(const std::string& text, const std::string& source_file, MachineListing& out) {
  static const std::regex place(R"(\"([^\"]*)\", line (\d+))");
  const std::string ours = base_name(source_file);
  int current = 0;
  for (const std::string& line : split_lines(text)) {
    if (line.find("//## File") != std::string::npos) {
      // `File "cuda_fp16.hpp", line 200 inlined at "E_8.cu", line 6`: the kernel's own line is the link
      current = 0;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), place); it != std::sregex_iterator(); ++it)
        if (base_name((*it)[1].str()) == ours) {
          current = std::stoi((*it)[2].str());
          break;
        }
      continue;
    }
    std::string t = trim(line);
    bool instruction = t.rfind("/*", 0) == 0 && t.find(';') != std::string::npos;
    add(out, line, instruction ? current : 0);
  }
}

ProcessLimits MachineCodeOptions::defaults() {
  ProcessLimits l;
  l.seconds = 30;
  if (const char* s = std::getenv("LOUPE_READ_COMPILE_SECONDS"); s && std::atof(s) > 0) l.seconds = std::atof(s);
  l.file_bytes = kMaxToolOutput;
  l.memory_bytes = uint64_t(4) << 30;
  return l;
}

std::vector<std::string> amd_compile_command(const std::string& clang, const AmdArch& arch, const std::string& source,
                                             const std::string& object) {
  // -g: line info for the listing (the code is the same without it)
  return {clang, "-x", "c", "-std=gnu11", "-target", "amdgcn-amd-amdhsa", "-mcpu=" + arch.mcpu, "-nogpulib", "-O3", "-g",
          "-Wno-unused-function", source, "-o", object};
}

bool is_kernel_identifier(const std::string& name) {
  if (name.empty() || name.size() > 256 || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

MachineCode machine_code(const std::string& device, const std::string& name, const std::string& source, const MachineCodeOptions& options) {
  MachineCode mc;
  // The name comes from a trace: it reaches the tools only as a symbol to find, and only as a C identifier.
  if (!is_kernel_identifier(name))
    throw Error(cat("the kernel's function name '", name.substr(0, 80), name.size() > 80 ? "..." : "",
                    "' is not a C identifier (a damaged or crafted trace): its source is not compiled"));
  std::string kind = device.substr(0, device.find(':'));
  for (char& c : kind) c = char(std::toupper(static_cast<unsigned char>(c)));
  if (kind == "C" || kind == "CLANG") kind = "CPU";  // a renderer's name for the device's
  auto available = [&]() -> bool {
    DeviceStatus st = device_status(kind);
    if (!st.available) mc.missing.push_back(cat(kind, " is not available here, so its kernels cannot be compiled again: ", st.reason));
    return st.available;
  };
  if (kind == "CPU") {
    if (available()) cpu_listings(name, source, mc, options.limits);
  } else if (kind == "LLVM") {
    if (available()) llvm_listings(name, source, mc, options.limits);
  } else if (kind == "CUDA") {
    if (available()) cuda_listings(name, source, mc, options.limits);
  } else if (kind == "AMD") {
    amd_listings(*amd_arch_of_target(device), name, source, mc, options.limits);
  } else if (kind == "OPENCL" || kind == "GPU" || kind == "METAL") {
    mc.missing.push_back(cat(device, ": the driver compiles the source itself and does not show its machine code"));
  } else {
    mc.missing.push_back(cat("no listings for kernels of device '", device.substr(0, 40), "'"));
  }
  return mc;
}

} // namespace loupe
