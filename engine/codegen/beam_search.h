// BEAM=N (reference map §9.6): search the opts of one kernel by timing candidates on the device.
// Each round applies every action of the action list to every kernel of the beam, drops the invalid
// ones (KernelOptError) and the ones with too many upcast or local elements, renders the rest, skips
// sources already seen, times them, and keeps the N fastest; it stops when the fastest did not change.
// The chosen opts are cached on disk (the compile cache's folder, kind "beam") by AST, device and N,
// so a later run applies them without searching.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/kernel.h"
#include "observe/records.h"
#include "render/renderer.h"

namespace loupe {

// Compiles and times one rendered candidate (seconds, best of a few runs on scratch buffers);
// +infinity when it fails to compile or run.
using CandidateTimer = std::function<double(const RenderedKernel&)>;
// Called with each round's rendered candidates before they are timed one by one, so the executor can
// compile them all at once on every core (optional).
using CandidatePrepare = std::function<void(const std::vector<const RenderedKernel*>&)>;

struct BeamResult {
  std::vector<Opt> opts;
  bool cached = false;       // read from the disk cache: nothing was timed
  int candidates = 0;        // rendered and timed
  int rounds = 0;
  double seconds = 0;        // the chosen kernel's time
  double start_seconds = 0;  // the kernel without opts
  double search_seconds = 0; // wall time of the whole search
  std::vector<BeamCandidate> tried;  // every candidate, in the order timed (empty when cached)
};

// The actions BEAM tries (tinygrad's list; LOCAL/GROUP only matter on targets with local threads).
const std::vector<Opt>& beam_actions();

// `device` names the target in the cache key. Throws nothing for a candidate that fails; a kernel
// whose every candidate fails keeps no opts.
BeamResult beam_search(const UOpPtr& ast, const Renderer& renderer, const std::string& device, int width,
                       const CandidateTimer& time_candidate, const CandidatePrepare& prepare = {});

// The disk cache alone (tests; also what beam_search consults first).
std::string beam_cache_key(const UOpPtr& ast, const std::string& device, int width);
std::optional<std::vector<Opt>> beam_cache_load(const std::string& key);

// How many searches ran in this process (a second run of the same kernel reads the cache instead).
int beam_searches_run();

} // namespace loupe
