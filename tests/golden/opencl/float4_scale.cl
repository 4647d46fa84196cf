/* global 1,1,1 local 1,1,1 */
__kernel void float4_scale(__global float* data0, __global const float* data1) {
  for (int ridx0 = 0; ridx0 < 8; ridx0++) {
    int alu0 = (ridx0*4);
    float4 val0 = *((__global const float4*)((data1+alu0)));
    float4 alu1 = (float4)((val0.x*2.0f),(val0.y*2.0f),(val0.z*2.0f),(val0.w*2.0f));
    float cast0 = ((float)ridx0);
    *((__global float4*)((data0+alu0))) = (float4)((alu1.x+cast0),(alu1.y+cast0),(alu1.z+cast0),(alu1.w+cast0));
  }
}
