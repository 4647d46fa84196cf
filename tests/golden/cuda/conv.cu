/* global 10,5,4 local 2,1,1 */
extern "C" __global__ void __launch_bounds__(2) r_4_5_10_2_3_3_3_2(float* data0, const float* data1, const float* data2) {
  int gidx0 = blockIdx.x; /* 10 */
  int gidx1 = blockIdx.y; /* 5 */
  int gidx2 = blockIdx.z; /* 4 */
  int lidx0 = threadIdx.x; /* 2 */
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
        acc0 = fmaf(val0, val1, acc0);
        float val2 = (alu4?*(data1+alu2+289):0.0f);
        acc1 = fmaf(val2, val1, acc1);
      }
    }
  }
  *(data0+alu0) = acc0;
  *(data0+alu0+400) = acc1;
}
