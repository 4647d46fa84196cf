/* global 4,1,1 local 2,4,1 */
static inline float loupe_max_f32(float a, float b) { return (a < b || a != a) ? b : a; }
__kernel void r_4_2_4_24(__global float* data0, __global const float* data1) {
  int gidx0 = get_group_id(0); /* 4 */
  int lidx0 = get_local_id(0); /* 2 */
  __local float temp0[8];
  int alu0 = (lidx0*4);
  int lidx1 = get_local_id(1); /* 4 */
  float acc0 = (-INFINITY);
  for (int ridx3 = 0; ridx3 < 24; ridx3++) {
    float val0 = *(data1+(gidx0*192)+(lidx0*96)+lidx1+(ridx3*4));
    acc0 = loupe_max_f32(acc0, val0);
  }
  *(temp0+alu0+lidx1) = acc0;
  barrier(CLK_LOCAL_MEM_FENCE);
  float val1 = *(temp0+alu0);
  float val2 = *(temp0+alu0+1);
  float val3 = *(temp0+alu0+2);
  float val4 = *(temp0+alu0+3);
  if ((lidx1<1)) *(data0+(gidx0*2)+lidx0) = loupe_max_f32(loupe_max_f32(loupe_max_f32(val1, val2), val3), val4);
}
