#include "cli/trace_disasm.h"

#include <iostream>

#include "inspect/kernel_stepper.h"
#include "inspect/machine_code.h"
#include "support/error.h"
#include "support/json.h"

namespace loupe::cli {

namespace {

json::Value listing_json(const MachineListing& l) {
  json::Value o = json::Value::object();
  o.set("kind", l.kind);
  o.set("title", l.title);
  o.set("how", l.how);
  o.set("instructions", int64_t(l.instruction_count()));
  json::Value rows = json::Value::array();
  for (size_t i = 0; i < l.lines.size(); i++) {
    json::Value r = json::Value::object();
    r.set("text", l.lines[i]);
    if (l.source_lines[i] > 0) r.set("source_line", int64_t(l.source_lines[i]));
    rows.push_back(std::move(r));
  }
  o.set("lines", std::move(rows));
  return o;
}

// The listing with the source line a range of instructions comes from printed above the range.
void print_listing(const MachineListing& l, const std::vector<std::string>& source) {
  std::cout << "== " << l.title << "  (" << l.instruction_count() << " instructions)\n   " << l.how << "\n";
  int shown = 0;
  for (size_t i = 0; i < l.lines.size(); i++) {
    int s = l.source_lines[i];
    if (s > 0 && s != shown && size_t(s) <= source.size()) std::cout << "      ; " << s << ": " << source[size_t(s) - 1] << "\n";
    shown = s;
    std::cout << "  " << l.lines[i] << "\n";
  }
}

} // namespace

int disasm_kernel(TraceReader& reader, const DisasmRequest& req) {
  TraceKernel k = reader.kernel(find_trace_kernel(reader, req.kernel));
  std::string variant = req.noopt ? "noopt" : "opt";
  KernelSource planned;
  const KernelSource* src = nullptr;
  if (req.target.empty()) {
    src = k.source(variant);
    if (!src) throw Error(cat("kernel ", k.name, " has no ", req.noopt ? "NOOPT " : "", "source in the trace"));
  } else {  // planned again for the target, as the Step panel's Target box does
    TraceKernelProgram p = plan_trace_kernel(reader, k.id, {req.noopt, req.target});
    planned.backend = req.target;
    planned.text = std::move(p.source);
    variant = p.variant;
    src = &planned;
  }
  MachineCode mc = machine_code(src->backend, kernel_function_name(src->text, k.name), src->text);
  if (req.json) {
    json::Value o = json::Value::object();
    o.set("kernel", k.name);
    o.set("kernel_id", k.id);
    o.set("variant", variant);
    o.set("backend", src->backend);
    json::Value ls = json::Value::array();
    for (const MachineListing& l : mc.listings) ls.push_back(listing_json(l));
    o.set("listings", std::move(ls));
    json::Value missing = json::Value::array();
    for (const std::string& m : mc.missing) missing.push_back(m);
    o.set("missing", std::move(missing));
    std::cout << o.dump() << "\n";
    return 0;
  }
  if (req.target.empty())
    std::cout << "kernel " << k.name << " (" << variant << ", " << src->backend << " on " << k.device << "), compiled again here\n";
  else
    std::cout << "kernel " << k.name << " (" << variant << ", ran on " << k.device << "), planned and compiled here\n";
  std::vector<std::string> source = split_lines(src->text);
  for (const MachineListing& l : mc.listings) print_listing(l, source);
  for (const std::string& m : mc.missing) std::cout << "(" << m << ")\n";
  return 0;
}

} // namespace loupe::cli
