#include "ir/metadata.h"

#include <atomic>
#include <deque>
#include <mutex>
#include <unordered_map>

namespace loupe {

namespace {

struct MetadataHash {
  size_t operator()(const Metadata& m) const {
    size_t h = std::hash<std::string>()(m.op);
    h = h * 31 + std::hash<std::string>()(m.file);
    h = h * 31 + static_cast<size_t>(m.line);
    h = h * 31 + std::hash<std::string>()(m.function);
    return h * 2 + (m.backward ? 1 : 0);
  }
};

struct Registry {
  std::mutex mutex;
  std::deque<Metadata> records{Metadata{}};  // id 0: none; a deque keeps references stable
  std::unordered_map<Metadata, uint32_t, MetadataHash> ids;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: records outlive static destructors
  return *r;
}

thread_local uint32_t current_id = 0;
thread_local uint32_t creation_id = 0;
std::atomic<bool> recorded{false};

} // namespace

uint32_t intern_metadata(const Metadata& m) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto [it, fresh] = r.ids.emplace(m, static_cast<uint32_t>(r.records.size()));
  if (fresh) r.records.push_back(m);
  recorded.store(true, std::memory_order_relaxed);
  return it->second;
}

bool any_metadata() { return recorded.load(std::memory_order_relaxed); }

const Metadata& metadata_of(uint32_t id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return id < r.records.size() ? r.records[id] : r.records[0];
}

std::string metadata_str(const Metadata& m) {
  std::string s = m.op + (m.backward ? " bw" : "");
  if (!m.file.empty()) {
    s += " (" + m.file + ":" + std::to_string(m.line);
    if (!m.function.empty()) s += " in " + m.function;
    s += ")";
  }
  return s;
}

MetadataScope::MetadataScope(uint32_t id, bool innermost) : previous_(current_id) {
  if (id != 0 && (current_id == 0 || innermost)) current_id = id;
}

MetadataScope::~MetadataScope() { current_id = previous_; }

uint32_t MetadataScope::current() { return current_id; }

CreationProvenance::CreationProvenance(uint32_t id) : previous_(creation_id) {
  if (id) creation_id = id;
}

CreationProvenance::~CreationProvenance() { creation_id = previous_; }

uint32_t CreationProvenance::current() { return creation_id; }

void append_unique(std::vector<uint32_t>& ids, uint32_t id) {
  if (id == 0) return;
  for (uint32_t x : ids)
    if (x == id) return;
  ids.push_back(id);
}

} // namespace loupe
