// A linearized kernel run by the interpreter (the INTERP device, and single-stepping any device's
// kernel): the UOp list decoded once into instructions over value slots, then executed work-item by
// work-item with no compiler. GPU-style kernels run as the hardware would: every work-group's items
// run to each BARRIER in turn (local memory is per group), and a WMMA gathers the fragments of the
// 32 lanes of each warp (mma.sync m16n8k16's layouts) before any of them goes on, as a LOAD_MATRIX
// (ldmatrix) hands each lane the rows other lanes addressed and a SHUFFLE_XOR (__shfl_xor_sync) the
// value of its partner lane.
//
// Values round exactly as the C backend's code (lane_ops.h), including the fused multiply-adds the C
// compiler makes of a product written inside a sum (the C renderer's inlining decides where). Every
// load and store is checked against its buffer's size: an out-of-bounds access is an error naming the
// UOp, the element and the buffer, where compiled code would read garbage.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "render/renderer.h"
#include "runtime/interp/lane_ops.h"
#include "runtime/program.h"

namespace loupe::interp {

// A buffer the kernel reads or writes: DEFINE_GLOBAL k is argument k, local temps are numbered -1, -2...
struct MemoryAccess {
  int buffer = 0;         // DEFINE_GLOBAL index, or -1 - (local temp number)
  int64_t element = -1;   // first element (a vector access covers `lanes` of them)
  bool gated_off = false; // a LOAD whose gate was false (it gave its alternative) or a STORE skipped
};

// One UOp as it executed, for a watcher.
struct ExecutedStep {
  int uop = 0;              // position in the program's list
  int64_t item = 0;         // work-item: group (x fastest) * items per group + local id (x fastest)
  const Lane* value = nullptr;  // its lanes after it ran (null for control flow)
  int lanes = 0;
  const MemoryAccess* access = nullptr;  // loads and stores
};

class ExecutionWatcher {
public:
  virtual ~ExecutionWatcher() = default;
  // Asked when a work-item starts: report its steps?
  virtual bool watch_item(int64_t item) = 0;
  // After each step of a watched item; `slots` reads any other value of that item (LinearProgram::slot_of).
  virtual void executed(const ExecutedStep& step, const Lane* slots) = 0;
};

class LinearProgram {
public:
  // `spelled_as`: the caps of the C-style renderer whose code this run must reproduce (the kernel's
  // device): its inlining decides which float products are fused with the sum they are written in.
  // loupe::Error for a list outside the linearized contract.
  LinearProgram(std::string name, const UOpList& uops, const RendererCaps& spelled_as);
  ~LinearProgram();
  LinearProgram(LinearProgram&&) noexcept;

  const std::string& name() const { return name_; }
  const UOpList& uops() const { return uops_; }
  // Launch sizes the SPECIALs ask for (1s for a CPU-style kernel); a grid size over the kernel's
  // variables is at its largest in global() and its expression in global_sym().
  const LaunchDims& global() const { return global_; }
  const std::array<UOpPtr, 3>& global_sym() const { return global_sym_; }
  const LaunchDims& local() const { return local_; }
  // The buffers in parameter order (DEFINE_GLOBAL index ascending), as RenderedKernel lists them.
  const std::vector<BufferParam>& buffers() const { return buffers_; }
  const std::vector<VarParam>& vars() const { return vars_; }
  // Where the value of listed UOp `i` lives in a work-item's slots (lanes consecutive).
  int slot_of(int i) const;
  int lanes_of(int i) const;
  // Whether the items of a work-group run in step (BARRIER or WMMA): their values cross through local
  // memory or a warp's fragments, so following one element means following its whole group.
  bool runs_groups_in_step() const { return needs_sync_; }
  // The listed RANGEs enclosing position i, outermost first.
  const std::vector<int>& enclosing_ranges(int i) const;

  // Runs the whole launch. `bufs` in parameter order (host memory), `vars` in vars() order.
  void run(const std::vector<void*>& bufs, const std::vector<int64_t>& vars, const LaunchDims& global, const LaunchDims& local,
           ExecutionWatcher* watcher = nullptr) const;

  struct Instr;
  struct Item;
  struct Group;
  struct Decoder;  // the constructor's steps (linear_program.cpp)

private:
  int exec(Item& it, Group& g, int pc, ExecutionWatcher* w) const;  // runs to the end (-1) or a sync point (its pc)
  void warp_mma(Group& g, int pc) const;
  void warp_load_matrix(Group& g, int pc) const;
  void warp_shuffle(Group& g, int pc) const;

  std::string name_;
  UOpList uops_;
  std::vector<Instr> code_;
  std::vector<Lane> initial_slots_;  // constants filled in
  std::vector<int> slot_, lanes_;    // per listed uop
  std::vector<std::vector<int>> enclosing_;  // per listed uop: the RANGEs open around it
  std::vector<BufferParam> buffers_;
  std::vector<VarParam> vars_;
  std::vector<int64_t> local_sizes_;  // elements of each local temp
  std::vector<DType> local_dtypes_;
  LaunchDims global_{1, 1, 1}, local_{1, 1, 1};
  std::array<UOpPtr, 3> global_sym_{};
  bool needs_sync_ = false;  // BARRIER or a warp op: items of a group run in step
};

} // namespace loupe::interp
