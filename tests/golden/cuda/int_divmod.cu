/* global 64,1,1 local 1,1,1 */
static __device__ __forceinline__ int loupe_floordiv_i32(int a, int b) { if (b == 0) return 0; if (b == -1) return (int)(0u - (unsigned int)a); int q = a / b; return (int)((a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q); }
static __device__ __forceinline__ int loupe_floormod_i32(int a, int b) { if (b == 0 || b == -1) return 0; int m = (int)(a % b); return (m != 0 && (m < 0) != (b < 0)) ? (int)(m + b) : m; }
extern "C" __global__ void __launch_bounds__(1) E_64(int* data0, const int* data1, const int* data2) {
  int gidx0 = blockIdx.x; /* 64 */
  int val0 = *(data1+gidx0);
  int val1 = *(data2+gidx0);
  *(data0+gidx0) = (loupe_floordiv_i32(val0, val1)+loupe_floormod_i32(val0, val1));
}
