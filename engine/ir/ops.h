// The one list of ops: names, groups and the colours the app draws them in. The order follows
// tinygrad v0.10.2 (it decides canonical operand order and linearizer tie-breaks), with Loupe's
// additions at the end of their family: FLOORDIV/FLOORMOD (Python floor semantics, used for index
// math and integer // and %) next to IDIV/MOD (C truncation, what renderers emit); TRUNC; IOTA (a
// virtual buffer whose element i is i: Tensor.arange builds on it, kernels read it like a load
// through a view and lower it to the view's index expression); ASYNC_COPY (a GPU copy of a few bytes
// from global to shared memory that bypasses registers, CUDA's cp.async; a BARRIER over copies waits
// for them); LOAD_MATRIX (a warp's load of 8x8 matrices of 16-bit values from shared memory, CUDA's
// ldmatrix: each lane gives one row's address and gets two values of every matrix); SHUFFLE_XOR (a
// warp's exchange of registers, CUDA's __shfl_xor_sync: each lane gets its value from the lane whose
// id differs by the arg's xor; arg (xor, lanes of the warp taking part)).
#pragma once
#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace loupe {

// X(name, groups, colour)
#define LOUPE_OPS(X)                                                                                                   \
  X(NAME, 0, "#808080")                                                                                                \
  X(SINK, 0, "#ffffff")                                                                                                \
  X(CONTIGUOUS, 0, "#ffffff")                                                                                          \
  X(CONTIGUOUS_BACKWARD, 0, "#ffffff")                                                                                 \
  X(DETACH, 0, "#ffffff")                                                                                              \
  X(KERNEL, 0, "#3e7f55")                                                                                              \
  X(UNIQUE, 0, "#ffffff")                                                                                              \
  X(EMPTY, 0, "#ffffff")                                                                                               \
  X(COPY, 0, "#a040a0")                                                                                                \
  X(BUFFER_VIEW, 0, "#ffffff")                                                                                         \
  X(BLOCK, kBlock, "#C4A484")                                                                                          \
  X(BLOCKSTART, kBlock, "#C4A484")                                                                                     \
  X(BLOCKFORK, kBlock, "#C4A484")                                                                                      \
  X(BLOCKEND, kBlock, "#C4A4A4")                                                                                       \
  X(RESHAPE, kMovement, "#D8F9E4")                                                                                     \
  X(PERMUTE, kMovement, "#D8F9E4")                                                                                     \
  X(EXPAND, kMovement, "#D8F9E4")                                                                                      \
  X(PAD, kMovement, "#D8F9E4")                                                                                         \
  X(SHRINK, kMovement, "#D8F9E4")                                                                                      \
  X(FLIP, kMovement, "#D8F9E4")                                                                                        \
  X(UNROLL, 0, "#ffffff")                                                                                              \
  X(CONTRACT, 0, "#ffffff")                                                                                            \
  X(VIEW, 0, "#C8F9D4")                                                                                                \
  X(DEFINE_GLOBAL, 0, "#ffe0b0")                                                                                       \
  X(BUFFER, 0, "#B0BDFF")                                                                                              \
  X(DEFINE_VAR, kIrreducible | kBuffer, "#ffffff")                                                                     \
  X(DEFINE_LOCAL, 0, "#ffe0d0")                                                                                        \
  X(DEFINE_ACC, 0, "#f0ffe0")                                                                                          \
  X(VALID, kBuffer, "#ffffff")                                                                                         \
  X(SPECIAL, kIrreducible, "#c0c0ff")                                                                                  \
  X(NOOP, 0, "#ffffff")                                                                                                \
  X(REDUCE_AXIS, 0, "#FF6B6B")                                                                                         \
  X(GEP, 0, "#ffffff")                                                                                                 \
  X(VECTORIZE, 0, "#ffffff")                                                                                           \
  X(CAT, 0, "#ffffff")                                                                                                 \
  X(CAST, 0, "#ffffff")                                                                                                \
  X(BITCAST, 0, "#ffffff")                                                                                             \
  X(EXP2, kUnary | kUnsafePad, "#ffffc0")                                                                              \
  X(LOG2, kUnary | kUnsafePad, "#ffffc0")                                                                              \
  X(SIN, kUnary, "#ffffc0")                                                                                            \
  X(SQRT, kUnary, "#ffffc0")                                                                                           \
  X(RECIP, kUnary | kUnsafePad, "#ffffc0")                                                                             \
  X(NEG, kUnary, "#ffffc0")                                                                                            \
  X(TRUNC, kUnary, "#ffffc0")                                                                                          \
  X(LOAD, kBuffer, "#ffc0c0")                                                                                          \
  X(STORE, kBuffer, "#87CEEB")                                                                                         \
  X(INDEX, 0, "#e8ffa0")                                                                                               \
  X(WMMA, 0, "#efefc0")                                                                                                \
  X(ADD, kBinary | kCommutative | kAssociative, "#ffffc0")                                                             \
  X(MUL, kBinary | kCommutative | kAssociative, "#ffffc0")                                                             \
  X(IDIV, kBinary | kUnsafePad, "#ffffc0")                                                                             \
  X(FLOORDIV, kBinary | kUnsafePad, "#ffffc0")                                                                         \
  X(MAX, kBinary | kCommutative | kAssociative | kIdempotent, "#ffffc0")                                               \
  X(MOD, kBinary, "#ffffc0")                                                                                           \
  X(FLOORMOD, kBinary, "#ffffc0")                                                                                      \
  X(CMPLT, kBinary | kComparison, "#ffffc0")                                                                           \
  X(CMPNE, kBinary | kCommutative | kComparison, "#ffffc0")                                                            \
  X(XOR, kBinary | kCommutative, "#ffffc0")                                                                            \
  X(SHL, kBinary, "#ffffc0")                                                                                           \
  X(SHR, kBinary, "#ffffc0")                                                                                           \
  X(OR, kBinary | kCommutative | kAssociative | kIdempotent, "#ffffc0")                                                \
  X(AND, kBinary | kCommutative | kAssociative | kIdempotent, "#ffffc0")                                               \
  X(THREEFRY, kBinary, "#ffff80")                                                                                      \
  X(SUB, kBinary, "#ffffc0")                                                                                           \
  X(FDIV, kBinary, "#ffffc0")                                                                                          \
  X(POW, kBinary | kUnsafePad, "#ffffc0")                                                                              \
  X(WHERE, kTernary, "#ffffc0")                                                                                        \
  X(MULACC, kTernary, "#ffffc0")                                                                                       \
  X(ASSIGN, 0, "#e0ffc0")                                                                                              \
  X(BIND, 0, "#ffffff")                                                                                                \
  X(BARRIER, 0, "#ff8080")                                                                                             \
  X(RANGE, kIrreducible, "#c8a0e0")                                                                                    \
  X(IF, 0, "#c8b0c0")                                                                                                  \
  X(ENDRANGE, 0, "#ffffff")                                                                                            \
  X(ENDIF, 0, "#ffffff")                                                                                               \
  X(VCONST, 0, "#e0e0e0")                                                                                              \
  X(CONST, kIrreducible | kBuffer, "#e0e0e0")                                                                          \
  X(IOTA, kBuffer, "#e0e0ff")                                                                                          \
  X(DEVICE, 0, "#ffffff")                                                                                              \
  X(MULTI, 0, "#f6ccff")                                                                                               \
  X(CUSTOM, 0, "#ffffff")                                                                                              \
  X(ASYNC_COPY, 0, "#ffc0e0")                                                                                          \
  X(LOAD_MATRIX, 0, "#ffc0c0")                                                                                          \
  X(SHUFFLE_XOR, 0, "#ffc0c0")

