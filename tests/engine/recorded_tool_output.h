// Output of tools this machine may not have, as they print it, for the parsers' tests.
#pragma once
#include <string>

namespace loupe::testing {

// `nvdisasm -g -c` (--print-line-info) on a CUDA kernel E_8 compiled from /tmp/E_8.cu: line comments
// before the instructions they cover, one of them for a cuda_fp16.hpp helper inlined at line 6.
inline const std::string kNvdisasmE8 =
    "\t.text.E_8:\n        //## File \"/tmp/E_8.cu\", line 4\n"
    "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n"
    "        //## File \"/usr/local/cuda/include/cuda_fp16.hpp\", line 200 inlined at \"/tmp/E_8.cu\", line 6\n"
    "        /*0010*/                   HADD2 R2, R2, R3 ;\n        //## File \"/tmp/E_8.cu\", line 7\n"
    "        /*0020*/                   EXIT ;\n";

} // namespace loupe::testing
