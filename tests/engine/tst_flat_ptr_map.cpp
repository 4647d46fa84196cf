// FlatPtrMap / FlatPtrSet (support/flat_ptr_map.h): a randomized differential check against
// std::unordered_map over inserts, lookups and growth, with keys that collide in their low bits.
#include <QtTest>

#include <random>
#include <unordered_map>

#include "support/flat_ptr_map.h"

using namespace loupe;

class TestFlatPtrMap : public QObject {
  Q_OBJECT
private slots:
  void matches_unordered_map() {
    std::mt19937_64 rng(1234);
    std::vector<int> storage(20000);
    for (int round = 0; round < 20; round++) {
      FlatPtrMap<const int*, int> flat;
      std::unordered_map<const int*, int> ref;
      const size_t n = 1 + rng() % storage.size();
      for (int step = 0; step < 30000; step++) {
        const int* key = &storage[rng() % n];
        if (rng() % 3 == 0) {
          int v = static_cast<int>(rng() % 1000);
          flat[key] = v;
          ref[key] = v;
        } else {
          const int* found = flat.find(key);
          auto it = ref.find(key);
          QCOMPARE(found != nullptr, it != ref.end());
          if (found) QCOMPARE(*found, it->second);
        }
      }
      QCOMPARE(flat.size(), ref.size());
      size_t seen = 0;
      flat.for_each([&](const int* k, int v) {
        seen++;
        QCOMPARE(ref.at(k), v);
      });
      QCOMPARE(seen, ref.size());
    }
  }

  void try_emplace_reports_new_keys() {
    int a = 0, b = 0;
    FlatPtrMap<const int*, std::string> m;
    auto [v1, fresh1] = m.try_emplace(&a);
    QVERIFY(fresh1 && v1->empty());
    *v1 = "a";
    auto [v2, fresh2] = m.try_emplace(&a);
    QVERIFY(!fresh2);
    QCOMPARE(*v2, std::string("a"));
    QVERIFY(!m.contains(&b));
    FlatPtrSet<const int*> s;
    QVERIFY(s.insert(&a));
    QVERIFY(!s.insert(&a));
    QVERIFY(s.contains(&a) && !s.contains(&b));
  }
};

QTEST_APPLESS_MAIN(TestFlatPtrMap)
#include "tst_flat_ptr_map.moc"
