#include "nn/safetensors.h"

#include <cstring>

#include "ir/buffer_ref.h"
#include "support/error.h"
#include "support/options.h"
#include "support/regular_file.h"
#include "tensor/host_data.h"

namespace loupe::nn {

namespace {

struct SafeDType {
  const char* name;
  DType dtype;
};
const SafeDType kDTypes[] = {
    {"BOOL", dtypes::bool_},  {"I8", dtypes::int8},       {"U8", dtypes::uint8},     {"I16", dtypes::int16},
    {"U16", dtypes::uint16},  {"I32", dtypes::int32},     {"U32", dtypes::uint32},   {"I64", dtypes::int64},
    {"U64", dtypes::uint64},  {"F16", dtypes::float16},   {"BF16", dtypes::bfloat16}, {"F32", dtypes::float32},
    {"F64", dtypes::float64},
};

std::string safe_name(DType d, const std::string& tensor) {
  for (const SafeDType& s : kDTypes)
    if (s.dtype == d) return s.name;
  throw Error(loupe::cat("safetensors: tensor '", tensor, "' has dtype ", d.short_name(), ", which the format cannot store"));
}

std::vector<uint8_t> tensor_bytes(Tensor t) {
  DType d = dtypes::strong(t.dtype());
  std::vector<uint8_t> out(static_cast<size_t>(t.numel()) * d.itemsize());
  if (d.is_float()) {
    std::vector<double> v = t.cast(d).to_vector();
    for (size_t i = 0; i < v.size(); i++) pack_value(d, v[i], 0, false, out.data() + i * d.itemsize());
  } else {
    std::vector<int64_t> v = t.cast(d).to_int_vector();
    for (size_t i = 0; i < v.size(); i++) pack_value(d, 0.0, v[i], true, out.data() + i * d.itemsize());
  }
  return out;
}

std::string default_device() {
  const std::string& d = options().device;
  return d.empty() ? "CPU" : d;
}

Tensor tensor_from_bytes(const uint8_t* data, DType d, const Shape& shape, int64_t numel) {
  auto ref = BufferRef::make_new(default_device(), d, numel);
  ref->state->pending_host_data.assign(data, data + numel * d.itemsize());
  if (d.is_bool())  // any nonzero byte is true: a kernel reads a bool as 0 or 1
    for (uint8_t& b : ref->state->pending_host_data) b = b != 0;
  UOpPtr buf = UOp::make(Ops::BUFFER, d, {}, Arg(std::static_pointer_cast<const ArgObject>(ref)));
  return Tensor::from_uop(buf, Shape{numel}).reshape(shape);
}

struct Parsed {
  json::Value header;
  size_t data_start;
};

Parsed parse_header(const std::vector<uint8_t>& bytes) {
  if (bytes.size() < 8)
    throw Error(loupe::cat("the file is ", bytes.size(), " bytes long, shorter than the 8-byte header length"));
  uint64_t n = 0;
  for (int i = 7; i >= 0; i--) n = (n << 8) | bytes[i];
  if (n > bytes.size() - 8)
    throw Error(loupe::cat("the header length ", n, " runs past the end of the file (", bytes.size(), " bytes)"));
  std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), n);
  json::Value header;
  try {
    header = json::parse(text);
  } catch (const Error& e) {
    throw Error(loupe::cat("the header is not valid JSON (", e.what(), ")"));
  }
  if (!header.is_object())
    throw Error(loupe::cat("the header is a JSON ", json::type_name(header.type()), ", not an object"));
  return {header, static_cast<size_t>(8 + n)};
}

