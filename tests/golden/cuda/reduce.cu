/* global 32,1,1 local 16,1,1 */
extern "C" __global__ void __launch_bounds__(16) r_32_16_4(float* data0, const float* data1) {
  int gidx0 = blockIdx.x; /* 32 */
  float acc0 = 0.0f;
  int lidx0 = threadIdx.x; /* 16 */
  for (int ridx2 = 0; ridx2 < 4; ridx2++) {
    float val0 = *(data1+(gidx0*64)+(lidx0*4)+ridx2);
    acc0 = (acc0+val0);
  }
  float shfl0 = __shfl_xor_sync(0xffffu, acc0, 1);
  float alu0 = (acc0+shfl0);
  float shfl1 = __shfl_xor_sync(0xffffu, alu0, 2);
  float alu1 = (alu0+shfl1);
  float shfl2 = __shfl_xor_sync(0xffffu, alu1, 4);
  float alu2 = (alu1+shfl2);
  float shfl3 = __shfl_xor_sync(0xffffu, alu2, 8);
  if ((lidx0<1)) *(data0+gidx0) = (alu2+shfl3);
}
