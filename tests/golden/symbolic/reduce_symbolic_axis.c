void r_4_i(float* restrict data0, const float* restrict data1, const float* restrict data2, const int i, const int loop_start, const int loop_end) {
  for (int ridx0 = loop_start; ridx0 < loop_end; ridx0++) {
    float acc0 = 0.0f;
    for (int ridx1 = 0; ridx1 < i; ridx1++) {
      float val0 = *(data1+(ridx0*10)+ridx1);
      float val1 = *(data2+ridx0+(ridx1*4));
      acc0 = ((val0*val1)+acc0);
    }
    *(data0+ridx0) = acc0;
  }
}
