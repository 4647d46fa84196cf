/* global 1,1,1 local 1,1,1 */
extern "C" __global__ void __launch_bounds__(1) gated_load(float* data0, const float* data1) {
  for (int ridx0 = 0; ridx0 < 6; ridx0++) {
    float val0 = ((((ridx0<1)!=1)&(ridx0<5))?*(data1+ridx0+-1):0.0f);
    *(data0+ridx0) = val0;
  }
}