StateDict decode(const std::vector<uint8_t>& bytes) {
  Parsed p = parse_header(bytes);
  const size_t data_size = bytes.size() - p.data_start;
  StateDict out;
  for (const auto& [name, entry] : p.header.as_object()) {
    if (name == "__metadata__") continue;
    std::string where = "tensor '" + name + "'";
    const json::Object& fields = entry.as_object(where);
    (void)fields;
    const std::string& dname = entry.at("dtype").as_string(where + " field 'dtype'");
    const SafeDType* sd = nullptr;
    for (const SafeDType& s : kDTypes)
      if (dname == s.name) sd = &s;
    if (!sd) throw Error(loupe::cat(where, " has the unknown dtype '", dname, "'"));
    Shape shape = entry.at("shape").as_ints(where + " field 'shape'");
    int64_t numel = 1;
    for (int64_t s : shape) {
      if (s < 0) throw Error(loupe::cat(where, " has a negative dimension in shape ", shape_str(shape)));
      if (s > 0 && numel > (int64_t(1) << 48) / s) throw Error(loupe::cat(where, " has an absurd shape ", shape_str(shape)));
      numel *= s;
    }
    std::vector<int64_t> off = entry.at("data_offsets").as_ints(where + " field 'data_offsets'");
    if (off.size() != 2) throw Error(loupe::cat(where, ": data_offsets needs 2 numbers [begin, end], got ", off.size()));
    if (off[0] < 0 || off[1] < off[0] || static_cast<uint64_t>(off[1]) > data_size)
      throw Error(loupe::cat(where, ": data_offsets [", off[0], ", ", off[1], "] do not fit the ", data_size,
                             " data bytes after the header"));
    int64_t want = numel * static_cast<int64_t>(sd->dtype.itemsize());
    if (off[1] - off[0] != want)
      throw Error(loupe::cat(where, ": data_offsets [", off[0], ", ", off[1], "] hold ", off[1] - off[0], " bytes but ",
                             dname, " of shape ", shape_str(shape), " needs ", want));
    out.emplace_back(name, tensor_from_bytes(bytes.data() + p.data_start + off[0], sd->dtype, shape, numel));
  }
  return out;
}

} // namespace

std::vector<uint8_t> safe_encode(const StateDict& tensors, const std::optional<json::Value>& metadata) {
  if (metadata && !metadata->is_object()) throw Error("safe_save: metadata must be a JSON object");
  // compact JSON (no spaces), as tinygrad writes it
  std::string header = "{";
  auto compact = [](const std::vector<int64_t>& xs) {
    std::string s = "[";
    for (size_t i = 0; i < xs.size(); i++) s += (i ? "," : "") + std::to_string(xs[i]);
    return s + "]";
  };
  if (metadata) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata->as_object()) {
      // strings by the format; any JSON value as tinygrad writes it ({"epoch": 3})
      header += (first ? "" : ",") + json::quote(k) + ":" + v.dump();
      first = false;
    }
    header += "}";
  }
  std::vector<std::vector<uint8_t>> data;
  int64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (name == "__metadata__") throw Error("safe_save: '__metadata__' is reserved and cannot name a tensor");
    std::string dname = safe_name(dtypes::strong(t.dtype()), name);
    data.push_back(tensor_bytes(t));
    int64_t end = offset + static_cast<int64_t>(data.back().size());
    if (header.size() > 1) header += ",";
    header += json::quote(name) + ":{\"dtype\":\"" + dname + "\",\"shape\":" + compact(t.shape()) +
              ",\"data_offsets\":" + compact({offset, end}) + "}";
    offset = end;
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::vector<uint8_t> out(8);
  uint64_t n = header.size();
  for (int i = 0; i < 8; i++) out[i] = static_cast<uint8_t>(n >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  for (const auto& d : data) out.insert(out.end(), d.begin(), d.end());
  return out;
}

StateDict safe_decode(const std::vector<uint8_t>& bytes, const std::string& source) {
  try {
    return decode(bytes);
  } catch (const Error& e) {
    throw Error(loupe::cat("safetensors file '", source, "': ", e.what()));
  }
}

json::Value safe_metadata(const std::vector<uint8_t>& bytes, const std::string& source) {
  try {
    Parsed p = parse_header(bytes);
    const json::Value* m = p.header.find("__metadata__");
    return m ? *m : json::Value();
  } catch (const Error& e) {
    throw Error(loupe::cat("safetensors file '", source, "': ", e.what()));
  }
}

void safe_save(const StateDict& tensors, const std::string& path, const std::optional<json::Value>& metadata) {
  std::vector<uint8_t> bytes = safe_encode(tensors, metadata);
  write_regular_file(path, bytes, "safetensors file");
}

StateDict safe_load(const std::string& path) { return safe_decode(read_regular_file(path, "safetensors file"), path); }

} // namespace loupe::nn
