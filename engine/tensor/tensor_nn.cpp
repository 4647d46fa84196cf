// Activations and elementwise math built from primitives. Every function spells current tinygrad's
// formula (same operations, same grouping, same weak Python scalars) so results agree with it to the
// last bit wherever the primitives do; gradients come for free from the primitives' rules.
#include <cmath>

#include "support/error.h"
#include "support/options.h"
#include "tensor/tensor.h"
#include "tensor/wide_float.h"

namespace loupe {

namespace {
constexpr double kPi = 3.141592653589793;

Tensor F(double v) { return Tensor(v); }       // a weak Python float
Tensor I(int64_t v) { return Tensor(v); }      // a weak Python int

// Horner's rule, as tinygrad's polyN: ((c0 * x + c1) * x + c2) ...
Tensor poly_n(const Tensor& x, const std::vector<double>& coeffs) {
  Tensor acc = F(coeffs[0]);
  for (size_t i = 1; i < coeffs.size(); i++) acc = acc * x + F(coeffs[i]);
  return acc;
}
} // namespace

Tensor Tensor::gelu(const std::string& approximate) const {
  if (approximate != "tanh" && approximate != "none")
    throw Error(loupe::cat("gelu: approximate='", approximate, "' is not supported (use 'tanh' or 'none')"));
  return in_wide_float(*this, [&](const Tensor& x) {
    if (approximate == "tanh") return F(0.5) * x * (I(1) + (F(std::sqrt(2 / kPi)) * (x + F(0.044715) * x.pow(I(3)))).tanh());
    return x * F(0.5) * (F(1.0) + (x / F(std::sqrt(2.0))).erf());
  });
}

Tensor Tensor::quick_gelu() const { return *this * (*this * F(1.702)).sigmoid(); }
Tensor Tensor::swish() const { return *this * sigmoid(); }
Tensor Tensor::silu() const { return swish(); }
Tensor Tensor::mish() const {
  return in_wide_float(*this, [](const Tensor& x) { return x * x.softplus().tanh(); });
}
Tensor Tensor::relu6() const { return relu() - (*this - I(6)).relu(); }
Tensor Tensor::hardswish() const { return *this * (*this + I(3)).relu6() * F(1.0 / 6); }

Tensor Tensor::hardsigmoid(double alpha, double beta) const {
  Tensor a = F(alpha) * *this + F(beta);
  return a.relu() - (F(alpha) * *this + F(beta) - I(1)).relu();
}

Tensor Tensor::hardtanh(ConstVal min_val, ConstVal max_val) const { return clip(min_val, max_val); }

Tensor Tensor::elu(double alpha) const {
  return in_wide_float(*this, [&](const Tensor& x) { return x.relu() - F(alpha) * (I(1) - x.exp()).relu(); });
}

Tensor Tensor::celu(double alpha) const {
  return maximum(I(0)) + (F(alpha) * ((*this / F(alpha)).exp() - I(1))).minimum(I(0));
}

Tensor Tensor::selu(double alpha, double gamma) const {
  return F(gamma) * ge(I(0)).where(*this, F(alpha) * (exp() - I(1)));
}

Tensor Tensor::leaky_relu(double neg_slope) const { return lt(I(0)).where(F(neg_slope) * *this, *this); }

Tensor Tensor::logaddexp(const Tensor& o) const {
  auto ab = broadcast({*this, o});
  DType d = dtypes::least_upper_dtype({ab[0].dtype(), ab[1].dtype()});
  Tensor a = ab[0].cast(d), b = ab[1].cast(d);
  Tensor m = a.maximum(b);
  // where the larger one is infinite it is the answer (inf - inf would make a NaN of softplus(inf))
  return m.isinf().where(m, ((a - m).exp() + (b - m).exp()).log() + m);
}

Tensor Tensor::softplus(double beta) const {
  return in_wide_float(*this, [&](const Tensor& x) { return F(1 / beta) * (x * F(beta)).logaddexp(F(0.0)); });
}
Tensor Tensor::softsign() const { return *this / (I(1) + abs()); }
Tensor Tensor::logsigmoid() const { return neg().softplus().neg(); }

// Abramowitz and Stegun 7.1.26, as tinygrad (max error about 1.5e-7).
Tensor Tensor::erf() const {
  return in_wide_float(*this, [](const Tensor& x) {
    Tensor t = F(1.0) / (F(1.0) + F(0.3275911) * x.abs());
    Tensor p = poly_n(t, {1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592});
    return x.sign() * (F(1.0) - t * p * x.square().neg().exp());
  });
}

Tensor Tensor::sinh() const {
  return in_wide_float(*this, [](const Tensor& x) { return (x.exp() - x.neg().exp()) / I(2); });
}
Tensor Tensor::cosh() const {
  return in_wide_float(*this, [](const Tensor& x) { return (x.exp() + x.neg().exp()) / I(2); });
}
Tensor Tensor::atanh() const {
  return in_wide_float(*this, [](const Tensor& x) { return ((I(1) + x) / (I(1) - x)).log() / I(2); });
}
Tensor Tensor::asinh() const {
  return in_wide_float(*this, [](const Tensor& x) { return (x + (x.square() + I(1)).sqrt()).log(); });
}
Tensor Tensor::acosh() const {
  return in_wide_float(*this, [](const Tensor& x) { return (x + (x.square() - I(1)).sqrt()).log(); });
}

// Abramowitz and Stegun 4.4.46, as tinygrad.
Tensor Tensor::asin() const {
  return in_wide_float(*this, [](const Tensor& x) {
    const std::vector<double> coeffs = {-0.0012624911, 0.0066700901, -0.0170881256, 0.0308918810,
                                        -0.0501743046, 0.0889789874, -0.2145988016, 1.5707963050};
    return x.sign() * (F(kPi / 2) - (F(1.0) - x.abs()).sqrt() * poly_n(x.abs(), coeffs));
  });
}

Tensor Tensor::acos() const {
  return in_wide_float(*this, [](const Tensor& x) { return F(kPi / 2) - x.asin(); });
}
Tensor Tensor::atan() const {
  return in_wide_float(*this, [](const Tensor& x) { return (x / (I(1) + x * x).sqrt()).asin(); });
}

Tensor Tensor::isfinite() const { return isinf().bitwise_or(isnan()).logical_not(); }

Tensor Tensor::isclose(const Tensor& o, double rtol, double atol, bool equal_nan) const {
  Tensor finite_close =
      isfinite().bitwise_and(o.isfinite()).bitwise_and((*this - o).abs().le(F(atol) + F(rtol) * o.abs()));
  Tensor infinite_close = isinf().bitwise_or(o.isinf()).bitwise_and(eq(o));
  Tensor nan_close = isnan().bitwise_and(o.isnan()).bitwise_and(Tensor(equal_nan));
  return finite_close.bitwise_or(infinite_close).bitwise_or(nan_close);
}

Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  if (!mask.dtype().is_bool())
    throw Error(loupe::cat("masked_fill: the mask must be a bool tensor, got ", mask.dtype().short_name()));
  return mask.where(value, *this);
}

Tensor Tensor::dropout(double p) const {
  if (!(p >= 0 && p <= 1)) throw Error(loupe::cat("dropout: p=", p, " is out of range [0, 1]"));
  if (!options().training || p == 0) return *this;  // as tinygrad: only in training mode
  if (p == 1) return zeros_like();
  // each element kept with probability 1-p and scaled up so the expectation is unchanged; the mask is
  // its own kernel (as tinygrad's contiguous), so backward reuses the same draw
  // (rand draws a concrete number of values: tinygrad's rand_like refuses a symbolic shape with ValueError)
  if (symbolic()) throw ValueError(loupe::cat("dropout: invalid input shape=", shape_str(sshape()), ": random numbers need a concrete shape"));
  Tensor keep = rand(shape(), dtypes::default_float()).to(device()).ge(Tensor(p)).contiguous();  // drawn on the host, used here
  return keep.where(*this, Tensor(0.0)) / Tensor(1.0 - p);
}

} // namespace loupe
