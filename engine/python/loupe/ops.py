"""tinygrad.ops, backed by Loupe's engine: `UOp` is the engine's own hash-consed node (building the same
UOp twice gives the same object while it lives, and a node reached from a Tensor's graph is the same
object as one built here), `UPat` becomes an engine pattern, and a `PatternMatcher`'s Python callbacks
run as engine rules inside the engine's `graph_rewrite`, where they combine with the engine's own rule
sets (`symbolic`) and are seen by a recording trace like any other rule.

The native class holds what the engine knows (op, dtype, src, arg, proven bounds, toposort); the sugar
tinygrad's UOp offers (operators, constructors, render, Variable helpers) is defined here on that class."""
from __future__ import annotations

import copyreg
import dataclasses
import functools
import inspect
import itertools
import math
import sys
from enum import Enum, IntEnum
from typing import Any, Callable, Optional, Union

from . import _loupe
from .helpers import TRACK_MATCH_STATS
from .dtype import ConstType, DType, dtypes

# DTypes travel in pickles (a pickled UOp holds its dtype) by their repr: dtypes.int, dtypes.float.vec(4).ptr()
def _dtype_from_repr(text: str) -> DType:
  if not text.startswith("dtypes."): raise ValueError(f"not a dtype: {text!r}")
  return eval(text, {"dtypes": dtypes})  # pylint: disable=eval-used


copyreg.pickle(DType, lambda d: (_dtype_from_repr, (repr(d),)))

# *** Ops and GroupOp: the engine's op list (ir/ops.h), tinygrad's names and order ***


class FastEnum(IntEnum):
  def __str__(self): return Enum.__str__(self)


Ops = FastEnum("Ops", [(name, i) for i, name in enumerate(_loupe._op_names())], module=__name__)
Ops.__qualname__ = "Ops"
_loupe._set_ops_enum(Ops)

_GROUP_BITS = {"Unary": 1, "Binary": 2, "Ternary": 4, "Commutative": 8, "Associative": 16, "Idempotent": 32,
               "Movement": 64, "Irreducible": 128, "Buffer": 256, "Block": 512, "UnsafePad": 1024, "Comparison": 2048}


class GroupOp:
  """Sets of ops by family, from the engine's op groups (Loupe's FLOORDIV, FLOORMOD and TRUNC included)."""


for _name, _bit in _GROUP_BITS.items():
  setattr(GroupOp, _name, {Ops(i) for i, g in enumerate(_loupe._op_groups()) if g & _bit})
GroupOp.ALU = GroupOp.Unary | GroupOp.Binary | GroupOp.Ternary
GroupOp.All = set(Ops)

syms = {Ops.ADD: "+", Ops.SUB: "-", Ops.IDIV: "//", Ops.MOD: "%", Ops.FLOORDIV: "//", Ops.FLOORMOD: "%", Ops.SHL: "<<",
        Ops.SHR: ">>", Ops.MUL: "*", Ops.CMPLT: "<", Ops.CMPNE: "!=", Ops.AND: "&", Ops.OR: "|", Ops.XOR: "^"}

sint = Union[int, "UOp"]
ConstLike = Union[ConstType, "UOp", tuple]

# *** math on UOps and UPats: tinygrad's operator semantics ***


