"""tinygrad.shape.view / tinygrad.shape.shapetracker over the engine's View and ShapeTracker: the methods
tinygrad names, checked against numpy (a tracker's element offsets must index the buffer as numpy's
movement ops would) and against tinygrad's own answers for merge_dims and view composition."""
import pickle

import numpy as np
import pytest

from tinygrad.shape.shapetracker import ShapeTracker
from tinygrad.shape.view import View, merge_dims, strides_for_shape, unravel


def offsets(st: ShapeTracker) -> np.ndarray:
  """The buffer offset each element reads (-1 for padding), by evaluating the views."""
  out = np.full(st.shape, -1, dtype=np.int64)
  for idx in np.ndindex(*st.shape):
    off = st.offset_of(idx)
    out[idx] = -1 if off is None else off
  return out


def test_from_shape_is_contiguous():
  st = ShapeTracker.from_shape((3, 4))
  assert st.shape == (3, 4) and st.size == 12 and st.contiguous and st.consecutive
  assert st.views == (View.create((3, 4)),)
  assert st.views[0].strides == (4, 1) and st.views[0].mask is None and st.views[0].offset == 0


def test_movement_ops_match_numpy():
  base = np.arange(24).reshape(2, 3, 4)
  st = ShapeTracker.from_shape((2, 3, 4)).permute((2, 0, 1)).flip((True, False, False)).shrink(((1, 4), (0, 2), (0, 3)))
  ref = base.transpose(2, 0, 1)[::-1][1:4]
  np.testing.assert_equal(offsets(st), ref)
  st2 = st.reshape((3, 6))
  np.testing.assert_equal(offsets(st2), ref.reshape(3, 6))
  padded = ShapeTracker.from_shape((2, 2)).pad(((1, 0), (0, 1)))
  np.testing.assert_equal(offsets(padded), [[-1, -1, -1], [0, 1, -1], [2, 3, -1]])
  assert padded.axis_is_masked(0) and padded.axis_is_masked(1)
  expanded = ShapeTracker.from_shape((3, 1)).expand((3, 5))
  np.testing.assert_equal(offsets(expanded), np.repeat(np.arange(3)[:, None], 5, axis=1))
  assert expanded.real_strides() == (1, 0)


def test_reshape_that_needs_two_views():
  st = ShapeTracker.from_shape((4, 6)).permute((1, 0)).reshape((8, 3))
  assert len(st.views) == 2
  np.testing.assert_equal(offsets(st), np.arange(24).reshape(4, 6).T.reshape(8, 3))
  assert st.simplify() == st  # nothing merges
  assert st.real_strides()[1] is None or isinstance(st.real_strides()[1], int)


def test_add_and_invert():
  a = ShapeTracker.from_shape((10, 10))
  x = a.permute((1, 0))
  assert x + x.invert(a.shape) == a
  assert ShapeTracker.from_shape((10, 1)).expand((10, 10)).invert((10, 1)) is None
  assert a.reshape((100,)) + ShapeTracker.from_shape((100,)) == ShapeTracker.from_shape((100,))


def test_view_values_and_composition():
  v = View.create(shape=(2, 2, 2), strides=(4, 2, 1), mask=((0, 2), (0, 2), (0, 2)))
  assert v.mask is None and v.contiguous
  assert View.create((4, 5), mask=((0, 0), (0, 0))).reshape((20,)) == View.create((20,), mask=((0, 0),))
  v0 = View(shape=(1, 1, 5, 8), strides=(0, 0, 5, 1), offset=-3, mask=((0, 1), (0, 1), (0, 5), (3, 8)), contiguous=False)
  v1 = View(shape=(1, 1, 2, 2), strides=(0, 0, 8, 1), offset=3, mask=None, contiguous=False)
  assert v0 + v1 == View(shape=(1, 1, 2, 2), strides=(0, 0, 5, 1), offset=0, mask=None, contiguous=False)
  assert View(shape=(2,), strides=(0,), offset=0, mask=((1, 2),), contiguous=False) + View.create(()) is None
  assert repr(View.create((4, 4))) == "View(shape=(4, 4), strides=(4, 1), offset=0, mask=None, contiguous=True)"
  assert hash(View.create((3,))) == hash(View.create((3,)))
  assert pickle.loads(pickle.dumps(v0)) == v0
  assert View.create((2, 1, 2), (30, 0, 2), 7).minify() == View.create((2, 2), (30, 2), 7)


def test_helpers():
  assert strides_for_shape((2, 3, 4)) == (12, 4, 1)
  assert merge_dims((2, 3, 4), (0, 4, 1)) == ((2, 0, 0), (12, 1, 12))
  assert merge_dims((2, 2, 3), (0, 0, 1), ((1, 2), (1, 2), (0, 2))) == ((12, 1, 3),)
  assert unravel((3, 4), 7) == [1, 3]


def test_bad_input_raises_python_errors():
  st = ShapeTracker.from_shape((2, 3))
  with pytest.raises(ValueError, match="reshape"):
    st.reshape((5,))
  with pytest.raises(ValueError, match="permute"):
    st.permute((0, 0))
  with pytest.raises(ValueError, match="expand"):
    st.expand((4, 3))
  with pytest.raises(ValueError, match="shrink"):
    st.shrink(((0, 3), (0, 3)))
  with pytest.raises(TypeError):
    st.reshape(("a", 3))
  with pytest.raises(ValueError):
    ShapeTracker(())
  with pytest.raises(TypeError):
    ShapeTracker((1, 2))
  with pytest.raises(ValueError):
    View(shape=(2, 2), strides=(1,), offset=0, mask=None, contiguous=False)
  with pytest.raises(IndexError):
    st.axis_is_masked(5)
  assert st.reshape((6,)).shape == (6,)  # the tracker still works after the errors
