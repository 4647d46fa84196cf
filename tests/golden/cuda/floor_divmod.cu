/* global 1,1,1 local 1,1,1 */
static __device__ __forceinline__ int loupe_floordiv_i32(int a, int b) { if (b == 0) return 0; if (b == -1) return (int)(0u - (unsigned int)a); int q = a / b; return (int)((a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q); }
static __device__ __forceinline__ int loupe_floormod_i32(int a, int b) { if (b == 0 || b == -1) return 0; int m = (int)(a % b); return (m != 0 && (m < 0) != (b < 0)) ? (int)(m + b) : m; }
extern "C" __global__ void __launch_bounds__(1) floor_divmod(int* data0, int* data1, const int* data2, const int* data3, int* data4) {
  for (int ridx0 = 0; ridx0 < 12; ridx0++) {
    int val0 = *(data2+ridx0);
    int val1 = *(data3+ridx0);
    *(data0+ridx0) = loupe_floordiv_i32(val0, val1);
    *(data1+ridx0) = loupe_floormod_i32(val0, val1);
    *(data4+ridx0) = (((ridx0/3)*10)+(ridx0%3));
  }
}
