// loupe-cli trace: inspect a *.loupe trace without the GUI (DESIGN.md §6, §7).
//   loupe-cli trace FILE                       contexts and their passes, with match counts
//   loupe-cli trace FILE --graph CTX PASS STEP the graph at a step (text; --dot for Graphviz)
//   loupe-cli trace FILE --match CTX PASS K    the rewrite that produced step K: rule, location, diff
//   loupe-cli trace FILE --kernel NAME|ID      a kernel's opts, launch dims, source and NOOPT source
//   loupe-cli trace FILE --disasm NAME|ID      what the machine runs: the kernel compiled again here, as
//                                              machine code (LLVM IR, PTX, SASS) under its source lines;
//                                              --target T: planned and compiled for T (AMD's ISA)
//   loupe-cli trace FILE --hotspots [--kernel NAME|ID]  where sampled kernels spent their time (run --hotspots):
//                                              the kernels by samples, or one's source annotated line by line
//   loupe-cli trace FILE --profile             kernel runs as DEBUG=2 lines; -t [N]: top kernels
//   loupe-cli trace FILE --rules               rule profiler: matches, attempts and time per rule
//   loupe-cli trace FILE --chrome OUT.json     the profile as Chrome trace-event JSON (Perfetto)
//   loupe-cli trace A --diff B                 two runs side by side: kernels paired, times, opts, sources
//   loupe-cli trace FILE --search TEXT         kernels, passes, rules (name, file:line), nodes (op, arg)
//   loupe-cli trace FILE --step-kernel NAME --at I   one output element computed UOp by UOp on the
//                                              interpreter (--noopt: the NOOPT kernel; --target T: as
//                                              planned for T; --diverge: it and its NOOPT version, and
//                                              where they part; --diverge-target T: as it ran and for T)
// CTX is a context id as listed, PASS the pass's index within it, STEP 0..matches. --json prints one
// JSON object instead of text. --no-check skips the page check done on open (faster, less strict).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>

#include "cli/command.h"
#include "cli/trace_disasm.h"
#include "cli/trace_hotspots.h"
#include "cli/trace_step.h"
#include "inspect/why_not.h"
#include "render/amd_renderer.h"
#include "ir/print.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "support/json.h"
#include "support/source_path.h"
#include "support/terminal_text.h"
#include "trace/chrome_trace.h"
#include "trace/graph_at_step.h"
#include "trace/graph_dot.h"
#include "trace/profile_report.h"
#include "trace/trace_diff.h"
#include "trace/trace_reader.h"
#include "trace/trace_search.h"
#include "trace/uop_diff.h"

