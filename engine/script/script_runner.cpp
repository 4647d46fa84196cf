#include "script/script_runner.h"

#include "runtime/counters.h"
#include "script/interpreter.h"
#include "script/parser.h"
#include "script/tensor_host.h"
#include "support/error.h"

namespace loupe::script {

Tensor run_script(std::string_view source) {
  Program program = parse(source);
  TensorHost host;
  Interpreter in(host);
  in.run(program);
  const Value* out = in.variable("out");
  if (!out) throw Error("the script does not assign 'out' (its result)");
  auto* t = out->object_as<TensorObj>();
  if (!t) throw Error(cat("'out' must be a Tensor, not ", type_name(*out), " (", repr(*out), ")"));
  return t->t;
}

EvalResult evaluate(std::string_view source) {
  Tensor out = run_script(source);
  EvalResult r;
  r.shape = out.shape();
  r.dtype = dtypes::strong(out.dtype());
  int64_t before = global_counters().kernel_count.load();
  out.realize();
  if (r.dtype.is_float()) r.floats = out.to_vector();
  else r.ints = out.to_int_vector();
  r.kernels = global_counters().kernel_count.load() - before;
  return r;
}

} // namespace loupe::script
