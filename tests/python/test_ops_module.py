"""tinygrad.ops on Loupe's engine (issue 44): UOps are the engine's nodes (one Python object per live node,
the same object whether built in Python or reached from a Tensor's graph), a PatternMatcher's Python
callbacks run inside the engine's graph_rewrite and combine with the engine's symbolic rules, and a
callback's exception reaches the caller as itself, leaving the engine usable."""
import traceback

import pytest

from loupe import Tensor, _loupe, dtypes
from tinygrad import Variable
from tinygrad.codegen.devectorizer import sym
from tinygrad.ops import GroupOp, Ops, PatternMatcher, UOp, UPat, graph_rewrite, resolve, smax, smin, sym_infer


def test_building_a_node_twice_gives_the_same_object():
  a = UOp.variable("a", 0, 10)
  assert UOp.variable("a", 0, 10) is a
  assert (a * 4 + 3) is (a * 4 + 3)
  assert UOp(Ops.CONST, dtypes.float, arg=1.0) is UOp.const(dtypes.float, 1)
  assert UOp.variable("a", 0, 11) is not a
  assert {a: 1}[UOp.variable("a", 0, 10)] == 1


def test_a_tensor_graph_node_is_the_node_built_in_python():
  t = Tensor([1.0, 2.0, 3.0]) + 1.0
  node = _loupe._tensor_uop(t)
  assert isinstance(node, UOp) and node.op is Ops.ADD
  rebuilt = UOp(node.op, node.dtype, node.src, node.arg)
  assert rebuilt is node
  assert any(u.op is Ops.CONST for u in node.toposort)


def test_node_fields_and_bounds():
  a = Variable("a", 3, 8)
  e = (a * 2 + 1) // 3
  assert e.op is Ops.IDIV and e.dtype == dtypes.int and e.src[1].arg == 3
  assert (a * 2 + 1).vmin == 7 and (a * 2 + 1).vmax == 17
  assert (a < 4).dtype == dtypes.bool and (a < 9).vmin is True
  assert list(e.toposort)[-1] is e
  assert a.arg == ("a", 3, 8) and a.expr == "a"