namespace loupe::cli {

namespace {

struct Request {
  std::string file;
  std::string mode = "list";    // list, graph, match, kernel, profile, top, rules
  std::vector<int64_t> where;   // CTX PASS STEP|K
  std::string kernel;
  int top_rows = 0;             // -t N (0: all)
  bool json = false, dot = false, check = true;
  bool hotspots = false;        // --hotspots: every sampled kernel, or --kernel's annotated source
  std::string chrome;
  std::string other;            // --diff B
  std::string search;           // --search TEXT
  std::string node;             // --why: the node's index in the --graph listing, or a key prefix (%53c261)
  StepKernelRequest step;       // --step-kernel
};

int64_t parse_int(const std::string& s, const std::string& what) {
  int64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) throw Error(cat(what, " must be an integer, not '", s, "'"));
  return v;
}

// A target name as the interpreter takes it, checked here so a typo is named before the trace is read.
// A target as the engine names it, from any case ("amd:GFX942" -> "AMD:gfx942").
std::string upper_target(std::string t) {
  if (std::optional<AmdArch> amd = amd_arch_of_target(t)) return t.find(':') == std::string::npos ? "AMD" : amd->target;
  for (char& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (t == "CPU" || t == "LLVM" || t == "CUDA" || t == "OPENCL") return t;
  throw Error(cat("unknown target '", t, "': CPU, LLVM, CUDA, OPENCL, AMD (= AMD:gfx1100) or AMD:gfx942"));
}

Request parse(const Args& args) {
  Request r;
  auto take = [&](size_t& i, const std::string& flag) -> const std::string& {
    if (i + 1 >= args.size()) throw Error(cat(flag, " needs a value"));
    return args[++i];
  };
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    if (a == "--graph" || a == "--match") {
      r.mode = a.substr(2);
      const char* names[] = {"CTX", "PASS", a == "--graph" ? "STEP" : "K"};
      for (const char* n : names) r.where.push_back(parse_int(take(i, a), cat(a, " ", n)));
    } else if (a == "--why") {
      r.mode = "why";
      for (const char* n : {"CTX", "PASS", "STEP"}) r.where.push_back(parse_int(take(i, a), cat(a, " ", n)));
      r.node = take(i, a);
    } else if (a == "--step-kernel") {
      r.mode = "step";
      r.step.kernel = take(i, a);
    } else if (a == "--at") {
      r.step.element = parse_int(take(i, a), "--at INDEX");
    } else if (a == "--noopt") {
      r.step.noopt = true;
    } else if (a == "--relevant") {
      r.step.relevant_only = true;
    } else if (a == "--diverge") {
      r.step.diverge = true;
    } else if (a == "--no-rerun") {
      r.step.rerun = false;
    } else if (a == "--allow-rerun") {
      r.step.allow_rerun = true;
    } else if (a == "--target") {
      r.step.target = upper_target(take(i, a));
    } else if (a == "--diverge-target") {
      r.step.diverge_target = upper_target(take(i, a));
    } else if (a == "--steps") {
      r.step.max_steps = parse_int(take(i, a), "--steps N");
    } else if (a == "--disasm") {
      r.mode = "disasm";
      r.kernel = take(i, a);
    } else if (a == "--kernel") {
      r.mode = "kernel";
      r.kernel = take(i, a);
    } else if (a == "--profile") {
      if (r.mode != "top") r.mode = "profile";
    } else if (a == "-t" || a == "--top") {
      r.mode = "top";
      if (i + 1 < args.size() && !args[i + 1].empty() && std::isdigit(static_cast<unsigned char>(args[i + 1][0])))
        r.top_rows = int(parse_int(args[++i], "-t N"));
    } else if (a == "--hotspots") {
      r.hotspots = true;
    } else if (a == "--rules") {
      r.mode = "rules";
    } else if (a == "--diff") {
      r.mode = "diff";
      r.other = take(i, a);
    } else if (a == "--search") {
      r.mode = "search";
      r.search = take(i, a);
      if (r.search.empty()) throw Error("--search needs some text to find");
    } else if (a == "--chrome") {
      r.chrome = take(i, a);
    } else if (a == "--json") {
      r.json = true;
    } else if (a == "--dot") {
      r.dot = true;
    } else if (a == "--no-check") {
      r.check = false;
    } else if (!a.empty() && a[0] == '-') {
      throw Error(cat("unknown option '", a, "' (see loupe-cli trace --help)"));
    } else if (r.file.empty()) {
      r.file = a;
    } else {
      throw Error(cat("unexpected argument '", a, "'"));
    }
  }
  if (r.hotspots && r.mode != "list" && r.mode != "kernel")
    throw Error("--hotspots goes alone (every sampled kernel) or with --kernel NAME (its annotated source)");
  if (r.file.empty()) throw Error("usage: loupe-cli trace FILE.loupe [--graph CTX PASS STEP [--dot] | --match CTX PASS K"
                                  " | --why CTX PASS STEP NODE | --kernel NAME [--hotspots] | --hotspots | --step-kernel NAME --at I [--noopt] [--target T] [--diverge|--diverge-target T] | --profile | -t [N] | --rules | --diff B.loupe | --search TEXT] [--json]"
                                  " [--chrome OUT.json]");
  return r;
}

std::string location(const std::string& file, int64_t line) { return repo_relative_path(file) + ":" + std::to_string(line); }

json::Value node_json(const UOp* u, size_t i, const std::unordered_map<const UOp*, size_t>& index) {
  json::Value n = json::Value::object();
  n.set("i", int64_t(i));
  n.set("op", std::string(op_name(u->op)));
  n.set("dtype", u->dtype.short_name());
  json::Value src = json::Value::array();
  for (const UOpPtr& s : u->src) src.push_back(int64_t(index.at(s.get())));
  n.set("src", std::move(src));
  n.set("arg", u->arg.str());
  n.set("key", u->key().hex());
  return n;
}

// A kernel's id, name, device and opts (the start of every kernel object the JSON forms print).
json::Value kernel_identity_json(int64_t id, const std::string& name, const std::string& device,
                                 const std::vector<std::string>& opts) {
  json::Value o = json::Value::object();
  o.set("id", id);
  o.set("name", name);
  o.set("device", device);
  json::Value list = json::Value::array();
  for (const std::string& s : opts) list.push_back(s);
  o.set("opts", std::move(list));
  return o;
}

int list(TraceReader& r, const Request& req) {
  std::map<std::string, std::string> info = r.run_info();
  std::vector<TraceContext> ctxs = r.contexts();
  bool finished = r.finished();
  json::Value out = json::Value::object();
  json::Value jctx = json::Value::array();
  if (!req.json) {
    std::cout << r.path() << ": " << ctxs.size() << " contexts, " << r.kernels().size() << " kernels, "
              << r.profile().size() << " profile events" << (finished ? "" : " (unfinished: still being written, or the writer died)")
              << "\n";
    if (info.count("script_path")) std::cout << "script: " << info["script_path"] << "\n";
  }
  for (const TraceContext& c : ctxs) {
    std::vector<TracePass> ps = r.passes(c.id);
    if (!req.json) {
      std::cout << "context " << c.id << "  " << c.kind << "  " << c.name << "  ("
                << (c.planned_name.empty() ? "" : "planned as " + c.planned_name + "; ") << c.pass_count << " passes, "
                << c.match_count << " matches)\n";
      for (const TracePass& p : ps) {
        std::string name = std::string(size_t(2 * p.depth), ' ') + p.name;
        std::cout << "  " << (p.index < 10 ? "  " : p.index < 100 ? " " : "") << p.index << "  " << name
                  << std::string(name.size() < 36 ? 36 - name.size() : 1, ' ') << p.match_count << " matches"
                  << (p.bottom_up ? "  bottom_up" : "") << (p.finished() ? "" : "  (unfinished)") << "  "
                  << location(p.file, p.line) << "\n";
      }
      continue;
    }
    json::Value jc = json::Value::object();
    jc.set("id", c.id);
    jc.set("kind", c.kind);
    jc.set("name", c.name);
    if (!c.planned_name.empty()) jc.set("planned_name", c.planned_name);
    jc.set("matches", c.match_count);
    json::Value jp = json::Value::array();
    for (const TracePass& p : ps) {
      json::Value o = json::Value::object();
      o.set("index", p.index);
      o.set("name", p.name);
      o.set("location", location(p.file, p.line));
      o.set("bottom_up", p.bottom_up);
      o.set("depth", int64_t(p.depth));
      o.set("matches", p.match_count);
      o.set("finished", p.finished());
      jp.push_back(std::move(o));
    }
    jc.set("passes", std::move(jp));
    jctx.push_back(std::move(jc));
  }
  if (req.json) {
    out.set("file", r.path());
    out.set("finished", finished);
    json::Value ji = json::Value::object();
    for (const auto& [k, v] : info)
      if (k != "script") ji.set(k, v);
    out.set("run", std::move(ji));
    out.set("contexts", std::move(jctx));
    std::cout << out.dump() << "\n";
  }
  return 0;
}

int graph(TraceReader& r, const Request& req) {
  TracePass p = r.pass_at(req.where[0], req.where[1]);
  PassReplay replay(r, p.id);
  StepChanges ch = replay.changes_at(req.where[2]);
  UOpPtr g = replay.graph_at(req.where[2]);
  std::unordered_set<const UOp*> hl;
  for (const UOpPtr& u : ch.highlighted) hl.insert(u.get());
  if (req.dot) {
    std::cout << graph_dot(g, hl);
    return 0;
  }
  if (!req.json) {
    std::cout << "# context " << p.context_id << " pass " << p.index << " '" << p.name << "' step " << ch.step << "/"
              << replay.steps();
    if (ch.step > 0) std::cout << " (" << ch.added.size() << " added, " << ch.removed.size() << " removed)";
    std::cout << "\n" << print_graph(g);
    return 0;
  }
  std::vector<const UOp*> order = g->toposort();
  std::unordered_map<const UOp*, size_t> index;
  json::Value nodes = json::Value::array();
  for (size_t i = 0; i < order.size(); i++) {
    index[order[i]] = i;
    nodes.push_back(node_json(order[i], i, index));
  }
  auto indices = [&](const UOpList& us) {
    json::Value a = json::Value::array();
    for (const UOpPtr& u : us) a.push_back(int64_t(index.at(u.get())));
    return a;
  };
  json::Value removed = json::Value::array();
  for (const UOpPtr& u : ch.removed) removed.push_back(u->key().hex());
  json::Value out = json::Value::object();
  out.set("context", p.context_id);
  out.set("pass", p.index);
  out.set("name", p.name);
  out.set("step", ch.step);
  out.set("steps", replay.steps());
  out.set("nodes", std::move(nodes));
  out.set("added", indices(ch.added));
  out.set("highlighted", indices(ch.highlighted));
  out.set("removed_keys", std::move(removed));
  std::cout << out.dump() << "\n";
  return 0;
}

// The node of a step's graph that `spec` names: its index in print_graph's listing, or a key prefix.
UOpPtr node_in(const UOpPtr& g, const std::string& spec) {
  std::vector<const UOp*> order = g->toposort();
  if (!spec.empty() && spec[0] == '%') {
    const UOp* found = nullptr;
    for (const UOp* u : order)
      if (u->key().hex().rfind(spec.substr(1), 0) == 0) {
        if (found && found != u) throw Error(cat("--why: key prefix ", spec, " names more than one node; give more digits"));
        found = u;
      }
    if (!found) throw Error(cat("--why: no node of this step's graph has a key starting with ", spec.substr(1)));
    return found->ptr();
  }
  int64_t i = parse_int(spec, "--why NODE");
  if (i < 0 || i >= int64_t(order.size())) throw Error(cat("--why: the graph has nodes 0..", order.size() - 1, ", not ", i));
  return order[size_t(i)]->ptr();
}

int why(TraceReader& r, const Request& req) {
  TracePass p = r.pass_at(req.where[0], req.where[1]);
  PassReplay replay(r, p.id);
  UOpPtr node = node_in(replay.graph_at(req.where[2]), req.node);
  WhyNotReport rep = why_not(r, p, node);
  if (!req.json) {
    std::cout << "# context " << p.context_id << " pass " << p.index << " '" << p.name << "' step " << req.where[2] << "\n"
              << format_why_not(rep);
    return 0;
  }
  json::Value rules = json::Value::array();
  for (const RuleVerdict& v : rep.verdicts) {
    json::Value o = json::Value::object();
    o.set("rule", v.rule->name);
    o.set("location", location(v.rule->location.file_name(), v.rule->location.line()));
    o.set("verdict", std::string(verdict_name(v.kind)));
    o.set("reason", v.reason);
    if (v.replacement) o.set("replacement", uop_label(*v.replacement));
    rules.push_back(std::move(o));
  }
  json::Value out = json::Value::object();
  out.set("context", p.context_id);
  out.set("pass", p.index);
  out.set("name", p.name);
  out.set("step", req.where[2]);
  out.set("node", uop_label(*node));
  out.set("key", node->key().hex());
  out.set("rule_set", rep.rule_set);
  out.set("callbacks_run", rep.callbacks_run);
  out.set("rules", std::move(rules));
  std::cout << out.dump() << "\n";
  return 0;
}

int match(TraceReader& r, const Request& req) {
  TracePass p = r.pass_at(req.where[0], req.where[1]);
  int64_t k = req.where[2];
  if (k < 1 || k > p.match_count)
    throw Error(cat(r.path(), ": pass ", p.index, " ('", p.name, "') of context ", p.context_id, " has matches 1..",
                    p.match_count, ", not ", k));
  TraceMatch m = r.match(p.id, k - 1);
  UOpPtr before = r.node(m.before_id), after = r.node(m.after_id);
  std::vector<std::string> diff = unified_diff(uop_listing(before), uop_listing(after));
  std::string eb = render_expr(before), ea = render_expr(after);
  bool exprs = eb.find("(...)") == std::string::npos && ea.find("(...)") == std::string::npos;
  if (req.json) {
    json::Value out = json::Value::object();
    out.set("context", p.context_id);
    out.set("pass", p.index);
    out.set("step", k);
    out.set("rule", m.rule_name);
    out.set("location", location(m.rule_file, m.rule_line));
    out.set("ns", m.ns);
    out.set("before", uop_label(*before));
    out.set("after", uop_label(*after));
    if (exprs) {
      out.set("before_expr", eb);
      out.set("after_expr", ea);
    }
    json::Value d = json::Value::array();
    for (const std::string& l : diff) d.push_back(l);
    out.set("diff", std::move(d));
    std::cout << out.dump() << "\n";
    return 0;
  }
  std::cout << "step " << k << " of pass " << p.index << " '" << p.name << "' (context " << p.context_id << ")\n"
            << "rule " << m.rule_name << "  at " << location(m.rule_file, m.rule_line) << "  (" << double(m.ns) / 1e3
            << " us)\n";
  if (exprs) std::cout << "  " << eb << "  ->  " << ea << "\n";
  for (const std::string& l : diff) std::cout << l << "\n";
  return 0;
}

// A kernel's variables (symbolic shapes): the DEFINE_VARs of its AST, by name, with their ranges.
struct KernelVar {
  std::string name;
  int64_t min, max;
};
std::vector<KernelVar> kernel_vars(TraceReader& r, const TraceKernel& k) {
  std::vector<KernelVar> out;
  if (k.ast_id < 0) return out;
  UOpPtr ast = r.node(k.ast_id);
  if (!ast) return out;
  // they live in the views' ShapeTrackers (tinygrad's ast.variables())
  for (const UOp* u : ast->toposort()) {
    const auto* st = u->op == Ops::VIEW ? u->arg.object<ShapeTracker>() : nullptr;
    if (!st) continue;
    for (const UOpPtr& v : st->vars())
      if (v->op == Ops::DEFINE_VAR && v->arg.is_tuple() && v->arg.as_tuple().size() == 3) {
        const auto& t = v->arg.as_tuple();
        out.push_back({t[0].as_string(), t[1].as_int(), t[2].as_int()});
      }
  }
  std::sort(out.begin(), out.end(), [](const KernelVar& a, const KernelVar& b) { return a.name < b.name; });
  out.erase(std::unique(out.begin(), out.end(), [](const KernelVar& a, const KernelVar& b) { return a.name == b.name; }), out.end());
  return out;
}

int kernel(TraceReader& r, const Request& req) {
  std::vector<int64_t> ids = r.kernels_named(req.kernel);
  if (ids.empty() && !req.kernel.empty() && std::isdigit(static_cast<unsigned char>(req.kernel[0]))) {
    int64_t id = parse_int(req.kernel, "--kernel ID");
    for (const TraceKernel& k : r.kernels())
      if (k.id == id) ids.push_back(id);
  }
  if (ids.empty()) throw Error(cat(r.path(), ": no kernel named '", req.kernel, "'"));
  json::Value all = json::Value::array();
  for (int64_t id : ids) {
    TraceKernel k = r.kernel(id);
    const std::vector<KernelVar> vars = kernel_vars(r, k);
    if (req.json) {
      json::Value o = kernel_identity_json(k.id, k.name, k.device, k.opts);
      json::Value vs = json::Value::array();
      for (const KernelVar& v : vars) {
        json::Value vo = json::Value::object();
        vo.set("name", v.name);
        vo.set("min", v.min);
        vo.set("max", v.max);
        vs.push_back(std::move(vo));
      }
      o.set("variables", std::move(vs));
      o.set("global_size", json::Value::ints(k.global_size));
      o.set("local_size", json::Value::ints(k.local_size));
      o.set("flops", k.flops);
      o.set("lds", k.lds);
      o.set("mem", k.mem);
      json::Value srcs = json::Value::array();
      for (const KernelSource& s : k.sources) {
        json::Value so = json::Value::object();
        so.set("backend", s.backend);
        so.set("variant", s.variant);
        so.set("source", s.text);
        srcs.push_back(std::move(so));
      }
      o.set("sources", std::move(srcs));
      json::Value bufs = json::Value::array();
      for (const BufferAccess& b : k.buffers) {
        json::Value bo = json::Value::object();
        bo.set("index", int64_t(b.index));
        bo.set("name", b.name);
        bo.set("access", b.access);
        bo.set("dtype", b.dtype);
        bo.set("shapetracker", b.st_text);
        bufs.push_back(std::move(bo));
      }
      o.set("buffers", std::move(bufs));
      json::Value beam = json::Value::array();
      for (const BeamCandidate& c : k.beam) {
        json::Value bo = json::Value::object();
        bo.set("round", int64_t(c.round));
        json::Value opts = json::Value::array();
        for (const std::string& o : c.opts) opts.push_back(o);
        bo.set("opts", std::move(opts));
        if (std::isfinite(c.seconds) && c.seconds >= 0) bo.set("seconds", c.seconds);
        bo.set("wall_seconds", c.wall_seconds);
        bo.set("status", c.status);
        bo.set("chosen", c.chosen);
        beam.push_back(std::move(bo));
      }
      o.set("beam", std::move(beam));
      all.push_back(std::move(o));
      continue;
    }
    std::cout << "kernel " << k.id << "  " << k.name << "  on " << k.device << "\n";
    std::cout << "  opts: ";
    for (size_t i = 0; i < k.opts.size(); i++) std::cout << (i ? ", " : "") << k.opts[i];
    std::cout << (k.opts.empty() ? "(none)" : "") << "\n  global " << json::Value::ints(k.global_size).dump()
              << "  local " << json::Value::ints(k.local_size).dump() << "\n  estimates: " << k.flops << " flops, "
              << k.lds << " bytes loaded/stored, " << k.mem << " bytes of unique memory\n";
    if (!vars.empty()) {
      std::cout << "  variables:";
      for (const KernelVar& v : vars) std::cout << " " << v.name << " in [" << v.min << ", " << v.max << "]";
      std::cout << "\n";
    }
    for (const BufferAccess& b : k.buffers)
      std::cout << "  buffer " << b.index << " " << b.name << " (" << b.access << ", " << b.dtype << "): " << b.st_text << "\n";
    if (!k.beam.empty()) {
      std::cout << "  BEAM: " << k.beam.size() << " candidates (* chosen)\n";
      for (const BeamCandidate& c : k.beam) {
        std::string opts;
        for (const std::string& o : c.opts) opts += (opts.empty() ? "" : ", ") + o;
        const bool timed = std::isfinite(c.seconds) && c.seconds >= 0;
        std::cout << (c.chosen ? "  * " : "    ") << "round " << c.round << "  "
                  << (timed ? cat(c.seconds * 1e6, " us") : std::string("-")) << "  (" << c.wall_seconds * 1e3 << " ms to build and time)  "
                  << (opts.empty() ? "no opts" : opts) << (c.status == "timed" ? "" : "  [" + c.status + "]") << "\n";
      }
    }
    for (const char* variant : {"opt", "noopt"})
      for (const KernelSource& s : k.sources) {
        if (s.variant != variant) continue;
        std::cout << "\n// ---- " << s.backend << (s.variant == "noopt" ? " (NOOPT)" : "") << " ----\n" << s.text;
        if (s.text.empty() || s.text.back() != '\n') std::cout << "\n";
      }
  }
  if (req.json) std::cout << all.dump() << "\n";
  return 0;
}

int profile(TraceReader& r, const Request& req) {
  std::vector<TraceEvent> events = r.profile();
  if (req.mode == "top") {
    std::vector<KernelTotal> totals = top_kernels(events);
    if (!req.json) {
      for (const std::string& l : top_kernel_lines(totals, req.top_rows)) std::cout << l << "\n";
      return 0;
    }
    json::Value a = json::Value::array();
    size_t rows = req.top_rows <= 0 ? totals.size() : std::min(totals.size(), size_t(req.top_rows));
    for (size_t i = 0; i < rows; i++) {
      const KernelTotal& t = totals[i];
      json::Value o = json::Value::object();
      o.set("device", t.device);
      o.set("name", t.name);
      o.set("count", t.count);
      o.set("total_ns", t.total_ns);
      o.set("share", t.share);
      o.set("gflops", t.gflops());
      o.set("gbs", t.gbs());
      a.push_back(std::move(o));
    }
    json::Value out = json::Value::object();
    out.set("top", std::move(a));
    std::cout << out.dump() << "\n";
    return 0;
  }
  if (!req.json) {
    for (const std::string& l : debug2_lines(events)) std::cout << l << "\n";
    for (const DevicePeaks& p : r.peaks())
      std::cout << "peak " << p.device << ": " << p.peak_gflops << " GFLOPS, " << p.bandwidth_gbs << " GB/s\n";
    return 0;
  }
  json::Value a = json::Value::array();
  for (const TraceEvent& e : events) {
    json::Value o = json::Value::object();
    o.set("kind", e.kind);
    o.set("device", e.device);
    o.set("name", e.name);
    o.set("kernel_id", e.kernel_id);
    o.set("start_ns", e.start_ns);
    o.set("duration_ns", e.duration_ns);
    o.set("flops", e.flops);
    o.set("mem", e.mem);
    o.set("lds", e.lds);
    o.set("bytes", e.bytes);
    if (!e.peer.empty()) o.set("from", e.peer);
    if (!e.var_vals.empty()) {  // a kernel with symbolic shapes: this run's values
      json::Value vs = json::Value::object();
      for (const auto& [name, value] : e.var_vals) vs.set(name, value);
      o.set("var_vals", std::move(vs));
    }
    a.push_back(std::move(o));
  }
  json::Value peaks = json::Value::array();
  for (const DevicePeaks& p : r.peaks()) {
    json::Value o = json::Value::object();
    o.set("device", p.device);
    o.set("peak_gflops", p.peak_gflops);
    o.set("bandwidth_gbs", p.bandwidth_gbs);
    peaks.push_back(std::move(o));
  }
  json::Value out = json::Value::object();
  out.set("events", std::move(a));
  out.set("peaks", std::move(peaks));
  std::cout << out.dump() << "\n";
  return 0;
}

// Like tinygrad's match stats: matches / attempts -- time -- location name.
int rules(TraceReader& r, const Request& req) {
  std::vector<TraceRule> rs = r.rules();
  std::stable_sort(rs.begin(), rs.end(), [](const TraceRule& a, const TraceRule& b) {
    return std::max(a.match_ns, a.attempt_ns) > std::max(b.match_ns, b.attempt_ns);
  });
  json::Value a = json::Value::array();
  for (const TraceRule& x : rs) {
    if (req.json) {
      json::Value o = json::Value::object();
      o.set("name", x.name);
      o.set("location", location(x.file, x.line));
      o.set("matches", x.matches);
      o.set("attempts", x.attempts);
      o.set("match_ns", x.match_ns);
      o.set("attempt_ns", x.attempt_ns);
      a.push_back(std::move(o));
      continue;
    }
    char buf[128];
    std::snprintf(buf, sizeof buf, "%8lld / %8lld -- %9.2f / %9.2f ms -- ", (long long)x.matches, (long long)x.attempts,
                  double(x.match_ns) / 1e6, double(x.attempt_ns) / 1e6);
    std::cout << buf << location(x.file, x.line) << "  " << x.name << "\n";
  }
  if (req.json) std::cout << a.dump() << "\n";
  return 0;
}

json::Value side_json(const KernelInRun& k) {
  json::Value o = kernel_identity_json(k.id, k.name, k.device, k.opts);
  o.set("runs", k.runs);
  o.set("total_ns", k.total_ns);
  return o;
}

std::string ms(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", double(ns) / 1e6);
  return buf;
}

std::string joined(const std::vector<std::string>& xs) {
  std::string out;
  for (const std::string& x : xs) out += (out.empty() ? "" : " ") + x;
  return out.empty() ? "none" : out;
}

int diff(TraceReader& a, const Request& req) {
  TraceReader b(req.other, {.quick_check = req.check});
  TraceDiff d = diff_traces(a, b);
  if (req.json) {
    json::Value out = json::Value::object();
    out.set("a", a.path());
    out.set("b", b.path());
    out.set("total_a_ns", d.total_a_ns);
    out.set("total_b_ns", d.total_b_ns);
    json::Value pairs = json::Value::array();
    for (const KernelPair& p : d.pairs) {
      json::Value o = json::Value::object();
      o.set("matched_by", p.matched_by);
      if (p.a) o.set("a", side_json(*p.a));
      if (p.b) o.set("b", side_json(*p.b));
      o.set("change_ns", p.change_ns());
      o.set("speedup", p.ratio());
      json::Value lines = json::Value::array();
      for (const std::string& l : p.source_diff) lines.push_back(l);
      o.set("source_diff", std::move(lines));
      pairs.push_back(std::move(o));
    }
    out.set("pairs", std::move(pairs));
    std::cout << out.dump() << "\n";
    return 0;
  }
  std::cout << "A: " << a.path() << "  (" << ms(d.total_a_ns) << " ms in kernels)\n"
            << "B: " << b.path() << "  (" << ms(d.total_b_ns) << " ms in kernels)\n"
            << "kernels by the change of their total time (speed-up: A's mean time over B's)\n";
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-28s %-28s %10s %10s %9s %6s  %s\n", "A", "B", "A ms", "B ms", "speed-up", "paired",
                "source");
  std::cout << buf;
  for (const KernelPair& p : d.pairs) {
    size_t changed = 0;
    for (const std::string& l : p.source_diff) changed += l[0] != ' ';
    const std::string src = !p.a || !p.b ? "-" : p.source_diff.empty() ? "same" : std::to_string(changed) + " lines differ";
    std::snprintf(buf, sizeof buf, "%-28s %-28s %10s %10s %9s %6s  %s\n", p.a ? p.a->name.c_str() : "(only in B)",
                  p.b ? p.b->name.c_str() : "(only in A)", p.a ? ms(p.a->total_ns).c_str() : "-", p.b ? ms(p.b->total_ns).c_str() : "-",
                  p.ratio() > 0 ? (std::to_string(p.ratio()).substr(0, 5) + "x").c_str() : "-",
                  p.matched_by.empty() ? "-" : p.matched_by.c_str(), src.c_str());
    std::cout << buf;
    if (p.a && p.b && p.a->opts != p.b->opts) std::cout << "    opts A: " << joined(p.a->opts) << "\n    opts B: " << joined(p.b->opts) << "\n";
  }
  return 0;
}

