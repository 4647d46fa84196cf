/* global 4,1,1 local 2,4,1 */
static __device__ __forceinline__ float loupe_max_f32(float a, float b) { return (a < b || a != a) ? b : a; }
extern "C" __global__ void __launch_bounds__(8) r_4_2_4_24(float* data0, const float* data1) {
  int gidx0 = blockIdx.x; /* 4 */
  int lidx0 = threadIdx.x; /* 2 */
  float acc0 = (-__int_as_float(0x7f800000));
  int lidx1 = threadIdx.y; /* 4 */
  for (int ridx3 = 0; ridx3 < 24; ridx3++) {
    float val0 = *(data1+(gidx0*192)+(lidx0*96)+lidx1+(ridx3*4));
    acc0 = loupe_max_f32(acc0, val0);
  }
  float shfl0 = __shfl_xor_sync(0xffu, acc0, 2);
  float alu0 = loupe_max_f32(acc0, shfl0);
  float shfl1 = __shfl_xor_sync(0xffu, alu0, 4);
  if ((lidx1<1)) *(data0+(gidx0*2)+lidx0) = loupe_max_f32(alu0, shfl1);
}
