"""tinygrad's compiler modules over Loupe: Tensor.schedule() and run_schedule (tinygrad.engine.schedule /
realize), Kernel with Opt/OptOps applied by hand and rendered (tinygrad.codegen.kernel), and the dtype and
helpers names tinygrad's tests import."""
import numpy as np
import pytest

from tinygrad import Tensor, dtypes
from tinygrad.codegen.kernel import Kernel, KernelOptError, Opt, OptOps
from tinygrad.engine.realize import CompiledRunner, Runner, lower_schedule_item, run_schedule
from tinygrad.engine.schedule import ScheduleItem
from tinygrad.helpers import DEVECTORIZE, Context, Metadata, _METADATA, mv_address
from tinygrad.dtype import ImageDType, PtrDType, least_upper_dtype, truncate, truncate_bf16, truncate_fp16


def test_schedule_then_run_schedule():
  a, b = Tensor([[1.0, 2.0], [3.0, 4.0]]), Tensor([[5.0, 6.0], [7.0, 8.0]])
  c = (a @ b).relu()
  sched = c.schedule()
  assert len(sched) >= 1 and all(isinstance(si, ScheduleItem) for si in sched)
  assert any(m.name == "__matmul__" for si in sched for m in si.metadata)
  assert all(isinstance(m, Metadata) for si in sched for m in si.metadata)
  run_schedule(sched)
  np.testing.assert_allclose(c.numpy(), np.array([[19.0, 22.0], [43.0, 50.0]]))
  with pytest.raises(ValueError, match="already ran"):
    run_schedule(sched)


def test_run_schedule_refuses_part_of_a_schedule():
  x = Tensor.arange(8).reshape(2, 4)
  y = (x + 1).contiguous().sum(1)
  sched = y.schedule()
  if len(sched) < 2: pytest.skip("one kernel: nothing to cut")
  with pytest.raises(ValueError, match="whole"):
    run_schedule(sched[1:])
  # an item lowered alone is for reading (its compiled kernel); it runs with its whole schedule
  with pytest.raises(NotImplementedError, match="run_schedule"):
    lower_schedule_item(sched[0]).run()


def test_kernel_opts_by_hand_and_render():
  a, b = Tensor.rand(16, 16), Tensor.rand(16, 16)
  si = (a @ b).schedule()[-1]
  k = Kernel(si, opts="CPU")
  assert k.full_shape == (16, 16, 16) and k.first_reduce == 2
  k.apply_opt(Opt(OptOps.UPCAST, 0, 4))
  k.apply_opt(Opt(OptOps.UNROLL, 0, 4))
  assert k.applied_opts == [Opt(OptOps.UPCAST, 0, 4), Opt(OptOps.UNROLL, 0, 4)]
  prg = k.to_program()
  assert prg.device == "CPU" and prg.name.startswith("r_") and "acc3" in prg.src
  with pytest.raises(KernelOptError):
    k.apply_opt(Opt(OptOps.UPCAST, 0, 7))  # 7 does not divide the axis
  assert len(k.sts) >= 3 and k.sts[0].shape == k.output_shape or len(k.sts[0].shape) == k.shape_len
  with pytest.raises(TypeError, match="Kernel"):
    Kernel(42)


def test_pipeline_stages_by_hand_give_the_kernels_source():
  # tinygrad's lowering entry points: the stages one at a time equal the whole pipeline (no opts applied)
  from tinygrad.codegen.devectorizer import full_graph_rewrite
  from tinygrad.codegen.linearize import linearize_uop
  from tinygrad.codegen.lowerer import rewrite_shapetracker_with_index
  from tinygrad.device import Device
  from tinygrad.ops import Ops
  a = Tensor.rand(8, 12)
  for out in ((a * 2 + 1).sum(axis=1), a.permute(1, 0).contiguous(), a.exp2()):
    si = out.schedule()[-1]
    renderer = Device["CPU"].renderer
    lowered = rewrite_shapetracker_with_index(si.ast, renderer)
    assert lowered.op is Ops.SINK and any(u.op is Ops.INDEX for u in lowered.toposort)
    uops = linearize_uop(full_graph_rewrite(lowered, renderer))
    assert [u.op for u in uops].count(Ops.STORE) == 1
    k = Kernel(si, opts="CPU")
    assert renderer.render(uops, name=k.name) == k.to_program().src
  with pytest.raises(ValueError, match="SINK"):
    full_graph_rewrite(lowered.src[0], renderer)


def test_jit_cache_items_are_runners():
  from tinygrad import TinyJit
  @TinyJit
  def f(x): return (x * 2).realize()
  for _ in range(3): f(Tensor.rand(4))
  assert f.jit_cache and all(isinstance(ei.prg, Runner) for ei in f.jit_cache)
  assert issubclass(CompiledRunner, Runner)