// Every hit with where to look: `--graph CTX PASS STEP` addresses its step (PASS as listed: the
// pass's index within its context).
int search(TraceReader& r, const Request& req) {
  const TraceSearchResult res = search_trace(r, req.search);
  std::map<int64_t, std::map<int64_t, int64_t>> index_in_context;  // context -> pass id -> index
  auto pass_index = [&](int64_t ctx, int64_t pass) -> int64_t {
    auto [it, fresh] = index_in_context.try_emplace(ctx);
    if (fresh) {
      int64_t i = 0;
      for (const TracePass& p : r.passes(ctx)) it->second[p.id] = i++;
    }
    auto p = it->second.find(pass);
    return p == it->second.end() ? -1 : p->second;
  };
  json::Value hits = json::Value::array();
  for (const TraceSearchHit& h : res.hits) {
    const int64_t pass = h.pass_id >= 0 ? pass_index(h.context_id, h.pass_id) : -1;
    if (req.json) {
      json::Value o = json::Value::object();
      o.set("kind", std::string(search_kind_name(h.kind)));
      o.set("label", h.label);
      o.set("detail", h.detail);
      o.set("context", h.context_id);
      o.set("context_name", h.context_name);
      o.set("pass", pass);
      o.set("pass_name", h.pass_name);
      o.set("step", h.step);
      o.set("kernel", h.kernel_id);
      hits.push_back(std::move(o));
      continue;
    }
    std::string where = h.context_id < 0 ? std::string() : cat("ctx ", h.context_id, " ", h.context_name);
    if (pass >= 0) where += cat(" › pass ", pass, " ", h.pass_name, " › step ", h.step, "   (--graph ", h.context_id, " ", pass, " ", h.step, ")");
    std::cout << search_kind_name(h.kind) << "  " << h.label << "\n    " << where << (h.detail.empty() ? "" : "  · ") << h.detail << "\n";
  }
  if (req.json) {
    json::Value out = json::Value::object();
    out.set("text", req.search);
    out.set("truncated", res.truncated);
    out.set("hits", std::move(hits));
    std::cout << out.dump() << "\n";
  } else {
    std::cout << res.hits.size() << " hits for '" << req.search << "'" << (res.truncated ? " (more of some kind: narrow it down)" : "") << "\n";
  }
  return 0;
}