class MathTrait:
  """Python operators building ALU nodes (or patterns): the methods tinygrad's UOp and UPat share."""
  def ufix(self, x): return self.const_like(x) if not isinstance(x, (MathTrait, _loupe.UOp)) else x
  def _binop(self, op, x, reverse): return self.ufix(x).alu(op, self) if reverse else self.alu(op, self.ufix(x))
  def logical_not(self): return self.ne(True)
  def neg(self):
    if (dtype := getattr(self, "dtype")) is None: raise TypeError(f"MathTraits __neg__ requires a dtype, {self=}")
    return self.logical_not() if dtype.scalar() == dtypes.bool else self * (-1)
  def add(self, x, reverse=False): return self._binop(Ops.ADD, x, reverse)
  def mul(self, x, reverse=False): return self._binop(Ops.MUL, x, reverse)
  def bitwise_and(self, x, reverse=False): return self._binop(Ops.AND, x, reverse)
  def bitwise_or(self, x, reverse=False): return self._binop(Ops.OR, x, reverse)
  def xor(self, x, reverse=False): return self._binop(Ops.XOR, x, reverse)
  def idiv(self, x, reverse=False): return self._binop(Ops.IDIV, x, reverse)
  def mod(self, x, reverse=False): return self._binop(Ops.MOD, x, reverse)
  def sub(self, x, reverse=False): return self.ufix(x).alu(Ops.ADD, -self) if reverse else self.alu(Ops.ADD, self.ufix(-x))
  def div(self, x, reverse=False): return (self.ufix(x) * self.alu(Ops.RECIP)) if reverse else (self * self.ufix(x).alu(Ops.RECIP))
  def __neg__(self): return self.neg()
  def __add__(self, x): return self.add(x)
  def __sub__(self, x): return self.sub(x)
  def __mul__(self, x): return self.mul(x)
  def __truediv__(self, x): return self.div(x)
  def __floordiv__(self, x): return self.idiv(x)
  def __mod__(self, x): return self.mod(x)
  def __and__(self, x): return self.bitwise_and(x)
  def __or__(self, x): return self.bitwise_or(x)
  def __xor__(self, x): return self.xor(x)
  def __radd__(self, x): return self.add(x, True)
  def __rsub__(self, x): return self.sub(x, True)
  def __rmul__(self, x): return self.mul(x, True)
  def __rtruediv__(self, x): return self.div(x, True)
  def __rfloordiv__(self, x): return self.idiv(x, True)
  def __rand__(self, x): return self.bitwise_and(x, True)
  def __ror__(self, x): return self.bitwise_or(x, True)
  def __rxor__(self, x): return self.xor(x, True)
  def __rmod__(self, x): return self.mod(x, True)
  def __lt__(self, x): return self.alu(Ops.CMPLT, self.ufix(x))
  def __gt__(self, x): return self.ufix(x).alu(Ops.CMPLT, self)
  def __ge__(self, x): return (self < x).logical_not()
  def __le__(self, x): return (self > x).logical_not()
  def ne(self, x): return self.alu(Ops.CMPNE, self.ufix(x))
  def eq(self, x): return self.ne(x).logical_not()
  def __ne__(self, x): return self.ne(x)
  # __eq__ stays identity, as in tinygrad: equal structure is the same node
  def lshift(self, x, reverse=False): return self._binop(Ops.SHL, x, reverse)
  def rshift(self, x, reverse=False): return self._binop(Ops.SHR, x, reverse)
  def __lshift__(self, x): return self.lshift(x)
  def __rshift__(self, x): return self.rshift(x)
  def __rlshift__(self, x): return self.lshift(x, True)
  def __rrshift__(self, x): return self.rshift(x, True)
  def maximum(self, x): return self.alu(Ops.MAX, self.ufix(x))
  def minimum(self, x): return -(-self).maximum(-x)
  def where(self, x, y): return self.alu(Ops.WHERE, x, x.ufix(y))
  def threefry(self, seed): return self.alu(Ops.THREEFRY, seed)
  def reciprocal(self): return self.alu(Ops.RECIP)
  def sqrt(self): return self.alu(Ops.SQRT)
  def sin(self): return self.alu(Ops.SIN)
  def log2(self): return self.alu(Ops.LOG2)
  def exp2(self): return self.alu(Ops.EXP2)
  def pow(self, x): return self.alu(Ops.POW, self.ufix(x))


# *** UOp: the engine's node with tinygrad's methods ***

UOp = _loupe.UOp
Variable = UOp


def _uop_new(cls, op: Ops, dtype: DType = dtypes.void, src: tuple = tuple(), arg: Any = None):
  if op is Ops.DEFINE_VAR and isinstance(arg, tuple) and len(arg) == 3 and isinstance(arg[1], bool) and isinstance(arg[2], bool):
    arg = (arg[0], int(arg[1]), int(arg[2]))  # a bool variable's bounds: the engine keeps integer bounds
  if op is Ops.RANGE and len(src) == 2:
    # tinygrad's RANGE(start, end); the engine's counts from 0: RANGE(end)
    if not (src[0].op is Ops.CONST and src[0].arg == 0):
      raise NotImplementedError("a RANGE that does not start at 0 has no meaning in Loupe (its RANGE counts from 0 to its one source)")
    src = src[1:]
  if op is Ops.SPECIAL and isinstance(arg, tuple) and len(arg) == 2 and not src:
    # tinygrad's SPECIAL(arg=(name, size)); the engine's is SPECIAL(size) named by its arg
    return UOp._make(op, dtype, (sint_to_uop(arg[1], dtype),), arg[0])
  return UOp._make(op, dtype, src, arg)


UOp.__new__ = _uop_new
UOp.__init__ = lambda self, *args, **kwargs: None
for _name, _fn in vars(MathTrait).items():
  if callable(_fn): setattr(UOp, _name, _fn)


# These put a function on the UOp class; the module-level name they leave (None) is removed below, so a
# method named `range` or `vars` does not hide the builtin.
def _uop_method(fn):
  setattr(UOp, fn.__name__, fn)


def _uop_static(fn):
  setattr(UOp, fn.__name__, staticmethod(fn))


def _uop_property(fn):
  setattr(UOp, fn.__name__, property(fn))


@_uop_method
def replace(self, **kwargs) -> UOp:
  new = (kwargs.pop("op", self.op), kwargs.pop("dtype", self.dtype), kwargs.pop("src", self.src), kwargs.pop("arg", self.arg))
  if kwargs: raise TypeError(f"unused kwargs in replace {list(kwargs)}")
  return UOp(*new)


@_uop_method
def __reduce__(self): return UOp, (self.op, self.dtype, self.src, self.arg)


@_uop_method
def argstr(self): return f'({", ".join(map(str, self.arg))})' if self.op is Ops.REDUCE_AXIS else repr(self.arg)


