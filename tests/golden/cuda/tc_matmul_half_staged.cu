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
  __shared__ __align__(16) half tile_a[2560];
  int alu4 = (((lidx1/2)%2)*8);
  int alu5 = (lidx0*8);
  int alu6 = (lidx1+(lidx2*8));
  int alu7 = (alu5+(alu6*40));
  int alu8 = (alu0+alu5+(alu6*64));
  asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %0; cp.async.cg.shared.global [s], [%1], 16; cp.async.commit_group; }" :: "l"((tile_a+alu7)), "l"((data2+alu8)) : "memory");
  asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %0; cp.async.cg.shared.global [s], [%1], 16; cp.async.commit_group; }" :: "l"((tile_a+alu7+640)), "l"((data2+alu8+1024)) : "memory");
  __shared__ __align__(16) half tile_b[1280];
  int alu9 = (alu1+alu5+(lidx1*64)+(lidx2*512));
  asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %0; cp.async.cg.shared.global [s], [%1], 16; cp.async.commit_group; }" :: "l"((tile_b+alu7)), "l"((data1+alu9)) : "memory");
  float acc1 = 0.0f;
  float acc2 = 0.0f;
  float acc3 = 0.0f;
  float acc4 = 0.0f;
  float acc5 = 0.0f;
  float acc6 = 0.0f;
  float acc7 = 0.0f;
  for (int ridx5 = 0; ridx5 < 2; ridx5++) {
    int alu10 = (alu2+(ridx5*1280)+((((lidx1/4)*8)+((lidx0+(lidx1*4))%8))*40)+alu4);
    int alu11 = ((ridx5+1)%2);
    int alu12 = (alu7+(alu11*1280));
    int alu13 = (alu8+(alu11*2048));
    bool alu14 = (ridx5<1);
    __syncthreads();
    asm volatile("{ .reg .u64 s; .reg .pred p; setp.ne.b32 p, %2, 0; cvta.to.shared.u64 s, %0; @p cp.async.cg.shared.global [s], [%1], 16; cp.async.commit_group; }" :: "l"((tile_a+alu12)), "l"((data2+alu13)), "r"((int)(alu14)) : "memory");
    asm volatile("{ .reg .u64 s; .reg .pred p; setp.ne.b32 p, %2, 0; cvta.to.shared.u64 s, %0; @p cp.async.cg.shared.global [s], [%1], 16; cp.async.commit_group; }" :: "l"((tile_a+alu12+640)), "l"((data2+alu13+1024)), "r"((int)(alu14)) : "memory");
    asm volatile("{ .reg .u64 s; .reg .pred p; setp.ne.b32 p, %2, 0; cvta.to.shared.u64 s, %0; @p cp.async.cg.shared.global [s], [%1], 16; cp.async.commit_group; }" :: "l"((tile_b+alu7+(alu11*640))), "l"((data1+alu9+(alu11*32))), "r"((int)(alu14)) : "memory");
    asm volatile("cp.async.wait_group 3;" ::: "memory");
    __syncthreads();
    __align__(16) half mat0[8]; asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %4; ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [s]; }" : "=r"(*(unsigned*)&mat0[0]), "=r"(*(unsigned*)&mat0[2]), "=r"(*(unsigned*)&mat0[4]), "=r"(*(unsigned*)&mat0[6]) : "l"((tile_a+alu10+640)) : "memory");
    int alu15 = ((ridx5*640)+(((((lidx0/2)+((lidx1%2)*2))*2)+(lidx0%2))*40)+alu4);
    __align__(16) half mat1[4]; asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %2; ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [s]; }" : "=r"(*(unsigned*)&mat1[0]), "=r"(*(unsigned*)&mat1[2]) : "l"((tile_b+alu15+16)) : "memory");
    __align__(16) half mat2[8]; asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %4; ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [s]; }" : "=r"(*(unsigned*)&mat2[0]), "=r"(*(unsigned*)&mat2[2]), "=r"(*(unsigned*)&mat2[4]), "=r"(*(unsigned*)&mat2[6]) : "l"((tile_a+alu10)) : "memory");
    __align__(16) half mat3[4]; asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %2; ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [s]; }" : "=r"(*(unsigned*)&mat3[0]), "=r"(*(unsigned*)&mat3[2]) : "l"((tile_b+alu15)) : "memory");
    float4 wmma0 = loupe_wmma_m16n8k16_f16_f32(mat2[0], mat2[1], mat2[2], mat2[3], mat2[4], mat2[5], mat2[6], mat2[7], mat3[0], mat3[1], mat3[2], mat3[3], acc0, acc1, acc2, acc3);
    float4 wmma1 = loupe_wmma_m16n8k16_f16_f32(mat0[0], mat0[1], mat0[2], mat0[3], mat0[4], mat0[5], mat0[6], mat0[7], mat1[0], mat1[1], mat1[2], mat1[3], wmma0.x, wmma0.y, wmma0.z, wmma0.w);
    acc0 = wmma1.x;
    __align__(16) half mat4[4]; asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %2; ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [s]; }" : "=r"(*(unsigned*)&mat4[0]), "=r"(*(unsigned*)&mat4[2]) : "l"((tile_b+alu15+336)) : "memory");
    __align__(16) half mat5[4]; asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %2; ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [s]; }" : "=r"(*(unsigned*)&mat5[0]), "=r"(*(unsigned*)&mat5[2]) : "l"((tile_b+alu15+320)) : "memory");
    float4 wmma2 = loupe_wmma_m16n8k16_f16_f32(mat2[0], mat2[1], mat2[2], mat2[3], mat2[4], mat2[5], mat2[6], mat2[7], mat5[0], mat5[1], mat5[2], mat5[3], acc4, acc5, acc6, acc7);
    float4 wmma3 = loupe_wmma_m16n8k16_f16_f32(mat0[0], mat0[1], mat0[2], mat0[3], mat0[4], mat0[5], mat0[6], mat0[7], mat4[0], mat4[1], mat4[2], mat4[3], wmma2.x, wmma2.y, wmma2.z, wmma2.w);
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
