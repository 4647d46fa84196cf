/* global 8,4,1 local 4,1,1 */
extern "C" __global__ void __launch_bounds__(4) E_4_8_4_4(float* data0, const float* data1, const float* data2, const float* data3) {
  int gidx0 = blockIdx.x; /* 8 */
  int alu0 = (gidx0*4);
  int gidx1 = blockIdx.y; /* 4 */
  int lidx0 = threadIdx.x; /* 4 */
  int alu1 = (alu0+(gidx1*128)+(lidx0*32));
  float val0 = *(data1+alu1);
  float val1 = *(data2+alu1);
  float val2 = *(data3+alu0);
  float alu2 = fmaf(val0, val1, val2);
  *(data0+alu1) = ((0.0f<alu2)?alu2:0.0f);
  int alu3 = (alu1+1);
  float val3 = *(data1+alu3);
  float val4 = *(data2+alu3);
  float val5 = *(data3+alu0+1);
  float alu4 = fmaf(val3, val4, val5);
  *(data0+alu3) = ((0.0f<alu4)?alu4:0.0f);
  int alu5 = (alu1+2);
  float val6 = *(data1+alu5);
  float val7 = *(data2+alu5);
  float val8 = *(data3+alu0+2);
  float alu6 = fmaf(val6, val7, val8);
  *(data0+alu5) = ((0.0f<alu6)?alu6:0.0f);
  int alu7 = (alu1+3);
  float val9 = *(data1+alu7);
  float val10 = *(data2+alu7);
  float val11 = *(data3+alu0+3);
  float alu8 = fmaf(val9, val10, val11);
  *(data0+alu7) = ((0.0f<alu8)?alu8:0.0f);
}
