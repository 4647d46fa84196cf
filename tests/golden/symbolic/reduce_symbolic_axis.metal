#include <metal_stdlib>
using namespace metal;
kernel void r_4_i(device float* data0, device const float* data1, device const float* data2, constant int& i, uint3 gid [[threadgroup_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]]) {
  int gidx0 = gid.x; /* 4 */
  float acc0 = 0.0f;
  for (int ridx1 = 0; ridx1 < i; ridx1++) {
    float val0 = *(data1+(gidx0*10)+ridx1);
    float val1 = *(data2+gidx0+(ridx1*4));
    acc0 = ((val0*val1)+acc0);
  }
  *(data0+gidx0) = acc0;
}
