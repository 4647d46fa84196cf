// Random tensors. The bits come from tinygrad's generator: threefry2x32 (20 rounds) keyed by a per-device
// seed pair and driven by a 64-bit per-device counter, so a stream is a pure function of (seed, how many
// numbers were drawn before). We run the cipher on the host and hand the values over as literal data:
// the graph stays small and the values are the same on every device and backend.
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>

#include "support/error.h"
#include "support/options.h"
#include "ir/buffer_ref.h"
#include "tensor/host_data.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {

// The first word of each device's key: the low 32 bits of sha256 of the device's index (4 bytes, big
// endian) in order of first use, as tinygrad derives it. Computed once with Python's hashlib.
constexpr uint32_t kDeviceKeys[] = {347607321u, 1984909965u, 3675442970u, 259651539u,
                                    2416642359u, 1051358569u, 2080469707u, 681812539u};

struct RngState {
  std::mutex mutex;
  uint64_t seed = 0;
  std::map<std::string, size_t> device_index;  // device -> order of first use
  std::map<std::string, uint64_t> counter;     // numbers (32-bit words) drawn so far
};
RngState& rng() {
  static RngState s;
  return s;
}

uint32_t rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

// One block of threefry2x32-20: (x0, x1) enciphered with the key (k0, k1).
std::pair<uint32_t, uint32_t> threefry2x32(uint32_t x0, uint32_t x1, uint32_t k0, uint32_t k1) {
  static constexpr int rot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t ks[3] = {k1, k0 ^ k1 ^ 0x1BD11BDAu, k0};
  uint32_t a = x0 + ks[2], b = x1 + ks[0];
  for (int i = 0; i < 5; i++) {
    for (int r : rot[i % 2]) {
      a += b;
      b = a ^ rotl(b, r);
    }
    a += ks[i % 3];
    b += ks[(i + 1) % 3] + static_cast<uint32_t>(i + 1);
  }
  return {a, b};
}

// num words of the stream keyed by `key`, starting at counter `start` (tinygrad's random_bits): each
// chunk derives a fresh key from the counter, then enciphers the pairs (j, j + half) and lays out all
// low words, then all high words.
std::vector<uint32_t> random_words(uint32_t key0, uint32_t key1, uint64_t start, uint64_t num) {
  std::vector<uint32_t> out;
  out.reserve(num);
  const uint64_t chunk_max = 0xffffffffull;
  for (uint64_t i = 0; i < num; i += chunk_max) {
    uint64_t chunk = std::min(num - i, chunk_max);
    uint64_t c = start + i;  // the 64-bit add tinygrad spells out with a carry
    auto [nk0, nk1] = threefry2x32(static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), key0, key1);
    uint64_t half = (chunk + 1) / 2;
    std::vector<uint32_t> lo(half), hi(half);
    for (uint64_t j = 0; j < half; j++) {
      auto [a, b] = threefry2x32(static_cast<uint32_t>(j), static_cast<uint32_t>(j + half), nk0, nk1);
      lo[j] = a;
      hi[j] = b;
    }
    for (uint64_t j = 0; j < chunk; j++) out.push_back(j < half ? lo[j] : hi[j - half]);
  }
  return out;
}

std::string current_device() {
  const std::string& d = options().device;
  return d.empty() ? "CPU" : d;
}

// Draws num words for the default device, advancing its counter.
std::vector<uint32_t> draw(uint64_t num, std::string& device) {
  device = current_device();
  RngState& s = rng();
  std::lock_guard lock(s.mutex);
  auto [it, fresh] = s.device_index.emplace(device, s.device_index.size());
  if (it->second >= std::size(kDeviceKeys))
    throw Error(loupe::cat("Tensor.rand: more than ", std::size(kDeviceKeys), " devices used with the random generator"));
  uint64_t& counter = s.counter[device];
  uint64_t start = counter;
  counter += num;
  return random_words(kDeviceKeys[it->second], static_cast<uint32_t>(s.seed), start, num);
}

int64_t checked_numel(const Shape& shape, const char* fn) {
  for (int64_t d : shape)
    if (d < 0) throw Error(loupe::cat("Tensor.", fn, ": negative dimension in shape ", shape_str(shape)));
  return std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
}

double shape_prod(const Shape& shape, size_t from) {
  double p = 1;
  for (size_t i = from; i < shape.size(); i++) p *= static_cast<double>(shape[i]);
  return p;
}

} // namespace

void Tensor::manual_seed(uint64_t seed) {
  RngState& s = rng();
  std::lock_guard lock(s.mutex);
  s.seed = seed;
  s.device_index.clear();
  s.counter.clear();
}

namespace {
// n uniform numbers in [0, 1) of dtype, drawn for the default device (advancing its counter). The words'
// bytes reinterpreted as item-sized unsigned ints: the top mantissa bits under an exponent of 1.0 give a
// float in [1, 2); minus one (exact) gives [0, 1).
std::vector<uint8_t> uniform_bytes(int64_t n, DType dtype, std::string& device) {
  size_t item = dtype.itemsize();
  std::vector<uint32_t> words = draw((static_cast<uint64_t>(n) * item + 3) / 4, device);
  const uint8_t* raw = reinterpret_cast<const uint8_t*>(words.data());
  std::vector<uint8_t> bytes(static_cast<size_t>(n) * item);
  for (int64_t i = 0; i < n; i++) {
    uint8_t* dst = bytes.data() + i * item;
    if (item == 8) {
      uint64_t u;
      std::memcpy(&u, raw + i * 8, 8);
      u = (u >> 12) | 0x3ff0000000000000ull;
      double d;
      std::memcpy(&d, &u, 8);
      pack_value(dtype, d - 1.0, 0, false, dst);
    } else if (item == 4) {
      uint32_t u;
      std::memcpy(&u, raw + i * 4, 4);
      u = (u >> 9) | 0x3f800000u;
      float f;
      std::memcpy(&f, &u, 4);
      pack_value(dtype, double(f - 1.0f), 0, false, dst);
    } else if (item == 2) {
      uint16_t u;
      std::memcpy(&u, raw + i * 2, 2);
      bool bf = dtype == dtypes::bfloat16;
      u = bf ? static_cast<uint16_t>((u >> 9) | 0x3f80u) : static_cast<uint16_t>((u >> 6) | 0x3c00u);
      double v = (bf ? bfloat16_to_float(u) : half_to_float(u)) - 1.0;
      pack_value(dtype, v, 0, false, dst);
    } else {
      throw Error(loupe::cat("Tensor.rand does not support ", dtype.short_name()));
    }
  }
  return bytes;
}
} // namespace

