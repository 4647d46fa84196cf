"""A user's rewrite rule next to Loupe's symbolic rules (issue 44): tinygrad's symbolic simplifier gained
`x ^ (x ^ y) -> y` (XOR cancels against itself). Here the rule is written as it would be in tinygrad, joined
to the symbolic rules (`sym`) and applied to a few index expressions. Run it traced and open the trace:

  loupe-cli run resources/examples/xor_rule.py --trace xor.loupe     (or VIZ=1 python3 xor_rule.py)

The rule shows up in the trace under its file:line with its text; on `a ^ (b ^ c)` it does not fire: the
inner XOR shares no operand with the outer one."""
from tinygrad.codegen.devectorizer import sym
from tinygrad.ops import Ops, PatternMatcher, UOp, UPat, graph_rewrite

xor_cancel = PatternMatcher([
  # y ^ (y ^ x) -> x, in any operand order
  (UPat(Ops.XOR, src=[UPat.var("y"), UPat(Ops.XOR, src=[UPat.var("y"), UPat.var("x")])]), lambda y, x: x),
])

a, b, c = UOp.variable("a", 0, 15), UOp.variable("b", 0, 15), UOp.variable("c", 0, 15)
expressions = {
  "a ^ (a ^ b)": a ^ (a ^ b),
  "((b ^ a) ^ a) * 1 + 0": ((b ^ a) ^ a) * 1 + 0,
  "(a ^ (c ^ a)) // 1 + b * 0": (a ^ (c ^ a)) // 1 + b * 0,
  "a ^ (b ^ c)  (no shared operand)": a ^ (b ^ c),
}
for text, e in expressions.items():
  print(f"{text:40s} -> {graph_rewrite(e, sym + xor_cancel, name=text).render(simplify=False)}")
