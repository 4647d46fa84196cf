/* global 2,1,1 local 16,4,1 */
typedef _Float16 half;
typedef float float4 __attribute__((ext_vector_type(4)));
typedef half loupe_half4 __attribute__((ext_vector_type(4)));
static inline __attribute__((always_inline)) float4 loupe_wmma_mfma_16x16x16_f16_f32_w64(half a0, half a1, half a2, half a3, half b0, half b1, half b2, half b3, float c0, float c1, float c2, float c3) {
  loupe_half4 a = {a0, a1, a2, a3};
  loupe_half4 b = {b0, b1, b2, b3};
  float4 c = {c0, c1, c2, c3};
  return __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
}
__attribute__((amdgpu_kernel)) void r_2_16_4_2_16_4(half* restrict data0, const half* restrict data1, const half* restrict data2) {
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
    half val0 = *(data2+alu2);
    half val1 = *(data2+alu2+16);
    half val2 = *(data2+alu2+32);
    half val3 = *(data2+alu2+48);
    int alu3 = ((gidx0*512)+(lidx0*32)+alu0+(ridx3*16));
    half val4 = *(data1+alu3);
    half val5 = *(data1+alu3+1);
    half val6 = *(data1+alu3+2);
    half val7 = *(data1+alu3+3);
    float4 wmma0 = loupe_wmma_mfma_16x16x16_f16_f32_w64(val0, val1, val2, val3, val4, val5, val6, val7, acc0, acc1, acc2, acc3);
    acc0 = wmma0[0];
    acc1 = wmma0[1];
    acc2 = wmma0[2];
    acc3 = wmma0[3];
  }
  *(data0+alu1) = ((half)acc0);
  *(data0+alu1+1) = ((half)acc1);
  *(data0+alu1+2) = ((half)acc2);
  *(data0+alu1+3) = ((half)acc3);
}
