// What the machine runs for a kernel: its source compiled again, here, by the same compiler and flags
// its device uses, and shown as the compiler's intermediate forms and as machine code, each line of a
// listing linked to the line of kernel source it was compiled from where the compiler emits line info:
//   CPU       clang -g (the same code as without -g) into a shared object; llvm-objdump -d -l
//   LLVM      the IR after the JIT's O2 pipeline; the JIT target's object, disassembled the same way
//             (no line links: the kernel's IR carries no debug info)
//   CUDA      PTX from NVRTC with -lineinfo (its .loc directives); SASS where ptxas and nvdisasm exist
//   AMD       clang-15 -x c -target amdgcn-amd-amdhsa -mcpu=gfx1100|gfx940 -g into a code object (ELF
//             elf64-amdgpu, linked by lld); llvm-objdump-15 -d -l --mcpu: the ISA under its source lines.
//             No AMD GPU is needed: the code object is only read. CDNA3's gfx942 is assembled as gfx940.
// OpenCL and Metal drivers keep their machine code to themselves: the result says so.
#pragma once
#include <string>
#include <vector>

#include "observe/records.h"
#include "support/process.h"

namespace loupe {

struct AmdArch;

struct MachineListing {
  std::string kind;   // "asm", "llvm-ir", "ptx", "sass"
  std::string title;  // "x86-64 machine code", "LLVM IR after O2", "PTX (compute_90)", "SASS (sm_90)"
  std::string how;    // the commands that made it, for the reader: "clang-15 -O2 ... -g; llvm-objdump-15 -d -l"
  std::vector<std::string> lines;
  std::vector<int> source_lines;  // per line of `lines`: the kernel source line (1-based) it comes from, 0 none
  bool recorded = false;          // made where the kernel ran and kept in its trace, not compiled here

  bool linked() const;                             // whether any line has a source line
  std::vector<int> lines_of(int source_line) const; // the listing's rows (0-based) compiled from a source line
  size_t instruction_count() const;                 // rows that are instructions (not labels, not blank)
};

struct MachineCode {
  std::vector<MachineListing> listings;
  std::vector<std::string> missing;  // a listing that could not be made, and why ("SASS: nvdisasm not found")
};

// A recorded source is untrusted: it is compiled only to be read (never loaded or run), in a private
// temporary folder under names made here, by a compiler that is stopped past these limits (a crafted
// source can make one take hours or gigabytes; in-process compilers run in a forked child, so one that
// crashes on it costs only the child).
struct MachineCodeOptions {
  // 30 s (LOUPE_READ_COMPILE_SECONDS overrides), 64 MiB of output per file, 4 GiB more memory
  static ProcessLimits defaults();
  ProcessLimits limits = defaults();
};

// The listings of one kernel from its recorded source. `device` is the device that rendered it as traces
// record it (CPU, LLVM, CUDA, "CUDA:1", OPENCL), or an AMD target ("AMD", "AMD:gfx1100", "AMD:gfx942"); `name` the kernel's function, a C identifier (anything
// else is refused). A device that is not available here becomes a `missing` entry with its reason; a
// source that no longer compiles, or that the compiler crashes on or cannot finish within the limits,
// raises loupe::Error with the compiler's message.
MachineCode machine_code(const std::string& device, const std::string& name, const std::string& source,
                         const MachineCodeOptions& options = {});

// A listing a trace kept from where the kernel ran (TraceReader::kernel_listings), its title saying so.
MachineListing from_recorded(const RecordedListing& l);

// [A-Za-z_][A-Za-z0-9_]*, at most 256 characters: what a kernel's function name must be.
bool is_kernel_identifier(const std::string& name);

// A text's lines, numbered as listings' source_lines number them (line 1 first; "\r\n" ends a line too).
std::vector<std::string> split_lines(const std::string& text);

// The kernel function a rendered source defines ("void r_16_16(", "define void @E_4(", "__global__ void
// __launch_bounds__(256) E_8("), skipping the renderer's helpers (loupe_*); `fallback` when none is found.
// A NOOPT source defines a function named after its own shape, not the optimized kernel's name.
std::string kernel_function_name(const std::string& source, const std::string& fallback);

// The parsers, for tests and for other tools' output:
// `objdump -d -l` text (llvm-objdump's "; FILE:LINE" or GNU's "FILE:LINE" markers; markers naming
// another file than `source_file`'s base name are not links) into a listing's lines and links.
void parse_objdump(const std::string& text, const std::string& source_file, MachineListing& out);
// llvm-objdump's AMDGPU listing (`\tINSTRUCTION  // ADDRESS: ENCODING` rows) read as parse_objdump reads others.
void parse_amdgpu_objdump(const std::string& text, const std::string& source_file, MachineListing& out);
// The clang command that compiles an AMD kernel source (C) into a code object for `arch`.
std::vector<std::string> amd_compile_command(const std::string& clang, const AmdArch& arch, const std::string& source,
                                             const std::string& object);
// PTX with `.loc FILE LINE COL` directives (only file indices whose `.file` names `source_file`'s base
// name are links); the directives themselves are left out of the listing.
void parse_ptx(const std::string& text, const std::string& source_file, MachineListing& out);
// `nvdisasm -g -c` output: `//## File "PATH", line N` comments link the instructions after them.
void parse_nvdisasm(const std::string& text, const std::string& source_file, MachineListing& out);

} // namespace loupe
