// A renderer turns a linearized kernel (engine/render/README.md) into source text for one device,
// and says what that device can do so the optimizer and the late rewrites can respect it.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/ops.h"
#include "ir/uop.h"
#include "render/matrix_unit.h"

namespace loupe {

// What a backend supports. Limits of 0 mean "no limit".
struct RendererCaps {
  std::string device;                          // "CPU", "CUDA", ...
  bool has_local = false;                      // work-groups with local ids (GPU)
  bool has_shared = false;                     // DEFINE_LOCAL memory
  bool supports_float4 = true;                 // vector loads/stores of float4/half8...
  std::array<int64_t, 3> global_max{0, 0, 0};  // per-dimension launch limits
  std::array<int64_t, 3> local_max{0, 0, 0};
  int64_t shared_max = 0;                      // bytes of shared memory per work-group
  OpSet code_for_op;                           // ALU ops rendered natively; the rest need rewrites
  // CPU: the kernel takes [start, end) of its outermost parallel loop as two extra int parameters, so a
  // thread pool can split it; global[0] of such a kernel is that loop's extent.
  bool splits_outer_loop = false;
  // The matrix unit WMMA ops and the TC opt use for half and bfloat16 (render/matrix_unit.h): mma.sync
  // on CUDA sm_80 and newer, WMMA on AMD RDNA3, MFMA on AMD CDNA3.
  MatrixUnit matrix_unit = MatrixUnit::none;
  // Asynchronous copies into shared memory and warp matrix loads from it (ASYNC_COPY, LOAD_MATRIX: the
  // STAGE opt): CUDA's cp.async and ldmatrix, sm_80 and newer.
  bool async_copy = false;
  // The lanes of a warp of 32 read each other's registers (SHUFFLE_XOR, CUDA's __shfl_xor_sync): a
  // GROUP reduce combines the partials within each warp that way and only one per warp goes through
  // shared memory.
  bool warp_shuffle = false;
  // Vector registers of this many bytes (0: none): the vectorizer joins the upcast lanes of a store
  // into vector loads, stores and the ALU ops in vector_ops, which the renderer spells as operators.
  int vector_bytes = 0;
  OpSet vector_ops;
  int vector_min_item = 1;  // elements narrower than this many bytes are never joined into vectors
  bool vector_aligned = false;  // vector loads and stores must start at a multiple of their width
  int vector_registers = 16;  // of vector_bytes each: bounds a CPU register tile
};

// A buffer parameter: DEFINE_GLOBAL index, pointer dtype, and whether the kernel writes it.
struct BufferParam {
  int64_t index = 0;
  DType dtype;
  bool is_mutable = false;
  bool operator==(const BufferParam&) const = default;
};

// An integer parameter after the buffers (DEFINE_VAR), with its declared range.
struct VarParam {
  std::string name;
  int64_t min = 0, max = 0;
  bool operator==(const VarParam&) const = default;
};

struct RenderedKernel {
  std::string name;                 // function name (a C identifier)
  std::string device;               // the renderer's device
  std::string source;               // what the user reads; the device may add an entry shim to compile it
  std::vector<BufferParam> buffers; // in parameter order (ascending DEFINE_GLOBAL index)
  std::vector<VarParam> vars;       // in parameter order
  std::array<int64_t, 3> global{1, 1, 1};
  std::array<int64_t, 3> local{1, 1, 1};
  // Global sizes that depend on the kernel's variables (a symbolic grid axis, or a split_loop kernel's
  // outer loop over a symbolic extent): the expression over its DEFINE_VARs, evaluated at each launch
  // (Program::launch_global); global[i] then holds its largest value. Null where global[i] is exact.
  std::array<UOpPtr, 3> global_sym{};
  bool split_loop = false;          // takes [start, end) of its outer loop (RendererCaps::splits_outer_loop)
  int64_t dynamic_shared_bytes = 0; // shared memory the launch gives (CLanguage::static_shared_max; 0: static)
  // The linearized program itself, kept by renderers of devices that run it directly (INTERP).
  std::shared_ptr<const UOpList> program;
  // Per UOp of the linearized list: the 1-based line of `source` that computes it (0: none), for
  // tools that point from a UOp to its code (the Step kernel panel).
  std::vector<int> uop_lines;
};

class Renderer {
public:
  virtual ~Renderer() = default;
  virtual const RendererCaps& caps() const = 0;
  // Renders a linearized kernel. `name` must be a C identifier. Malformed input (an op the contract
  // does not allow here, a dangling source) raises an InternalError naming the node.
  virtual RenderedKernel render(const std::string& name, const UOpList& uops) const = 0;
};

bool is_c_identifier(const std::string& s);

// Element types whose vectors the vectorizer joins and a C-style renderer computes with vector
// operators (half and bfloat16 compute in float, lane by lane).
inline bool is_vector_alu_element(DType t) {
  return t == dtypes::float32 || t == dtypes::float64 || t == dtypes::int32 || t == dtypes::int64 || t == dtypes::uint32 ||
         t == dtypes::uint64;
}

} // namespace loupe
