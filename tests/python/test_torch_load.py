"""torch_load (loupe/nn/torch_checkpoint.py): PyTorch checkpoints in each of torch.save's three layouts read
without PyTorch (the files in data/, made by data/make_torch_checkpoints.py), differentially against
torch.load where python3-torch is installed, and damaged or hostile files refused or read inertly."""
import os
import pathlib
import pickle
import struct
import zipfile

import numpy as np
import pytest

from tinygrad import Tensor, dtypes
from tinygrad.nn.state import get_state_dict, torch_load
from loupe.nn.torch_checkpoint import Unpickled

DATA = pathlib.Path(__file__).parent / "data"
try:
  import torch
except ImportError:
  torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="python3-torch is not installed")


def expected_state() -> dict:
  """data/make_torch_checkpoints.py's state dict, computed with numpy."""
  base = np.arange(10, dtype=np.float32)
  return {
    "conv.weight": (np.arange(54, dtype=np.float32).reshape(2, 3, 3, 3) / np.float32(10), dtypes.float32),
    "conv.bias": (np.array([0.5, -0.5], np.float32), dtypes.float32),
    "fc.weight_t": (np.arange(12, dtype=np.float32).reshape(3, 4).T, dtypes.float32),
    "half": (np.arange(6).astype(np.float16) * np.float16(0.25), dtypes.float16),
    "bf16": (np.arange(4, dtype=np.float32) * 1.5, dtypes.bfloat16),
    "steps": (np.array(7, np.int64), dtypes.int64),
    "mask": (np.array([True, False, True]), dtypes.bool),
    "shared_a": (base[2:5], dtypes.float32), "shared_b": (base[5:], dtypes.float32),
    "param": (np.arange(3, dtype=np.float32), dtypes.float32),
    "ints.i8": (np.arange(-3, 4, dtype=np.int8), dtypes.int8), "ints.u8": (np.arange(250, 256, dtype=np.uint8), dtypes.uint8),
    "ints.i16": (np.arange(-2, 3, dtype=np.int16), dtypes.int16), "ints.i32": (np.arange(5, dtype=np.int32) * 1000, dtypes.int32),
    "ints.f64": (np.arange(3, dtype=np.float64) / 3, dtypes.float64),
  }


def values(t: Tensor) -> np.ndarray:
  return t.cast(dtypes.float32).numpy() if t.dtype == dtypes.bfloat16 else t.numpy()


@pytest.mark.parametrize("name", ["torch_zip.pth", "torch_legacy.pth"])
def test_each_layout_reads_every_dtype_stride_and_shared_storage(name):
  loaded = torch_load(DATA / name)
  assert loaded["meta"] == {"epoch": 3, "name": "demo"}
  tensors = get_state_dict(loaded)
  want = expected_state()
  assert set(tensors) == set(want)
  for key, (value, dtype) in want.items():
    t = tensors[key]
    assert t.dtype == dtype and t.shape == value.shape, (key, t.dtype, t.shape)
    np.testing.assert_array_equal(values(t), value, err_msg=key)


def test_the_tar_layout_reads_strides_and_storage_views():
  loaded = torch_load(str(DATA / "torch_tar.pth"))
  w = np.arange(6, dtype=np.float32) - 2.5
  np.testing.assert_array_equal(loaded["layer.weight"].numpy(), w.reshape(2, 3))
  np.testing.assert_array_equal(loaded["layer.weight_t"].numpy(), w.reshape(2, 3).T)
  np.testing.assert_array_equal(loaded["counts"].numpy(), np.arange(4))
  np.testing.assert_array_equal(loaded["tail"].numpy(), w[3:])  # a view of storage 0 from element 3


def test_the_bytes_in_a_uint8_tensor_read_as_the_file():
  t = Tensor(DATA / "torch_zip.pth")
  np.testing.assert_array_equal(torch_load(t)["fc.weight_t"].numpy(), np.arange(12, dtype=np.float32).reshape(3, 4).T)
  with pytest.raises(ValueError, match="1-d uint8"):
    torch_load(Tensor([1.0, 2.0]))


@pytest.mark.parametrize("content, match", [
  (b"", "not a PyTorch checkpoint|damaged"),
  (b"hello, this is not a checkpoint" * 20, "damaged or not a PyTorch checkpoint|not a PyTorch checkpoint"),
  (pickle.dumps({"a": 1}, protocol=2), "not a PyTorch checkpoint"),
])
def test_what_is_not_a_checkpoint_is_an_error_naming_the_file(tmp_path, content, match):
  path = tmp_path / "bad.pth"
  path.write_bytes(content)
  with pytest.raises(ValueError, match=match) as e:
    torch_load(path)
  assert "bad.pth" in str(e.value)


def test_a_missing_file_is_file_not_found(tmp_path):
  with pytest.raises(FileNotFoundError, match="nothere.pth"):
    torch_load(tmp_path / "nothere.pth")


