"""Programs from Python: a kernel built from UOps by hand, rendered, compiled and run on Buffers
(tinygrad.engine.realize.CompiledRunner over the engine's Program), a schedule lowered to the kernels the
engine compiled for it (lower_schedule), and the tinygrad names Loupe refuses on use rather than at import."""
import numpy as np
import pytest

from tinygrad import Tensor, Variable, dtypes
from tinygrad.codegen.devectorizer import full_graph_rewrite
from tinygrad.codegen.kernel import Kernel, Opt, OptOps
from tinygrad.codegen.linearize import linearize_uop
from tinygrad.device import Buffer, Device
from tinygrad.engine.realize import BufferCopy, CompiledRunner, ExecItem, get_kernel, lower_schedule, run_schedule
from tinygrad.ops import Ops, UOp
from tinygrad.renderer import Estimates, ProgramSpec


def program(stores: list, device: str = "CPU", name: str = "test") -> ProgramSpec:
  renderer = Device[device].renderer
  uops = linearize_uop(full_graph_rewrite(UOp.sink(*stores), opts=renderer))
  return ProgramSpec(name, renderer.render(uops, name=name), device, None, uops=uops, global_size=[1, 1, 1], local_size=[1, 1, 1])


def buffer(values, dtype=dtypes.float32, device="CPU") -> Buffer:
  from tinygrad.tensor import _to_np_dtype
  arr = np.array(values, dtype=_to_np_dtype(dtype))
  return Buffer(device, arr.size, dtype).allocate().copyin(memoryview(arr.tobytes()))


def read(buf: Buffer):
  return buf.numpy()


def elementwise_program(op, n: int):
  """out[i] = op(a[i], b[i]) over a RANGE of n: a kernel with a loop, built by hand."""
  out, a, b = (UOp(Ops.DEFINE_GLOBAL, dtypes.float.ptr(), (), i) for i in range(3))
  i = UOp.range(dtypes.int32, 0, n, 0)
  value = op(UOp(Ops.LOAD, dtypes.float, (a.index(i),)), UOp(Ops.LOAD, dtypes.float, (b.index(i),)))
  return program([UOp(Ops.STORE, dtypes.void, (out.index(i), value))])


@pytest.mark.parametrize("device", ["CPU", "LLVM", "INTERP"])
def test_hand_built_kernel_runs_on_buffers(device):
  out, a = (UOp(Ops.DEFINE_GLOBAL, dtypes.float.ptr(), (), i) for i in range(2))
  zero = UOp.const(dtypes.int32, 0)
  store = UOp(Ops.STORE, dtypes.void, (out.index(zero), UOp(Ops.LOAD, dtypes.float, (a.index(zero),)).sqrt()))
  runner = CompiledRunner(program([store], device))
  o, x = buffer([0.0], device=device), buffer([9.0], device=device)
  assert runner.exec([o, x]) >= 0 and read(o).tolist() == [3.0]
  x.copyin(memoryview(np.array([16.0], dtype=np.float32).tobytes()))
  ExecItem(runner, [o, x]).run()
  assert read(o).tolist() == [4.0]


def test_hand_built_loop_against_numpy():
  rng = np.random.default_rng(0)
  av, bv = rng.standard_normal(37).astype(np.float32), rng.standard_normal(37).astype(np.float32)
  for op, ref in ((lambda x, y: x * y + x, lambda x, y: x * y + x), (lambda x, y: x.maximum(y), np.maximum)):
    runner = CompiledRunner(elementwise_program(op, 37))
    o = buffer(np.zeros(37))
    runner.exec([o, buffer(av), buffer(bv)])
    np.testing.assert_allclose(read(o), ref(av, bv), rtol=1e-6)


