/* global 8,4,1 local 4,1,1 */
__attribute__((amdgpu_kernel)) void E_4_8_4_4(float* restrict data0, const float* restrict data1, const float* restrict data2, const float* restrict data3) {
  int gidx0 = (int)__builtin_amdgcn_workgroup_id_x(); /* 8 */
  int alu0 = (gidx0*4);
  int gidx1 = (int)__builtin_amdgcn_workgroup_id_y(); /* 4 */
  int lidx0 = (int)__builtin_amdgcn_workitem_id_x(); /* 4 */
  int alu1 = (alu0+(gidx1*128)+(lidx0*32));
  float val0 = *(data1+alu1);
  float val1 = *(data2+alu1);
  float val2 = *(data3+alu0);
  float alu2 = ((val0*val1)+val2);
  *(data0+alu1) = ((0.0f<alu2)?alu2:0.0f);
  int alu3 = (alu1+1);
  float val3 = *(data1+alu3);
  float val4 = *(data2+alu3);
  float val5 = *(data3+alu0+1);
  float alu4 = ((val3*val4)+val5);
  *(data0+alu3) = ((0.0f<alu4)?alu4:0.0f);
  int alu5 = (alu1+2);
  float val6 = *(data1+alu5);
  float val7 = *(data2+alu5);
  float val8 = *(data3+alu0+2);
  float alu6 = ((val6*val7)+val8);
  *(data0+alu5) = ((0.0f<alu6)?alu6:0.0f);
  int alu7 = (alu1+3);
  float val9 = *(data1+alu7);
  float val10 = *(data2+alu7);
  float val11 = *(data3+alu0+3);
  float alu8 = ((val9*val10)+val11);
  *(data0+alu7) = ((0.0f<alu8)?alu8:0.0f);
}
