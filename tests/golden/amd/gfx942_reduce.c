/* global 32,1,1 local 16,1,1 */
__attribute__((amdgpu_kernel)) void r_32_16_4(float* restrict data0, const float* restrict data1) {
  int gidx0 = (int)__builtin_amdgcn_workgroup_id_x(); /* 32 */
  static __attribute__((address_space(3), loader_uninitialized, aligned(16))) float temp0[16];
  int lidx0 = (int)__builtin_amdgcn_workitem_id_x(); /* 16 */
  float acc0 = 0.0f;
  for (int ridx2 = 0; ridx2 < 4; ridx2++) {
    float val0 = *(data1+(gidx0*64)+(lidx0*4)+ridx2);
    acc0 = (acc0+val0);
  }
  *(temp0+lidx0) = acc0;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  float val1 = *(temp0+0);
  float val2 = *(temp0+1);
  float val3 = *(temp0+2);
  float val4 = *(temp0+3);
  float val5 = *(temp0+4);
  float val6 = *(temp0+5);
  float val7 = *(temp0+6);
  float val8 = *(temp0+7);
  float val9 = *(temp0+8);
  float val10 = *(temp0+9);
  float val11 = *(temp0+10);
  float val12 = *(temp0+11);
  float val13 = *(temp0+12);
  float val14 = *(temp0+13);
  float val15 = *(temp0+14);
  float val16 = *(temp0+15);
  if ((lidx0<1)) *(data0+gidx0) = (val1+val2+val3+val4+val5+val6+val7+val8+val9+val10+val11+val12+val13+val14+val15+val16);
}
