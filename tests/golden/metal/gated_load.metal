/* global 1,1,1 local 1,1,1 */
#include <metal_stdlib>
using namespace metal;
kernel void gated_load(device float* data0, device const float* data1, uint3 gid [[threadgroup_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]]) {
  for (int ridx0 = 0; ridx0 < 6; ridx0++) {
    float val0 = ((((ridx0<1)!=1)&(ridx0<5))?*(data1+ridx0+-1):0.0f);
    *(data0+ridx0) = val0;
  }
}
