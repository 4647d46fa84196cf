static inline int loupe_floordiv_i32(int a, int b) { if (b == 0) return 0; if (b == -1) return (int)(0u - (unsigned int)a); int q = a / b; return (int)((a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q); }
static inline int loupe_floormod_i32(int a, int b) { if (b == 0 || b == -1) return 0; int m = (int)(a % b); return (m != 0 && (m < 0) != (b < 0)) ? (int)(m + b) : m; }
void floor_divmod(int* restrict data0, int* restrict data1, const int* restrict data2, const int* restrict data3, int* restrict data4, const int loop_start, const int loop_end) {
  for (int ridx0 = loop_start; ridx0 < loop_end; ridx0++) {
    int val0 = *(data2+ridx0);
    int val1 = *(data3+ridx0);
    *(data0+ridx0) = loupe_floordiv_i32(val0, val1);
    *(data1+ridx0) = loupe_floormod_i32(val0, val1);
    *(data4+ridx0) = (((ridx0/3)*10)+(ridx0%3));
  }
}
