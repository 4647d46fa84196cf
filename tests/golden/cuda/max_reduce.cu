/* global 4,1,1 local 2,4,1 */
static __device__ __forceinline__ float loupe_max_f32(float a, float b) { return (a < b || a != a) ? b : a; }
extern "C" __global__ void __launch_bounds__(8) r_4_2_4_24(float* data0, const float* data1) {
  int gidx0 = blockIdx.x; /* 4 */
  int lidx0 = threadIdx.x; /* 2 */
  __shared__ __align__(16) float temp0[8];
  int alu0 = (lidx0*4);
  int lidx1 = threadIdx.y; /* 4 */
  float acc0 = (-__int_as_float(0x7f800000));
  for (int ridx3 = 0; ridx3 < 24; ridx3++) {
    float val0 = *(data1+(gidx0*192)+(lidx0*96)+lidx1+(ridx3*4));
    acc0 = loupe_max_f32(acc0, val0);
  }
  *(temp0+alu0+lidx1) = acc0;
  __syncthreads();
  float val1 = *(temp0+alu0);
  float val2 = *(temp0+alu0+1);
  float val3 = *(temp0+alu0+2);
  float val4 = *(temp0+alu0+3);
  if ((lidx1<1)) *(data0+(gidx0*2)+lidx0) = loupe_max_f32(loupe_max_f32(loupe_max_f32(val1, val2), val3), val4);
}