Tensor Tensor::rand(const Shape& shape, DType dtype) {
  int64_t n = checked_numel(shape, "rand");
  if (!dtype.is_float() || dtype.is_weak())
    throw Error(loupe::cat("Tensor.rand only supports concrete float dtypes, got ", dtype.short_name()));
  std::string device;
  std::vector<uint8_t> bytes = uniform_bytes(n, dtype, device);
  auto ref = BufferRef::make_new(device, dtype, n);
  ref->state->pending_host_data = std::move(bytes);
  // a TinyJit replay draws the next numbers of the stream, as calling rand again would
  ref->state->refill = [n, dtype] {
    std::string d;
    return uniform_bytes(n, dtype, d);
  };
  UOpPtr buf = UOp::make(Ops::BUFFER, dtype, {}, Arg(std::static_pointer_cast<const ArgObject>(ref)));
  return from_uop(buf, Shape{n}).reshape(shape);
}

Tensor Tensor::randn(const Shape& shape, DType dtype) {
  checked_numel(shape, "randn");
  Shape two = shape;
  two.insert(two.begin(), 2);
  Tensor src = rand(two, dtypes::float32);
  Tensor u0 = src.getitem({Index::integer(0)}), u1 = src.getitem({Index::integer(1)});
  // Box-Muller, in float32 like tinygrad, then cast
  Tensor r = (Tensor(1.0) - u1).log().mul(Tensor(-2.0)).sqrt();
  return u0.mul(Tensor(2 * M_PI)).cos().mul(r).cast(dtype);
}

Tensor Tensor::normal(const Shape& shape, double mean, double std, DType dtype) {
  if (std < 0) throw Error(loupe::cat("Tensor.normal requires std >= 0, got std=", std));
  return Tensor(std) * randn(shape, dtype) + Tensor(mean);
}

Tensor Tensor::uniform(const Shape& shape, double low, double high, DType dtype) {
  checked_numel(shape, "uniform");
  if (!(low < high)) throw Error(loupe::cat("Tensor.uniform requires low < high, got low=", low, ", high=", high));
  Tensor r = (Tensor(high - low) * rand(shape)).cast(dtype);
  // an integer dtype stays integer for a whole-number low (tinygrad adds the Python int)
  if (dtype.is_int() && low == std::floor(low)) return r + Tensor(static_cast<int64_t>(low));
  return r + Tensor(low);
}

Tensor Tensor::randint(const Shape& shape, int64_t low, int64_t high, DType dtype) {
  if (!dtype.is_int()) throw Error(loupe::cat("Tensor.randint: dtype must be an integer type, got ", dtype.short_name()));
  if (low >= high) throw Error(loupe::cat("Tensor.randint requires low < high, got low=", low, ", high=", high));
  checked_numel(shape, "randint");
  Tensor r = (Tensor(high - low) * rand(shape)).cast(dtype);
  // an integer dtype stays integer for a whole-number low (tinygrad adds the Python int)
  if (dtype.is_int() && low == std::floor(low)) return r + Tensor(static_cast<int64_t>(low));
  return r + Tensor(low);
}

Tensor Tensor::scaled_uniform(const Shape& shape, DType dtype) {
  return uniform(shape, -1.0, 1.0, dtype).mul(Tensor(std::pow(shape_prod(shape, 0), -0.5)));
}

Tensor Tensor::glorot_uniform(const Shape& shape, DType dtype) {
  if (shape.empty()) throw Error("Tensor.glorot_uniform needs at least one dimension");
  double bound = std::sqrt(6.0 / (static_cast<double>(shape[0]) + shape_prod(shape, 1)));
  return uniform(shape, -bound, bound, dtype);
}

Tensor Tensor::kaiming_uniform(const Shape& shape, double a, DType dtype) {
  if (shape.empty()) throw Error("Tensor.kaiming_uniform needs at least one dimension");
  double bound = std::sqrt(6.0 / (1.0 + a * a) / shape_prod(shape, 1));
  return uniform(shape, -bound, bound, dtype);
}

Tensor Tensor::kaiming_normal(const Shape& shape, double a, DType dtype) {
  if (shape.empty()) throw Error("Tensor.kaiming_normal needs at least one dimension");
  double std = std::sqrt(2.0 / (1.0 + a * a) / shape_prod(shape, 1));
  return normal(shape, 0.0, std, dtype);
}

Tensor Tensor::rand_like() const { return rand(shape(), dtypes::strong(dtype())); }

Tensor Tensor::randn_like() const {
  if (dtype().is_weak()) throw Error("randn_like needs a concrete dtype");
  return randn(shape(), dtype());
}

} // namespace loupe
