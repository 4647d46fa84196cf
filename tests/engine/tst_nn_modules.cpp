// nn modules, optimizers, state dicts and safetensors. Reference numbers marked "tinygrad" were produced
// with current tinygrad (checkout at /tmp/tgnew, CPU-independent: the values are float32 results of the
// same formulas) by the Python snippets quoted next to them.
#include <QtTest>

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "nn/layers.h"
#include "nn/optim.h"
#include "nn/safetensors.h"
#include "support/error.h"
#include "tensor/tensor.h"

using namespace loupe;
using namespace loupe::nn;

namespace {

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol, const char* what) {
  QVERIFY2(got.size() == want.size(), qPrintable(QString("%1: %2 values, want %3").arg(what).arg(got.size()).arg(want.size())));
  for (size_t i = 0; i < got.size(); i++)
    QVERIFY2(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])),
             qPrintable(QString("%1[%2]: got %3, want %4").arg(what).arg(i).arg(got[i], 0, 'g', 10).arg(want[i], 0, 'g', 10)));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(stmt, fragment)                                                                                   \
  do {                                                                                                                 \
    std::string msg_ = error_of([&] { stmt; });                                                                        \
    QVERIFY2(!msg_.empty(), "expected a loupe::Error from " #stmt);                                                    \
    QVERIFY2(msg_.find(fragment) != std::string::npos, qPrintable(QString("message '%1' lacks '%2'").arg(msg_.c_str(), fragment))); \
  } while (0)

// A two-layer model: Linear -> relu -> Linear, with tensors listed under l1. and l2.
struct Mlp : Module {
  Linear l1, l2;
  Mlp(int64_t in, int64_t hidden, int64_t out) : l1(in, hidden), l2(hidden, out) {}
  Tensor operator()(const Tensor& x) const { return l2(l1(x).relu()); }
  void collect(const std::string& p, std::vector<NamedTensor>& out) override {
    l1.collect(p + "l1.", out);
    l2.collect(p + "l2.", out);
  }
};

// A toy regression: y = x @ A + c, with a fixed A; 16 samples.
std::pair<Tensor, Tensor> regression_data() {
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Nested> xs, ys;
  for (int i = 0; i < 16; i++) {
    double a = u(gen), b = u(gen), c = u(gen);
    xs.push_back(Nested{a, b, c});
    ys.push_back(Nested{0.5 * a - b + 0.25 * c + 0.1, a * b - 0.3});
  }
  return {Tensor(Nested(xs)), Tensor(Nested(ys))};
}

} // namespace

class TestNnModules : public QObject {
  Q_OBJECT
private slots:
  // Tensor.rand is tinygrad's threefry stream. tinygrad:
  //   Tensor.manual_seed(42); Tensor.rand(5).tolist(); Tensor.rand(3, dtype=dtypes.float64).tolist()
  //   Tensor.manual_seed(0); Tensor.randn(4); Tensor.uniform(3, low=-2, high=3); Tensor.rand(2,3, dtype=dtypes.float16)
  void rand_matches_tinygrad() {
    Tensor::manual_seed(42);
    expect_close(Tensor::rand({5}).to_vector(),
                 {0.38104248046875, 0.009775400161743164, 0.1128007173538208, 0.1176995038986206, 0.505361795425415}, 0, "rand");
    expect_close(Tensor::rand({3}, dtypes::float64).to_vector(), {0.9685907838629446, 0.9116910357486625, 0.3919411918583533},
                 0, "rand f64");
    Tensor::manual_seed(0);
    // randn goes through the engine's own cos/log: float32 rounding differences only
    expect_close(Tensor::randn({4}).to_vector(),
                 {0.766946017742157, -0.271168977022171, -0.16111615300178528, 0.6424551606178284}, 1e-6, "randn");
    expect_close(Tensor::uniform({3}, -2, 3).to_vector(), {2.689399003982544, 2.434182643890381, -1.2875069379806519}, 0,
                 "uniform");
    expect_close(Tensor::rand({2, 3}, dtypes::float16).to_vector(),
                 {0.1806640625, 0.552734375, 0.740234375, 0.4765625, 0.849609375, 0.3798828125}, 0, "rand f16");
    // the stream restarts with the seed (and a draw of another size gives other numbers)
    Tensor::manual_seed(42);
    expect_close(Tensor::rand({5}).to_vector(),
                 {0.38104248046875, 0.009775400161743164, 0.1128007173538208, 0.1176995038986206, 0.505361795425415}, 0, "reseeded");
    Tensor::manual_seed(42);
    QVERIFY(Tensor::rand({1}).to_vector().at(0) != 0.38104248046875);
  }

  void rand_statistics() {
    Tensor::manual_seed(3);
    std::vector<double> u = Tensor::rand({20000}).to_vector();
    double mean = 0;
    for (double v : u) {
      QVERIFY(v >= 0 && v < 1);
      mean += v / u.size();
    }
    QVERIFY2(std::abs(mean - 0.5) < 0.01, qPrintable(QString::number(mean)));  // ~5 sigma for n=20000
    std::vector<double> n = Tensor::normal({20000}, 2.0, 3.0).to_vector();
    double m = 0, var = 0;
    for (double v : n) m += v / n.size();
    for (double v : n) var += (v - m) * (v - m) / n.size();
    QVERIFY2(std::abs(m - 2.0) < 0.1 && std::abs(std::sqrt(var) - 3.0) < 0.1, qPrintable(QString("%1 %2").arg(m).arg(var)));
  }

