// Sample kernels for the code-panel tests: a 64x64 matmul + relu as tinygrad v0.10.2 renders it
// (DEBUG=4) for the CPU (C) and OpenCL backends, optimized and NOOPT, with the times it measured.
#pragma once
inline const char* kMatmulCOpt = R"KERNEL(typedef float float4 __attribute__((aligned(16),vector_size(16)));
void r_16_16_16_4_4_4(float* restrict data0, float* restrict data1, float* restrict data2) {
  for (int ridx0 = 0; ridx0 < 16; ridx0++) {
    int alu0 = (ridx0<<8);
    for (int ridx1 = 0; ridx1 < 16; ridx1++) {
      int alu1 = (ridx1<<2);
      float acc0 = 0.0f;
      float acc1 = 0.0f;
      float acc2 = 0.0f;
      float acc3 = 0.0f;
      float acc4 = 0.0f;
      float acc5 = 0.0f;
      float acc6 = 0.0f;
      float acc7 = 0.0f;
      float acc8 = 0.0f;
      float acc9 = 0.0f;
      float acc10 = 0.0f;
      float acc11 = 0.0f;
      float acc12 = 0.0f;
      float acc13 = 0.0f;
      float acc14 = 0.0f;
      float acc15 = 0.0f;
      for (int ridx2 = 0; ridx2 < 16; ridx2++) {
        int alu2 = (alu0+(ridx2<<2));
        float4 val0 = *((float4*)((data1+alu2)));
        float4 val1 = *((float4*)((data1+(alu2+64))));
        float4 val2 = *((float4*)((data1+(alu2+128))));
        float4 val3 = *((float4*)((data1+(alu2+192))));
        int alu3 = (alu1+(ridx2<<8));
        float4 val4 = *((float4*)((data2+alu3)));
        float4 val5 = *((float4*)((data2+(alu3+64))));
        float4 val6 = *((float4*)((data2+(alu3+128))));
        float4 val7 = *((float4*)((data2+(alu3+192))));
        acc0 = (acc0+(val0[0]*val4[0])+(val0[1]*val5[0])+(val0[2]*val6[0])+(val0[3]*val7[0]));
        acc1 = (acc1+(val1[0]*val4[0])+(val1[1]*val5[0])+(val1[2]*val6[0])+(val1[3]*val7[0]));
        acc2 = (acc2+(val2[0]*val4[0])+(val2[1]*val5[0])+(val2[2]*val6[0])+(val2[3]*val7[0]));
        acc3 = (acc3+(val3[0]*val4[0])+(val3[1]*val5[0])+(val3[2]*val6[0])+(val3[3]*val7[0]));
        acc4 = (acc4+(val0[0]*val4[1])+(val0[1]*val5[1])+(val0[2]*val6[1])+(val0[3]*val7[1]));
        acc5 = (acc5+(val1[0]*val4[1])+(val1[1]*val5[1])+(val1[2]*val6[1])+(val1[3]*val7[1]));
        acc6 = (acc6+(val2[0]*val4[1])+(val2[1]*val5[1])+(val2[2]*val6[1])+(val2[3]*val7[1]));
        acc7 = (acc7+(val3[0]*val4[1])+(val3[1]*val5[1])+(val3[2]*val6[1])+(val3[3]*val7[1]));
        acc8 = (acc8+(val0[0]*val4[2])+(val0[1]*val5[2])+(val0[2]*val6[2])+(val0[3]*val7[2]));
        acc9 = (acc9+(val1[0]*val4[2])+(val1[1]*val5[2])+(val1[2]*val6[2])+(val1[3]*val7[2]));
        acc10 = (acc10+(val2[0]*val4[2])+(val2[1]*val5[2])+(val2[2]*val6[2])+(val2[3]*val7[2]));
        acc11 = (acc11+(val3[0]*val4[2])+(val3[1]*val5[2])+(val3[2]*val6[2])+(val3[3]*val7[2]));
        acc12 = (acc12+(val0[0]*val4[3])+(val0[1]*val5[3])+(val0[2]*val6[3])+(val0[3]*val7[3]));
        acc13 = (acc13+(val1[0]*val4[3])+(val1[1]*val5[3])+(val1[2]*val6[3])+(val1[3]*val7[3]));
        acc14 = (acc14+(val2[0]*val4[3])+(val2[1]*val5[3])+(val2[2]*val6[3])+(val2[3]*val7[3]));
        acc15 = (acc15+(val3[0]*val4[3])+(val3[1]*val5[3])+(val3[2]*val6[3])+(val3[3]*val7[3]));
      }
      int alu21 = (alu0+alu1);
      *((float4*)((data0+alu21))) = (float4){((0.0f<acc0)?acc0:0.0f),((0.0f<acc4)?acc4:0.0f),((0.0f<acc8)?acc8:0.0f),((0.0f<acc12)?acc12:0.0f)};
      *((float4*)((data0+(alu21+64)))) = (float4){((0.0f<acc1)?acc1:0.0f),((0.0f<acc5)?acc5:0.0f),((0.0f<acc9)?acc9:0.0f),((0.0f<acc13)?acc13:0.0f)};
      *((float4*)((data0+(alu21+128)))) = (float4){((0.0f<acc2)?acc2:0.0f),((0.0f<acc6)?acc6:0.0f),((0.0f<acc10)?acc10:0.0f),((0.0f<acc14)?acc14:0.0f)};
      *((float4*)((data0+(alu21+192)))) = (float4){((0.0f<acc3)?acc3:0.0f),((0.0f<acc7)?acc7:0.0f),((0.0f<acc11)?acc11:0.0f),((0.0f<acc15)?acc15:0.0f)};
    }
  }
})KERNEL";
inline const char* kMatmulCNoopt = R"KERNEL(void r_64_64_64(float* restrict data0, float* restrict data1, float* restrict data2) {
  for (int ridx0 = 0; ridx0 < 64; ridx0++) {
    int alu0 = (ridx0<<6);
    for (int ridx1 = 0; ridx1 < 64; ridx1++) {
      float acc0 = 0.0f;
      for (int ridx2 = 0; ridx2 < 64; ridx2++) {
        float val0 = *(data1+(alu0+ridx2));
        float val1 = *(data2+((ridx2<<6)+ridx1));
        acc0 = (acc0+(val0*val1));
      }
      *(data0+(alu0+ridx1)) = ((0.0f<acc0)?acc0:0.0f);
    }
  }
})KERNEL";
inline const char* kMatmulClOpt = R"KERNEL(__kernel void r_2_8_16_16_4_4_4(__global float* data0, __global float* data1, __global float* data2) {
  int gidx0 = get_group_id(0); /* 2 */
  int lidx0 = get_local_id(0); /* 8 */
  int lidx1 = get_local_id(1); /* 16 */
  int alu0 = ((gidx0<<11)+(lidx0<<8));
  int alu1 = (lidx1<<2);
  float acc0 = 0.0f;
  float acc1 = 0.0f;
  float acc2 = 0.0f;
  float acc3 = 0.0f;
  float acc4 = 0.0f;
  float acc5 = 0.0f;
  float acc6 = 0.0f;
  float acc7 = 0.0f;
  float acc8 = 0.0f;
  float acc9 = 0.0f;
  float acc10 = 0.0f;
  float acc11 = 0.0f;
  float acc12 = 0.0f;
  float acc13 = 0.0f;
  float acc14 = 0.0f;
  float acc15 = 0.0f;
  for (int ridx0 = 0; ridx0 < 16; ridx0++) {
    int alu2 = (alu0+(ridx0<<2));
    float4 val0 = *((__global float4*)((data1+alu2)));
    float4 val1 = *((__global float4*)((data1+(alu2+64))));
    float4 val2 = *((__global float4*)((data1+(alu2+128))));
    float4 val3 = *((__global float4*)((data1+(alu2+192))));
    int alu3 = (alu1+(ridx0<<8));
    float4 val4 = *((__global float4*)((data2+alu3)));
    float4 val5 = *((__global float4*)((data2+(alu3+64))));
    float4 val6 = *((__global float4*)((data2+(alu3+128))));
    float4 val7 = *((__global float4*)((data2+(alu3+192))));
    acc0 = (acc0+(val0.x*val4.x)+(val0.y*val5.x)+(val0.z*val6.x)+(val0.w*val7.x));
    acc1 = (acc1+(val1.x*val4.x)+(val1.y*val5.x)+(val1.z*val6.x)+(val1.w*val7.x));
    acc2 = (acc2+(val2.x*val4.x)+(val2.y*val5.x)+(val2.z*val6.x)+(val2.w*val7.x));
    acc3 = (acc3+(val3.x*val4.x)+(val3.y*val5.x)+(val3.z*val6.x)+(val3.w*val7.x));
    acc4 = (acc4+(val0.x*val4.y)+(val0.y*val5.y)+(val0.z*val6.y)+(val0.w*val7.y));
    acc5 = (acc5+(val1.x*val4.y)+(val1.y*val5.y)+(val1.z*val6.y)+(val1.w*val7.y));
    acc6 = (acc6+(val2.x*val4.y)+(val2.y*val5.y)+(val2.z*val6.y)+(val2.w*val7.y));
    acc7 = (acc7+(val3.x*val4.y)+(val3.y*val5.y)+(val3.z*val6.y)+(val3.w*val7.y));
    acc8 = (acc8+(val0.x*val4.z)+(val0.y*val5.z)+(val0.z*val6.z)+(val0.w*val7.z));
    acc9 = (acc9+(val1.x*val4.z)+(val1.y*val5.z)+(val1.z*val6.z)+(val1.w*val7.z));
    acc10 = (acc10+(val2.x*val4.z)+(val2.y*val5.z)+(val2.z*val6.z)+(val2.w*val7.z));
    acc11 = (acc11+(val3.x*val4.z)+(val3.y*val5.z)+(val3.z*val6.z)+(val3.w*val7.z));
    acc12 = (acc12+(val0.x*val4.w)+(val0.y*val5.w)+(val0.z*val6.w)+(val0.w*val7.w));
    acc13 = (acc13+(val1.x*val4.w)+(val1.y*val5.w)+(val1.z*val6.w)+(val1.w*val7.w));
    acc14 = (acc14+(val2.x*val4.w)+(val2.y*val5.w)+(val2.z*val6.w)+(val2.w*val7.w));
    acc15 = (acc15+(val3.x*val4.w)+(val3.y*val5.w)+(val3.z*val6.w)+(val3.w*val7.w));
  }
  int alu21 = (alu0+alu1);
  *((__global float4*)((data0+alu21))) = (float4)(((0.0f<acc0)?acc0:0.0f),((0.0f<acc4)?acc4:0.0f),((0.0f<acc8)?acc8:0.0f),((0.0f<acc12)?acc12:0.0f));
  *((__global float4*)((data0+(alu21+64)))) = (float4)(((0.0f<acc1)?acc1:0.0f),((0.0f<acc5)?acc5:0.0f),((0.0f<acc9)?acc9:0.0f),((0.0f<acc13)?acc13:0.0f));
  *((__global float4*)((data0+(alu21+128)))) = (float4)(((0.0f<acc2)?acc2:0.0f),((0.0f<acc6)?acc6:0.0f),((0.0f<acc10)?acc10:0.0f),((0.0f<acc14)?acc14:0.0f));
  *((__global float4*)((data0+(alu21+192)))) = (float4)(((0.0f<acc3)?acc3:0.0f),((0.0f<acc7)?acc7:0.0f),((0.0f<acc11)?acc11:0.0f),((0.0f<acc15)?acc15:0.0f));
})KERNEL";
inline const char* kMatmulClNoopt = R"KERNEL(__kernel void r_64_64_64(__global float* data0, __global float* data1, __global float* data2) {
  int gidx0 = get_group_id(0); /* 64 */
  int gidx1 = get_group_id(1); /* 64 */
  int alu0 = (gidx1<<6);
  float acc0 = 0.0f;
  for (int ridx0 = 0; ridx0 < 64; ridx0++) {
    float val0 = *(data1+(alu0+ridx0));
    float val1 = *(data2+(gidx0+(ridx0<<6)));
    acc0 = (acc0+(val0*val1));
  }
  *(data0+(gidx0+alu0)) = ((0.0f<acc0)?acc0:0.0f);
})KERNEL";
