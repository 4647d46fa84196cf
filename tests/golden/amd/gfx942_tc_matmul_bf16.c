/* global 2,1,1 local 16,4,1 */
typedef unsigned short bf16;  /* bfloat16 bits */
typedef float float4 __attribute__((ext_vector_type(4)));
typedef short loupe_short4 __attribute__((ext_vector_type(4)));
static inline __attribute__((always_inline)) float4 loupe_wmma_mfma_16x16x16_bf16_f32_w64(bf16 a0, bf16 a1, bf16 a2, bf16 a3, bf16 b0, bf16 b1, bf16 b2, bf16 b3, float c0, float c1, float c2, float c3) {
  loupe_short4 a = {(short)a0, (short)a1, (short)a2, (short)a3};
  loupe_short4 b = {(short)b0, (short)b1, (short)b2, (short)b3};
  float4 c = {c0, c1, c2, c3};
  return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
}
static inline __attribute__((always_inline)) bf16 loupe_f2bf(float f) { unsigned int u; __builtin_memcpy(&u, &f, 4); if ((u & 0x7f800000u) != 0x7f800000u) u += 0x7fffu + ((u >> 16) & 1u); else if (u & 0xffffu) u |= 0x10000u; return (bf16)(u >> 16); }
__attribute__((amdgpu_kernel)) void r_2_16_4_2_16_4(bf16* restrict data0, const bf16* restrict data1, const bf16* restrict data2) {
  int gidx0 = (int)__builtin_amdgcn_workgroup_id_x(); /* 2 */
  int lidx0 = (int)__builtin_amdgcn_workitem_id_x(); /* 16 */
  int lidx1 = (int)__builtin_amdgcn_workitem_id_y(); /* 4 */
  int alu0 = (lidx1*4);
  int alu1 = ((gidx0*256)+(lidx0*16)+alu0);
  float acc0 = 0.0f;
  float acc1 = 0.0f;
  float acc2 = 0.0f;
  float acc3 = 0.0f;
  for (int ridx3 = 0; ridx3 < 2; ridx3++) {
    int alu2 = (lidx0+(lidx1*64)+(ridx3*256));
    bf16 val0 = *(data2+alu2);
    bf16 val1 = *(data2+alu2+16);
    bf16 val2 = *(data2+alu2+32);
    bf16 val3 = *(data2+alu2+48);
    int alu3 = ((gidx0*512)+(lidx0*32)+alu0+(ridx3*16));
    bf16 val4 = *(data1+alu3);
    bf16 val5 = *(data1+alu3+1);
    bf16 val6 = *(data1+alu3+2);
    bf16 val7 = *(data1+alu3+3);
    float4 wmma0 = loupe_wmma_mfma_16x16x16_bf16_f32_w64(val0, val1, val2, val3, val4, val5, val6, val7, acc0, acc1, acc2, acc3);
    acc0 = wmma0[0];
    acc1 = wmma0[1];
    acc2 = wmma0[2];
    acc3 = wmma0[3];
  }
  *(data0+alu1) = loupe_f2bf(acc0);
  *(data0+alu1+1) = loupe_f2bf(acc1);
  *(data0+alu1+2) = loupe_f2bf(acc2);
  *(data0+alu1+3) = loupe_f2bf(acc3);
}