  void rand_errors() {
    EXPECT_ERROR(Tensor::rand({2}, dtypes::int32), "concrete float");
    EXPECT_ERROR(Tensor::rand({-1}), "negative dimension");
    EXPECT_ERROR(Tensor::uniform({2}, 1.0, 1.0), "low < high");
    EXPECT_ERROR(Tensor::randint({2}, 5, 5), "low < high");
    EXPECT_ERROR(Tensor::normal({2}, 0, -1), "std >= 0");
  }

  // tinygrad: Tensor.manual_seed(7); nn.Linear(3, 2); nn.Conv2d(2, 2, 2); nn.Embedding(4, 3);
  //           Tensor.kaiming_uniform(2, 3); Tensor.randint(5, low=-3, high=4)
  void initializations_match_tinygrad() {
    Tensor::manual_seed(7);
    Linear l(3, 2);
    expect_close(l.weight.to_vector(),
                 {-0.49598199129104614, -0.5391987562179565, -0.3265828490257263, -0.20250406861305237, -0.5620658993721008,
                  0.3693917691707611},
                 1e-7, "linear.weight");
    expect_close(l.bias->to_vector(), {-0.19500911235809326, 0.4737628996372223}, 1e-7, "linear.bias");
    Conv2d c(2, 2, {2});
    QCOMPARE(c.weight.shape(), (Shape{2, 2, 2, 2}));
    expect_close(c.weight.to_vector(),
                 {0.12410004436969757, -0.1596520096063614, 0.08803751319646835, -0.03984268009662628, 0.29582393169403076,
                  0.14657215774059296, 0.24159559607505798, 0.2951284945011139, 0.22102566063404083, -0.18418745696544647,
                  0.04097895696759224, -0.0390157587826252, 0.2007409632205963, -0.05087040364742279, -0.25652316212654114,
                  -0.23052605986595154},
                 1e-7, "conv.weight");
    expect_close(c.bias->to_vector(), {0.248168483376503, 0.10077294707298279}, 1e-7, "conv.bias");
    Embedding e(4, 3);
    expect_close(e.weight.to_vector(),
                 {-0.4523032009601593, -0.4675522744655609, 0.3043144941329956, 0.8511137962341309, 0.9065062403678894,
                  -0.3134557008743286, -0.04062364995479584, 0.7824354767799377, 0.09903018921613693, -0.8435894250869751,
                  0.813217282295227, 0.2646229863166809},
                 1e-7, "embedding.weight");
    expect_close(Tensor::kaiming_uniform({2, 3}).to_vector(),
                 {0.7056121826171875, -1.1650886535644531, -1.1427037715911865, -1.3632404804229736, 0.2736896276473999,
                  0.2775959372520447},
                 1e-7, "kaiming_uniform");
    expect_close(Tensor::randint({5}, -3, 4).to_vector(), {2, 0, 0, 1, -1}, 0, "randint");
  }

