extern "C" __global__ void __launch_bounds__(1) E_3_i(float* data0, const float* data1, const float* data2, const int i) {
  int gidx0 = blockIdx.x; /* i */
  int gidx1 = blockIdx.y; /* 3 */
  int alu0 = (gidx0+(gidx1*10));
  float val0 = *(data2+alu0);
  float val1 = *(data1+alu0);
  *(data0+gidx0+(gidx1*i)) = fmaf(val0, 2.0f, val1);
}