@pytest.mark.parametrize("name", ["torch_zip.pth", "torch_legacy.pth", "torch_tar.pth"])
def test_a_truncated_checkpoint_is_an_error_not_garbage(tmp_path, name):
  data = (DATA / name).read_bytes()
  end = len(data)
  if name.endswith("tar.pth"):  # a tar archive ends in zero blocks: cut where its members are
    import tarfile
    with tarfile.open(DATA / name) as tar: end = max(m.offset_data + m.size for m in tar.getmembers())
  for cut in (end // 2, end - 40):
    path = tmp_path / f"cut_{cut}.pth"
    path.write_bytes(data[:cut])
    with pytest.raises(ValueError, match="truncated|damaged|not a PyTorch checkpoint"):
      torch_load(path)


def hostile_pickle(marker: pathlib.Path) -> bytes:
  """A pickle whose reduction would run a shell command if a loader called what it names."""
  cmd = f"touch {marker}".encode()
  return (b"\x80\x02}q\x00X\x01\x00\x00\x00xq\x01cos\nsystem\nq\x02X" + struct.pack("<I", len(cmd)) + cmd +
          b"q\x03\x85q\x04Rq\x05s.")


def test_a_pickle_naming_other_code_builds_an_inert_record_and_runs_nothing(tmp_path):
  marker = tmp_path / "ran"
  path = tmp_path / "hostile.pth"
  with zipfile.ZipFile(path, "w") as z:
    z.writestr("archive/data.pkl", hostile_pickle(marker))
  loaded = torch_load(path)
  assert isinstance(loaded["x"], Unpickled) and type(loaded["x"]).__name__ == "system"
  assert loaded["x"]._args == (f"touch {marker}",)
  assert not marker.exists()


def test_a_torchscript_archive_is_named_as_one(tmp_path):
  path = tmp_path / "scripted.pt"
  with zipfile.ZipFile(path, "w") as z:
    z.writestr("model/constants.pkl", pickle.dumps(()))
    z.writestr("model/code/__torch__.py", "")
  with pytest.raises(ValueError, match="TorchScript"):
    torch_load(path)


def test_a_tensor_past_its_storage_is_an_error(tmp_path):
  # the zip checkpoint with storage 0's bytes cut short inside the archive: the tensor would read past them
  src, path = zipfile.ZipFile(DATA / "torch_zip.pth"), tmp_path / "short.pth"
  with zipfile.ZipFile(path, "w") as dst:
    for info in src.infolist():
      data = src.read(info)
      dst.writestr(info, data[:4] if info.filename.endswith("/data/0") else data)
  with pytest.raises(ValueError, match="storage 0|truncated"):
    torch_load(path)


# --- against torch.load, where PyTorch is installed ---

def assert_same(got, want, where=""):
  if torch is not None and isinstance(want, torch.Tensor):
    want = want.detach()
    w = want.float().numpy() if want.dtype == torch.bfloat16 else want.numpy()
    g = values(got)
    assert g.shape == w.shape and g.dtype == w.dtype, (where, g.shape, w.shape, g.dtype, w.dtype)
    np.testing.assert_array_equal(g, w, err_msg=where)
  elif isinstance(want, dict):
    assert list(got) == list(want), where
    for k in want: assert_same(got[k], want[k], f"{where}.{k}")
  elif isinstance(want, (list, tuple)):
    assert len(got) == len(want), where
    for i, (g, w) in enumerate(zip(got, want)): assert_same(g, w, f"{where}[{i}]")
  else:
    assert got == want, where


def random_state(seed: int) -> dict:
  g = torch.Generator().manual_seed(seed)
  rng = np.random.default_rng(seed)
  out = {}
  for i in range(12):
    shape = tuple(int(s) for s in rng.integers(1, 6, size=int(rng.integers(0, 4))))
    dtype = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int32, torch.int16, torch.int8,
             torch.uint8, torch.bool][int(rng.integers(0, 10))]
    t = (torch.randn(shape, generator=g) * 50).to(dtype) if dtype != torch.bool else torch.randn(shape, generator=g) > 0
    layout = int(rng.integers(0, 4))
    if layout == 1 and t.ndim >= 2: t = t.transpose(0, -1)  # strided
    if layout == 2 and t.ndim >= 1 and t.shape[0] > 1: t = t[1:]  # offset into its storage
    if layout == 3 and t.ndim >= 1: t = t.flip(0)[::2]  # a copy, then every other row
    out[f"t{i}"] = t
  out["param"] = torch.nn.Parameter(torch.randn(3, 2, generator=g))
  return out


@needs_torch
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("zip_layout", [True, False])
def test_random_checkpoints_read_as_torch_reads_them(tmp_path, seed, zip_layout):
  state = random_state(seed)
  path = tmp_path / "r.pth"
  torch.save({"model": state, "step": seed, "lr": 0.5, "names": ["a", "b"]}, path, _use_new_zipfile_serialization=zip_layout)
  assert_same(torch_load(path), torch.load(path))


@needs_torch
def test_a_whole_pickled_module_loads_as_records_holding_its_tensors(tmp_path):
  model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
  path = tmp_path / "model.pth"
  torch.save(model, path)
  loaded = torch_load(path)
  assert isinstance(loaded, Unpickled) and type(loaded).__name__ == "Sequential"
  linear = loaded._modules["0"]
  np.testing.assert_array_equal(linear._parameters["weight"].numpy(), model[0].weight.detach().numpy())
  np.testing.assert_array_equal(linear._parameters["bias"].numpy(), model[0].bias.detach().numpy())


@needs_torch
def test_a_state_dict_loads_into_a_tinygrad_model():
  from tinygrad import nn
  from tinygrad.nn.state import load_state_dict
  torch_model = torch.nn.Linear(4, 3)
  import io
  buf = io.BytesIO()
  torch.save(torch_model.state_dict(), buf)
  model = nn.Linear(4, 3)
  load_state_dict(model, torch_load(buf.getvalue()))
  x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
  np.testing.assert_allclose(model(Tensor(x)).numpy(), torch_model(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