enum OpGroupBits : uint32_t {
  kUnary = 1u << 0, kBinary = 1u << 1, kTernary = 1u << 2, kCommutative = 1u << 3, kAssociative = 1u << 4,
  kIdempotent = 1u << 5, kMovement = 1u << 6, kIrreducible = 1u << 7, kBuffer = 1u << 8, kBlock = 1u << 9,
  kUnsafePad = 1u << 10, kComparison = 1u << 11,
  kALU = kUnary | kBinary | kTernary,
};

enum class Ops : uint8_t {
#define LOUPE_OP_ENUM(name, groups, colour) name,
  LOUPE_OPS(LOUPE_OP_ENUM)
#undef LOUPE_OP_ENUM
};

inline constexpr int kNumOps = 0
#define LOUPE_OP_COUNT(name, groups, colour) +1
    LOUPE_OPS(LOUPE_OP_COUNT)
#undef LOUPE_OP_COUNT
    ;

std::string_view op_name(Ops op);
std::optional<Ops> op_from_name(std::string_view name);
uint32_t op_groups(Ops op);
const char* op_colour(Ops op);  // "#rrggbb", tinygrad VIZ's palette
inline bool op_in(Ops op, uint32_t group_bits) { return (op_groups(op) & group_bits) != 0; }
inline bool is_alu(Ops op) { return op_in(op, kALU); }

// A set of ops (for patterns and early rejection).
class OpSet {
public:
  OpSet() = default;
  OpSet(std::initializer_list<Ops> ops) {
    for (Ops o : ops) add(o);
  }
  static OpSet group(uint32_t bits);
  void add(Ops o) { bits_.set(static_cast<size_t>(o)); }
  bool has(Ops o) const { return bits_.test(static_cast<size_t>(o)); }
  bool empty() const { return bits_.none(); }
  size_t size() const { return bits_.count(); }
  bool subset_of(const OpSet& o) const { return (bits_ & ~o.bits_).none(); }
  OpSet operator|(const OpSet& o) const {
    OpSet r;
    r.bits_ = bits_ | o.bits_;
    return r;
  }
  template <typename F> void for_each(F&& f) const {
    for (size_t i = 0; i < kNumOps; i++)
      if (bits_.test(i)) f(static_cast<Ops>(i));
  }

private:
  std::bitset<kNumOps> bits_;
};

} // namespace loupe