def test_simplify_uses_the_engine_symbolic_rules():
  a = Variable("a", 0, 10)
  assert (a + 0).simplify() is a
  assert (a * 4 + a * 2).simplify().render() == "(a*6)"
  assert ((a * 4) // 2).simplify().render() == "(a*2)"
  assert (a // 20).simplify().render() == "0"
  assert resolve(a < 11) is True and resolve(a < 5, False) is False
  assert smax(a, 11) == 11 and smin(3, 5) == 3
  assert sym_infer(a * 3 + 1, {a: 2}) == 7


def test_python_rule_combined_with_symbolic():
  # a user's rule: XOR(y, XOR(y, x)) -> x, applied with the engine's symbolic rules
  xor_rule = PatternMatcher([(UPat(Ops.XOR, src=[UPat.var("y"), UPat(Ops.XOR, src=[UPat.var("y"), UPat.var("x")])]),
                              lambda y, x: x)])
  a, b = Variable("a", 0, 10), Variable("b", 0, 10)
  expr = (a ^ (a ^ (b + 0))) + 0
  out = graph_rewrite(expr, sym + xor_rule)
  assert out is b
  # the rule alone leaves the +0s; symbolic alone leaves the xors
  assert graph_rewrite(expr, xor_rule) is (b + 0) + 0
  assert graph_rewrite(expr, sym).op is Ops.XOR


def test_pattern_features():
  a = Variable("a", 0, 10)
  seen = []
  pm = PatternMatcher([
    (UPat(Ops.ADD, src=(UPat.cvar("c"), UPat.var("x"))), lambda c, x: seen.append(("const first", c.arg)) or None),
    (UPat(GroupOp.ALU, name="n", src=UPat(Ops.DEFINE_VAR)), lambda n: seen.append(("all vars", n.op)) or None),
    (UPat(Ops.MUL, src=[UPat.var("x"), UPat.cvar("c", dtypes.int)], name="m"), lambda m, x, c: x if c.arg == 1 else None),
  ])
  assert pm.rewrite(UOp.const(dtypes.int, 3) + a) is None
  assert ("const first", 3) in seen
  assert pm.rewrite(a * a) is None and ("all vars", Ops.MUL) in seen
  assert pm.rewrite(UOp.const(dtypes.int, 1) * a) is a  # permuted sources
  assert pm.rewrite(a * 1) is a


def test_ctx_reaches_the_callbacks():
  def count(ctx, x):
    ctx.append(x)
    return None
  ctx = []
  graph_rewrite(Variable("a", 0, 3) + 1, PatternMatcher([(UPat(Ops.CONST, name="x"), count)]), ctx=ctx)
  assert [u.arg for u in ctx] == [1]


class BadRule(Exception): pass


def raising_rule(x):
  raise BadRule("the user's rule failed")


def test_a_callback_exception_reaches_the_user_and_the_engine_stays_usable():
  a = Variable("a", 0, 10)
  pm = PatternMatcher([(UPat(Ops.ADD, name="x"), raising_rule)])
  with pytest.raises(BadRule) as info:
    graph_rewrite((a + 1) * 2, pm)
  tb = "".join(traceback.format_tb(info.tb))
  assert "raising_rule" in tb and "test_ops_module.py" in tb
  # the next rewrite, Python rules and engine rules alike, works
  assert graph_rewrite((a + 0) * 1, sym) is a
  ok = PatternMatcher([(UPat(Ops.ADD, src=(UPat.var("x"), UPat.cvar("c"))), lambda x, c: x if c.arg == 1 else None)])
  assert graph_rewrite((a + 1) * 2, ok) is a * 2
  # a Tensor program still runs
  assert (Tensor([1.0, 2.0]) * 2).tolist() == [2.0, 4.0]


def test_a_rule_that_never_settles_is_a_recursion_error_not_a_crash():
  from tinygrad.ops import _substitute, symbolic
  # sin(a) -> sqrt(sin(a)): the result holds what the rule rewrote, so it is rewritten again, one level deeper
  a = UOp.variable("a", 0, 10)
  n1 = a.sin()
  grow = PatternMatcher([(UPat(Ops.SIN, name="x"), lambda x: x.sqrt() if x is n1 else None)])
  with pytest.raises(RecursionError, match="never settles"):
    graph_rewrite(n1, grow, bottom_up=True)
  with pytest.raises(RecursionError, match="nested"):
    graph_rewrite(n1, _substitute, {n1: n1.sqrt()}, bottom_up=True)
  # the engine stays usable, and a deep graph that settles is no runaway
  deep = a
  for _ in range(30_000): deep = deep + 1
  assert graph_rewrite(deep, symbolic) is graph_rewrite(a + 30_000, symbolic)


def test_bad_input_is_a_python_exception():
  with pytest.raises(TypeError): UOp(Ops.ADD, dtypes.int, (1, 2))
  with pytest.raises(TypeError): UOp(Ops.NOOP, arg=object())
  with pytest.raises(ValueError): UOp(Ops.DEFINE_VAR, dtypes.int, arg=("a", 0))
  with pytest.raises(TypeError): PatternMatcher([(UPat(Ops.ADD), 3)])
  with pytest.raises(TypeError):
    graph_rewrite(Variable("a", 0, 3) + 1, PatternMatcher([(UPat(Ops.ADD), lambda: 3)]))
  with pytest.raises(TypeError): graph_rewrite(3, sym)


def test_pickle_round_trip():
  import pickle
  v = Variable("a", 3, 8) * 2
  assert pickle.loads(pickle.dumps(v)) is v


TRACED_PROGRAM = '''\
from tinygrad.ops import UOp, Ops, UPat, PatternMatcher, graph_rewrite
from tinygrad.codegen.devectorizer import sym

xor_rules = PatternMatcher([
  (UPat(Ops.XOR, src=[UPat.var("y"), UPat(Ops.XOR, src=[UPat.var("y"), UPat.var("x")])]),
   lambda y, x: x),
])
a, b = UOp.variable("a", 0, 10), UOp.variable("b", 0, 10)
print(graph_rewrite((a ^ (a ^ (b + 0))) * 1, sym + xor_rules, name="xor with symbolic").render(simplify=False))
'''


def test_a_python_rule_is_traced_with_its_file_line_and_text(tmp_path):
  import os
  import sqlite3
  import subprocess
  import sys
  program = tmp_path / "rules.py"
  program.write_text(TRACED_PROGRAM)
  trace = tmp_path / "t.loupe"
  out = subprocess.run([sys.executable, str(program)], env={**os.environ, "LOUPE_TRACE": str(trace)}, capture_output=True, text=True,
                       timeout=120)
  assert out.returncode == 0, out.stderr
  assert out.stdout.strip() == "b"
  db = sqlite3.connect(str(trace))
  rules = {name: (file, line) for name, file, line in db.execute("SELECT name, file, line FROM rules")}
  assert rules["rules.py:5"] == (str(program), 5)  # a lambda's rule is named by its pattern's file:line
  assert "add_zero" in rules and "mul_one" in rules  # the engine's symbolic rules fired in the same pass
  text = db.execute("SELECT s.text FROM rule_sources s JOIN rules r ON r.id = s.rule_id WHERE r.name = 'rules.py:5'").fetchone()[0]
  assert text.startswith("(UPat(Ops.XOR") and "lambda y, x: x" in text
  fired = [n for (n,) in db.execute("SELECT r.name FROM matches m JOIN rules r ON r.id = m.rule_id JOIN passes p ON p.id = m.pass_id "
                                     "WHERE p.name = 'xor with symbolic' ORDER BY m.idx")]
  assert "rules.py:5" in fired
  # the pass is located at the Python line that started it
  assert db.execute("SELECT file, line FROM passes WHERE name = 'xor with symbolic'").fetchone() == (str(program), 9)


def test_the_xor_rule_example_runs_traced_through_loupe_cli(tmp_path):
  import os
  import sqlite3
  import subprocess
  src = os.environ.get("LOUPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
  example = os.path.join(src, "resources", "examples", "xor_rule.py")
  cli = os.environ.get("LOUPE_CLI", "loupe-cli")
  trace = tmp_path / "xor.loupe"
  p = subprocess.run([cli, "run", example, "--trace", str(trace)], capture_output=True, text=True, timeout=300)
  assert p.returncode == 0, p.stderr[-2000:]
  assert "-> (a^(b^c))" in p.stdout and "(a ^ (c ^ a)) // 1 + b * 0               -> c" in p.stdout
  db = sqlite3.connect(str(trace))
  fired = db.execute("SELECT count(*) FROM matches m JOIN rules r ON r.id = m.rule_id WHERE r.name = 'xor_rule.py:14'").fetchone()[0]
  assert fired == 3  # every expression but the one without a shared operand


def test_why_not_explains_a_python_rule_from_the_trace(tmp_path):
  """After the program has ended, Why not? (here `loupe-cli trace --why`, the app's panel asks the same) tries
  every rule of the Python PatternMatcher the pass used: the user's XOR rule, where its pattern stopped on
  `a ^ (b ^ c)`, and that it matches `a ^ (a ^ b)` (its Python callback is not in the trace, so not re-run)."""
  import os
  import sqlite3
  import subprocess
  src = os.environ.get("LOUPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
  cli = os.environ.get("LOUPE_CLI", "loupe-cli")
  trace = tmp_path / "xor.loupe"
  p = subprocess.run([cli, "run", os.path.join(src, "resources", "examples", "xor_rule.py"), "--trace", str(trace)], capture_output=True,
                     text=True, timeout=300)
  assert p.returncode == 0, p.stderr[-2000:]
  db = sqlite3.connect(str(trace))

  def why(pass_name):
    ctx, pass_id, key = db.execute("SELECT p.context_id, p.id, u.key FROM passes p JOIN uops u ON u.id = p.input_id WHERE p.name = ?",
                                   (pass_name,)).fetchone()
    index = db.execute("SELECT count(*) FROM passes WHERE context_id = ? AND id < ?", (ctx, pass_id)).fetchone()[0]
    out = subprocess.run([cli, "trace", str(trace), "--why", str(ctx), str(index), "0", "%" + key[:16]], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout

  miss = why("a ^ (b ^ c)  (no shared operand)")
  assert "written in Python" in miss
  line = next(i for i, l in enumerate(miss.splitlines()) if "xor_rule.py:14" in l and "resources/examples/xor_rule.py:14" in l)
  assert miss.splitlines()[line].split()[0] == "no"  # "no match"
  assert "src[" in miss.splitlines()[line + 1]  # where the pattern stopped
  hit = why("a ^ (a ^ b)")
  line = next(l for l in hit.splitlines() if "xor_rule.py:14" in l)
  assert line.split()[0] == "matches", hit
  assert "not re-run" in hit


def test_exec_alu_and_substitute():
  from tinygrad.ops import _substitute, exec_alu
  assert exec_alu(Ops.ADD, dtypes.int, [2**31 - 1, 1]) == -2**31  # int32 wraps
  assert exec_alu(Ops.IDIV, dtypes.int, [-7, 2]) == -3  # C division truncates
  assert exec_alu(Ops.CMPLT, dtypes.bool, [1, 2]) is True
  assert exec_alu(Ops.IDIV, dtypes.int, [1, 0]) is None
  with pytest.raises(ValueError): exec_alu(Ops.SINK, dtypes.int, [1])
  a = Variable("a", 0, 10)
  three = UOp.const(dtypes.int, 3)
  assert graph_rewrite(a * 2 + 1, _substitute, ctx={a: three}, bottom_up=True) is three * 2 + 1
  assert (a * 2 + 1).substitute({a: three}) is three * 2 + 1


MALFORMED_NODES = '''
from tinygrad.ops import UOp, Ops, graph_rewrite
from tinygrad.dtype import dtypes
from tinygrad.codegen.devectorizer import sym
a, f = UOp.variable("a", 0, 10), UOp.const(dtypes.float, 1.5)
built = refused = 0
for op in Ops:
  for dt in (dtypes.int, dtypes.float, dtypes.bool, dtypes.void, dtypes.int.ptr()):
    for src in ((), (a,), (a, a), (a, f, a), (f, f)):
      for arg in (None, 1, "x", (1, 2)):
        try: u = UOp(op, dt, src, arg)
        except (ValueError, TypeError, NotImplementedError):
          refused += 1
          continue
        built += 1
        try: u.vmin, u.vmax, repr(u), graph_rewrite(u, sym), u.render(simplify=False)
        except Exception: pass  # a Python exception is fine; a crash is not
print(built, refused)
'''


def test_malformed_nodes_are_exceptions_not_crashes():
  # every op with sources of the wrong count, dtypes and args that make no sense: built nodes are
  # simplified and rendered, and a node the engine cannot hold is a ValueError (run apart: a crash fails here)
  import subprocess
  import sys
  p = subprocess.run([sys.executable, "-c", MALFORMED_NODES], capture_output=True, text=True, timeout=300)
  assert p.returncode == 0, p.stderr[-2000:]
  built, refused = map(int, p.stdout.split())
  assert built > 1000 and refused > 1000
  with pytest.raises(ValueError, match="takes 2 sources"): UOp(Ops.ADD, dtypes.int, (Variable("a", 0, 1),))
  with pytest.raises(TypeError, match="CONST"): UOp(Ops.CONST, dtypes.int, arg="x")


def test_a_matcher_and_what_its_callbacks_close_over_are_freed_with_it():
  import gc
  import weakref
  class Held: pass
  held = Held()
  alive = weakref.ref(held)
  def make(h): return PatternMatcher([(UPat(Ops.ADD, name="x"), lambda x: None if h else x)])
  pm = make(held) + sym
  del held
  assert graph_rewrite(Variable("a", 0, 3) + 0, pm) is Variable("a", 0, 3)
  assert alive() is not None
  del pm, make
  gc.collect()
  assert alive() is None


def test_a_tinygrad_name_without_meaning_in_loupe_says_why():
  with pytest.raises(ImportError, match="launch_viz has no meaning in Loupe"):
    from tinygrad.ops import launch_viz  # noqa: F401
  # a switch Loupe does not read holds tinygrad's default; setting it otherwise says why
  from tinygrad.helpers import Context
  from tinygrad.ops import TRACK_MATCH_STATS
  with Context(TRACK_MATCH_STATS=0): assert TRACK_MATCH_STATS.value == 0
  with pytest.raises(NotImplementedError, match="TRACK_MATCH_STATS=2.*trace"):
    with Context(TRACK_MATCH_STATS=2): pass
  import tinygrad.ops
  assert not hasattr(tinygrad.ops, "no_such_name")


def test_an_int_pattern_joined_to_sym_matches_int_nodes():
  # with the symbolic rules, int32 nodes are rewritten as the engine's index dtype and given back as int32
  double_to_shift = PatternMatcher([(UPat(Ops.MUL, dtypes.int, src=(UPat.var("x"), UPat.cvar("c"))),
                                     lambda x, c: x << 1 if c.arg == 2 else None)])
  a = Variable("a", 0, 10)
  out = graph_rewrite((a + 0) * 2, sym + double_to_shift)
  assert out is a << 1 and out.dtype == dtypes.int


def test_unrolled_floor_divisions_fold_with_offsets_and_folded_terms():
  # Hermite's identity by residues: offsets past the divisor, and a term already folded to 0 (gidx//4 on [0, 3])
  g = Variable("gidx", 0, 2559)
  assert (g // 4 + (g + 2559) // 4 + (g + 2561) // 4 + (g + 2562) // 4).simplify().render() == "(gidx+1919)"  # 0 + 639 + 640 + 640
  small = Variable("gidx", 0, 3)
  assert ((small + 2) // 4 + (small + 3) // 4 + (small + 1) // 4).simplify() is small
  # not a whole run, and the missing residue's quotient varies over the range: left as it is
  wide = Variable("y", 0, 8)
  assert ((wide + 2) // 4 + (wide + 3) // 4 + (wide + 1) // 4).simplify().op is Ops.ADD


def test_float_of_constant_arithmetic():
  assert float(9 / UOp.const(dtypes.float, 4)) == 2.25  # the simplifier leaves 9.0*0.25 for contraction
  assert int(UOp.const(dtypes.int, 7) // 2) == 3
  with pytest.raises(ValueError, match="single number"): int(Variable("a", 0, 3) + 1)


def test_why_not_explains_a_python_rule():
  xor = PatternMatcher([(UPat(Ops.XOR, src=[UPat.var("y"), UPat(Ops.XOR, src=[UPat.var("y"), UPat.var("x")])]), lambda y, x: x),
                        (UPat(Ops.XOR, name="z"), lambda z: None)])
  a, b, c = (Variable(n, 0, 15) for n in "abc")
  first, second = xor.explain(a ^ (b ^ c))
  assert first["verdict"] == "no match" and "'y' is already bound" in first["reason"]
  assert first["file"].endswith("test_ops_module.py") and first["line"] > 0
  assert second["verdict"] == "declined"
  fires = xor.explain(a ^ (a ^ c))[0]
  assert fires["verdict"] == "fires" and fires["replacement"] is c


def test_vector_helpers():
  from tinygrad.ops import exec_alu
  v = UOp(Ops.VECTORIZE, dtypes.int.vec(2), (UOp.const(dtypes.int, 1), UOp.const(dtypes.int, 2)))
  assert v.gep((0, 1)) is v and v.gep(1) is UOp.const(dtypes.int, 2)
  assert exec_alu(Ops.ADD, dtypes.int.vec(2), [(1, 2), (3, 4)]) == (4, 6)


def test_validity_and_tinygrad_ranges():
  from tinygrad.codegen.symbolic import simplify_valid, uop_given_valid
  a = Variable("a", 0, 10)
  assert simplify_valid((a < 5) & (a < 3)) is (a < 3)
  assert uop_given_valid(a < 3, a // 4) is UOp.const(dtypes.int, 0)
  r = UOp(Ops.RANGE, dtypes.int, (UOp.const(dtypes.int, 0), UOp.const(dtypes.int, 8)), 0)  # tinygrad's (start, end)
  assert (r.vmin, r.vmax) == (0, 7) and len(r.src) == 1
  with pytest.raises(NotImplementedError, match="RANGE"):
    UOp(Ops.RANGE, dtypes.int, (UOp.const(dtypes.int, 2), UOp.const(dtypes.int, 8)), 0)


def test_tinygrad_div_and_mod_keep_their_ops_through_sym():
  a = Variable("a", 0, 100)
  out = graph_rewrite(((a + 0) * 2) // 4 + (a % 8) * 0, sym)
  assert out.op is Ops.IDIV and out.render(simplify=False) == "(a//2)"
  # a user's rule for IDIV joined to sym sees tinygrad's // (the engine folds it as a floor division)
  halve = PatternMatcher([(UPat(Ops.IDIV, src=(UPat.var("x"), UPat.cvar("c"))), lambda x, c: x >> 1 if c.arg == 2 else None)])
  assert graph_rewrite((a + 0) // 2, sym + halve) is a >> 1
  # a graph with the engine's own floor ops keeps them
  fd = UOp(Ops.FLOORDIV, dtypes.int, (a * 2, UOp.const(dtypes.int, 4)))
  assert graph_rewrite(fd, sym).op is Ops.FLOORDIV


def test_compute_gradient_of_a_float_expression():
  import math
  from tinygrad.gradient import compute_gradient
  from tinygrad.ops import UOp
  x = UOp.variable("x", -math.inf, math.inf, dtype=dtypes.float)
  y = UOp.variable("y", -math.inf, math.inf, dtype=dtypes.float)
  assert x.vmin == -math.inf and x.vmax == math.inf
  grads = compute_gradient(x.sin() * y + 3.0 / x, UOp.const(dtypes.float, 1.0), {x, y})
  for vx, vy in ((0.5, 2.0), (-2.0, 5.0), (3.0, -1.0)):
    at = {x: x.const_like(vx), y: y.const_like(vy)}
    # ssimplify evaluates what is left constant (sin and float products are kept for kernels by the simplifier)
    assert grads[x].substitute(at).ssimplify() == pytest.approx(math.cos(vx) * vy - 3.0 / vx ** 2, rel=1e-5)
    assert grads[y].substitute(at).ssimplify() == pytest.approx(math.sin(vx), rel=1e-5)
  with pytest.raises(ValueError, match="integer bounds"):
    UOp.variable("n", 0.5, 3)  # an int variable keeps integer bounds
