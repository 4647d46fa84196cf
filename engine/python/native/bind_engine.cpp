// The engine around the tensors: options (DEBUG, NOOPT, BEAM, ...), devices, counters, traces, the
// pieces `loupe-cli run/eval` uses (results as JSON, numpy-style printing, NOOPT comparisons) and
// safetensors files.
#include <algorithm>
#include <cstdlib>

#include "bench/peaks_cache.h"
#include "common.h"
#include "convert.h"
#include "exec/kernel_compiler.h"
#include "exec/noopt_compare.h"
#include "exec/realize.h"
#include "inspect/hotspot_report.h"
#include "jit/jit.h"
#include "nn/safetensors.h"
#include "program/array_format.h"
#include "program/eval_result.h"
#include "rewrite/rule_stats.h"
#include "runtime/allocator.h"
#include "runtime/counters.h"
#include "runtime/device.h"
#include "schedule/schedule_cache.h"
#include "support/error.h"
#include "support/json.h"
#include "support/options.h"
#include "support/regular_file.h"
#include "trace/trace_session.h"

namespace loupe::python {

namespace {

py::object get_option(const std::string& name) {
  const Options& o = options();
  if (name == "DEBUG") return py::int_(o.debug);
  if (name == "NOOPT") return py::int_(o.noopt ? 1 : 0);
  if (name == "BEAM") return py::int_(o.beam);
  if (name == "DEVICE") return py::str(o.device);
  if (name == "THREADS") return py::int_(o.threads);
  if (name == "COMPARE_NOOPT") return py::int_(o.compare_noopt ? 1 : 0);
  if (name == "HOTSPOTS") return py::int_(o.hotspots ? 1 : 0);
  if (name == "TRAINING") return py::int_(o.training ? 1 : 0);
  if (name == "NO_MEMORY_PLANNER") return py::int_(o.no_memory_planner ? 1 : 0);
  if (name == "SCACHE") return py::int_(o.schedule_cache ? 1 : 0);
  if (name == "JIT") return py::int_(o.jit);
  if (name == "CAPTURING") return py::int_(jit_capturing() ? 1 : 0);
  return py::none();
}

bool set_option(const std::string& name, py::handle v) {
  Options& o = options();
  if (name == "DEBUG") o.debug = v.cast<int>();
  else if (name == "NOOPT") o.noopt = v.cast<int>() != 0;
  else if (name == "BEAM") o.beam = v.cast<int>();
  else if (name == "DEVICE") o.device = v.is_none() ? "" : canonical_device_name(v.cast<std::string>());
  else if (name == "THREADS") o.threads = v.cast<int>();
  else if (name == "COMPARE_NOOPT") o.compare_noopt = v.cast<int>() != 0;
  else if (name == "HOTSPOTS") o.hotspots = v.cast<int>() != 0;
  else if (name == "TRAINING") o.training = PyObject_IsTrue(v.ptr()) == 1;
  else if (name == "NO_MEMORY_PLANNER") o.no_memory_planner = v.cast<int>() != 0;
  else if (name == "SCACHE") o.schedule_cache = v.cast<int>() != 0;
  else if (name == "JIT") o.jit = v.cast<int>();
  else if (name == "CAPTURING") set_jit_capturing(v.cast<int>() != 0);
  else return false;
  return true;
}

program::EvalResult eval_result(Tensor out, int64_t kernels_before) {
  program::EvalResult r;
  r.shape = out.shape();
  r.dtype = dtypes::strong(out.dtype());
  out.realize();
  if (r.dtype.is_float()) r.floats = out.to_vector();
  else r.ints = out.to_int_vector();
  r.kernels = global_counters().kernel_count.load() - kernels_before;
  return r;
}

nn::StateDict state_dict_of(const py::dict& d) {
  nn::StateDict out;
  for (auto [k, v] : d) out.emplace_back(k.cast<std::string>(), to_tensor(v, "safe_save"));
  return out;
}

// the process-wide switches by their environment names
void bind_options(py::module_& m) {
  m.def("get_option", &get_option);
  m.def("set_option", &set_option);
}

void bind_devices(py::module_& m) {
  m.def("default_device", &default_device);
  m.def("canonical_device_name", &canonical_device_name);
  m.def("list_devices", [] {
    py::list out;
    for (const DeviceStatus& s : list_devices()) out.append(py::make_tuple(s.name, s.available, s.reason));
    return out;
  });
  m.def("device_status", [](const std::string& name) {
    DeviceStatus s = device_status(name);
    return py::make_tuple(s.name, s.available, s.reason);
  });
  m.def("prepare_process_environment", &prepare_process_environment);
}

// counters (tinygrad's GlobalCounters), memory in use and the kernel and schedule caches
void bind_counters_and_caches(py::module_& m) {
  m.def("counters", [] {
    GlobalCounters& c = global_counters();
    py::dict d;
    d["kernel_count"] = c.kernel_count.load();
    d["copy_count"] = c.copy_count.load();
    d["global_ops"] = c.global_ops.load();
    d["global_mem"] = c.global_mem.load();
    d["time_sum_s"] = c.time_sum_ns.load() / 1e9;
    return d;
  });
  m.def("reset_counters", [] { global_counters().reset(); });
  // bytes the default device's allocator has handed out and not taken back (tinygrad's mem_used)
  m.def("memory_used", [] { return get_device(default_device()).allocator().used_bytes(); });
  m.def("clear_kernel_cache", &clear_kernel_cache);
  m.def("schedule_cache_stats", [] {
    ScheduleCacheStats s = schedule_cache_stats();
    py::dict d;
    d["hits"] = s.hits;
    d["misses"] = s.misses;
    d["entries"] = s.entries;
    return d;
  });
  m.def("clear_schedule_cache", &clear_schedule_cache);
}

// The peaks of these devices for the trace's roofline, where not recorded yet: the default device's at
// the start of a run, every other device kernels ran on at its end.
void record_missing_peaks(TraceWriter& w, const std::vector<std::string>& devices) {
  std::vector<std::string> have = w.devices_with_peaks();
  for (const std::string& d : devices) {
    if (std::find(have.begin(), have.end(), d) != have.end()) continue;
    try {
      if (std::optional<DevicePeaks> p = bench::device_peaks_cached(d)) w.record_peaks(*p);
    } catch (const std::exception&) {  // a device that cannot be measured draws no roof
    }
  }
}

// The SASS of each PC-sampled CUDA kernel, made here where the GPU's tools are, kept beside its samples: a
// reader without them (a laptop opening the trace) still lays the samples over the code that ran.
void record_sampled_listings(TraceWriter& w) {
  for (const TraceWriter::KernelToList& k : w.sampled_without_listing())
    if (std::optional<RecordedListing> l = listing_to_record(k.name, k.source.backend, k.source.text)) w.record_kernel_listing(k.id, *l);
}

// traces: recording one, opening it in the app, and DEBUG>=6 rule statistics
void bind_traces(py::module_& m) {
  m.def("trace_start", [](const std::string& path, bool count_attempts) {
    TraceWriterOptions o;
    o.count_attempts = count_attempts;
    return TraceSession::start(path, false, o).path();
  }, py::arg("path"), py::arg("count_attempts") = false);
  m.def("trace_start_from_env", []() -> py::object {
    TraceSession* s = TraceSession::start_from_env();
    if (!s) return py::none();
    return py::make_tuple(s->path(), s->viz());
  });
  m.def("trace_active", [] { return TraceSession::current() != nullptr; });
  // why recording stopped early ("" while it records): a full disk, a write error
  m.def("trace_problem", [] {
    TraceSession* s = TraceSession::current();
    return s ? s->writer().error() : std::string();
  });
  m.def("trace_finish", [] {
    if (TraceSession* s = TraceSession::current()) {
      record_missing_peaks(s->writer(), s->writer().devices_with_kernel_runs());
      record_sampled_listings(s->writer());
    }
    return TraceSession::finish();
  });
  m.def("trace_record_run", [](const std::string& path, const std::string& source, const std::map<std::string, std::string>& settings) {
    TraceSession* s = TraceSession::current();
    if (!s) return;
    RunInfo info{path, source, {settings.begin(), settings.end()}};
    s->writer().record_run_info(info);
    record_missing_peaks(s->writer(), {default_device()});
  });
  m.def("open_trace_in_app", &open_trace_in_app);
  // DEBUG>=6: the per-rule table of this thread's rewrites, printed to stderr when it ends
  static std::unique_ptr<DebugRuleStatsScope> rule_stats;
  m.def("rule_stats_begin", [] { rule_stats = std::make_unique<DebugRuleStatsScope>(); });
  m.def("rule_stats_end", [] { rule_stats.reset(); });
}

// loupe-cli run / eval (DESIGN.md §6)
void bind_run_and_eval(py::module_& m) {
  m.def("kernel_count", [] { return global_counters().kernel_count.load(); });
  m.def("eval_json", [](const std::string& id_json, const Tensor& out, int64_t kernels_before) {
    return program::result_json(json::parse(id_json), eval_result(out, kernels_before));
  });
  m.def("error_json", [](const std::string& id_json, const std::string& message) {
    return program::error_json(json::parse(id_json), message);
  });
  m.def("format_result", [](const Tensor& out, int64_t kernels_before) {
    program::EvalResult r = eval_result(out, kernels_before);
    return cat("out: shape ", shape_str(r.shape), ", dtype ", r.dtype.short_name(), ", ", r.kernels,
               r.kernels == 1 ? " kernel" : " kernels", "\n", program::format_array(r));
  });
  m.def("noopt_comparisons", [](int column_width) {
    std::vector<NooptComparison> cs = take_noopt_comparisons();
    const size_t plain = take_kernels_without_opts();
    std::string out = cat(cs.size(), " optimized ", cs.size() == 1 ? "kernel" : "kernels",
                          " compared with NOOPT (each timed once, on the same inputs)");
    if (plain) out += cat("; ", plain, plain == 1 ? " kernel had" : " kernels had", " no optimization applied, so ",
                          plain == 1 ? "it is" : "they are", " already ", plain == 1 ? "its" : "their", " NOOPT version");
    out += "\n";
    for (const NooptComparison& c : cs) out += "\n" + format_comparison(c, column_width);
    return out;
  });
}

void bind_safetensors(py::module_& m) {
  // the file is read without the GIL: other Python threads run meanwhile (a slow disk, a big file)
  m.def("safe_load", [](const std::string& path) {
    std::vector<uint8_t> bytes;
    {
      py::gil_scoped_release nogil;
      bytes = read_regular_file(path, "safetensors file");
    }
    py::dict out;
    for (auto& [name, t] : nn::safe_decode(bytes, path)) out[py::str(name)] = py::cast(t);
    return out;
  });
  m.def("read_regular_file", [](const std::string& path) {  // safe_load_metadata's bytes, bounded as safe_load's
    std::vector<uint8_t> bytes;
    {
      py::gil_scoped_release nogil;
      bytes = read_regular_file(path, "safetensors file");
    }
    return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  });
  m.def("safe_decode", [](const py::bytes& data) {
    std::string_view v = data;
    py::dict out;
    for (auto& [name, t] : nn::safe_decode(std::vector<uint8_t>(v.begin(), v.end()), "<tensor>")) out[py::str(name)] = py::cast(t);
    return out;
  });
  m.def("safe_save", [](const py::dict& tensors, const std::string& path, py::object metadata) {
    std::optional<json::Value> meta;
    if (!metadata.is_none()) meta = json::parse(py::module_::import("json").attr("dumps")(metadata).cast<std::string>());
    std::vector<uint8_t> bytes = nn::safe_encode(state_dict_of(tensors), meta);  // realizes: keeps the GIL
    py::gil_scoped_release nogil;  // the write may be slow (a network disk): other threads run meanwhile
    write_regular_file(path, bytes, "safetensors file");
  }, py::arg("tensors"), py::arg("path"), py::arg("metadata") = py::none());
  m.def("safe_load_metadata", [](const std::string& path) {
    std::vector<uint8_t> bytes;
    {
      py::gil_scoped_release nogil;
      bytes = read_regular_file(path, "safetensors file");
    }
    return py::module_::import("json").attr("loads")(json::Value(nn::safe_metadata(bytes, path)).dump());
  });
}

// provenance: the tensor-op call counts and the records of the kernels' tensor ops
void bind_provenance(py::module_& m) {
  m.def("op_calls", &OpScope::calls);
  m.def("metadata_of", [](uint32_t id) {
    const Metadata& md = metadata_of(id);
    return py::make_tuple(md.op, md.file, md.line, md.function, md.backward);
  });
}

} // namespace

void bind_engine(py::module_& m) {
  bind_options(m);
  bind_devices(m);
  bind_counters_and_caches(m);
  bind_traces(m);
  bind_run_and_eval(m);
  bind_safetensors(m);
  bind_provenance(m);
}

} // namespace loupe::python
