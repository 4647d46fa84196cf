/* global 1,1,1 local 1,1,1 */
extern "C" __global__ void __launch_bounds__(1) float4_scale(float* data0, const float* data1) {
  for (int ridx0 = 0; ridx0 < 8; ridx0++) {
    int alu0 = (ridx0*4);
    float4 val0 = *((const float4*)((data1+alu0)));
    float4 alu1 = make_float4((val0.x*2.0f),(val0.y*2.0f),(val0.z*2.0f),(val0.w*2.0f));
    float cast0 = ((float)ridx0);
    *((float4*)((data0+alu0))) = make_float4((alu1.x+cast0),(alu1.y+cast0),(alu1.z+cast0),(alu1.w+cast0));
  }
}
