__kernel void E_3_i(__global float* data0, __global const float* data1, __global const float* data2, const int i) {
  int gidx0 = get_group_id(0); /* i */
  int gidx1 = get_group_id(1); /* 3 */
  int alu0 = (gidx0+(gidx1*10));
  float val0 = *(data2+alu0);
  float val1 = *(data1+alu0);
  *(data0+gidx0+(gidx1*i)) = ((val0*2.0f)+val1);
}
