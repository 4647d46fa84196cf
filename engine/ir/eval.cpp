#include "ir/eval.h"

#include "support/error.h"

namespace loupe {

namespace {

int64_t wrap(DType d, __int128 v) {
  DType s = d.scalar();
  if (s.is_bool()) return v != 0;
  if (s.is_weak() || !s.is_int()) return static_cast<int64_t>(v);
  int bits = s.bitsize();
  if (bits >= 64) return static_cast<int64_t>(static_cast<uint64_t>(v));
  uint64_t mask = (uint64_t(1) << bits) - 1, u = static_cast<uint64_t>(v) & mask;
  if (!s.is_unsigned() && (u >> (bits - 1))) return static_cast<int64_t>(u | ~mask);
  return static_cast<int64_t>(u);
}

__int128 floor_div(__int128 a, __int128 b) {
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

class Evaluator {
public:
  explicit Evaluator(const VarValues& vars) : vars_(vars) {}

  __int128 eval(const UOpPtr& u) {
    if (auto it = memo_.find(u.get()); it != memo_.end()) return it->second;
    __int128 v = compute(u);
    memo_[u.get()] = v;
    return v;
  }

private:
  __int128 compute(const UOpPtr& u) {
    auto s = [&](size_t i) { return eval(u->src[i]); };
    auto nonzero = [&](__int128 d) {
      if (d == 0) throw Error(cat("division by zero evaluating ", op_name(u->op)));
      return d;
    };
    switch (u->op) {
    case Ops::CONST: return u->arg.is_float() ? static_cast<__int128>(u->arg.as_float()) : u->const_int();
    case Ops::DEFINE_VAR:
    case Ops::RANGE:
    case Ops::SPECIAL: {
      auto it = vars_.find(u->var_name());
      if (it == vars_.end()) throw Error(cat("no value for variable '", u->var_name(), "'"));
      return it->second;
    }
    case Ops::BIND:
    case Ops::CAST: return wrap(u->dtype, s(0));
    case Ops::ADD: return wrap(u->dtype, s(0) + s(1));
    case Ops::SUB: return wrap(u->dtype, s(0) - s(1));
    case Ops::NEG: return wrap(u->dtype, -s(0));
    case Ops::MUL: return wrap(u->dtype, s(0) * s(1));
    case Ops::FLOORDIV: return wrap(u->dtype, floor_div(s(0), nonzero(s(1))));
    case Ops::FLOORMOD: {
      __int128 a = s(0), b = nonzero(s(1));
      return wrap(u->dtype, a - floor_div(a, b) * b);
    }
    case Ops::IDIV: return wrap(u->dtype, s(0) / nonzero(s(1)));
    case Ops::MOD: return wrap(u->dtype, s(0) % nonzero(s(1)));
    case Ops::MAX: return std::max(s(0), s(1));
    case Ops::CMPLT: return s(0) < s(1);
    case Ops::CMPNE: return s(0) != s(1);
    case Ops::AND: return wrap(u->dtype, s(0) & s(1));
    case Ops::OR: return wrap(u->dtype, s(0) | s(1));
    case Ops::XOR: return wrap(u->dtype, s(0) ^ s(1));
    case Ops::SHL: return wrap(u->dtype, s(0) << static_cast<int>(s(1)));
    case Ops::SHR: return wrap(u->dtype, s(0) >> static_cast<int>(s(1)));
    case Ops::WHERE: return s(0) ? s(1) : s(2);
    default: throw Error(cat("cannot evaluate ", op_name(u->op), " as an integer expression"));
    }
  }

  const VarValues& vars_;
  std::unordered_map<const UOp*, __int128> memo_;
};

} // namespace

int64_t eval_int(const UOpPtr& expr, const VarValues& vars) {
  Evaluator e(vars);
  return static_cast<int64_t>(e.eval(expr));
}

} // namespace loupe
