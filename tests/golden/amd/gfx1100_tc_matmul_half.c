/* global 2,1,1 local 16,2,1 */
typedef _Float16 half;
typedef float float8 __attribute__((ext_vector_type(8)));
typedef half loupe_half16 __attribute__((ext_vector_type(16)));
static inline __attribute__((always_inline)) float8 loupe_wmma_wmma_16x16x16_f16_f32_w32(half a0, half a1, half a2, half a3, half a4, half a5, half a6, half a7, half a8, half a9, half a10, half a11, half a12, half a13, half a14, half a15, half b0, half b1, half b2, half b3, half b4, half b5, half b6, half b7, half b8, half b9, half b10, half b11, half b12, half b13, half b14, half b15, float c0, float c1, float c2, float c3, float c4, float c5, float c6, float c7) {
  loupe_half16 a = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
  loupe_half16 b = {b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15};
  float8 c = {c0, c1, c2, c3, c4, c5, c6, c7};
  return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c);
}
__attribute__((amdgpu_kernel)) void r_2_16_2_2_16_8(half* restrict data0, const half* restrict data1, const half* restrict data2) {
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
    half val0 = *(data2+alu1);
    half val1 = *(data2+alu1+16);
    half val2 = *(data2+alu1+32);
    half val3 = *(data2+alu1+48);
    half val4 = *(data2+alu1+64);
    half val5 = *(data2+alu1+80);
    half val6 = *(data2+alu1+96);
    half val7 = *(data2+alu1+112);
    half val8 = *(data2+alu1+128);
    half val9 = *(data2+alu1+144);
    half val10 = *(data2+alu1+160);
    half val11 = *(data2+alu1+176);
    half val12 = *(data2+alu1+192);
    half val13 = *(data2+alu1+208);
    half val14 = *(data2+alu1+224);
    half val15 = *(data2+alu1+240);
    int alu2 = ((gidx0*512)+(lidx0*32)+(ridx3*16));
    half val16 = *(data1+alu2);
    half val17 = *(data1+alu2+1);
    half val18 = *(data1+alu2+2);
    half val19 = *(data1+alu2+3);
    half val20 = *(data1+alu2+4);
    half val21 = *(data1+alu2+5);
    half val22 = *(data1+alu2+6);
    half val23 = *(data1+alu2+7);
    half val24 = *(data1+alu2+8);
    half val25 = *(data1+alu2+9);
    half val26 = *(data1+alu2+10);
    half val27 = *(data1+alu2+11);
    half val28 = *(data1+alu2+12);
    half val29 = *(data1+alu2+13);
    half val30 = *(data1+alu2+14);
    half val31 = *(data1+alu2+15);
    float8 wmma0 = loupe_wmma_wmma_16x16x16_f16_f32_w32(val0, val1, val2, val3, val4, val5, val6, val7, val8, val9, val10, val11, val12, val13, val14, val15, val16, val17, val18, val19, val20, val21, val22, val23, val24, val25, val26, val27, val28, val29, val30, val31, acc0, acc1, acc2, acc3, acc4, acc5, acc6, acc7);
    acc0 = wmma0[0];
    acc1 = wmma0[1];
    acc2 = wmma0[2];
    acc3 = wmma0[3];
    acc4 = wmma0[4];
    acc5 = wmma0[5];
    acc6 = wmma0[6];
    acc7 = wmma0[7];
  }
  *(data0+alu0) = ((half)acc0);
  *(data0+alu0+2) = ((half)acc1);
  *(data0+alu0+4) = ((half)acc2);
  *(data0+alu0+6) = ((half)acc3);
  *(data0+alu0+8) = ((half)acc4);
  *(data0+alu0+10) = ((half)acc5);
  *(data0+alu0+12) = ((half)acc6);
  *(data0+alu0+14) = ((half)acc7);
}
