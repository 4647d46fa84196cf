#include "cli/trace_step.h"

#include <iostream>
#include <optional>

#include "cli/trace_rerun.h"
#include "inspect/kernel_stepper.h"
#include "ir/print.h"
#include "runtime/interp/interp_device.h"
#include "support/json.h"

namespace loupe::cli {

namespace {

json::Value stepping_json(const KernelStepping& s) {
  json::Value o = json::Value::object();
  o.set("kernel", s.kernel);
  o.set("variant", s.variant);
  o.set("target", s.target);
  o.set("output", int64_t(s.output));
  o.set("element", s.element);
  o.set("value", interp::format_lane(s.value, s.dtype));
  o.set("dtype", s.dtype.short_name());
  o.set("work_item", s.item);
  o.set("truncated", s.truncated);
  if (!s.note.empty()) o.set("inputs", s.note);
  json::Value program = json::Value::array();
  std::string listing = program_listing(s.program);
  for (size_t at = 0; at < listing.size();) {
    size_t nl = listing.find('\n', at);
    program.push_back(listing.substr(at, nl - at));
    at = nl == std::string::npos ? listing.size() : nl + 1;
  }
  o.set("program", std::move(program));
  json::Value steps = json::Value::array();
  for (const SteppedUOp& st : s.steps) {
    const UOp* u = s.program[static_cast<size_t>(st.uop)].get();
    DType t = u->op == Ops::STORE ? u->src[1]->dtype.scalar() : u->dtype.scalar();
    json::Value j = json::Value::object();
    j.set("uop", int64_t(st.uop));
    j.set("op", std::string(op_name(u->op)));
    j.set("dtype", t.short_name());
    json::Value lanes = json::Value::array();
    for (const interp::Lane& l : st.lanes) lanes.push_back(interp::format_lane(l, t));
    j.set("value", std::move(lanes));
    json::Value loops = json::Value::array();
    for (auto& [r, it] : st.loops) {
      json::Value lp = json::Value::object();
      lp.set("range", int64_t(r));
      lp.set("iteration", it);
      loops.push_back(std::move(lp));
    }
    j.set("loops", std::move(loops));
    if (st.access) {
      json::Value a = json::Value::object();
      a.set("buffer", int64_t(st.access->buffer));
      a.set("element", st.access->element);
      a.set("gated_off", st.access->gated_off);
      j.set("access", std::move(a));
    }
    j.set("relevant", st.relevant());
    j.set("text", describe_step(s, st));
    steps.push_back(std::move(j));
  }
  o.set("steps", std::move(steps));
  return o;
}

} // namespace

int step_kernel(TraceReader& reader, const StepKernelRequest& req) {
  int64_t id = find_trace_kernel(reader, req.kernel);
  StepRequest sr;
  sr.element = req.element;
  sr.max_steps = static_cast<size_t>(req.max_steps);
  // a kernel too large for the trace to keep: the program runs again for its inputs
  std::optional<RerunInputs> rerun;
  if (!reader.has_kernel_inputs(id) && req.rerun) {
    rerun = capture_inputs_by_rerun(reader, id, req.allow_rerun);
    std::cerr << "loupe-cli: " << rerun->note << "\n";
  }
  const RerunInputs* inputs = rerun ? &*rerun : nullptr;
  const StepVariant as_asked{req.noopt, req.target};
  if (!req.diverge && req.diverge_target.empty()) {
    KernelStepping s = step_trace_kernel(reader, id, sr, as_asked, inputs);
    if (req.json) std::cout << stepping_json(s).dump() << "\n";
    else std::cout << format_stepping(s, 400, req.relevant_only);
    return 0;
  }
  const StepVariant other = req.diverge_target.empty() ? StepVariant{true, req.target} : StepVariant{req.noopt, req.diverge_target};
  KernelStepping a = step_trace_kernel(reader, id, sr, req.diverge_target.empty() ? StepVariant{false, req.target} : as_asked, inputs);
  KernelStepping b = step_trace_kernel(reader, id, sr, other, inputs);
  Divergence d = first_divergence(a, b);
  if (req.json) {
    json::Value o = json::Value::object();
    json::Value dj = json::Value::object();
    dj.set("kind", std::string(divergence_kind_name(d.kind)));
    dj.set("step_a", d.step_a == SIZE_MAX ? int64_t(-1) : int64_t(d.step_a));
    dj.set("step_b", d.step_b == SIZE_MAX ? int64_t(-1) : int64_t(d.step_b));
    dj.set("lane", int64_t(d.lane));
    dj.set("explanation", d.explanation);
    o.set("divergence", std::move(dj));
    o.set("a", stepping_json(a));
    o.set("b", stepping_json(b));
    std::cout << o.dump() << "\n";
  } else {
    std::cout << format_divergence(d, a, b) << "\n";
    std::cout << format_stepping(a, 40, true) << "\n" << format_stepping(b, 40, true);
  }
  return 0;
}

} // namespace loupe::cli
