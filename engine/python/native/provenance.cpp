// OpScope's record: the op's name and the nearest Python frame outside the loupe package, interned once
// per (code object, line, op) so that a loop calling the same op costs one hash lookup per call.
#include "common.h"  // Python.h first: frameobject.h needs it

#include <frameobject.h>

#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace loupe::python {

namespace {

struct Key {
  PyObject* code;
  int line;
  const char* op;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<const void*>()(k.code) ^ (std::hash<int>()(k.line) * 31) ^ (std::hash<const void*>()(k.op) * 131);
  }
};
struct Entry {
  py::object keep_alive;  // the code object, so its address is not reused by another
  uint32_t id;
};

std::vector<std::string>& package_dirs() {
  static std::vector<std::string> dirs;
  return dirs;
}

bool internal(PyCodeObject* code) {
  // never destroyed: its Python references must not be released after the interpreter has finalized
  static auto& cache = *new std::unordered_map<PyCodeObject*, std::pair<py::object, bool>>();
  auto it = cache.find(code);
  if (it != cache.end()) return it->second.second;
  std::string file = py::str(reinterpret_cast<PyObject*>(code->co_filename)).cast<std::string>();
  bool inside = false;
  for (const std::string& dir : package_dirs()) inside = inside || file.rfind(dir, 0) == 0;
  cache.emplace(code, std::make_pair(py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(code)), inside));
  return inside;
}

} // namespace

void set_package_dirs(const std::vector<std::string>& dirs) { package_dirs() = dirs; }

namespace {
uint64_t user_op_calls = 0;  // outermost ops called from Python (what a user's line calls), for benchmarks
}

uint64_t OpScope::calls() { return user_op_calls; }

OpScope::OpScope(const char* op) : id_(MetadataScope::active() ? 0 : caller_metadata(op)), scope_(id_) {
  if (id_ && (observer_ = execution_observer())) start_ns_ = observer_->now_ns();
}

OpScope::~OpScope() {
  if (observer_) observer_->record_tensor_call({id_, start_ns_, observer_->now_ns()});
}

uint32_t OpScope::caller_metadata(const char* op) {
  user_op_calls++;
  static auto& cache = *new std::unordered_map<Key, Entry, KeyHash>();  // never destroyed, as above
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  PyCodeObject* code = nullptr;
  while (frame) {
    code = PyFrame_GetCode(frame);  // new reference
    if (!internal(code)) break;
    Py_DECREF(code);
    code = nullptr;
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
  }
  if (!frame) return intern_metadata({op, "", 0, ""});
  Key key{reinterpret_cast<PyObject*>(code), PyFrame_GetLineNumber(frame), op};
  Py_DECREF(frame);
  auto it = cache.find(key);
  if (it == cache.end()) {
    // files by absolute path, so a trace's lines resolve wherever it is opened ("<stdin>" stays as it is)
    std::string file = py::str(reinterpret_cast<PyObject*>(code->co_filename)).cast<std::string>();
    if (!file.empty() && file[0] != '<' && file[0] != '/') {
      std::error_code ec;
      std::filesystem::path abs = std::filesystem::absolute(file, ec);
      if (!ec) file = abs.lexically_normal().string();
    }
    Metadata m{op, file, key.line, py::str(reinterpret_cast<PyObject*>(code->co_name)).cast<std::string>()};
    it = cache.emplace(key, Entry{py::reinterpret_borrow<py::object>(key.code), intern_metadata(m)}).first;
  }
  Py_DECREF(code);
  return it->second.id;
}

} // namespace loupe::python
