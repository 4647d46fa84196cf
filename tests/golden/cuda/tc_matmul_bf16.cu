/* global 2,1,1 local 4,8,1 */
typedef unsigned short bf16;  /* bfloat16 bits */
static __device__ __forceinline__ float4 loupe_wmma_m16n8k16_bf16_f32(bf16 a0, bf16 a1, bf16 a2, bf16 a3, bf16 a4, bf16 a5, bf16 a6, bf16 a7, bf16 b0, bf16 b1, bf16 b2, bf16 b3, float c0, float c1, float c2, float c3) {
  unsigned a[4], b[2];
  a[0] = (unsigned)a0 | ((unsigned)a1 << 16); a[1] = (unsigned)a2 | ((unsigned)a3 << 16); a[2] = (unsigned)a4 | ((unsigned)a5 << 16); a[3] = (unsigned)a6 | ((unsigned)a7 << 16); b[0] = (unsigned)b0 | ((unsigned)b1 << 16); b[1] = (unsigned)b2 | ((unsigned)b3 << 16); 
  float4 d;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
      : "=f"(d.x), "=f"(d.y), "=f"(d.z), "=f"(d.w)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  return d;
}
static __device__ __forceinline__ bf16 loupe_f2bf(float f) { unsigned int u = __float_as_uint(f); if ((u & 0x7f800000u) != 0x7f800000u) u += 0x7fffu + ((u >> 16) & 1u); else if (u & 0xffffu) u |= 0x10000u; return (bf16)(u >> 16); }
extern "C" __global__ void __launch_bounds__(32) r_2_4_8_2_16_2_2_2(bf16* data0, const bf16* data1, const bf16* data2) {
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
    bf16 val0 = *(data2+alu2);
    bf16 val1 = *(data2+alu2+16);
    bf16 val2 = *(data2+alu2+8);
    bf16 val3 = *(data2+alu2+24);
    bf16 val4 = *(data2+alu2+128);
    bf16 val5 = *(data2+alu2+144);
    bf16 val6 = *(data2+alu2+136);
    bf16 val7 = *(data2+alu2+152);
    int alu3 = ((gidx0*512)+(lidx0*2)+(lidx1*32)+(ridx3*16));
    bf16 val8 = *(data1+alu3);
    bf16 val9 = *(data1+alu3+1);
    bf16 val10 = *(data1+alu3+8);
    bf16 val11 = *(data1+alu3+9);
    float4 wmma0 = loupe_wmma_m16n8k16_bf16_f32(val0, val1, val2, val3, val4, val5, val6, val7, val8, val9, val10, val11, acc0, acc1, acc2, acc3);
    acc0 = wmma0.x;
    bf16 val12 = *(data1+alu3+256);
    bf16 val13 = *(data1+alu3+257);
    bf16 val14 = *(data1+alu3+264);
    bf16 val15 = *(data1+alu3+265);
    float4 wmma1 = loupe_wmma_m16n8k16_bf16_f32(val0, val1, val2, val3, val4, val5, val6, val7, val12, val13, val14, val15, acc4, acc5, acc6, acc7);
    acc4 = wmma1.x;
    acc1 = wmma0.y;
    acc5 = wmma1.y;
    acc2 = wmma0.z;
    acc6 = wmma1.z;
    acc3 = wmma0.w;
    acc7 = wmma1.w;
  }
  *(data0+alu1) = loupe_f2bf(acc0);
  *(data0+alu1+128) = loupe_f2bf(acc4);
  *(data0+alu1+16) = loupe_f2bf(acc1);
  *(data0+alu1+144) = loupe_f2bf(acc5);
  *(data0+alu1+8) = loupe_f2bf(acc2);
  *(data0+alu1+136) = loupe_f2bf(acc6);
  *(data0+alu1+24) = loupe_f2bf(acc3);
  *(data0+alu1+152) = loupe_f2bf(acc7);
}
