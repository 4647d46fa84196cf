void reduce_acc(float* restrict data0, const float* restrict data1, const int loop_start, const int loop_end) {
  for (int ridx0 = loop_start; ridx0 < loop_end; ridx0++) {
    float acc0 = 0.0f;
    for (int ridx1 = 0; ridx1 < 8; ridx1++) {
      float val0 = *(data1+(ridx0*8)+ridx1);
      acc0 = (acc0+val0);
    }
    *(data0+ridx0) = acc0;
  }
}
