// Layout copies reused across schedules (exec/layout_memo.h): a copy that only moves a realized
// buffer's elements runs once and is then reused while neither the buffer nor the copy was written;
// a kernel writing the buffer, a host copy into it or a TinyJit capture make it run again, and the
// values are always those of the buffer as it is now.
#include <QtTest>

#include "exec/exec_item.h"
#include "exec/layout_memo.h"
#include "exec/realize.h"
#include "runtime/buffer.h"
#include "schedule/schedule.h"
#include "support/options.h"
#include "tensor/tensor.h"

using namespace loupe;

namespace {

// w^T + 1 through a copy of w's transpose (the copy is an intermediate of the schedule)
Tensor transposed_plus_one(const Tensor& w) { return w.permute({1, 0}).contiguous() + Tensor(1.0); }

std::vector<double> expected(Tensor& w) {
  std::vector<double> v = w.to_vector(), out;
  const int64_t rows = w.shape()[0], cols = w.shape()[1];
  for (int64_t c = 0; c < cols; c++)
    for (int64_t r = 0; r < rows; r++) out.push_back(static_cast<float>(v[r * cols + c] + 1.0));
  return out;
}

struct Ignore : ExecListener {
  void executed(const ExecItem&) override {}
};

} // namespace

class TestLayoutMemo : public QObject {
  Q_OBJECT
private slots:
  void init() { clear_layout_memo(); }

  void only_plain_copies_are_layouts() {
    Tensor w = Tensor::rand({16, 12}).realize();
    auto last_ast = [](const Tensor& t) { return create_schedule({t.uop()}).items.back().ast; };
    QVERIFY(is_layout_copy(last_ast(w.permute({1, 0}).contiguous())));
    QVERIFY(!is_layout_copy(last_ast(w.pad({std::pair<int64_t, int64_t>{1, 1}, std::nullopt}).contiguous())));  // padding
    QVERIFY(!is_layout_copy(last_ast((w + Tensor(1.0)).contiguous())));                                          // arithmetic
    QVERIFY(!is_layout_copy(last_ast(w.sum(0))));                                                                // a reduce
  }

  void an_unchanged_buffer_is_copied_once() {
    Tensor w = Tensor::rand({64, 48}).realize();
    const std::vector<double> want = expected(w);
    const int64_t r0 = layout_copies_reused();
    QCOMPARE(transposed_plus_one(w).to_vector(), want);
    QCOMPARE(layout_copies_reused(), r0);  // the first time it runs
    for (int i = 1; i <= 3; i++) {
      QCOMPARE(transposed_plus_one(w).to_vector(), want);
      QCOMPARE(layout_copies_reused(), r0 + i);
    }
  }

  void a_kernel_writing_the_buffer_copies_again() {
    Tensor w = Tensor::rand({64, 48}).realize();
    transposed_plus_one(w).to_vector();
    w.assign(w * Tensor(2.0)).realize();
    const int64_t r0 = layout_copies_reused();
    QCOMPARE(transposed_plus_one(w).to_vector(), expected(w));
    QCOMPARE(layout_copies_reused(), r0);
    QCOMPARE(transposed_plus_one(w).to_vector(), expected(w));  // and that copy is reused in turn
    QCOMPARE(layout_copies_reused(), r0 + 1);
  }

  void a_host_copy_into_the_buffer_copies_again() {
    Tensor w = Tensor::rand({64, 48}).realize();
    transposed_plus_one(w).to_vector();
    UOpPtr node = realized_buffer(w.uop());
    QVERIFY(node);
    std::vector<float> fresh(64 * 48);
    for (size_t i = 0; i < fresh.size(); i++) fresh[i] = static_cast<float>(i % 17);
    buffer_storage(node)->write(fresh);
    const int64_t r0 = layout_copies_reused();
    QCOMPARE(transposed_plus_one(w).to_vector(), expected(w));
    QCOMPARE(layout_copies_reused(), r0);
  }

  // A TinyJit replay runs what its capture ran: a copy reused while capturing would be missing from it.
  void a_capture_runs_every_copy() {
    Tensor w = Tensor::rand({64, 48}).realize();
    transposed_plus_one(w).to_vector();
    const int64_t r0 = layout_copies_reused();
    Ignore listener;
    {
      ExecListenerScope capture(&listener);
      QCOMPARE(transposed_plus_one(w).to_vector(), expected(w));
    }
    QCOMPARE(layout_copies_reused(), r0);
  }

  // Two tensors made by the same copy stay two tensors: writing one leaves the other as it was.
  void tensors_of_one_copy_never_alias() {
    Tensor w = Tensor::rand({64, 48}).realize();
    const std::vector<double> want = expected(w);
    Tensor a = w.permute({1, 0}).contiguous();
    QCOMPARE((a + Tensor(1.0)).to_vector(), want);
    Tensor b = w.permute({1, 0}).contiguous();
    QCOMPARE((b + Tensor(1.0)).to_vector(), want);
    a.assign(Tensor::zeros({48, 64})).realize();
    QCOMPARE((a + Tensor(1.0)).to_vector(), std::vector<double>(want.size(), 1.0));
    QCOMPARE((b + Tensor(1.0)).to_vector(), want);
    QCOMPARE(transposed_plus_one(w).to_vector(), want);
  }

  void layout_memo_0_runs_every_copy() {
    Tensor w = Tensor::rand({64, 48}).realize();
    transposed_plus_one(w).to_vector();
    const int64_t r0 = layout_copies_reused();
    options().layout_memo = false;
    QCOMPARE(transposed_plus_one(w).to_vector(), expected(w));
    options().layout_memo = true;
    QCOMPARE(layout_copies_reused(), r0);
  }

  // A reused copy keeps its own storage: the intermediates of later schedules never share it.
  void reused_copies_survive_other_schedules() {
    Tensor w = Tensor::rand({64, 48}).realize();
    Tensor x = Tensor::rand({48, 64}).realize();
    const std::vector<double> want = expected(w);
    for (int i = 0; i < 4; i++) {
      Tensor other = ((x * Tensor(3.0)).contiguous() + Tensor(2.0)).contiguous() * Tensor(0.5);
      Tensor both = transposed_plus_one(w) + other * Tensor(0.0);
      QCOMPARE(both.to_vector(), want);
    }
  }
};

QTEST_GUILESS_MAIN(TestLayoutMemo)
#include "tst_layout_memo.moc"