int run(const Args& args) {
  if (has_flag(args, "--help") || has_flag(args, "-h")) {
    std::cout << "usage: loupe-cli trace FILE.loupe [--graph CTX PASS STEP [--dot] | --match CTX PASS K |\n"
                 "         --why CTX PASS STEP NODE (NODE: its index in --graph's listing, or a key prefix like %53c261) |\n"
                 "         --kernel NAME [--hotspots] | --hotspots | --disasm NAME [--noopt] [--target T] | --profile | -t [N] | --rules |\n"
                 "         --diff OTHER.loupe | --search TEXT |\n"
                 "         --step-kernel NAME --at INDEX [--noopt] [--target T] [--diverge | --diverge-target T] [--steps N]\n"
                 "         [--relevant] [--no-rerun | --allow-rerun]] [--json]\n"
                 "  T: CPU, LLVM, CUDA, OPENCL, AMD (= AMD:gfx1100, RDNA3) or AMD:gfx942 (CDNA3); --disasm NAME --target T\n"
                 "  shows the kernel planned for T and compiled for it (AMD: clang-15's amdgcn code object).\n"
                 "  --allow-rerun: a kernel whose inputs the trace did not keep is stepped by running the program that\n"
                 "  recorded it again; for a trace not recorded by you on this machine that needs this flag (without it,\n"
                 "  the error shows what would run). Nothing else in a trace is ever run.\n"
                 "  --hotspots: where the kernels of a trace recorded with `loupe-cli run --hotspots` spent their time:\n"
                 "  the sampled kernels by samples, or with --kernel NAME its source annotated line by line.\n"
                 "         [--chrome OUT.json]\n"
                 "         [--no-check]\n";
    return 0;
  }
  // Everything printed from here on may quote the trace (names, paths, sources, rule names): control
  // characters in it reach the terminal escaped, never as themselves.
  TerminalSafeOutput safe_out(std::cout), safe_err(std::cerr);
  Request req = parse(args);
  TraceReader r(req.file, {.quick_check = req.check});
  if (!req.chrome.empty()) {
    write_chrome_trace(r, req.chrome);
    if (req.mode == "list") {
      std::cerr << "wrote " << req.chrome << "\n";
      return 0;
    }
  }
  if (req.mode == "graph") return graph(r, req);
  if (req.mode == "match") return match(r, req);
  if (req.mode == "why") return why(r, req);
  if (req.hotspots) return trace_hotspots(r, {req.mode == "kernel" ? req.kernel : "", req.json});
  if (req.mode == "kernel") return kernel(r, req);
  if (req.mode == "disasm") return disasm_kernel(r, {req.kernel, req.step.noopt, req.json, req.step.target});
  if (req.mode == "step") {
    req.step.json = req.json;
    return step_kernel(r, req.step);
  }
  if (req.mode == "profile" || req.mode == "top") return profile(r, req);
  if (req.mode == "rules") return rules(r, req);
  if (req.mode == "diff") return diff(r, req);
  if (req.mode == "search") return search(r, req);
  return list(r, req);
}

const Registrar reg("trace", "inspect a .loupe trace: passes, graphs at a step, rewrites, kernels, profile", run);

} // namespace

} // namespace loupe::cli
