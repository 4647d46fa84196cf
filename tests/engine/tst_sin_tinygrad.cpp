// Tensor.sin and Tensor.cos give tinygrad's results bit for bit on the CPU backend (the corpus compares
// them with tolerance 0). The table was produced by tinygrad 0.13.0 on the CPU (clang 14), from
// arguments spread over every range its sin distinguishes: Cody-Waite below 30, Payne-Hanek above.
#include <QtTest>

#include <cstring>

#include "tensor/tensor.h"

using namespace loupe;

namespace {
// input, sin, cos as float bit patterns
constexpr uint32_t kSin32[][3] = {
    {0xb4bd287bu, 0xb4bd287bu, 0x3f800000u},
    {0xb53b72edu, 0xb53b72edu, 0x3f800001u},
    {0x34a2108du, 0x34a2108du, 0x3f800000u},
    {0xb5658be9u, 0xb5658be9u, 0x3f800000u},
    {0x3d12f902u, 0x3d12f0efu, 0x3f7fd5d2u},
    {0xbe0988d8u, 0xbe091f14u, 0x3f7db1c6u},
    {0xbee24df7u, 0xbedb01eeu, 0x3f6765d5u},
    {0x3bf3a773u, 0x3bf3a6dfu, 0x3f7ffe30u},
    {0xbfeccd5eu, 0xbf7615d1u, 0xbe8d1c53u},
    {0xbe87e4c6u, 0xbe864dc0u, 0x3f770923u},
    {0xbfdc3be9u, 0xbf7d223bu, 0xbe18cdcau},
    {0xbfd18e10u, 0xbf7f6fcau, 0xbd87c9dbu},
    {0xbf67e086u, 0xbf49724du, 0x3f1df8f6u},
    {0x407b05beu, 0xbf342797u, 0xbf35e143u},
    {0xc09075c6u, 0x3f7aff64u, 0xbe497135u},
    {0xc0548d6fu, 0x3e36dcceu, 0xbf7be294u},
    {0x4074abfau, 0xbf214015u, 0xbf46d51cu},
    {0x4156e67au, 0x3f42d2cau, 0x3f26125du},
    {0x401409a4u, 0x3f3ca6ddu, 0xbf2d0cf1u},
    {0xc0465f9du, 0xbd2c028cu, 0xbf7fc630u},
    {0x41e3d727u, 0xbe512cebu, 0xbf7a9a1du},
    {0xc1d8ea33u, 0xbf6ab30eu, 0xbecc78d9u},
    {0x41ab7dc7u, 0x3f06d6e6u, 0xbf599c3eu},
    {0xc1494d45u, 0xbc75a5a4u, 0x3f7ff8a2u},
    {0xc1b07311u, 0x3d8519f8u, 0xbf7f7574u},
    {0xc1bd9336u, 0x3f7dac49u, 0x3e09c142u},
    {0xc13dfc6cu, 0x3f236572u, 0x3f45129bu},
    {0x419ccc76u, 0x3f2e8d3bu, 0x3f3b438du},
    {0xc2ff6b3du, 0xbf63aa45u, 0xbeea21c0u},
    {0x42028f6du, 0x3f70c57au, 0x3eadf4bau},
    {0x425e42f5u, 0xbf5512ebu, 0x3f0de647u},
    {0xc24c29f7u, 0xbf3337f2u, 0x3f36cd63u},
    {0x43eeb8ebu, 0xbd9e618au, 0x3f7f3bb6u},
    {0xc588a0e2u, 0x3f558c07u, 0x3f0d300cu},
    {0xc5899fe8u, 0x3f0039e5u, 0x3f5d9287u},
    {0xc537c69bu, 0x3df0dd15u, 0x3f7e3935u},
    {0x46617ffeu, 0xbeebcbefu, 0x3f634ae4u},
    {0xc5b504edu, 0x3eecf1bau, 0x3f62effcu},
    {0xc66850e8u, 0xbf4d7062u, 0xbf18a517u},
    {0x45d5e798u, 0x3f0c8b99u, 0xbf55f813u},
    {0xc7b6dfa0u, 0x3f33930du, 0x3f365dacu},
    {0xc8c38a40u, 0xbf48bb77u, 0x3f2089f5u},
    {0x490fbd6fu, 0xbf1ca8c3u, 0x3f4bc31fu},
    {0x48c2549cu, 0xbf1aab11u, 0x3f4d4546u},
    {0xcf9887c6u, 0xbf1f3e8bu, 0x3f1f3e8bu},
    {0x4eb170a1u, 0xbe78b85cu, 0x3e78b85cu},
    {0x4df04ae7u, 0x3f75b291u, 0xbf75b291u},
    {0x4fdf9970u, 0xbf16f93au, 0x3f16f93au},
    {0x70b9582cu, 0x3f4a1219u, 0xbf4a1219u},
    {0xf0ab4d71u, 0xbea58374u, 0x3ea58374u},
    {0x7141f0eau, 0x3f621c6cu, 0xbf621c6cu},
    {0xf11a4313u, 0x3f6211b5u, 0xbf6211b5u},
    {0x00000000u, 0x00000000u, 0x3f800000u},
    {0x80000000u, 0x80000000u, 0x3f800000u},
    {0x41f00000u, 0xbf7cefa4u, 0x3e1df3e8u},
    {0x41efffffu, 0xbf7cefa8u, 0x3e1df36au},
    {0x40490fdbu, 0x80000000u, 0xbf800000u},
    {0xbfc90fdbu, 0xbf800000u, 0x80000000u},
};
// input, sin, cos as double bit patterns
constexpr uint64_t kSin64[][3] = {
    {0xbe97a50f87ab5980ull, 0xbe97a50f87ab58f7ull, 0x3feffffffffffdd0ull},
    {0xbea76e5dc74f9676ull, 0xbea76e5dc74f945eull, 0x3feffffffffff76cull},
    {0x3e944211c1fcc79cull, 0x3e944211c1fcc745ull, 0x3feffffffffffe66ull},
    {0xbeacb17d5023af68ull, 0xbeacb17d5023ab8full, 0x3feffffffffff323ull},
    {0x3fa25f205ed2893aull, 0x3fa25e1e066111b1ull, 0x3feffaba157b22c7ull},
    {0xbfc1311b1cd7d468ull, 0xbfc123e2b4ac72d4ull, 0x3fefb638a9e5730cull},
    {0xbfdc49bf0f75a20eull, 0xbfdb603ddf59ef45ull, 0x3fececba71778b57ull},
    {0x3f7e74ee9319146full, 0x3f7e74dc2e6bd1e8ull, 0x3fefffc6063c48c2ull},
    {0xbffd99abf1a938dfull, 0xbfeec2ba1a72b88full, 0xbfd1a38bcf15b14eull},
    {0xbfd0fc98dc7fbc0eull, 0xbfd0c9b832b165fdull, 0x3feee1244838dc29ull},
    {0xbffb877d4e2fb961ull, 0xbfefa4477701c58cull, 0xbfc319bb03728797ull},
    {0xbffa31c22bf2650dull, 0xbfefedf9481286ddull, 0xbfb0f93cd75c4757ull},
    {0xbfecfc10f0a0cdd6ull, 0xbfe92e49c6ea89e7ull, 0x3fe3bf1e939e6e69ull},
    {0x400f60b7f4a4aa04ull, 0xbfe684f39978acf3ull, 0xbfe6bc27883fd4bcull},
    {0xc0120eb8de4ba3d8ull, 0x3fef5fecd8fe4f6bull, 0xbfc92e22cea76fa2ull},
    {0xc00a91ae0c9352f9ull, 0x3fc6db9d298a0ee0ull, 0xbfef7c523864ac65ull},
    {0x400e957f734fb763ull, 0xbfe428034bb534d6ull, 0xbfe8daa2b36593d2ull},
    {0x402adccf6d115f39ull, 0x3fe85a5ba0eee08full, 0x3fe4c249725efe3eull},
    {0x400281349f0bb617ull, 0x3fe794db3684332full, 0xbfe5a19e9934104aull},
    {0xc008cbf3c99a187bull, 0xbfa580442d91ee54ull, 0xbfeff8c6014cd47dull},
    {0x403c7ae50fc81726ull, 0xbfca25b55ee50021ull, 0xbfef534228173e81ull},
    {0xc03b1d468d7d86dfull, 0xbfed565f71760363ull, 0xbfd98f235a1fdaf5ull},
    {0x40356fb903f6debaull, 0x3fe0dad9f815c5f3ull, 0xbfeb338ad2a1082bull},
    {0xc02929a8ca374f58ull, 0xbf8eb58c5fa80668ull, 0x3fefff143931d7b4ull},
    {0xc0360e6245010f2aull, 0x3fb0a35a2a36bcb9ull, 0xbfefeeae180067feull},
    {0xc037b266e7c1bb8dull, 0x3fefb588422daf51ull, 0x3fc1383c671d83a0ull},
    {0xc027bf8da7d7cc05ull, 0x3fe46cabb9a2cb65ull, 0x3fe8a255da0a9cbdull},
    {0x4033998ee0e21097ull, 0x3fe5d1aa6b6d8865ull, 0x3fe7686dc4720d35ull},
    {0xc05fed67d590b2a1ull, 0xbfec753c5259539cull, 0xbfdd44736abcf8b1ull},
    {0x404051edbb616682ull, 0x3fee18b1801adc23ull, 0x3fd5be87b8351659ull},
    {0x404bc85ece9c937full, 0xbfeaa25703ddd254ull, 0x3fe1bcd3938c3f22ull},
    {0xc049853f0ad0f79full, 0xbfe66705cbab9334ull, 0x3fe6d9a5d64a86e3ull},
    {0x407dd71d92104ecdull, 0xbfb3c912b2869626ull, 0x3fefe77f3144eec1ull},
    {0xc0b1141c5ca72f19ull, 0x3feaaf8775e0e27dull, 0x3fe1a8f36166dadeull},
    {0xc0b133fd1cdcaa91ull, 0x3fe0042025e0a023ull, 0x3febb41966f78721ull},
    {0xc0a6f8d3868a6366ull, 0x3fbe0883fa778a9full, 0x3fefc76df80ec6c7ull},
    {0x40cc2fffef4a6ffcull, 0xbfdd648347cefe90ull, 0x3fec6cf7acba7183ull},
    {0xc0b6a09dc5f66583ull, 0x3fdd95d1efa29ee1ull, 0x3fec602c53d2da65ull},
    {0xc0cd0a1d30b85f58ull, 0xbfe9a6c993d3bceaull, 0xbfe3219258cbf801ull},
    {0x40babcf32cdbeb4eull, 0x3fe18cc5f2651d1dull, 0xbfeac21abc0ba8c5ull},
    {0xc0f6dbf42659f2bbull, 0x3fe63b9c16e4fabbull, 0x3fe703ebf58a72b9ull},
    {0xc11871482901f9d6ull, 0xbfe9ddcb696d4501ull, 0x3fe2d6e7c54aa4a4ull},
    {0x4121f7adfe24fb2dull, 0xbfe20f6da8ad8415ull, 0x3fea6a949eed110eull},
    {0x41184a93a8c10a21ull, 0xbfe24dc2694217bcull, 0x3fea3f8ab42fb4a5ull},
    {0xc1f310f8dffce960ull, 0x3fd85e9e88e8e0e8ull, 0xbfe5d5b9d59a25e3ull},
    {0x41d62e1445363c32ull, 0xbfe21033b4dd7520ull, 0xbfe91207acf57f7eull},
    {0x41be095d12649c2dull, 0x3fef82ab9c10faf3ull, 0x3fcd19a478deb02bull},
    {0x41fbf32e2ee46647ull, 0x3fefd78d26042e40ull, 0x3fd4b9d960366f25ull},
    {0x46172b05a6de9a55ull, 0x3fcfc40f43fe2ebfull, 0xbfcfc40f43fe2ebfull},
    {0xc61569ae43ecbbb6ull, 0xbfdbe485e6077d0cull, 0x3fdbe485e6077d0cull},
    {0x46283e1d68ac21c7ull, 0xbfeeb2068b8d18b4ull, 0x3feeb2068b8d18b4ull},
    {0xc62348628059e0e8ull, 0xbfecc1d97bd1716eull, 0x3fecc1d97bd1716eull},
    {0x0000000000000000ull, 0x0000000000000000ull, 0x3ff0000000000000ull},
    {0x8000000000000000ull, 0x8000000000000000ull, 0x3ff0000000000000ull},
    {0x403e00003254e6e3ull, 0xbfef9df38712a74bull, 0x3fc3be9bcfa85d0aull},
    {0x403e00001254e6adull, 0xbfef9df425074639ull, 0x3fc3be8c00ae578aull},
    {0x400921fb8a2a6e33ull, 0xbe9af3208d7fff34ull, 0xbfeffffffffffd2aull},
    {0xbff921fb8a2a6e33ull, 0xbfefffffffffff4bull, 0xbe8af3208dffffcdull},
};

template <typename F, typename Bits, size_t N>
void check_table(const Bits (&table)[N][3], DType dtype) {
  std::vector<Nested> xs;
  for (const auto& row : table) {
    F x;
    std::memcpy(&x, &row[0], sizeof x);
    xs.push_back(Nested(static_cast<double>(x)));
  }
  Tensor t(Nested(xs), dtype);
  std::vector<double> s = t.sin().to_vector(), c = t.cos().to_vector();
  QCOMPARE(s.size(), N);
  for (size_t i = 0; i < N; i++) {
    F got_s = static_cast<F>(s[i]), got_c = static_cast<F>(c[i]);
    Bits bs, bc;
    std::memcpy(&bs, &got_s, sizeof bs);
    std::memcpy(&bc, &got_c, sizeof bc);
    F x;
    std::memcpy(&x, &table[i][0], sizeof x);
    QVERIFY2(bs == table[i][1], qPrintable(QString("sin(%1) = %2, bits %3 want %4").arg(double(x), 0, 'g', 17)
                                               .arg(double(got_s), 0, 'g', 17).arg(bs, 0, 16).arg(table[i][1], 0, 16)));
    QVERIFY2(bc == table[i][2], qPrintable(QString("cos(%1) = %2, bits %3 want %4").arg(double(x), 0, 'g', 17)
                                               .arg(double(got_c), 0, 'g', 17).arg(bc, 0, 16).arg(table[i][2], 0, 16)));
  }
}
} // namespace

class TestSinTinygrad : public QObject {
  Q_OBJECT
private slots:
  void float32_matches() { check_table<float>(kSin32, dtypes::float32); }
  void float64_matches() { check_table<double>(kSin64, dtypes::float64); }
};

QTEST_APPLESS_MAIN(TestSinTinygrad)
#include "tst_sin_tinygrad.moc"