  // tinygrad: Tensor.manual_seed(9); ct = nn.ConvTranspose2d(2, 4, 3, stride=2, groups=2);
  //           x = (Tensor.arange(24).reshape(2, 4, 3).float() * 0.37).sin(): nn.GroupNorm(2, 4)(x), nn.InstanceNorm(4)(x)
  //           x4 = (Tensor.arange(24).reshape(2, 3, 2, 2).float() * 0.53).cos(): nn.LayerNorm2d(3)(x4)
  //           xc = (Tensor.arange(18).reshape(1, 2, 3, 3).float() * 0.3).sin(): ct(xc) (first 12 values)
  // (tinygrad's random tensors are lazy and its counter is resolved when they are realized, so its values
  // match ours when they are realized in creation order: ct.bias, then ct.weight.)
  void more_layers_match_tinygrad() {
    Tensor::manual_seed(9);
    ConvTranspose2d ct(2, 4, {3}, {2}, {0}, {0}, {1}, 2);
    QCOMPARE(ct.weight.shape(), (Shape{2, 2, 3, 3}));
    expect_close(ct.weight.to_vector(),
                 {0.12456675618886948, -0.03265807405114174, 0.22013968229293823, 0.03181154280900955, -0.1479494273662567,
                  -0.19609664380550385, 0.0644582137465477, 0.1459670066833496, -0.12385525554418564, -0.23318181931972504,
                  0.06664343923330307, -0.04171987250447273, 0.058674201369285583, 0.0532216913998127, 0.197529137134552,
                  0.160298690199852, 0.12800435721874237, 0.023570822551846504, -0.03363998606801033, 0.06219452992081642,
                  0.1213218942284584, -0.2204524129629135, -0.12978020310401917, -0.16363732516765594, 0.22854673862457275,
                  0.05486761033535004, -0.22380943596363068, -0.10444489121437073, -0.20396433770656586, 0.23039361834526062,
                  -0.08512146025896072, 0.20403683185577393, 0.12565773725509644, -0.09204186499118805, -0.2320147454738617,
                  0.06541876494884491},
                 1e-7, "conv_transpose.weight");
    expect_close(ct.bias->to_vector(), {0.012102888897061348, 0.07400649785995483, -0.004556524101644754, -0.15335428714752197},
                 1e-7, "conv_transpose.bias");
    Tensor xc = (Tensor::arange(18).reshape({1, 2, 3, 3}).cast(dtypes::float32) * Tensor(0.3)).sin();
    Tensor out = ct(xc);
    QCOMPARE(out.shape(), (Shape{1, 4, 7, 7}));
    std::vector<double> first = out.to_vector();
    first.resize(12);
    expect_close(first,
                 {0.012102887034416199, 0.012102887034416199, 0.048914894461631775, 0.002451762557029724,
                  0.14749430119991302, -0.006337255239486694, 0.13640309870243073, 0.012102887034416199,
                  0.012102887034416199, 0.02150385081768036, -0.03161916136741638, -0.027885496616363525},
                 1e-6, "conv_transpose");

    Tensor x = (Tensor::arange(24).reshape({2, 4, 3}).cast(dtypes::float32) * Tensor(0.37)).sin();
    expect_close(GroupNorm(2, 4)(x).to_vector(),
                 {-1.7939164638519287, -0.7930192351341248, 0.07241124659776688, 0.6852429509162903, 0.9625322222709656,
                  0.8667490482330322, 1.4209561347961426, 0.9365000128746033, 0.32595860958099365, -0.3280344605445862,
                  -0.9369646310806274, -1.4184155464172363, -0.8747526407241821, -0.9629810452461243, -0.6810793280601501,
                  -0.06720222532749176, 0.7955648303031921, 1.7904506921768188, -1.942004919052124, -0.4830015301704407,
                  0.5451526045799255, 1.0033048391342163, 0.8294448256492615, 0.04710462689399719},
                 1e-5, "groupnorm");
    expect_close(InstanceNorm(4)(x).to_vector(),
                 {-1.2531949281692505, 0.05920928344130516, 1.1939855813980103, -1.3260993957519531, 1.0783264636993408,
                  0.2477729767560959, 1.1750500202178955, 0.093802310526371, -1.2688524723052979, 1.269484519958496,
                  -0.09523429721593857, -1.1742500066757202, -0.2977167069911957, -1.0450403690338135, 1.3427598476409912,
                  -1.194624662399292, -0.058017548173666, 1.2526423931121826, -1.2888988256454468, 0.14072424173355103,
                  1.1481741666793823, 0.9051840305328369, 0.48739543557167053, -1.3925814628601074},
                 1e-5, "instancenorm");
    Tensor x4 = (Tensor::arange(24).reshape({2, 3, 2, 2}).cast(dtypes::float32) * Tensor(0.53)).cos();
    expect_close(LayerNorm2d(3)(x4).to_vector(),
                 {1.4131261110305786, 1.1922173500061035, 0.6609601378440857, -0.04437049478292465, -0.7542630434036255,
                  -1.254845380783081, -1.4132171869277954, -1.2019444704055786, -0.6588631272315979, 0.0626278966665268,
                  0.7522571682929993, 1.2463150024414062, 1.4045920372009277, 1.131534218788147, 0.5659570097923279,
                  -0.1515510529279709, -0.8448107242584229, -1.3004053831100464, -1.4053599834442139, -1.141904354095459,
                  -0.5597813725471497, 0.1688712239265442, 0.839402973651886, 1.2934554815292358},
                 1e-5, "layernorm2d");
    EXPECT_ERROR(GroupNorm(3, 4), "must divide");
    EXPECT_ERROR(GroupNorm(2, 4)(Tensor::ones({2, 3, 5})), "needs 4 channels");
    EXPECT_ERROR(ConvTranspose2d(3, 4, {2}, {1}, {0}, {0}, {1}, 2), "must divide");
  }

  void layer_forward_values() {
    Linear l(3, 2);
    l.weight = Tensor(Nested{Nested{1.0, 2.0, 3.0}, Nested{-1.0, 0.5, 0.0}});
    l.bias = Tensor(Nested{0.5, -0.5});
    expect_close(l(Tensor(Nested{Nested{1.0, 1.0, 1.0}, Nested{0.0, 2.0, -1.0}})).to_vector(), {6.5, -1.0, 1.5, 0.5}, 1e-6, "linear");

    Embedding e(3, 2);
    e.weight = Tensor(Nested{Nested{1.0, 2.0}, Nested{3.0, 4.0}, Nested{5.0, 6.0}});
    Tensor out = e(Tensor(Nested{Nested{2, 0}, Nested{1, 1}}));
    QCOMPARE(out.shape(), (Shape{2, 2, 2}));
    expect_close(out.to_vector(), {5, 6, 1, 2, 3, 4, 3, 4}, 0, "embedding");

    LayerNorm ln({4});
    expect_close(ln(Tensor(Nested{1.0, 2.0, 3.0, 4.0})).to_vector(), {-1.3416355, -0.4472118, 0.4472118, 1.3416355}, 1e-5,
                 "layernorm");
    RMSNorm rms(2);
    expect_close(rms(Tensor(Nested{3.0, 4.0})).to_vector(), {3 / std::sqrt(12.5 + 1e-6), 4 / std::sqrt(12.5 + 1e-6)}, 1e-6, "rmsnorm");

    Conv2d conv(1, 1, {2}, {1}, {1}, {1}, 1, false);
    conv.weight = Tensor::ones({1, 1, 2, 2});
    Tensor y = conv(Tensor::ones({1, 1, 2, 2}));
    QCOMPARE(y.shape(), (Shape{1, 1, 3, 3}));
    expect_close(y.to_vector(), {1, 2, 1, 2, 4, 2, 1, 2, 1}, 0, "conv padding 1");
  }