def pretty_print(x: Any, rep: Callable, srcfn=lambda x: x.src, cache=None, d=0) -> str:
  def dfs(x: Any, cache: dict):
    for s in srcfn(x) or []:
      cache.setdefault(s, [len(cache), 0, False])[1] += 1
      if cache[s][1] == 1: dfs(s, cache)
  if cache is None: dfs(x, cache := {})
  if (cx := cache.setdefault(x, [0, 0, False]))[2]: return f"{' ' * d} x{cx[0]}"
  cx[2], srcs = True, ("None" if srcfn(x) is None else "".join(f"\n{pretty_print(s, rep, srcfn, cache, d + 2)}," for s in srcfn(x)))
  return f"{' ' * d}{f'x{cx[0]}:=' * (cx[1] > 1)}{rep(x)}" % srcs


@_uop_method
def __repr__(self): return pretty_print(self, lambda x: f"{type(self).__name__}({x.op}, {x.dtype}, arg={x.argstr()}, src=(%s))")


@_uop_method
def sink(self, *srcs): return UOp(Ops.SINK, dtypes.void, (self,) + srcs)


@_uop_method
def detach(self): return UOp(Ops.DETACH, self.dtype, (self,))


@_uop_method
def index(self, idx, valid=None): return UOp(Ops.INDEX, self.dtype, (self, idx, valid) if valid is not None else (self, idx))


@_uop_method
def const_like(self, b): return UOp.const(self.dtype, b)


@_uop_method
def broadcast(self, count: int):
  if self.dtype.count != 1: raise ValueError(f"broadcast of a vector {self.dtype}")
  return self if count == 1 else UOp(Ops.VECTORIZE, self.dtype.vec(count), (self,) * count)


@_uop_method
def cast(self, dtype: DType): return self if self.dtype == dtype else UOp(Ops.CAST, dtype, (self,))


@_uop_method
def bitcast(self, dtype: DType): return self if self.dtype == dtype else UOp(Ops.BITCAST, dtype, (self,))


@_uop_method
def gep(self, i):
  if isinstance(i, int):
    if self.op is Ops.VECTORIZE: return self.src[i]
    if self.op is Ops.VCONST: return UOp.const(self.dtype.scalar(), self.arg[i])
    if self.op is Ops.CONST: return UOp.const(self.dtype.scalar(), self.arg)
    i = (i,)
  if (self.dtype.count == len(i) and i == tuple(range(len(i)))) or self.dtype == dtypes.void: return self
  return UOp(Ops.GEP, self.dtype.scalar().vec(len(i)) if len(i) > 1 else self.dtype.scalar(), (self,), i)


@_uop_method
def load(self, *src, **kwargs): return UOp(Ops.LOAD, src=(self,) + src, **kwargs)


@_uop_method
def store(self, *src, **kwargs): return UOp(Ops.STORE, dtypes.void, (self,) + src, **kwargs)


@_uop_method
def alu(self, arg, *src):
  out_dtype = (self, *src)[-1].dtype
  if arg in (Ops.CMPLT, Ops.CMPNE): out_dtype = dtypes.bool.vec(out_dtype.count) if out_dtype.count > 1 else dtypes.bool
  return UOp(arg, out_dtype, (self,) + src)


def _all_same(xs): return all(x == xs[0] for x in xs)


@_uop_static
def const(dtype: DType, b):
  if isinstance(b, UOp): return b.unbind()[0] if b.op is Ops.BIND else b
  if isinstance(b, tuple) and _all_same(b): b = b[0]
  return UOp(Ops.VCONST if isinstance(b, tuple) else Ops.CONST, dtype, arg=b)


@_uop_static
def range(dtype: DType, start, end, idx: int):  # noqa: A001
  if not (isinstance(start, int) and start == 0):
    raise NotImplementedError("UOp.range: Loupe's RANGE counts from 0 (its only source is the end); a start other than 0 has no meaning here")
  return UOp(Ops.RANGE, dtype, (sint_to_uop(end, dtype),), idx)


@_uop_method
def assign(self, x): return UOp(Ops.ASSIGN, self.dtype, (self, x))


@_uop_method
def contiguous(self): return self.alu(Ops.CONTIGUOUS)


@_uop_static
def variable(name: str, min_val, max_val, dtype: DType = dtypes.int):
  if isinstance(min_val, UOp) or isinstance(max_val, UOp): raise TypeError(f"can't create Variable {name} with {min_val}/{max_val}")
  return UOp(Ops.DEFINE_VAR, dtype, arg=(name, min_val, max_val))


@_uop_property
def expr(self):
  if self.op is not Ops.DEFINE_VAR: raise AssertionError(f"op is {self.op}, need DEFINE_VAR")
  return self.arg[0]


@_uop_method
def bind(self, val: int):
  if self.op is not Ops.DEFINE_VAR: raise AssertionError(f"op is {self.op}, need DEFINE_VAR")
  if not (self.arg[1] <= val <= self.arg[2]): raise AssertionError(f"bind {val} not in range [{self.arg[1]}, {self.arg[2]}]")
  return UOp(Ops.BIND, self.dtype, (self, self.const_like(val)))


