// Everything the panels list about a trace, read at once (off the GUI thread) into plain values:
// contexts, passes, kernels with decoded names, profile events, rules, peaks and run settings. The
// snapshot is immutable; when a trace grows, a new one is read and replaces it.
#pragma once
#include <QHash>
#include <QSet>
#include <QString>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "session/kernelaxes.h"
#include "trace/trace_reader.h"

namespace loupe::views {

struct TraceSnapshot {
  QString path;
  std::map<std::string, std::string> meta, runInfo;
  bool finished = false;  // the writer closed the trace
  int64_t nodeCount = 0;

  std::vector<loupe::TraceContext> contexts;  // in id order
  std::vector<loupe::TracePass> passes;       // every pass, in id (= start) order
  std::vector<loupe::TraceKernel> kernels;    // without sources and buffers
  std::vector<loupe::TraceEvent> profile;     // by start time
  std::vector<loupe::TraceRule> rules;
  std::vector<loupe::DevicePeaks> peaks;
  std::vector<loupe::TraceTensorCall> tensorCalls;  // the program's Tensor calls, by start time

  QHash<qint64, int> contextIndex, passIndex, kernelIndex;  // id -> position in the vectors above
  QHash<qint64, KernelNameParts> kernelNames;               // kernel id -> decoded name
  QHash<qint64, qint64> kernelOfContext;                    // context id -> its kernel's id
  // Passes with matches in them or in a pass nested under them; the others are "empty" (the Trace
  // browser's Hide empty hides them and stepping with it on skips them).
  QSet<qint64> passesWithMatches;
  // pass id -> the ids of the rules that fired in it (what the Trace browser's filter searches).
  QHash<qint64, QList<qint64>> rulesOfPass;
  QHash<qint64, int> ruleIndex;  // rule id -> position in rules

  const loupe::TraceContext* context(int64_t id) const;
  const loupe::TracePass* pass(int64_t id) const;
  const loupe::TraceKernel* kernel(int64_t id) const;
  // The kernel a context belongs to (its own, or the nearest ancestor's); -1 if none.
  int64_t kernelForContext(int64_t contextId) const;
  // The passes of a context in id order.
  std::vector<const loupe::TracePass*> passesOf(int64_t contextId) const;
  int64_t totalMatches() const;
  bool passIsEmpty(int64_t passId) const { return !passesWithMatches.contains(passId); }
  const loupe::TraceRule* rule(int64_t id) const;
  // Whether a rule whose name contains `text` (case-insensitively) fired in the pass.
  bool passFiredRuleMatching(int64_t passId, const QString& text) const;
};

// Reads a snapshot through reader (any thread; the reader is not shared while this runs).
// Throws loupe::Error when the trace is unreadable.
std::shared_ptr<TraceSnapshot> readTraceSnapshot(loupe::TraceReader& reader);

} // namespace loupe::views