  // tinygrad: bn = nn.BatchNorm(2); with Context(TRAINING=1): bn(x); then bn(x) in eval mode (x below).
  void batchnorm_matches_tinygrad() {
    Tensor x(Nested{Nested{Nested{Nested{1.0, 2.0}, Nested{3.0, 5.0}}, Nested{Nested{-1.0, 0.5}, Nested{0.25, 4.0}}},
                    Nested{Nested{Nested{0.0, -2.0}, Nested{1.5, 2.5}}, Nested{Nested{3.0, -0.5}, Nested{1.0, 2.0}}}});
    BatchNorm bn(2);
    {
      TrainingScope train;
      expect_close(bn(x).to_vector(),
                   {-0.3207497298717499, 0.19244983792304993, 0.7056493759155273, 1.732048511505127, -1.3350924253463745,
                    -0.40633246302604675, -0.5611258149147034, 1.76077401638031, -0.8339493274688721, -1.8603484630584717,
                    -0.06414994597434998, 0.44904962182044983, 1.1416007280349731, -1.025505781173706, -0.09674582630395889,
                    0.5224274396896362},
                   1e-5, "batchnorm train");
    }
    QVERIFY(!training());
    expect_close(bn.running_mean->to_vector(), {0.16250000894069672, 0.11562500149011612}, 1e-6, "running_mean");
    expect_close(bn.running_var->to_vector(), {1.3339285850524902, 1.1981027126312256}, 1e-6, "running_var");
    QCOMPARE(bn.num_batches_tracked.to_int_vector(), (std::vector<int64_t>{1}));
    expect_close(bn(x).to_vector(),
                 {0.7251316905021667, 1.5909606218338013, 2.45678973197937, 4.18844747543335, -1.0192234516143799,
                  0.35116100311279297, 0.12276360392570496, 3.54872465133667, -0.14069721102714539, -1.8723549842834473,
                  1.1580461263656616, 2.0238752365112305, 2.6351351737976074, -0.5624285936355591, 0.807955801486969,
                  1.7215453386306763},
                 1e-5, "batchnorm eval");
    std::vector<std::string> names;
    for (auto& [k, v] : get_state_dict(bn, "bn.")) names.push_back(k);
    QCOMPARE(names, (std::vector<std::string>{"bn.weight", "bn.bias", "bn.num_batches_tracked", "bn.running_mean",
                                               "bn.running_var"}));
    QCOMPARE(get_parameters(bn).size(), size_t(2));
    QCOMPARE(get_buffers(bn).size(), size_t(3));
  }

  void module_errors() {
    EXPECT_ERROR(Conv2d(4, 6, {3}, {1}, {0}, {1}, 4), "groups=4 must divide");
    EXPECT_ERROR(Conv2d(0, 6, {3}), "in_channels must be positive");
    EXPECT_ERROR(Linear(3, 2)(Tensor::ones({2, 4})), "in_features=3");
    EXPECT_ERROR(LayerNorm({3})(Tensor::ones({2, 4})), "must match");
    EXPECT_ERROR(BatchNorm(3)(Tensor::ones({2, 4, 5})), "needs 3 channels");
    EXPECT_ERROR(Embedding(4, 2)(Tensor(Nested{1.0})), "integer dtype");
    Conv2d conv(3, 4, {3});
    EXPECT_ERROR(conv(Tensor::ones({1, 2, 5, 5})).realize(), "");
  }

