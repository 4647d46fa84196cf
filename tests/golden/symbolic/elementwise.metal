#include <metal_stdlib>
using namespace metal;
kernel void E_3_i(device float* data0, device const float* data1, device const float* data2, constant int& i, uint3 gid [[threadgroup_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]]) {
  int gidx0 = gid.x; /* i */
  int gidx1 = gid.y; /* 3 */
  int alu0 = (gidx0+(gidx1*10));
  float val0 = *(data2+alu0);
  float val1 = *(data1+alu0);
  *(data0+gidx0+(gidx1*i)) = ((val0*2.0f)+val1);
}
