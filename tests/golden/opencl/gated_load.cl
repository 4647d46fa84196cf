/* global 1,1,1 local 1,1,1 */
__kernel void gated_load(__global float* data0, __global const float* data1) {
  for (int ridx0 = 0; ridx0 < 6; ridx0++) {
    float val0 = ((((ridx0<1)!=1)&(ridx0<5))?*(data1+ridx0+-1):0.0f);
    *(data0+ridx0) = val0;
  }
}