@_uop_method
def unbind(self):
  if not (self.op is Ops.BIND and self.src[0].op is Ops.DEFINE_VAR and self.src[1].op is Ops.CONST):
    raise AssertionError(f"can't unbind {self}")
  return self.src[0], self.src[1].arg


@_uop_property
def val(self): return self.unbind()[1]


@_uop_method
def vars(self):
  bound = {x for x in self.toposort if x.op is Ops.BIND and x.src[0].op is Ops.DEFINE_VAR}
  bound_base = {x.src[0] for x in bound}
  return bound | {x for x in self.toposort if x.op is Ops.DEFINE_VAR and x not in bound_base}


@_uop_method
def variables(self):
  return sorted({x.unbind()[0] if x.op is not Ops.DEFINE_VAR else x for x in self.vars()}, key=lambda v: v.arg)


@_uop_method
def is_increasing(self) -> bool:
  if self.op in GroupOp.Irreducible: return True
  if self.op is Ops.ADD: return self.src[0].is_increasing() and self.src[1].is_increasing()
  if self.op in (Ops.MUL, Ops.IDIV, Ops.FLOORDIV) and self.src[1].op is Ops.CONST and self.src[1].arg >= 0: return self.src[0].is_increasing()
  return False


@_uop_property
def vmin(self): return self._min_max[0]


@_uop_property
def vmax(self): return self._min_max[1]


@_uop_method
def simplify(self):
  """The engine's symbolic simplifier (engine/symbolic), tinygrad's IDIV/MOD of non-negatives read as floor ones."""
  return graph_rewrite(self, symbolic, name="simplify")


@_uop_method
def ssimplify(self):
  """The simplified expression, or its value where it is a constant: a number also where the simplifier leaves
  constant float arithmetic for kernels to compute (products kept for contraction, transcendentals left to
  the device's approximations), evaluated here with the engine's constant folding as tinygrad's folds it."""
  if (ret := self.simplify()).op is Ops.CONST: return ret.arg
  value = _const_value(ret, {})
  return ret if value is None else value


def _const_value(u: UOp, done: dict):
  """The value of a graph of constants and ALU ops, computed with the engine's constant folding (None when
  it holds anything else). The simplifier leaves some float constant arithmetic for the compiler's
  contraction (9.0*0.25 stays a product), which float(u) still evaluates."""
  if u in done: return done[u]
  if u.op is Ops.CONST: v = u.arg
  elif u.op in GroupOp.ALU and all((x := _const_value(s, done)) is not None for s in u.src):
    v = exec_alu(u.op, u.dtype, [done[s] for s in u.src])
  else: v = None
  done[u] = v
  return v


def _eval(self, dts, expected_type):
  if self.dtype not in dts and self.dtype.scalar() not in dts: raise AssertionError(f"eval with wrong dtype {self}")
  vmin, vmax = (simple := self.simplify())._min_max
  if vmin != vmax and (v := _const_value(simple, {})) is not None: vmin = vmax = v
  if vmin != vmax: raise ValueError(f"eval failed to be a single number, range is {vmin} to {vmax} in {simple.render()}")
  if not isinstance(vmin, expected_type): raise AssertionError(f"vmin is wrong dtype {type(vmin)} != {expected_type}")
  return vmin


UOp._eval = _eval
UOp.__bool__ = lambda self: _eval(self, (dtypes.bool,), bool)
UOp.__int__ = lambda self: _eval(self, dtypes.ints, int)
UOp.__float__ = lambda self: _eval(self, dtypes.floats, float)


@_uop_method
def substitute(self, dvars: dict): return _loupe._substitute(self, dvars)


def _render_node(u: UOp, done: dict):
  if (r := done.get(u)) is not None: return r
  s = [_render_node(x, done) for x in u.src]
  if any(x is None for x in s): r = None
  elif u.op is Ops.DEFINE_VAR: r = u.arg[0]
  elif u.op is Ops.SPECIAL: r = u.arg if isinstance(u.arg, str) else u.arg[0]
  elif u.op is Ops.RANGE: r = f"ridx{u.arg}"
  elif u.op is Ops.CONST: r = str(u.arg)
  elif u.op is Ops.BIND: r = s[0]
  elif u.op is Ops.NEG: r = f"(-{s[0]})"
  elif u.op is Ops.MAX: r = f"max({s[0]}, {s[1]})"
  elif u.op is Ops.MULACC: r = f"({s[0]}*{s[1]}+{s[2]})"
  elif u.op is Ops.WHERE: r = f"({s[1]} if {s[0]} else {s[2]})"
  elif u.op in syms and len(s) == 2: r = f"({s[0]}{syms[u.op]}{s[1]})"
  else: r = None
  done[u] = r
  return r


@_uop_method
def render(self, simplify=True) -> str:
  """tinygrad's text form of an index expression: `((a*4)+b)`, `(a<8)`, `max(a, b)`, `(x if c else y)`."""
  node = self.simplify() if simplify else self
  r = _render_node(node, {})
  return r if r is not None else str(node)


