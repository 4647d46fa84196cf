/* global 4,1,1 local 2,4,1 */
#include <metal_stdlib>
using namespace metal;
static inline float loupe_max_f32(float a, float b) { return (a < b || a != a) ? b : a; }
kernel void r_4_2_4_24(device float* data0, device const float* data1, uint3 gid [[threadgroup_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]]) {
  int gidx0 = gid.x; /* 4 */
  int lidx0 = lid.x; /* 2 */
  threadgroup float temp0[8];
  int alu0 = (lidx0*4);
  int lidx1 = lid.y; /* 4 */
  float acc0 = (-INFINITY);
  for (int ridx3 = 0; ridx3 < 24; ridx3++) {
    float val0 = *(data1+(gidx0*192)+(lidx0*96)+lidx1+(ridx3*4));
    acc0 = loupe_max_f32(acc0, val0);
  }
  *(temp0+alu0+lidx1) = acc0;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float val1 = *(temp0+alu0);
  float val2 = *(temp0+alu0+1);
  float val3 = *(temp0+alu0+2);
  float val4 = *(temp0+alu0+3);
  if ((lidx1<1)) *(data0+(gidx0*2)+lidx0) = loupe_max_f32(loupe_max_f32(loupe_max_f32(val1, val2), val3), val4);
}
