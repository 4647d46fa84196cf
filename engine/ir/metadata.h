// Provenance of tensor-level nodes (tinygrad's TRACEMETA metadata): the Tensor op that built a node
// and the user's code that called it (file, line, function). A frontend opens a MetadataScope around
// each user-facing op (the Python module does, with the caller's frame); every tensor created while it
// is open carries its record, and the scheduler gathers them per kernel. Records are interned: a node
// holds a 32-bit id (0: none), so provenance costs no memory per node.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace loupe {

struct Metadata {
  std::string op;        // the Tensor op: "matmul", "__add__", "softmax"
  std::string file;      // the caller's source file ("" when unknown)
  int line = 0;
  std::string function;  // the caller's function ("<module>" at top level)
  bool backward = false;  // a gradient node: backward() made it for the node of `op` (tinygrad's "relu bw")
  bool operator==(const Metadata&) const = default;
};

// The id of this record (the same id for an equal record); never 0.
uint32_t intern_metadata(const Metadata& m);
// Whether any record was ever interned (lets passes skip provenance work when no frontend records it).
bool any_metadata();
// The record of an id from intern_metadata; an empty record for 0 or an unknown id.
const Metadata& metadata_of(uint32_t id);
// "softmax (model.py:12 in forward)"
std::string metadata_str(const Metadata& m);

// The record tensors take while the scope lives (per thread). Nested scopes keep the outermost one:
// the user's call, not the ops it is made of; `innermost` overrides that (backward() names each gradient
// by the op it differentiates, not by the backward call). id 0 changes nothing.
class MetadataScope {
public:
  explicit MetadataScope(uint32_t id, bool innermost = false);
  ~MetadataScope();
  MetadataScope(const MetadataScope&) = delete;
  MetadataScope& operator=(const MetadataScope&) = delete;
  static uint32_t current();
  static bool active() { return current() != 0; }

private:
  uint32_t previous_;
};

// While it lives, nodes first built on this thread (UOp::make finding no equal node) take this
// provenance: a rewrite opens one with the provenance of the node its rule rewrites, so the nodes the
// rule builds (a transcendental's polynomial, a lowered load's index math) trace back to the same
// tensor op. The innermost scope wins (unlike MetadataScope); 0 opens none. Nodes every kernel shares
// (constants, globals, views, loops) never take one (UOp::make decides).
class CreationProvenance {
public:
  explicit CreationProvenance(uint32_t id);
  ~CreationProvenance();
  CreationProvenance(const CreationProvenance&) = delete;
  CreationProvenance& operator=(const CreationProvenance&) = delete;
  static uint32_t current();

private:
  uint32_t previous_;
};

// Distinct ids, in first-seen order.
void append_unique(std::vector<uint32_t>& ids, uint32_t id);

} // namespace loupe