@functools.lru_cache(None)
def _sym_fxn_of(u: UOp):
  s = u.simplify()
  names = tuple(x.arg[0] for x in s.toposort if x.op is Ops.DEFINE_VAR)
  text = s.render(simplify=False)
  return eval("lambda " + ",".join(names) + ": " + text), names  # pylint: disable=eval-used


@_uop_method
def sym_infer(self, var_vals: dict):
  fxn, names = _sym_fxn_of(self)
  return fxn(**{k.arg[0]: v for k, v in var_vals.items() if k.arg[0] in names})


# the names the decorators above left bound to None (they live on the UOp class): gone, so that `range`
# and `vars` are the builtins again in this module
for _name in [n for n, v in list(globals().items()) if v is None and not n.startswith("__") and hasattr(UOp, n)]:
  del globals()[_name]


def resolve(x, default: bool = True):
  """A bool UOp's value when the simplifier proves it, else `default` (plain bools pass through)."""
  if isinstance(x, bool): return x
  if x.dtype != dtypes.bool: raise AssertionError("UOp in resolve must be bool")
  return bool(sx.vmin) if (sx := x.simplify()).vmin == sx.vmax else default


def ssimplify(uop): return uop.ssimplify() if isinstance(uop, UOp) else uop


def _suop(lst, uop_fxn, python_fxn):
  uops = [x for x in lst if isinstance(x, UOp)]
  nums = [x for x in lst if not isinstance(x, UOp)]
  return ssimplify(functools.reduce(uop_fxn, uops + ([python_fxn(nums)] if nums else [])))


def _argfix(*x):
  if x and x[0].__class__ in (tuple, list):
    if len(x) != 1: raise ValueError(f"bad arg {x}")
    return tuple(x[0])
  return x


def smax(*lst): return _suop(_argfix(*lst), UOp.maximum, max)
def smin(*lst): return _suop(_argfix(*lst), UOp.minimum, min)
def sym_infer(uop, var_vals: dict) -> int: return uop.sym_infer(var_vals) if isinstance(uop, UOp) else uop
def sint_to_uop(x, dtype: DType = dtypes.int): return UOp.const(dtype, x) if isinstance(x, int) else x


def print_uops(uops: list) -> None:
  for i, u in enumerate(uops):
    formatted_parents = [(uops.index(x) if x.op is not Ops.CONST else f"{x.arg}") if x in uops else "--" for x in u.src]
    print(f"{i:4d} {str(u.op):20s}: {str(u.dtype):30s} " f"{str(formatted_parents):32s} {u.arg}")


def exec_alu(op: Ops, dtype: DType, operands, truncate_output=True):
  """One ALU op on Python numbers, with the engine's constant-folding semantics (engine/ir/alu_eval):
  integers wrap to the dtype, floats round to it, IDIV/MOD truncate like C. None when undefined."""
  if dtype.count > 1: return tuple(exec_alu(op, dtype.scalar(), [x[i] if isinstance(x, tuple) else x for x in operands]) for i in range(dtype.count))
  return _loupe._exec_alu(op, dtype, list(operands))


# *** UPat and PatternMatcher: Python patterns and callbacks run by the engine ***


def get_location() -> tuple[str, int]:
  frm = sys._getframe(1)
  # the first frame outside this module and the pattern's own helpers
  while frm.f_back is not None and frm.f_code.co_filename == __file__: frm = frm.f_back
  return frm.f_code.co_filename, frm.f_lineno


_INDEX_DTYPE = _loupe.dtype_named("weakint")


