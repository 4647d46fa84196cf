/* global 2,1,1 local 16,2,1 */
typedef unsigned short bf16;  /* bfloat16 bits */
typedef float float8 __attribute__((ext_vector_type(8)));
typedef short loupe_short16 __attribute__((ext_vector_type(16)));
static inline __attribute__((always_inline)) float8 loupe_wmma_wmma_16x16x16_bf16_f32_w32(bf16 a0, bf16 a1, bf16 a2, bf16 a3, bf16 a4, bf16 a5, bf16 a6, bf16 a7, bf16 a8, bf16 a9, bf16 a10, bf16 a11, bf16 a12, bf16 a13, bf16 a14, bf16 a15, bf16 b0, bf16 b1, bf16 b2, bf16 b3, bf16 b4, bf16 b5, bf16 b6, bf16 b7, bf16 b8, bf16 b9, bf16 b10, bf16 b11, bf16 b12, bf16 b13, bf16 b14, bf16 b15, float c0, float c1, float c2, float c3, float c4, float c5, float c6, float c7) {
  loupe_short16 a = {(short)a0, (short)a1, (short)a2, (short)a3, (short)a4, (short)a5, (short)a6, (short)a7, (short)a8, (short)a9, (short)a10, (short)a11, (short)a12, (short)a13, (short)a14, (short)a15};
  loupe_short16 b = {(short)b0, (short)b1, (short)b2, (short)b3, (short)b4, (short)b5, (short)b6, (short)b7, (short)b8, (short)b9, (short)b10, (short)b11, (short)b12, (short)b13, (short)b14, (short)b15};
  float8 c = {c0, c1, c2, c3, c4, c5, c6, c7};
  return __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, c);
}
static inline __attribute__((always_inline)) bf16 loupe_f2bf(float f) { unsigned int u; __builtin_memcpy(&u, &f, 4); if ((u & 0x7f800000u) != 0x7f800000u) u += 0x7fffu + ((u >> 16) & 1u); else if (u & 0xffffu) u |= 0x10000u; return (bf16)(u >> 16); }
__attribute__((amdgpu_kernel)) void r_2_16_2_2_16_8(bf16* restrict data0, const bf16* restrict data1, const bf16* restrict data2) {
  int gidx0 = (int)__builtin_amdgcn_workgroup_id_x(); /* 2 */
  int lidx0 = (int)__builtin_amdgcn_workitem_id_x(); /* 16 */
  int lidx1 = (int)__builtin_amdgcn_workitem_id_y(); /* 2 */
  int alu0 = ((gidx0*256)+(lidx0*16)+lidx1);
  float acc0 = 0.0f;
  float acc1 = 0.0f;
  float acc2 = 0.0f;
  float acc3 = 0.0f;
  float acc4 = 0.0f;
  float acc5 = 0.0f;
  float acc6 = 0.0f;
  float acc7 = 0.0f;
  for (int ridx3 = 0; ridx3 < 2; ridx3++) {
    int alu1 = (lidx0+(ridx3*256));
    bf16 val0 = *(data2+alu1);
    bf16 val1 = *(data2+alu1+16);
    bf16 val2 = *(data2+alu1+32);
    bf16 val3 = *(data2+alu1+48);
    bf16 val4 = *(data2+alu1+64);
    bf16 val5 = *(data2+alu1+80);
    bf16 val6 = *(data2+alu1+96);
    bf16 val7 = *(data2+alu1+112);
    bf16 val8 = *(data2+alu1+128);
    bf16 val9 = *(data2+alu1+144);
    bf16 val10 = *(data2+alu1+160);
    bf16 val11 = *(data2+alu1+176);
    bf16 val12 = *(data2+alu1+192);
    bf16 val13 = *(data2+alu1+208);
    bf16 val14 = *(data2+alu1+224);
    bf16 val15 = *(data2+alu1+240);
    int alu2 = ((gidx0*512)+(lidx0*32)+(ridx3*16));
    bf16 val16 = *(data1+alu2);
    bf16 val17 = *(data1+alu2+1);
    bf16 val18 = *(data1+alu2+2);
    bf16 val19 = *(data1+alu2+3);
    bf16 val20 = *(data1+alu2+4);
    bf16 val21 = *(data1+alu2+5);
    bf16 val22 = *(data1+alu2+6);
    bf16 val23 = *(data1+alu2+7);
    bf16 val24 = *(data1+alu2+8);
    bf16 val25 = *(data1+alu2+9);
    bf16 val26 = *(data1+alu2+10);
    bf16 val27 = *(data1+alu2+11);
    bf16 val28 = *(data1+alu2+12);
    bf16 val29 = *(data1+alu2+13);
    bf16 val30 = *(data1+alu2+14);
    bf16 val31 = *(data1+alu2+15);
    float8 wmma0 = loupe_wmma_wmma_16x16x16_bf16_f32_w32(val0, val1, val2, val3, val4, val5, val6, val7, val8, val9, val10, val11, val12, val13, val14, val15, val16, val17, val18, val19, val20, val21, val22, val23, val24, val25, val26, val27, val28, val29, val30, val31, acc0, acc1, acc2, acc3, acc4, acc5, acc6, acc7);
    acc0 = wmma0[0];
    acc1 = wmma0[1];
    acc2 = wmma0[2];
    acc3 = wmma0[3];
    acc4 = wmma0[4];
    acc5 = wmma0[5];
    acc6 = wmma0[6];
    acc7 = wmma0[7];
  }
  *(data0+alu0) = loupe_f2bf(acc0);
  *(data0+alu0+2) = loupe_f2bf(acc1);
  *(data0+alu0+4) = loupe_f2bf(acc2);
  *(data0+alu0+6) = loupe_f2bf(acc3);
  *(data0+alu0+8) = loupe_f2bf(acc4);
  *(data0+alu0+10) = loupe_f2bf(acc5);
  *(data0+alu0+12) = loupe_f2bf(acc6);
  *(data0+alu0+14) = loupe_f2bf(acc7);
}
