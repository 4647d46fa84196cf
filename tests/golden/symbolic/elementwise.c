void E_3_i(float* restrict data0, const float* restrict data1, const float* restrict data2, const int i, const int loop_start, const int loop_end) {
  for (int ridx0 = loop_start; ridx0 < loop_end; ridx0++) {
    for (int ridx1 = 0; ridx1 < i; ridx1++) {
      int alu0 = ((ridx0*10)+ridx1);
      float val0 = *(data2+alu0);
      float val1 = *(data1+alu0);
      *(data0+ridx1+(i*ridx0)) = ((val0*2.0f)+val1);
    }
  }
}
