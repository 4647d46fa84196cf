/* global 1,1,1 local 256,1,1 */
extern "C" __global__ void __launch_bounds__(256) r_256_4_4(float* data0, const float* data1) {
  __shared__ __align__(16) float temp0[256];
  int lidx0 = threadIdx.x; /* 256 */
  float acc0 = 0.0f;
  for (int ridx1 = 0; ridx1 < 4; ridx1++) {
    int alu0 = ((lidx0*16)+(ridx1*4));
    float val0 = *(data1+alu0);
    float val1 = *(data1+alu0+1);
    float val2 = *(data1+alu0+2);
    float val3 = *(data1+alu0+3);
    acc0 = (acc0+val0+val1+val2+val3);
  }
  float shfl0 = __shfl_xor_sync(0xffffffffu, acc0, 1);
  float alu1 = (acc0+shfl0);
  float shfl1 = __shfl_xor_sync(0xffffffffu, alu1, 2);
  float alu2 = (alu1+shfl1);
  float shfl2 = __shfl_xor_sync(0xffffffffu, alu2, 4);
  float alu3 = (alu2+shfl2);
  float shfl3 = __shfl_xor_sync(0xffffffffu, alu3, 8);
  float alu4 = (alu3+shfl3);
  float shfl4 = __shfl_xor_sync(0xffffffffu, alu4, 16);
  *(temp0+lidx0) = (alu4+shfl4);
  __syncthreads();
  float val4 = *(temp0+0);
  float val5 = *(temp0+32);
  float val6 = *(temp0+64);
  float val7 = *(temp0+96);
  float val8 = *(temp0+128);
  float val9 = *(temp0+160);
  float val10 = *(temp0+192);
  float val11 = *(temp0+224);
  if ((lidx0<1)) *(data0+0) = (val4+val5+val6+val7+val8+val9+val10+val11);
}