class UPat(MathTrait):
  """A pattern: op(s), dtype(s), sources (a tuple: in order; a list: in any order; one UPat: every source),
  an arg, a name the callback receives the node under, and allow_any_len (the sources are a prefix)."""
  __slots__ = ("op", "dtype", "arg", "name", "src", "_in_src", "allowed_len", "location", "custom_early_reject", "early_reject", "_natives")

  def __init__(self, op=None, dtype=None, src=None, arg=None, name: Optional[str] = None, allow_any_len: bool = False,
               location=None, custom_early_reject=None):
    if not (op is None or isinstance(op, (Ops, tuple, set))): raise TypeError(f"UPat op must be an Ops or a tuple/set of Ops, got {op!r}")
    self.op = (op,) if isinstance(op, Ops) else (tuple(op) if isinstance(op, set) else op)
    self.dtype = (dtype,) if isinstance(dtype, DType) else (tuple(dtype) if isinstance(dtype, set) else dtype)
    self.arg, self.name, self._in_src, self.custom_early_reject = arg, name, src, custom_early_reject
    if self.name == "ctx": raise ValueError("UPat can't be named ctx")
    if src is not None and not isinstance(src, (list, tuple, UPat)):
      raise TypeError(f"UPat src must be a tuple, a list or a UPat, got {type(src).__name__}")
    self.src = None
    if isinstance(src, list): self.src = list(itertools.permutations(src)) if not _all_same(src) else [src]
    elif isinstance(src, tuple): self.src = [src]
    elif isinstance(src, UPat): self.src = [itertools.repeat(src)]
    self.allowed_len = -1 if allow_any_len or isinstance(src, UPat) or src is None else len(src)
    self.location = location or get_location()
    if custom_early_reject is not None: self.early_reject = custom_early_reject
    else:
      first = [src] if isinstance(src, UPat) else ([] if src is None else list(src))
      self.early_reject = {pp.op[0] for pp in first if pp.op is not None and len(pp.op) == 1}
    self._natives = None

  def named(self, name: str): return UPat(self.op, self.dtype, self._in_src, self.arg, name, self.allowed_len == -1, self.location,
                                         self.custom_early_reject)

  @staticmethod
  def any(*src): return UPatAny(src=src)

  @staticmethod
  @functools.lru_cache(None)
  def var(name: Optional[str] = None, dtype=None): return UPat(dtype=dtype, name=name)

  @staticmethod
  @functools.lru_cache(None)
  def cvar(name: Optional[str] = None, dtype=None, vec=True): return UPat((Ops.CONST, Ops.VCONST) if vec else Ops.CONST, dtype, name=name)

  @staticmethod
  def const(dtype, b): return UPat(Ops.CONST, dtype=dtype, arg=b)

  def index(self, idx, valid=None): return UPat(Ops.INDEX, self.dtype, (self, idx, valid) if valid is not None else (self, idx))
  def view(self, st=None, **kwargs): return UPat(Ops.VIEW, self.dtype, (self,), st, **kwargs)
  def cast(self, dtype=None): return UPat(Ops.CAST, dtype, (self,))
  def bitcast(self, dtype=None): return UPat(Ops.BITCAST, dtype, (self,))
  def gep(self, i: int): return UPat(Ops.GEP, None, (self,), (i,))
  def load(self, *src, **kwargs): return UPat(Ops.LOAD, src=(self,) + src, **kwargs)
  def store(self, *src, **kwargs): return UPat(Ops.STORE, dtypes.void, (self,) + src, **kwargs)
  def assign(self, x): return UPat(Ops.ASSIGN, self.dtype, (self, x))
  def const_like(self, b): return UPat.const(self.dtype, b)

  def alu(self, op, *src):
    asrc = (self,) + src
    return UPat(op, dtypes.bool if op in (Ops.CMPLT, Ops.CMPNE) else asrc[-1].dtype, list(asrc) if op in GroupOp.Commutative else asrc)

  def printable(self) -> str:
    try:
      with open(self.location[0]) as f: return f.readlines()[self.location[1] - 1].strip()
    except (FileNotFoundError, IndexError): return "<missing>"

  def __repr__(self):
    def rep(x):
      form = "UPat(%s, %s, name=%s, dtype=%s, allow_any_len=%s, src=%s)"
      return form % (None if x.op is None else ("(%s)" % ", ".join(map(str, x.op))), x.arg, repr(x.name),
                     set(x.dtype) if x.dtype else None, x.allowed_len == 0, "[%s]" if x.src and len(x.src) > 1 else "(%s)")
    return pretty_print(self, rep, srcfn=lambda x: None if x.src is None else [next(x.src[0])] if isinstance(x.src[0], itertools.repeat) else x.src[0])

  # The engine patterns this pattern stands for: one, or one per alternative of the UPat.any inside it.
  def _native_alternatives(self) -> list:
    if self._natives is not None: return self._natives
    src = self._in_src
    if src is None: kind, options = "none", [[]]
    elif isinstance(src, UPat): kind, options = "repeated", [[s] for s in src._native_alternatives()]
    else:
      kind = "permuted" if isinstance(src, list) and len(src) > 1 and not _all_same(src) else "ordered"
      options = [list(c) for c in itertools.product(*[s._native_alternatives() for s in src])]
    ops = None if self.op is None else list(self.op)
    dts = None if self.dtype is None else list(self.dtype)
    # a rewrite with the engine's symbolic rules sees int32 nodes as the engine's index dtype (see
    # graph_rewrite): a pattern for int32 matches those too
    if dts is not None and dtypes.int32 in dts: dts.append(_INDEX_DTYPE)
    # and sees tinygrad's // and % as the floor ops
    if ops is not None:
      ops += [f for t, f in ((Ops.IDIV, Ops.FLOORDIV), (Ops.MOD, Ops.FLOORMOD)) if t in ops and f not in ops]
    self._natives = [_loupe._upat(ops, dts, kind, o, self.arg, self.name, self.allowed_len == -1 and src is not None and not isinstance(src, UPat))
                     for o in options]
    return self._natives

  def match(self, uop, store: dict) -> list:
    """Every binding of this pattern's names on `uop` (as tinygrad's UPat.match), found by the engine."""
    found = []
    def collect(**kw):
      found.append({**store, **kw})
      return None  # declining makes the engine try the next binding
    PatternMatcher([(self if self.op is not None else UPat(tuple(Ops), src=self._in_src, name="__root"), collect)]).rewrite(uop)
    return [{k: v for k, v in f.items() if k != "__root"} for f in found if all(f[k] is v for k, v in store.items() if k in f)]


class UPatAny(UPat):
  """Any of several patterns (UPat.any): the engine tries each alternative as a rule of its own, in order."""
  def _native_alternatives(self) -> list:
    if self._natives is None: self._natives = [n for s in self._in_src for n in s._native_alternatives()]
    return self._natives