def test_variables_are_passed_by_value():
  out, a = (UOp(Ops.DEFINE_GLOBAL, dtypes.int32.ptr(), (), i) for i in range(2))
  n = Variable("n", 1, 10)
  zero = UOp.const(dtypes.int32, 0)
  store = UOp(Ops.STORE, dtypes.void, (out.index(zero), UOp(Ops.LOAD, dtypes.int32, (a.index(zero),)) * n))
  spec = program([store])
  assert [v.expr for v in spec.vars] == ["n"] and spec.globals == [0, 1] and spec.outs == [0] and spec.ins == [1]
  runner = CompiledRunner(spec)
  o = buffer([0], dtypes.int32)
  runner.exec([o, buffer([7], dtypes.int32)], {n: 6})
  assert read(o).tolist() == [42]
  with pytest.raises(ValueError, match="variable n"):
    runner.exec([o, buffer([7], dtypes.int32)])
  with pytest.raises(Exception, match="range|bound|outside"):
    runner.exec([o, buffer([7], dtypes.int32)], {n: 11})


def test_bad_arguments_are_named():
  runner = CompiledRunner(elementwise_program(lambda x, y: x + y, 4))
  with pytest.raises(ValueError, match="takes 3 buffers, got 2"):
    runner.exec([buffer(np.zeros(4)), buffer(np.zeros(4))])
  with pytest.raises(Exception, match="int32|float"):
    runner.exec([buffer(np.zeros(4)), buffer(np.zeros(4)), buffer(np.zeros(4, dtype=np.int32), dtypes.int32)])
  with pytest.raises(ValueError, match="uops"):
    CompiledRunner(ProgramSpec("test", "void test() {}", "CPU"))
  # a source edited by the user is what compiles: a broken one is the compiler's error, with the source
  spec = elementwise_program(lambda x, y: x + y, 4)
  spec.src = spec.src.replace("+", "+ undefined_name +", 1)
  with pytest.raises(RuntimeError, match="undefined_name"):
    CompiledRunner(spec)


def test_kernel_to_program_runs_like_the_schedule():
  a, b = Tensor.rand(16, 16).realize(), Tensor.rand(16, 16).realize()
  c = a @ b
  si = c.schedule()[-1]
  k = Kernel(si, opts="CPU")
  k.apply_opt(Opt(OptOps.UPCAST, 0, 4))
  spec = k.to_program()
  assert spec.uops and spec.estimates.ops == 2 * 16 ** 3 and spec.applied_opts
  out = Buffer("CPU", 256, dtypes.float32).allocate()
  inputs = list(si.bufs[1:])
  CompiledRunner(spec).exec([out] + inputs)
  np.testing.assert_allclose(out.numpy().reshape(16, 16), a.numpy() @ b.numpy(), rtol=1e-5)


def test_lower_schedule_gives_the_engines_kernels():
  x = Tensor.rand(8, 8).realize()
  y = (x.exp() + 1).sum(axis=1)
  sched = y.schedule()
  lowered = list(lower_schedule(sched.copy()))
  assert len(lowered) == len(sched) and all(isinstance(ei.prg, CompiledRunner) for ei in lowered)
  ei = lowered[-1]
  assert ei.prg.p.src and ei.prg.p.name and ei.prg.estimates.ops > 0 and isinstance(ei.prg.estimates, Estimates)
  assert ei.bufs[0].size == 8 and ei.metadata
  run_schedule(sched)
  np.testing.assert_allclose(y.numpy(), (np.exp(x.numpy()) + 1).sum(axis=1), rtol=1e-5)
  # a copy between devices lowers to a BufferCopy
  copied = [ei.prg for ei in lower_schedule(Tensor([1.0, 2.0], device="CPU").to("LLVM").schedule())]
  assert any(isinstance(p, BufferCopy) for p in copied)


def test_get_kernel_applies_the_heuristics():
  si = (Tensor.rand(64, 64) @ Tensor.rand(64, 64)).schedule()[-1]
  assert get_kernel(Device["CPU"].renderer, si.ast).applied_opts