def test_dtype_names():
  assert isinstance(dtypes.float.ptr(16), PtrDType) and not isinstance(dtypes.float, PtrDType)
  assert not isinstance(dtypes.float, ImageDType)
  # an image dtype is a value (compares, prints as tinygrad's); no tensor takes one
  img = dtypes.imagef((1, 2, 4))
  assert isinstance(img, ImageDType) and img == dtypes.imagef((1, 2, 4)) and img != dtypes.imageh((1, 2, 4))
  assert str(img) == "dtypes.imagef((1, 2, 4))" and img.base == dtypes.float32 and img.ptr() is img
  with pytest.raises(TypeError, match="ImageDType"):
    Tensor([1.0], dtype=img)
  # two strong dtypes meet at a strong one, as tinygrad v0.10.2's lattice has it
  assert least_upper_dtype(dtypes.int64, dtypes.uint64) == dtypes.float16
  assert truncate_bf16(1.0 + 2 ** -10) == 1.0 and truncate_bf16(1e39) == float("inf")
  assert truncate_fp16(65520.0) == float("inf")
  assert truncate[dtypes.int8](200) == -56 and truncate[dtypes.uint16](-1) == 65535


def test_helpers_names():
  assert _METADATA.get() is None
  buf = bytearray(8)
  assert mv_address(memoryview(buf)) > 0
  with Context(DEVECTORIZE=1): pass
  with pytest.raises(NotImplementedError, match="DEVECTORIZE"):
    with Context(DEVECTORIZE=0): pass
  assert DEVECTORIZE.value == 1
  from tinygrad.codegen.lowerer import get_contraction
  from tinygrad.helpers import from_mv, fully_flatten, merge_dicts, time_to_str, to_mv
  from tinygrad.tensor import get_shape
  with pytest.raises(AssertionError, match="cannot merge a"):
    merge_dicts([{"a": 1}, {"a": 2}])
  assert fully_flatten([np.array(3), np.array([[4, 5]])]) == [3, 4, 5]
  base = memoryview(bytearray(b"\x11" * 8))
  to_mv(from_mv(base), 8)[0] = 2
  assert base[0] == 2
  assert time_to_str(0.5) == "  500.00ms" and time_to_str(12.0) == "   12.00s " and time_to_str(0) == "    0.00us"
  assert get_contraction((1, 2, 3, 4), (2, 12)) == [[0, 1], [2, 3]] and get_contraction((2, 3), (3, 2)) is None
  assert get_shape([[1, 2], (3, 4)]) == (2, 2)
  with pytest.raises(ValueError, match="inhomogeneous"):
    get_shape([[1], []])


def test_python_device_is_the_interpreter():
  from tinygrad import Device
  from tinygrad.runtime.ops_python import PythonProgram, PythonRenderer
  t = Tensor([1.0, 2.0, 3.0], device="PYTHON") * 2
  assert t.device == "INTERP" and t.tolist() == [2.0, 4.0, 6.0]
  assert Device.canonicalize("python") == "INTERP"
  si = (Tensor.rand(4, 4) + 1).schedule()[-1]
  prg = Kernel(si, opts=PythonRenderer()).to_program()
  assert prg.device == "INTERP" and "LOAD" in prg.src
  with pytest.raises(NotImplementedError, match="INTERP"):
    PythonProgram("run", b"")


def test_device_buffer_roundtrip():
  import numpy as np
  from tinygrad.device import Buffer
  b = Buffer("CPU", 4, dtypes.int32)
  assert not b.is_allocated() and b.nbytes == 16
  b.copyin(memoryview(np.array([1, -2, 3, 4], dtype=np.int32).tobytes()))
  assert b.is_allocated() and b.numpy().tolist() == [1, -2, 3, 4]
  out = bytearray(16)
  b.copyout(memoryview(out))
  assert np.frombuffer(out, dtype=np.int32).tolist() == [1, -2, 3, 4]
  with pytest.raises(ValueError, match="copyin"):
    b.copyin(memoryview(b"123"))
  assert Buffer("CPU", 2, dtypes.float, initial_value=np.array([0.5, 2], dtype=np.float32).tobytes()).numpy().tolist() == [0.5, 2.0]


def test_lazydata_is_the_engine_node_with_its_op_and_device():
  from tinygrad.ops import UOp
  x, W = Tensor.rand(3, requires_grad=True), Tensor.rand(3, 3, requires_grad=True)
  out = x.matmul(W)
  assert isinstance(out.lazydata, UOp) and out.lazydata is out.lazydata
  assert out.lazydata.metadata.name == "matmul"
  si = out.schedule()[-1]
  assert si.ast.op.name == "SINK" and si.bufs[0].device == "CPU"
  assert Tensor(3).lazydata.metadata is None or Tensor(3).lazydata.metadata.name