def _takes_ctx(fxn) -> bool:
  try: return "ctx" in inspect.signature(fxn).parameters
  except (TypeError, ValueError): return False


def _rule_name(p: UPat, fxn) -> str:
  """A rule's name in traces: its callback's name, or for a lambda the pattern's file:line."""
  fname = getattr(fxn, "__name__", "rule")
  if fname != "<lambda>": return fname
  return f"{p.location[0].rsplit('/', 1)[-1]}:{p.location[1]}"


@functools.lru_cache(None)
def _source_lines(file: str) -> tuple:
  try:
    with open(file) as f: return tuple(f.read().splitlines())
  except OSError: return ()


def _rule_text(p: UPat, fxn) -> str:
  """The rule as written: for a lambda just after its UPat (a rule's tuple), the lines from the UPat through
  the lambda; otherwise the UPat's line and the callback's own source."""
  lines = _source_lines(p.location[0])
  if not lines or p.location[1] > len(lines): return ""
  first = p.location[1] - 1
  code = getattr(fxn, "__code__", None)
  if code is not None and fxn.__name__ == "<lambda>" and code.co_filename == p.location[0] and 0 <= code.co_firstlineno - 1 - first < 30:
    last = max([ln for _, _, ln in code.co_lines() if ln is not None] + [code.co_firstlineno])
    return "\n".join(lines[first:last]).strip()
  text = lines[first].strip()
  try: text += "\n" + inspect.getsource(fxn).rstrip()
  except (OSError, TypeError): pass
  return text


class PatternMatcher:
  """Rules (UPat, callback) in order: the first callback that returns a UOp wins. Built into an engine rule
  set on first use; `+` joins matchers (and Loupe's own rule sets, e.g. `symbolic + PatternMatcher([...])`)."""
  def __init__(self, patterns: list, _native=None, _index_math=False, _keep=()):
    self.patterns = list(patterns)
    self._keep = list(_keep)  # what keeps the engine rules' Python callbacks alive (the rules hold them weakly)
    # holds the engine's symbolic rules, which fold integer math in the engine's index dtype: a rewrite
    # with it reads int32 nodes as index math and gives them back as int32 (tinygrad's int symbolic)
    self._index_math = _index_math
    for p, fxn in self.patterns:
      if not isinstance(p, UPat): raise TypeError(f"a PatternMatcher rule is (UPat, callable), got {type(p).__name__} first")
      if p.op is None: raise ValueError(f"a PatternMatcher rule's UPat must name its op(s): {p!r}")
      if not callable(fxn): raise TypeError(f"a PatternMatcher rule's callback must be callable, got {type(fxn).__name__}")
    self._built = _native

  def _native(self):
    if self._built is None:
      rules = []
      for p, fxn in self.patterns:
        file, line = p.location
        name = _rule_name(p, fxn)
        text = _rule_text(p, fxn)
        for n in p._native_alternatives(): rules.append((n, fxn, _takes_ctx(fxn), name, file, line, text))
      self._built, keep = _loupe._pattern_matcher(rules)
      self._keep.append(keep)
    return self._built

  def __add__(self, more: PatternMatcher) -> PatternMatcher:
    return PatternMatcher(self.patterns + more.patterns, self._native() + more._native(), self._index_math or more._index_math,
                          self._keep + more._keep)

  def __len__(self): return len(self._native())

  def explain(self, uop, run_callbacks: bool = True) -> list:
    """Why each rule tried on `uop` fires or not (the engine's Why not?): one dict per rule, in order, with
    its name, file, line, verdict (fires, declined, no match, shadowed, not run) and the reason (where
    the pattern stopped matching). Callbacks run with no ctx."""
    return self._native().explain(uop, run_callbacks)

  def rewrite(self, uop, ctx=None):
    """The first rule's replacement of `uop` itself (no traversal), or None."""
    return self._native().rewrite(uop, ctx)


def engine_rules(name: str) -> PatternMatcher:
  """One of the engine's own rule sets as a PatternMatcher: symbolic_simple, symbolic, symbolic_flat."""
  return PatternMatcher([], _loupe._engine_rules(name), name.startswith("symbolic"))


_trunc_to_floor = engine_rules("trunc_to_floor")
symbolic_simple = _trunc_to_floor + engine_rules("symbolic_simple")
symbolic = _trunc_to_floor + engine_rules("symbolic")
symbolic_flat = _trunc_to_floor + engine_rules("symbolic_flat")


def _caller(depth: int = 2) -> tuple:
  """The file and line of the first frame outside Loupe's Python package (the user's call)."""
  frm = sys._getframe(depth)
  here = __file__.rsplit("/", 1)[0]
  while frm.f_back is not None and frm.f_code.co_filename.startswith(here): frm = frm.f_back
  return frm.f_code.co_filename, frm.f_lineno