def test_estimates_count_what_a_program_computes():
  spec = elementwise_program(lambda x, y: x * y + x, 37)
  assert Estimates.from_uops(spec.uops, ignore_indexing=True).ops == spec.estimates.ops == 2 * 37
  with pytest.raises(NotImplementedError, match="index arithmetic"):
    Estimates.from_uops(spec.uops)


def test_renderer_attributes():
  cpu = Device["CPU"].renderer
  assert cpu.has_local is False and cpu.tensor_cores == [] and cpu.render.__doc__
  interp = Device["INTERP"].renderer
  assert isinstance(interp.has_local, bool)


def test_refused_names_import_and_say_why_on_use():
  from tinygrad.codegen.expander import expand_rewrite
  from tinygrad.engine.schedule import view_left
  from tinygrad.ops import graph_rewrite, merge_views
  from tinygrad.spec import type_verify
  sink = UOp.const(dtypes.int32, 1).sink()
  with pytest.raises(NotImplementedError, match="merge_views.*scheduler"):
    graph_rewrite(sink, merge_views)
  with pytest.raises(NotImplementedError, match="view_left"):
    view_left + merge_views
  with pytest.raises(NotImplementedError, match="type_verify"):
    type_verify(list(sink.toposort))
  with pytest.raises(NotImplementedError, match="lane"):
    expand_rewrite(sink)


def test_kernel_actions_are_the_engines_beam_actions():
  from tinygrad.engine.search import get_kernel_actions
  k = Kernel(Tensor.arange(256).schedule()[-1].ast)
  acted = get_kernel_actions(k, include_0=False)
  assert acted and all(len(kk.applied_opts) == 1 for kk in acted.values())
  assert 0 in get_kernel_actions(k) and get_kernel_actions(k)[0] is k


def test_hand_built_ast_with_views_runs_optimized():
  # a kernel AST written as tinygrad's linearizer tests write them: VIEW nodes with ShapeTrackers as args
  from tinygrad.engine.search import bufs_from_lin
  from tinygrad.shape.shapetracker import ShapeTracker
  out_g, in_g = UOp(Ops.DEFINE_GLOBAL, dtypes.float.ptr(), (), 0), UOp(Ops.DEFINE_GLOBAL, dtypes.float.ptr(), (), 1)
  src_st = ShapeTracker.from_shape((16, 32))
  out_st = ShapeTracker.from_shape((16, 1))
  load = UOp(Ops.LOAD, dtypes.float, (in_g, src_st.to_uop()))
  assert load.src[1].arg == src_st and load.st_arg == src_st and load.st == src_st
  red = UOp(Ops.REDUCE_AXIS, dtypes.float, (load * 2,), (Ops.ADD, (1,)))
  assert red.st.shape == (16, 1)
  ast = UOp(Ops.STORE, dtypes.void, (out_g, out_st.to_uop(), red)).sink()
  values = np.random.default_rng(1).standard_normal((16, 32)).astype(np.float32)
  results = []
  for opts in ([], [Opt(OptOps.UPCAST, 0, 4)], [Opt(OptOps.UNROLL, 0, 8), Opt(OptOps.UPCAST, 0, 2)]):
    k = Kernel(ast, opts="CPU")
    for o in opts: k.apply_opt(o)
    bufs = bufs_from_lin(k)
    assert [b.size for b in bufs] == [16, 512] and len(k.membufs) == 2
    bufs[1].copyin(memoryview(values.tobytes()))
    CompiledRunner(k.to_program()).exec(bufs)
    results.append(bufs[0].numpy())
    assert k.uops and any(u.op is Ops.STORE for u in k.uops)
  for r in results: np.testing.assert_allclose(r, 2 * values.sum(axis=1), rtol=1e-5)
  with pytest.raises(ValueError, match="tensor core 3 does not exist"):
    Opt(OptOps.TC, 0, (3, 0))
