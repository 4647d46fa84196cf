/* global 2,4,1 local 4,8,2 */
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
extern "C" __global__ void __launch_bounds__(64) r_4_2_4_8_2_2_16_2_2_2_2(half* data0, const half* data1, const half* data2) {
  int gidx0 = blockIdx.x; /* 2 */
  int alu0 = (gidx0*32);
  int gidx1 = blockIdx.y; /* 4 */
  int alu1 = (gidx1*1024);
  int lidx0 = threadIdx.x; /* 4 */
  int lidx1 = threadIdx.y; /* 8 */
  int lidx2 = threadIdx.z; /* 2 */
  int alu2 = (lidx2*16);
  int alu3 = (alu0+alu1+(lidx0*128)+lidx1+alu2);
  float acc0 = 0.0f;
  __shared__ half tile_a[1280];
  int alu4 = ((lidx0*80)+lidx1+alu2);
  int alu5 = (lidx0*8);
  int alu6 = (lidx1+(lidx2*8));
  int alu7 = (alu5+(alu6*40));
  __shared__ half tile_b[640];
  int alu8 = ((lidx0*2)+(lidx1*40));
  float acc1 = 0.0f;
  float acc2 = 0.0f;
  float acc3 = 0.0f;
  float acc4 = 0.0f;
  float acc5 = 0.0f;
  float acc6 = 0.0f;
  float acc7 = 0.0f;
  for (int ridx5 = 0; ridx5 < 2; ridx5++) {
    int alu9 = (alu0+alu5+(ridx5*2048)+(alu6*64));
    __syncthreads();
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"((unsigned)__cvta_generic_to_shared((tile_a+alu7))), "l"((data2+alu9)));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"((unsigned)__cvta_generic_to_shared((tile_a+alu7+640))), "l"((data2+alu9+1024)));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"((unsigned)__cvta_generic_to_shared((tile_b+alu7))), "l"((data1+alu1+alu5+(lidx1*64)+(lidx2*512)+(ridx5*32))));
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    half val0 = *(tile_a+alu4+640);
    half val1 = *(tile_a+alu4+680);
    half val2 = *(tile_a+alu4+648);
    half val3 = *(tile_a+alu4+688);
    half val4 = *(tile_a+alu4+960);
    half val5 = *(tile_a+alu4+1000);
    half val6 = *(tile_a+alu4+968);
    half val7 = *(tile_a+alu4+1008);
    half val8 = *(tile_b+alu8+16);
    half val9 = *(tile_b+alu8+17);
    half val10 = *(tile_b+alu8+24);
    half val11 = *(tile_b+alu8+25);
    half val12 = *(tile_a+alu4);
    half val13 = *(tile_a+alu4+40);
    half val14 = *(tile_a+alu4+8);
    half val15 = *(tile_a+alu4+48);
    half val16 = *(tile_a+alu4+320);
    half val17 = *(tile_a+alu4+360);
    half val18 = *(tile_a+alu4+328);
    half val19 = *(tile_a+alu4+368);
    half val20 = *(tile_b+alu8);
    half val21 = *(tile_b+alu8+1);
    half val22 = *(tile_b+alu8+8);
    half val23 = *(tile_b+alu8+9);
    float4 wmma0 = loupe_wmma_m16n8k16_f16_f32(val12, val13, val14, val15, val16, val17, val18, val19, val20, val21, val22, val23, acc0, acc1, acc2, acc3);
    float4 wmma1 = loupe_wmma_m16n8k16_f16_f32(val0, val1, val2, val3, val4, val5, val6, val7, val8, val9, val10, val11, wmma0.x, wmma0.y, wmma0.z, wmma0.w);
    acc0 = wmma1.x;
    half val24 = *(tile_b+alu8+336);
    half val25 = *(tile_b+alu8+337);
    half val26 = *(tile_b+alu8+344);
    half val27 = *(tile_b+alu8+345);
    half val28 = *(tile_b+alu8+320);
    half val29 = *(tile_b+alu8+321);
    half val30 = *(tile_b+alu8+328);
    half val31 = *(tile_b+alu8+329);
    float4 wmma2 = loupe_wmma_m16n8k16_f16_f32(val12, val13, val14, val15, val16, val17, val18, val19, val28, val29, val30, val31, acc4, acc5, acc6, acc7);
    float4 wmma3 = loupe_wmma_m16n8k16_f16_f32(val0, val1, val2, val3, val4, val5, val6, val7, val24, val25, val26, val27, wmma2.x, wmma2.y, wmma2.z, wmma2.w);
    acc4 = wmma3.x;
    acc1 = wmma1.y;
    acc5 = wmma3.y;
    acc2 = wmma1.z;
    acc6 = wmma3.z;
    acc3 = wmma1.w;
    acc7 = wmma3.w;
  }
  *(data0+alu3) = ((half)acc0);
  *(data0+alu3+512) = ((half)acc4);
  *(data0+alu3+64) = ((half)acc1);
  *(data0+alu3+576) = ((half)acc5);
  *(data0+alu3+8) = ((half)acc2);
  *(data0+alu3+520) = ((half)acc6);
  *(data0+alu3+72) = ((half)acc3);
  *(data0+alu3+584) = ((half)acc7);
}