def graph_rewrite(sink, pm: PatternMatcher, ctx=None, bottom_up=False, name=None):
  """The engine's graph_rewrite of `sink` with `pm`: a pass a recording trace shows under `name` (by default
  the caller's file:line), located at the caller's line. A callback's exception propagates unchanged, and
  the engine stays usable."""
  file, line = _caller()
  name = name or f"{file.rsplit('/', 1)[-1]}:{line}"
  if not pm._index_math: return _loupe._graph_rewrite(sink, pm._native(), ctx, bottom_up, name, file, line)
  # the symbolic rules fold int32 as the engine's index math, and tinygrad's // and % as floor ops: a graph
  # built with tinygrad's ops (no floor ops of its own) gets int32 and IDIV/MOD back, as tinygrad's would
  tinygrad_ops = not _loupe._has_floor_ops(sink)
  out = _loupe._graph_rewrite(_loupe._as_index_math(sink, True), pm._native(), ctx, bottom_up, name, file, line)
  return _loupe._as_index_math(out, False, tinygrad_ops)


def graph_rewrite_map(sink, pm: PatternMatcher, ctx=None, bottom_up=False, name=None) -> dict:
  file, line = _caller()
  return _loupe._graph_rewrite_map(sink, pm._native(), ctx, bottom_up, name or f"{file.rsplit('/', 1)[-1]}:{line}", file, line)


# tinygrad's substitution rule set: graph_rewrite(x, _substitute, ctx={old: new}, bottom_up=True)
_substitute = PatternMatcher([(UPat(tuple(Ops), name="x"), lambda ctx, x: ctx.get(x, None))])


@dataclasses.dataclass(frozen=True)
class KernelInfo:
  """tinygrad's description of a hand-built kernel's axes (a SINK's arg there). Loupe's kernels carry their axes
  in the Kernel (codegen/kernel.h), so a UOp does not take one as its arg."""
  name: str = "test"
  local_dims: int = 0
  upcasted: int = 0
  dont_use_locals: bool = False


class Refused:
  """A tinygrad name for a part of its compiler that Loupe's engine does its own way (a rule set with the
  scheduler's state, a verifier Loupe does not have as rules). It imports, so a program or test file that
  names it loads; using it raises NotImplementedError saying what Loupe does instead."""

  def __init__(self, name: str, why: str): self.__dict__["_what"] = f"{name} has no counterpart in Loupe: {why}"
  def _refuse(self, *args, **kwargs): raise NotImplementedError(self._what)
  __call__ = __add__ = __radd__ = __iter__ = _refuse

  def __getattr__(self, attr: str):
    if attr.startswith("__"): raise AttributeError(attr)
    raise NotImplementedError(self._what)

  def __repr__(self) -> str: return f"<{self._what}>"


_SCHEDULER_RULES = "the scheduler turns movement ops into views with its own rules (schedule/schedule.cpp), which need its shape state"
merge_views = Refused("tinygrad.ops.merge_views", _SCHEDULER_RULES)


def track_rewrites(named=False):
  """tinygrad groups a function's rewrites for VIZ. Loupe records every rewrite while a trace records
  (`loupe-cli run --trace`, VIZ=1), grouped by pass, so the function runs as it is."""
  def _decorator(func):
    @functools.wraps(func)
    def __wrapper(*args, **kwargs): return func(*args, **kwargs)
    return __wrapper
  return _decorator


__all__ = ["Ops", "GroupOp", "UOp", "UPat", "UPatAny", "PatternMatcher", "graph_rewrite", "graph_rewrite_map", "Variable", "sint",
           "resolve", "smax", "smin", "ssimplify", "sym_infer", "symbolic", "symbolic_simple", "symbolic_flat", "track_rewrites",
           "print_uops", "pretty_print", "sint_to_uop", "syms", "engine_rules", "MathTrait", "exec_alu", "KernelInfo", "Refused",
           "merge_views", "TRACK_MATCH_STATS"]

# tinygrad.ops names with no meaning in Loupe: importing one says why, rather than a silent stand-in
_NOT_IN_LOUPE = {
  "TrackedPatternMatcher": "every PatternMatcher is observed by Loupe's traces; there is no separate tracked kind",
  "TrackedGraphRewrite": "a trace's passes (engine/trace) hold what tinygrad's TrackedGraphRewrite does",
  "tracked_keys": "a trace's contexts (engine/trace) hold what tinygrad's tracked_keys does",
  "tracked_ctxs": "a trace's passes (engine/trace) hold what tinygrad's tracked_ctxs does",
  "launch_viz": "Loupe's viewer is the Loupe app (VIZ=1 opens it at exit)",
  "match_stats": "the rule profiler of a trace (loupe-cli trace FILE --rules) holds the match statistics",
  "buffers": "Loupe keeps device buffers in its engine, not in a table keyed by UOps",
  "all_metadata": "Loupe keeps each node's provenance in the engine (a Tensor op's file:line), not in a table keyed by UOps",
}


def __getattr__(name: str):
  if name in _NOT_IN_LOUPE: raise ImportError(f"tinygrad.ops.{name} has no meaning in Loupe: {_NOT_IN_LOUPE[name]}")
  raise AttributeError(f"module 'tinygrad.ops' (Loupe) has no attribute '{name}'")
