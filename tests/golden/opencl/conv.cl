/* global 10,5,4 local 2,1,1 */
__kernel void r_4_5_10_2_3_3_3_2(__global float* data0, __global const float* data1, __global const float* data2) {
  int gidx0 = get_group_id(0); /* 10 */
  int gidx1 = get_group_id(1); /* 5 */
  int gidx2 = get_group_id(2); /* 4 */
  int lidx0 = get_local_id(0); /* 2 */
  int alu0 = (gidx0+(gidx1*20)+(gidx2*100)+(lidx0*10));
  float acc0 = 0.0f;
  float acc1 = 0.0f;
  for (int ridx4 = 0; ridx4 < 3; ridx4++) {
    for (int ridx5 = 0; ridx5 < 3; ridx5++) {
      int alu1 = ((gidx1*2)+lidx0+ridx5);
      for (int ridx6 = 0; ridx6 < 3; ridx6++) {
        int alu2 = (gidx0+(ridx4*100)+ridx6+(alu1*10));
        int alu3 = (gidx0+ridx6);
        bool alu4 = ((((gidx1+lidx0+ridx5)<1)!=1)&((alu1<11)&((alu3<11)&((alu3<1)!=1))));
        float val0 = (alu4?*(data1+alu2+-11):0.0f);
        float val1 = *(data2+(gidx2*27)+(ridx4*9)+(ridx5*3)+ridx6);
        acc0 = (acc0+(val0*val1));
        float val2 = (alu4?*(data1+alu2+289):0.0f);
        acc1 = (acc1+(val2*val1));
      }
    }
  }
  *(data0+alu0) = acc0;
  *(data0+alu0+400) = acc1;
}
