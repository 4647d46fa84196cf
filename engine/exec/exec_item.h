// One unit of work as the runtime executes it: a compiled kernel with its buffers, or a copy between
// devices. run_schedule builds one per schedule item and executes it; a TinyJit capture records them
// (ExecListener) and executes them again later with other buffers of the same sizes.
#pragma once
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "ir/eval.h"
#include "ir/uop.h"
#include "runtime/program.h"

namespace loupe {

class Buffer;

struct ExecItem {
  enum class Kind { Kernel, Copy };
  Kind kind = Kind::Kernel;
  std::string name;                              // the kernel's name (copies: "copy")
  std::shared_ptr<Program> program;              // kernels
  std::vector<int> params;                       // the program's parameters, as indices into `buffers`
  LaunchDims global{1, 1, 1}, local{1, 1, 1};
  std::vector<std::shared_ptr<Buffer>> buffers;  // [0] is written, the others are read (copies: [1] -> [0])
  UOpList nodes;                                 // the tensor-level BUFFER node of each buffer
  int64_t flops = 0, mem = 0, lds = 0;           // the kernel's estimates (at var_vals when it has variables)
  // Symbolic shapes: the values of the kernel's variables for this run, in program->kernel().vars order
  // (by name), and the linearized kernel that estimates its cost at other values. execute() can be given
  // other values by name (a TinyJit replay): the compiled kernel is the same for all of them.
  std::vector<int64_t> var_vals;
  std::shared_ptr<const UOpList> linear;
  int64_t trace_kernel_id = -1;
  std::vector<uint32_t> metadata;                // the tensor ops it computes (ir/metadata.h)
};

// Thrown once the kernel TRACE_INPUTS_OF names has had its inputs recorded: the re-run that wanted them
// has what it came for and the program stops there (the Python runner ends it quietly).
struct InputsCaptured : std::exception {
  const char* what() const noexcept override { return "the inputs TRACE_INPUTS_OF asked for were captured"; }
};

// Runs the item on `buffers` (its own, or others of the same sizes in the same order), counts it, prints
// its DEBUG=2 line and records the run in the trace (with its variables' values). Returns the measured
// seconds. `vars`, when given, overrides the item's variable values by name (a name the kernel does not
// take is ignored); a value outside a variable's [min, max] is a loupe::Error naming it.
double execute(const ExecItem& item, const std::vector<std::shared_ptr<Buffer>>& buffers, const VarValues* vars = nullptr);

// The values for a kernel's variables (kernel.vars order) from values by name; a variable missing
// from `values` is a loupe::Error naming it and the kernel.
std::vector<int64_t> kernel_var_values(const RenderedKernel& kernel, const VarValues& values);

// The DEBUG=2 line of one kernel run (reference map §13).
std::string debug_line(const std::string& device, int64_t count, const std::string& name, size_t nargs,
                       double seconds, double total_seconds, int64_t ops, int64_t mem, int64_t lds, int64_t mem_used);

// Sees every item run_schedule executes on this thread while a scope installs it (a TinyJit capture).
class ExecListener {
public:
  virtual ~ExecListener() = default;
  virtual void executed(const ExecItem& item) = 0;
};

class ExecListenerScope {
public:
  explicit ExecListenerScope(ExecListener* listener);
  ~ExecListenerScope();
  ExecListenerScope(const ExecListenerScope&) = delete;
  ExecListenerScope& operator=(const ExecListenerScope&) = delete;
  static ExecListener* current();

private:
  ExecListener* previous_;
};

} // namespace loupe
