/* global 1,1,1 local 256,1,1 */
__kernel void r_256_4_4(__global float* data0, __global const float* data1) {
  __local float temp0[256];
  int lidx0 = get_local_id(0); /* 256 */
  float acc0 = 0.0f;
  bool alu0 = (lidx0<128);
  bool alu1 = (lidx0<64);
  bool alu2 = (lidx0<32);
  bool alu3 = (lidx0<16);
  bool alu4 = (lidx0<8);
  bool alu5 = (lidx0<4);
  bool alu6 = (lidx0<2);
  bool alu7 = (lidx0<1);
  for (int ridx1 = 0; ridx1 < 4; ridx1++) {
    int alu8 = ((lidx0*16)+(ridx1*4));
    float val0 = *(data1+alu8);
    float val1 = *(data1+alu8+1);
    float val2 = *(data1+alu8+2);
    float val3 = *(data1+alu8+3);
    acc0 = (acc0+val0+val1+val2+val3);
  }
  *(temp0+lidx0) = acc0;
  barrier(CLK_LOCAL_MEM_FENCE);
  float val4 = *(temp0+lidx0);
  float val5 = *(temp0+(alu0?(lidx0+128):lidx0));
  if (alu0) *(temp0+lidx0) = (val4+val5);
  barrier(CLK_LOCAL_MEM_FENCE);
  float val6 = *(temp0+lidx0);
  float val7 = *(temp0+(alu1?(lidx0+64):lidx0));
  if (alu1) *(temp0+lidx0) = (val6+val7);
  barrier(CLK_LOCAL_MEM_FENCE);
  float val8 = *(temp0+lidx0);
  float val9 = *(temp0+(alu2?(lidx0+32):lidx0));
  if (alu2) *(temp0+lidx0) = (val8+val9);
  barrier(CLK_LOCAL_MEM_FENCE);
  float val10 = *(temp0+lidx0);
  float val11 = *(temp0+(alu3?(lidx0+16):lidx0));
  if (alu3) *(temp0+lidx0) = (val10+val11);
  barrier(CLK_LOCAL_MEM_FENCE);
  float val12 = *(temp0+lidx0);
  float val13 = *(temp0+(alu4?(lidx0+8):lidx0));
  if (alu4) *(temp0+lidx0) = (val12+val13);
  barrier(CLK_LOCAL_MEM_FENCE);
  float val14 = *(temp0+lidx0);
  float val15 = *(temp0+(alu5?(lidx0+4):lidx0));
  if (alu5) *(temp0+lidx0) = (val14+val15);
  barrier(CLK_LOCAL_MEM_FENCE);
  float val16 = *(temp0+lidx0);
  float val17 = *(temp0+(alu6?(lidx0+2):lidx0));
  if (alu6) *(temp0+lidx0) = (val16+val17);
  barrier(CLK_LOCAL_MEM_FENCE);
  float val18 = *(temp0+lidx0);
  float val19 = *(temp0+(alu7?(lidx0+1):lidx0));
  if (alu7) *(temp0+lidx0) = (val18+val19);
  barrier(CLK_LOCAL_MEM_FENCE);
  float val20 = *(temp0+0);
  if (alu7) *(data0+0) = val20;
}
