// The safetensors format: an 8-byte little-endian header length N, N bytes of JSON mapping each tensor
// name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets into the data that follows; an
// optional "__metadata__" object of strings), then the raw little-endian data.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nn/module.h"
#include "support/json.h"

namespace loupe::nn {

// The file's bytes. Like tinygrad, the header is compact JSON padded with spaces to a multiple of 8.
std::vector<uint8_t> safe_encode(const StateDict& tensors, const std::optional<json::Value>& metadata = {});
// Parses bytes; `source` names them in errors (the file name). Every structural problem is a loupe::Error.
StateDict safe_decode(const std::vector<uint8_t>& bytes, const std::string& source = "<memory>");
// The header's "__metadata__" object (null when absent).
json::Value safe_metadata(const std::vector<uint8_t>& bytes, const std::string& source = "<memory>");

void safe_save(const StateDict& tensors, const std::string& path, const std::optional<json::Value>& metadata = {});
StateDict safe_load(const std::string& path);

} // namespace loupe::nn
