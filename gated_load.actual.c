void gated_load(float* restrict data0, const float* restrict data1, const int loop_start, const int loop_end) {
  for (int ridx0 = loop_start; ridx0 < loop_end; ridx0++) {
    float val0 = ((((ridx0<1)!=1)&(ridx0<5))?*(data1+ridx0+-1):0.0f);
    *(data0+ridx0) = val0;
  }
}