  // tinygrad (w, b, x, y as below): two steps of ((x.matmul(w.T) + b - y) ** 2).mean() with each optimizer.
  void optimizer_step_matches_tinygrad_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QVector<double>>("w");
    QTest::addColumn<QVector<double>>("b");
    QTest::newRow("sgd") << "sgd"
                         << QVector<double>{-0.11974652856588364, -0.0993235856294632, 0.35411351919174194, 0.1399487853050232,
                                            0.19584080576896667, -0.2769891321659088}
                         << QVector<double>{0.03537985309958458, 0.2773870527744293};
    QTest::newRow("adam") << "adam"
                          << QVector<double>{0.07999873161315918, -0.1800675094127655, 0.319669246673584, 0.38000303506851196,
                                             0.479996919631958, -0.5800113677978516}
                          << QVector<double>{0.05890941247344017, -0.03000744991004467};
    QTest::newRow("adamw") << "adamw"
                           << QVector<double>{0.07980889081954956, -0.17967669665813446, 0.3190683424472809, 0.3792135417461395,
                                              0.4790073037147522, -0.5788224935531616}
                           << QVector<double>{0.05894768610596657, -0.029917828738689423};
    QTest::newRow("lamb") << "lamb"
                          << QVector<double>{0.092243492603302, -0.1922418475151062, 0.30770760774612427, 0.3922208845615387,
                                             0.49221253395080566, -0.5922057628631592}
                          << QVector<double>{0.050969913601875305, -0.04897155240178108};
    QTest::newRow("lars") << "lars"
                          << QVector<double>{0.09991227090358734, -0.19995056092739105, 0.30004310607910156, 0.39989882707595825,
                                             0.4999099373817444, -0.5997851490974426}
                          << QVector<double>{0.05000035837292671, -0.049979496747255325};
  }
  void optimizer_step_matches_tinygrad() {
    QFETCH(QString, name);
    QFETCH(QVector<double>, w);
    QFETCH(QVector<double>, b);
    Tensor wt(Nested{Nested{0.1, -0.2, 0.3}, Nested{0.4, 0.5, -0.6}});
    Tensor bt(Nested{0.05, -0.05});
    Tensor x(Nested{Nested{1.0, 2.0, 3.0}, Nested{-1.0, 0.5, 2.0}, Nested{0.3, -0.7, 1.1}});
    Tensor y(Nested{Nested{0.5, -1.0}, Nested{1.5, 0.25}, Nested{-0.3, 0.8}});
    std::vector<Tensor*> ps{&wt, &bt};
    std::unique_ptr<Optimizer> opt;
    if (name == "sgd") opt = std::make_unique<LARS>(SGD(ps, 0.1, 0.9, 0.01, true));
    if (name == "adam") opt = std::make_unique<LAMB>(Adam(ps, 0.01));
    if (name == "adamw") opt = std::make_unique<LAMB>(AdamW(ps, 0.01, 0.9, 0.999, 1e-8, 0.1));
    if (name == "lamb") opt = std::make_unique<LAMB>(ps, 0.01, 0.9, 0.999, 1e-6, 0.01);
    if (name == "lars") opt = std::make_unique<LARS>(ps, 0.1, 0.9, 1e-4);
    QVERIFY(opt);
    for (int step = 0; step < 2; step++) {
      opt->zero_grad();
      Tensor loss = (x.matmul(wt.T()) + bt - y).pow(Tensor(2)).mean();
      loss.backward();
      opt->step();
    }
    // float32 throughout; the engine's kernels may associate sums differently from tinygrad's
    expect_close(wt.to_vector(), std::vector<double>(w.begin(), w.end()), 2e-6, "w");
    expect_close(bt.to_vector(), std::vector<double>(b.begin(), b.end()), 2e-6, "b");
  }

  // Randomized differential test of the update formulas: random hyperparameters and gradients, three
  // steps, against a float64 host implementation of tinygrad's formulas (nn/optim.py). The engine keeps
  // parameters and state in float32, hence the 1e-5 relative tolerance.
  void optimizer_formulas_random() {
    std::mt19937 gen(1234);
    std::uniform_real_distribution<double> u(0, 1);
    const std::vector<Shape> shapes{{3, 4}, {5}};
    for (int trial = 0; trial < 12; trial++) {
      bool lamb_family = trial % 2 == 1;
      double lr = 0.01 + 0.2 * u(gen), wd = u(gen) < 0.5 ? 0.0 : 0.05 * u(gen);
      double momentum = u(gen) < 0.3 ? 0.0 : 0.5 + 0.45 * u(gen), tcoef = u(gen) < 0.5 ? 0.0 : 0.01 * u(gen);
      bool nesterov = u(gen) < 0.5, classic = u(gen) < 0.5, adam = u(gen) < 0.5;
      double b1 = 0.8 + 0.15 * u(gen), b2 = 0.9 + 0.099 * u(gen), eps = 1e-6 + 1e-4 * u(gen);
      std::vector<std::vector<double>> w(2), m(2), v(2), b(2);
      std::vector<Tensor> params;
      for (size_t k = 0; k < 2; k++) {
        int64_t n = 1;
        for (int64_t d : shapes[k]) n *= d;
        std::vector<Nested> flat;
        for (int64_t i = 0; i < n; i++) {
          // float32-representable, so host and engine start from the same numbers
          w[k].push_back(double(float(2 * u(gen) - 1)));
          flat.push_back(Nested(w[k].back()));
        }
        m[k] = v[k] = b[k] = std::vector<double>(n, 0.0);
        params.push_back(Tensor(Nested(flat)).reshape(shapes[k]));
      }
      std::vector<Tensor*> ps{&params[0], &params[1]};
      std::unique_ptr<Optimizer> opt;
      if (lamb_family) opt = std::make_unique<LAMB>(ps, lr, b1, b2, eps, wd, adam);
      else opt = std::make_unique<LARS>(ps, lr, momentum, wd, nesterov, classic, tcoef);
      double b1t = 1, b2t = 1;
      for (int step = 0; step < 3; step++) {
        b1t *= b1;
        b2t *= b2;
        for (size_t k = 0; k < 2; k++) {
          std::vector<double> g;
          std::vector<Nested> flat;
          for (size_t i = 0; i < w[k].size(); i++) {
            g.push_back(double(float(2 * u(gen) - 1)));
            flat.push_back(Nested(g.back()));
          }
          params[k].set_grad(Tensor(Nested(flat)).reshape(shapes[k]));
          auto norm = [](const std::vector<double>& x) {
            double s = 0;
            for (double e : x) s += e * e;
            return std::sqrt(s);
          };
          size_t n = g.size();
          if (!lamb_family) {
            double r1 = norm(w[k]), r2 = norm(g);
            double r = tcoef == 0 ? 1.0 : (r1 > 0 ? (r2 > 0 ? tcoef * r1 / (r2 + wd * r1) : 1.0) : 1.0);
            for (size_t i = 0; i < n; i++) {
              double gi = wd > 0 ? g[i] + wd * w[k][i] : g[i];
              if (classic) gi *= r * lr;
              if (momentum != 0) {
                b[k][i] = momentum * b[k][i] + gi;
                gi = nesterov ? gi + momentum * b[k][i] : b[k][i];
              }
              if (!classic) gi *= r * lr;
              w[k][i] -= gi;
            }
          } else {
            std::vector<double> up(n);
            for (size_t i = 0; i < n; i++) {
              m[k][i] = b1 * m[k][i] + (1 - b1) * g[i];
              v[k][i] = b2 * v[k][i] + (1 - b2) * g[i] * g[i];
              up[i] = (m[k][i] / (1 - b1t)) / (std::sqrt(v[k][i] / (1 - b2t)) + eps) + wd * w[k][i];
            }
            double r1 = norm(w[k]), r2 = norm(up);
            double r = adam ? 1.0 : (r1 > 0 ? (r2 > 0 ? r1 / r2 : 1.0) : 1.0);
            for (size_t i = 0; i < n; i++) w[k][i] -= lr * r * up[i];
          }
        }
        opt->step();
      }
      QString what = QString("trial %1 (%2)").arg(trial).arg(lamb_family ? (adam ? "adam" : "lamb") : "lars/sgd");
      for (size_t k = 0; k < 2; k++) expect_close(params[k].to_vector(), w[k], 1e-5, qPrintable(what));
    }
  }

  void optimizers_train_a_model_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"sgd", "sgd_momentum", "sgd_nesterov_wd", "adam", "adamw", "lamb"}) QTest::newRow(n) << QString(n);
  }
  void optimizers_train_a_model() {
    QFETCH(QString, name);
    Tensor::manual_seed(11);
    Mlp model(3, 8, 2);
    auto [x, y] = regression_data();
    std::vector<Tensor*> ps = get_parameters(model);
    QCOMPARE(ps.size(), size_t(4));
    std::unique_ptr<Optimizer> opt;
    if (name == "sgd") opt = std::make_unique<LARS>(SGD(ps, 0.1));
    if (name == "sgd_momentum") opt = std::make_unique<LARS>(SGD(ps, 0.05, 0.9));
    if (name == "sgd_nesterov_wd") opt = std::make_unique<LARS>(SGD(ps, 0.05, 0.9, 1e-3, true));
    if (name == "adam") opt = std::make_unique<LAMB>(Adam(ps, 0.03));
    if (name == "adamw") opt = std::make_unique<LAMB>(AdamW(ps, 0.03));
    if (name == "lamb") opt = std::make_unique<LAMB>(ps, 0.03);
    std::vector<double> losses;
    for (int step = 0; step < 30; step++) {
      opt->zero_grad();
      Tensor loss = (model(x) - y).square().mean();
      loss.backward();
      opt->step();
      losses.push_back(loss.to_vector().at(0));
    }
    // a learnable target: 30 steps of any of these optimizers should remove most of the error
    QVERIFY2(losses.back() < 0.5 * losses.front(),
             qPrintable(QString("%1: loss %2 -> %3").arg(name).arg(losses.front()).arg(losses.back())));
  }

  // Conv2d + BatchNorm + Linear trained in training mode: the running statistics are buffers the
  // optimizer realizes with each step, and they move towards the batch's statistics.
  void conv_batchnorm_model_trains() {
    struct Net : Module {
      Conv2d conv{1, 4, {3}};
      BatchNorm bn{4};
      Linear fc{4 * 4 * 4, 2};
      Tensor operator()(const Tensor& x) { return fc(bn(conv(x)).relu().flatten(1)); }
      void collect(const std::string& p, std::vector<NamedTensor>& out) override {
        conv.collect(p + "conv.", out);
        bn.collect(p + "bn.", out);
        fc.collect(p + "fc.", out);
      }
    };
    Tensor::manual_seed(4);
    Net net;
    // 8 images 6x6: label 1 when the left half is brighter
    Tensor x = Tensor::rand({8, 1, 6, 6});
    Tensor y = Tensor(Nested{0, 1, 0, 1, 1, 0, 1, 0}, dtypes::int32);
    Tensor shift = y.cast(dtypes::float32).reshape({8, 1, 1, 1}) * Tensor(2.0) - Tensor(1.0);
    Tensor left = (Tensor::arange(6).lt(Tensor(3)).cast(dtypes::float32) * Tensor(2.0) - Tensor(1.0)).reshape({1, 1, 1, 6});
    x = (x + shift * left * Tensor(0.5)).contiguous().realize();
    std::vector<Tensor*> ps = get_parameters(net);
    QCOMPARE(ps.size(), size_t(6));
    auto opt = Adam(ps, 0.02);
    opt.set_buffers(get_buffers(net));
    std::vector<double> losses;
    {
      TrainingScope train;
      for (int step = 0; step < 12; step++) {
        opt.zero_grad();
        Tensor loss = net(x).sparse_categorical_crossentropy(y);
        loss.backward();
        opt.step();
        losses.push_back(loss.to_vector().at(0));
      }
    }
    QVERIFY2(losses.back() < 0.5 * losses.front(), qPrintable(QString("%1 -> %2").arg(losses.front()).arg(losses.back())));
    QCOMPARE(net.bn.num_batches_tracked.to_int_vector(), (std::vector<int64_t>{12}));
    QVERIFY(net.bn.running_mean->to_vector() != std::vector<double>(4, 0.0));
    // eval mode uses the running statistics: the output differs from the training-mode output
    Tensor eval_out = net(x);
    std::vector<double> e = eval_out.to_vector();
    TrainingScope train;
    QVERIFY(net(x).to_vector() != e);
  }

  void optimizer_errors() {
    Tensor w = Tensor::ones({2});
    EXPECT_ERROR(SGD({&w}, -1.0), "invalid learning rate");
    EXPECT_ERROR(SGD({}, 0.1), "at least one parameter");
    EXPECT_ERROR(SGD({&w}, 0.1, -0.5), "invalid momentum");
    Tensor i = Tensor(Nested{1, 2});
    EXPECT_ERROR(Adam({&i}), "only floating-point");
    auto opt = SGD({&w}, 0.1);
    EXPECT_ERROR(opt.step(), "has no gradient");
    // lr can change without rebuilding the optimizer
    opt.set_lr(0.5);
    QCOMPARE(opt.get_lr(), 0.5);
    (w * w).sum().backward();
    opt.step();
    expect_close(w.to_vector(), {0.0, 0.0}, 0, "w - 0.5 * 2w");
    // like tinygrad, the gradient stays until zero_grad(), so a second backward() accumulates
    QVERIFY(w.grad());
    (w + Tensor(1.0)).sum().backward();
    expect_close(w.grad()->to_vector(), {3.0, 3.0}, 0, "2 + 1");
    opt.zero_grad();
    QVERIFY(!w.grad());
  }

  void state_dict_roundtrip() {
    Tensor::manual_seed(1);
    Mlp a(3, 4, 2), b(3, 4, 2);
    StateDict sd = get_state_dict(a);
    std::vector<std::string> names;
    for (auto& [k, v] : sd) names.push_back(k);
    QCOMPARE(names, (std::vector<std::string>{"l1.weight", "l1.bias", "l2.weight", "l2.bias"}));
    QVERIFY(b.l1.weight.to_vector() != a.l1.weight.to_vector());
    QCOMPARE(load_state_dict(b, sd).size(), size_t(4));
    Tensor x = Tensor(Nested{Nested{0.1, 0.2, 0.3}});
    QCOMPARE(b(x).to_vector(), a(x).to_vector());

    StateDict missing(sd.begin(), sd.begin() + 3);
    EXPECT_ERROR(load_state_dict(b, missing), "no tensor named 'l2.bias'");
    QCOMPARE(load_state_dict(b, missing, false).size(), size_t(3));
    StateDict wrong = sd;
    wrong[0].second = Tensor::ones({4, 4});
    EXPECT_ERROR(load_state_dict(b, wrong), "'l1.weight' has shape (4, 4)");
    wrong[0].second = Tensor::ones({4, 3}, dtypes::float64);
    EXPECT_ERROR(load_state_dict(b, wrong), "dtype");
  }

  void safetensors_roundtrip() {
    StateDict sd{{"f32", Tensor(Nested{Nested{1.5, -2.25}, Nested{3.0, 1e-8}})},
                 {"f64", Tensor(Nested{M_PI, -1e300}, dtypes::float64)},
                 {"f16", Tensor(Nested{0.5, 65504.0, -2.0}, dtypes::float16)},
                 {"bf16", Tensor(Nested{1.0, -3.5}, dtypes::bfloat16)},
                 {"i64", Tensor(Nested{int64_t(1) << 40, int64_t(-3)}, dtypes::int64)},
                 {"u8", Tensor(Nested{0, 255, 7}, dtypes::uint8)},
                 {"i32", Tensor::arange(6).reshape({2, 1, 3})},
                 {"bool", Tensor(Nested{true, false, true})},
                 {"scalar", Tensor(Nested{7.0}).reshape({})}};
    json::Value meta = json::Value::object();
    meta.set("format", "pt");
    std::vector<uint8_t> bytes = safe_encode(sd, meta);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = (n << 8) | bytes[i];
    QCOMPARE(n % 8, uint64_t(0));
    QCOMPARE(safe_metadata(bytes).at("format").as_string(), std::string("pt"));

    QString path = QDir::temp().filePath(QString("loupe_nn_%1.safetensors").arg(QCoreApplication::applicationPid()));
    safe_save(sd, path.toStdString(), meta);
    StateDict back = safe_load(path.toStdString());
    QFile::remove(path);
    QCOMPARE(back.size(), sd.size());
    for (size_t i = 0; i < sd.size(); i++) {
      QCOMPARE(back[i].first, sd[i].first);
      QCOMPARE(back[i].second.shape(), sd[i].second.shape());
      QCOMPARE(back[i].second.dtype(), dtypes::strong(sd[i].second.dtype()));
      if (back[i].second.dtype().is_float()) QCOMPARE(back[i].second.to_vector(), sd[i].second.to_vector());
      else QCOMPARE(back[i].second.to_int_vector(), sd[i].second.to_int_vector());
    }
    // a model through a file
    Tensor::manual_seed(2);
    Mlp a(3, 4, 2), b(3, 4, 2);
    load_state_dict(b, safe_decode(safe_encode(get_state_dict(a))));
    QCOMPARE(b.l2.bias->to_vector(), a.l2.bias->to_vector());
  }

  // A file written by tinygrad's safe_save, byte for byte:
  //   safe_save({'w': Tensor([[1.5, -2.0], [0.25, 3.0]]), 'idx': Tensor([1, -2, 3], dtype=dtypes.int32),
  //              'h': Tensor([0.5, -1.0], dtype=dtypes.float16), 'flag': Tensor([True, False])},
  //             fn, metadata={'format': 'pt'})
  void safetensors_matches_tinygrad() {
    const QByteArray tinygrad = QByteArray::fromHex(
        "08010000000000007b225f5f6d657461646174615f5f223a7b22666f726d6174223a227074227d2c2277223a7b2264747970"
        "65223a22463332222c227368617065223a5b322c325d2c22646174615f6f666673657473223a5b302c31365d7d2c22696478"
        "223a7b226474797065223a22493332222c227368617065223a5b335d2c22646174615f6f666673657473223a5b31362c3238"
        "5d7d2c2268223a7b226474797065223a22463136222c227368617065223a5b325d2c22646174615f6f666673657473223a5b"
        "32382c33325d7d2c22666c6167223a7b226474797065223a22424f4f4c222c227368617065223a5b325d2c22646174615f6f"
        "666673657473223a5b33322c33345d7d7d20202020200000c03f000000c00000803e0000404001000000feffffff03000000"
        "003800bc0100");
    std::vector<uint8_t> bytes(tinygrad.begin(), tinygrad.end());
    StateDict sd = safe_decode(bytes, "tinygrad.safetensors");
    QCOMPARE(sd.size(), size_t(4));
    QCOMPARE(sd[0].first, std::string("w"));
    QCOMPARE(sd[0].second.to_vector(), (std::vector<double>{1.5, -2.0, 0.25, 3.0}));
    QCOMPARE(sd[1].second.dtype(), dtypes::int32);
    QCOMPARE(sd[1].second.to_int_vector(), (std::vector<int64_t>{1, -2, 3}));
    QCOMPARE(sd[2].second.dtype(), dtypes::float16);
    QCOMPARE(sd[2].second.to_vector(), (std::vector<double>{0.5, -1.0}));
    QCOMPARE(sd[3].second.to_int_vector(), (std::vector<int64_t>{1, 0}));
    json::Value meta = json::Value::object();
    meta.set("format", "pt");
    std::vector<uint8_t> ours = safe_encode(sd, meta);
    QCOMPARE(QByteArray(reinterpret_cast<const char*>(ours.data()), qsizetype(ours.size())), tinygrad);
  }

  void safetensors_malformed_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("fragment");
    auto file = [](const std::string& header, size_t data) {
      QByteArray b(8, 0);
      for (int i = 0; i < 8; i++) b[i] = char((uint64_t(header.size()) >> (8 * i)) & 0xff);
      b += QByteArray::fromStdString(header);
      b += QByteArray(int(data), 0);
      return b;
    };
    QTest::newRow("short") << QByteArray("abc") << "shorter than the 8-byte header length";
    QByteArray big(8, 0);
    big[0] = char(0xff);
    big[1] = char(0x7f);
    QTest::newRow("header_past_end") << big << "runs past the end of the file";
    QTest::newRow("bad_json") << file("{\"a\": ", 0) << "not valid JSON";
    QTest::newRow("not_object") << file("[1, 2]", 0) << "is a JSON array, not an object";
    QTest::newRow("entry_not_object") << file("{\"a\": 3}", 0) << "tensor 'a'";
    QTest::newRow("missing_dtype") << file("{\"a\": {\"shape\": [1], \"data_offsets\": [0, 4]}}", 4) << "dtype";
    QTest::newRow("unknown_dtype") << file("{\"a\": {\"dtype\": \"F128\", \"shape\": [1], \"data_offsets\": [0, 4]}}", 4)
                                   << "unknown dtype 'F128'";
    QTest::newRow("negative_shape") << file("{\"a\": {\"dtype\": \"F32\", \"shape\": [-1], \"data_offsets\": [0, 4]}}", 4)
                                    << "negative dimension";
    QTest::newRow("offsets_past_end") << file("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}}", 4)
                                      << "do not fit the 4 data bytes";
    QTest::newRow("offsets_wrong_size") << file("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 4]}}", 8)
                                        << "needs 8";
    QTest::newRow("offsets_not_pair") << file("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0]}}", 4)
                                      << "needs 2 numbers";
    QTest::newRow("duplicate_name") << file("{\"a\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [0, 1]}, "
                                          "\"a\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [1, 2]}}", 2)
                                    << "duplicate key \"a\"";
    QTest::newRow("shape_not_ints") << file("{\"a\": {\"dtype\": \"F32\", \"shape\": \"x\", \"data_offsets\": [0, 4]}}", 4)
                                    << "field 'shape'";
  }
  void safetensors_malformed() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, fragment);
    std::vector<uint8_t> v(bytes.begin(), bytes.end());
    std::string frag = fragment.toStdString();
    EXPECT_ERROR(safe_decode(v, "model.safetensors"), "safetensors file 'model.safetensors': ");
    EXPECT_ERROR(safe_decode(v, "model.safetensors"), frag.c_str());
  }

  void safetensors_file_errors() {
    EXPECT_ERROR(safe_load("/nonexistent/dir/x.safetensors"), "'/nonexistent/dir/x.safetensors': no such file");
    EXPECT_ERROR(safe_save({{"x", Tensor::ones({1})}}, "/nonexistent/dir/x.safetensors"), "cannot open it for writing");
    EXPECT_ERROR(safe_encode({{"__metadata__", Tensor::ones({1})}}), "reserved");
    EXPECT_ERROR(safe_load(QDir::tempPath().toStdString()), "is a directory");
  }
};

QTEST_APPLESS_MAIN(TestNnModules)
#include "tst_nn_modules.moc"
