/* global 3,16,1 local 2,2,1 */
__attribute__((amdgpu_kernel)) void r_16_3_2_2_12_4_4(float* restrict data0, const float* restrict data1, const float* restrict data2) {
  int gidx0 = (int)__builtin_amdgcn_workgroup_id_x(); /* 3 */
  int alu0 = (gidx0*8);
  int gidx1 = (int)__builtin_amdgcn_workgroup_id_y(); /* 16 */
  int lidx0 = (int)__builtin_amdgcn_workitem_id_x(); /* 2 */
  int lidx1 = (int)__builtin_amdgcn_workitem_id_y(); /* 2 */
  int alu1 = (lidx1*4);
  int alu2 = (alu0+(gidx1*48)+(lidx0*24)+alu1);
  float acc0 = 0.0f;
  float acc1 = 0.0f;
  float acc2 = 0.0f;
  float acc3 = 0.0f;
  for (int ridx4 = 0; ridx4 < 12; ridx4++) {
    int alu3 = ((gidx1*96)+(lidx0*48)+(ridx4*4));
    float val0 = *(data1+alu3);
    int alu4 = (alu0+alu1+(ridx4*96));
    float val1 = *(data2+alu4);
    float val2 = *(data1+alu3+1);
    float val3 = *(data2+alu4+24);
    float val4 = *(data1+alu3+2);
    float val5 = *(data2+alu4+48);
    float val6 = *(data1+alu3+3);
    float val7 = *(data2+alu4+72);
    acc0 = (acc0+(val0*val1)+(val2*val3)+(val4*val5)+(val6*val7));
    float val8 = *(data2+alu4+1);
    float val9 = *(data2+alu4+25);
    float val10 = *(data2+alu4+49);
    float val11 = *(data2+alu4+73);
    acc1 = (acc1+(val0*val8)+(val2*val9)+(val4*val10)+(val6*val11));
    float val12 = *(data2+alu4+2);
    float val13 = *(data2+alu4+26);
    float val14 = *(data2+alu4+50);
    float val15 = *(data2+alu4+74);
    acc2 = (acc2+(val0*val12)+(val2*val13)+(val4*val14)+(val6*val15));
    float val16 = *(data2+alu4+3);
    float val17 = *(data2+alu4+27);
    float val18 = *(data2+alu4+51);
    float val19 = *(data2+alu4+75);
    acc3 = (acc3+(val0*val16)+(val2*val17)+(val4*val18)+(val6*val19));
  }
  *(data0+alu2) = acc0;
  *(data0+alu2+1) = acc1;
  *(data0+alu2+2) = acc2;
  *(data0+alu2+3) = acc3;
}
