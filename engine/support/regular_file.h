// Reading a whole file named by a user: only a regular file, and only as many bytes as it held when
// opened. A device (/dev/zero, /dev/urandom) would never end and a FIFO would block in open() until a
// writer came, so both are refused with an error naming the path instead.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace loupe {

// The bytes of `path`; `what` starts the error messages ("safetensors file"). Missing files, folders,
// devices, FIFOs and sockets are a ValueError-kind Error; a read failure a RuntimeError-kind one.
std::vector<uint8_t> read_regular_file(const std::string& path, const std::string& what);

// Why `path` cannot be read as a regular file ("is a FIFO (named pipe), not a regular file", "does not
// exist"), or empty when it can. stat() only: never blocks.
std::string irregular_file_reason(const std::string& path);

// Writes `bytes` to `path` (created or truncated). A FIFO or a socket there is refused (opening a FIFO
// for writing would wait for a reader), as is a folder; a device such as /dev/null is written to.
void write_regular_file(const std::string& path, const std::vector<uint8_t>& bytes, const std::string& what);

} // namespace loupe
