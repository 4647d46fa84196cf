typedef float float4 __attribute__((vector_size(16),aligned(4)));
void float4_scale(float* restrict data0, const float* restrict data1, const int loop_start, const int loop_end) {
  for (int ridx0 = loop_start; ridx0 < loop_end; ridx0++) {
    int alu0 = (ridx0*4);
    float4 val0 = *((const float4*)((data1+alu0)));
    float cast0 = ((float)ridx0);
    *((float4*)((data0+alu0))) = ((val0*(float4){2.0f,2.0f,2.0f,2.0f})+(float4){cast0,cast0,cast0,cast0});
  }
}
