/* global 2,1,1 local 4,8,1 */
#include <cuda_fp16.h>
static __device__ __forceinline__ float4 loupe_wmma_m16n8k16_f16_f32(half a0, half a1, half a2, half a3, half a4, half a5, half a6, half a7, half b0, half b1, half b2, half b3, float c0, float c1, float c2, float c3) {
  unsigned a[4], b[2];
  a[0] = (unsigned)__half_as_ushort(a0) | ((unsigned)__half_as_ushort(a1) << 16); a[1] = (unsigned)__half_as_ushort(a2) | ((unsigned)__half_as_ushort(a3) << 16); a[2] = (unsigned)__half_as_ushort(a4) | ((unsigned)__half_as_ushort(a5) << 16); a[3] = (unsigned)__half_as_ushort(a6) | ((unsigned)__half_as_ushort(a7) << 16); b[0] = (unsigned)__half_as_ushort(b0) | ((unsigned)__half_as_ushort(b1) << 16); b[1] = (unsigned)__half_as_ushort(b2) | ((unsigned)__half_as_ushort(b3) << 16); 
  float4 d;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
      : "=f"(d.x), "=f"(d.y), "=f"(d.z), "=f"(d.w)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  return d;
}
extern "C" __global__ void __launch_bounds__(32) r_2_4_8_2_16_2_2_2(half* data0, const half* data1, const half* data2) {
  int gidx0 = blockIdx.x; /* 2 */
  int lidx0 = threadIdx.x; /* 4 */
  int alu0 = (lidx0*32);
  int lidx1 = threadIdx.y; /* 8 */
  int alu1 = ((gidx0*256)+alu0+lidx1);
  float acc0 = 0.0f;
  float acc1 = 0.0f;
  float acc2 = 0.0f;
  float acc3 = 0.0f;
  float acc4 = 0.0f;
  float acc5 = 0.0f;
  float acc6 = 0.0f;
  float acc7 = 0.0f;
  for (int ridx3 = 0; ridx3 < 2; ridx3++) {
    int alu2 = (alu0+lidx1+(ridx3*256));
    half val0 = *(data2+alu2);
    half val1 = *(data2+alu2+16);
    half val2 = *(data2+alu2+8);
    half val3 = *(data2+alu2+24);
    half val4 = *(data2+alu2+128);
    half val5 = *(data2+alu2+144);
    half val6 = *(data2+alu2+136);
    half val7 = *(data2+alu2+152);
    int alu3 = ((gidx0*512)+(lidx0*2)+(lidx1*32)+(ridx3*16));
    half val8 = *(data1+alu3);
    half val9 = *(data1+alu3+1);
    half val10 = *(data1+alu3+8);
    half val11 = *(data1+alu3+9);
    float4 wmma0 = loupe_wmma_m16n8k16_f16_f32(val0, val1, val2, val3, val4, val5, val6, val7, val8, val9, val10, val11, acc0, acc1, acc2, acc3);
    acc0 = wmma0.x;
    half val12 = *(data1+alu3+256);
    half val13 = *(data1+alu3+257);
    half val14 = *(data1+alu3+264);
    half val15 = *(data1+alu3+265);
    float4 wmma1 = loupe_wmma_m16n8k16_f16_f32(val0, val1, val2, val3, val4, val5, val6, val7, val12, val13, val14, val15, acc4, acc5, acc6, acc7);
    acc4 = wmma1.x;
    acc1 = wmma0.y;
    acc5 = wmma1.y;
    acc2 = wmma0.z;
    acc6 = wmma1.z;
    acc3 = wmma0.w;
    acc7 = wmma1.w;
  }
  *(data0+alu1) = ((half)acc0);
  *(data0+alu1+128) = ((half)acc4);
  *(data0+alu1+16) = ((half)acc1);
  *(data0+alu1+144) = ((half)acc5);
  *(data0+alu1+8) = ((half)acc2);
  *(data0+alu1+136) = ((half)acc6);
  *(data0+alu1+24) = ((half)acc3);
  *(data0+alu1+152) = ((half)acc7);
}
