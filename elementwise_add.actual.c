void elementwise_add(float* restrict data0, const float* restrict data1, const float* restrict data2, const int loop_start, const int loop_end) {
  for (int ridx0 = loop_start; ridx0 < loop_end; ridx0++) {
    float val0 = *(data1+ridx0);
    float val1 = *(data2+ridx0);
    *(data0+ridx0) = (val0+val1);
  }
}
