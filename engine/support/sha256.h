// SHA-256 (FIPS 180-4), for digests that must hold against a deliberate edit rather than an accident:
// the script a trace records (is the file on disk still the program that ran?) and the record of the
// traces this user wrote (trace/trace_trust.h). The engine's other hashes are fast, not adversarial.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace loupe {

class Sha256 {
public:
  Sha256();
  Sha256& update(std::string_view bytes);
  // Appends a length-prefixed field, so ("ab","c") and ("a","bc") differ.
  Sha256& field(std::string_view bytes);
  std::string hex();  // 64 lowercase hex digits; finishes the digest (call once)

private:
  void block(const unsigned char* p);
  std::array<uint32_t, 8> h_;
  unsigned char buf_[64];
  size_t used_ = 0;
  uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view bytes);
// The digest of a file's bytes; nullopt when it cannot be read.
std::optional<std::string> sha256_file_hex(const std::filesystem::path& file);

} // namespace loupe
