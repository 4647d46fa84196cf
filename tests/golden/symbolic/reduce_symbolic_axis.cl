__kernel void r_4_i(__global float* data0, __global const float* data1, __global const float* data2, const int i) {
  int gidx0 = get_group_id(0); /* 4 */
  float acc0 = 0.0f;
  for (int ridx1 = 0; ridx1 < i; ridx1++) {
    float val0 = *(data1+(gidx0*10)+ridx1);
    float val1 = *(data2+gidx0+(ridx1*4));
    acc0 = ((val0*val1)+acc0);
  }
  *(data0+gidx0) = acc0;
}