def test_lazydata_base_buffer_and_st():
  a = Tensor.rand(16, 16).realize()
  b = a.clone().realize()
  assert a.lazydata.base.op.name == "BUFFER"
  assert a.lazydata.base.buffer is a.lazydata.base.buffer and a.lazydata.base.buffer is not b.lazydata.base.buffer
  np.testing.assert_allclose(a.lazydata.base.buffer.numpy(), a.numpy().reshape(-1))
  assert Tensor.empty(3, 2, 0).lazydata.st.real_strides() == (0, 0, 0)
  x = Tensor.empty(4, 1).expand(4, 5).permute(1, 0)
  assert x.lazydata.st.shape == (5, 4) and x.lazydata.st.real_strides() == (0, 1)
  with pytest.raises(AttributeError, match="buffer"):
    (Tensor.rand(3) + 1).lazydata.buffer


def test_tinyjit_follows_context_jit_and_refuses_duplicate_inputs():
  from tinygrad import TinyJit
  from tinygrad.helpers import Context
  @TinyJit
  def add(a, b): return (a + b).realize()
  with Context(JIT=0):
    for i in range(4): assert add(Tensor([i]), Tensor([i])).item() == 2 * i
  assert add.jit_cache == []
  x = Tensor.rand(3)
  with pytest.raises(AssertionError, match="duplicate"):
    add(x, x)


def test_deepcopy_is_an_independent_tensor():
  import copy
  a = Tensor([1.0, 2.0], requires_grad=True)
  b = copy.deepcopy(a)
  assert b is not a and b.requires_grad and b.tolist() == [1.0, 2.0]
  b.assign(Tensor([5.0, 6.0])).realize()
  assert a.tolist() == [1.0, 2.0] and b.tolist() == [5.0, 6.0]


def test_gradients_name_the_op_they_differentiate():
  x = Tensor.rand(3, requires_grad=True).realize()
  y = Tensor.rand(3, requires_grad=True).realize()
  out = (x.relu() * y.sigmoid()).sum()
  out.backward()
  assert out.lazydata.metadata.name == "sum" and not out.lazydata.metadata.backward
  assert x.grad.lazydata.metadata.name == "relu" and x.grad.lazydata.metadata.backward
  assert y.grad.lazydata.metadata.name == "sigmoid" and y.grad.lazydata.metadata.backward
  kernels = Tensor.schedule(out, x.grad, y.grad)
  assert any(m.backward for si in kernels for m in si.metadata)


def test_a_folded_constant_carries_no_earlier_ops_provenance():
  # Tensor([]).sum() folds to the constant 0.0, a node later graphs share: a later relu's kernel names
  # relu only, not that sum
  assert Tensor([]).sum().numpy() == 0
  x = Tensor.rand(3).realize()
  names = [m.name for si in x.relu().schedule() for m in si.metadata]
  assert names == ["relu"], names


@pytest.mark.parametrize("from_dt,value,to_dt,folded", [
  (dtypes.int32, -1, dtypes.uint32, 2**32 - 1),          # int32 is the symbolic rules' index math
  (dtypes.uint32, 2**31, dtypes.int32, -2**31),
  (dtypes.int32, 1050081145, dtypes.float32, 0.29485681653022766),
  (dtypes.float32, 0.29485681653022766, dtypes.int32, 1050081145),
  (dtypes.int64, -1, dtypes.uint64, 2**64 - 1),          # a uint64 past int64 reads as the unsigned value
  (dtypes.int16, 13496, dtypes.float16, 0.294921875),
])
def test_bitcasts_of_constants_fold_to_the_reinterpreted_bits(from_dt, value, to_dt, folded):
  from tinygrad.codegen.devectorizer import full_graph_rewrite
  from tinygrad.ops import Ops, UOp
  r = full_graph_rewrite(UOp.const(from_dt, value).bitcast(to_dt).sink()).src[0]
  assert (r.op, r.dtype, r.arg) == (Ops.CONST, to_dt, folded)


def test_vector_constants_fold_lane_by_lane():
  from tinygrad.codegen.symbolic import sym
  from tinygrad.ops import Ops, UOp, graph_rewrite
  v = lambda *xs: UOp.const(dtypes.int.vec(3), xs)
  folded = graph_rewrite(v(0, 1, 2) + v(5, 6, 7), sym)
  assert (folded.op, folded.dtype, folded.arg) == (Ops.VCONST, dtypes.int.vec(3), (5, 7, 9))
  same = graph_rewrite(v(0, 1, 2) + v(2, 1, 0), sym)  # every lane 2: one constant of the vector dtype
  assert (same.op, same.dtype, same.arg) == (Ops.CONST, dtypes.int.vec(3), 2)
  mixed = graph_rewrite(v(1, 2, 3) * UOp.const(dtypes.int.vec(3), 2), sym)  # a splat CONST with a VCONST
  assert (mixed.op, mixed.arg) == (Ops.VCONST, (2, 4, 6))
