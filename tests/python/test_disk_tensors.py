"""DISK tensors (runtime/disk, tensor/disk_window): a file as tensor memory, as tinygrad's DISK:<path>.
Windows of the file (reshape, slices of whole rows, bitcast) read and write its bytes in place; copies move
data on and off; anything that would compute on DISK is refused with an error that says what to do."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from tinygrad import Device, Tensor, dtypes


def disk(path) -> str:
  return f"disk:{path}"


def test_empty_maps_the_file_and_reads_its_bytes(tmp_path):
  f = tmp_path / "bytes.bin"
  f.write_bytes(bytes(range(256)))
  t = Tensor.empty(16, 16, dtype=dtypes.uint8, device=disk(f))
  assert t.device == f"DISK:{f}" and t.shape == (16, 16)
  np.testing.assert_array_equal(t.numpy(), np.arange(256, dtype=np.uint8).reshape(16, 16))
  assert t[1].to("CPU").tolist() == list(range(16, 32))
  np.testing.assert_array_equal(t[3:5].numpy(), np.arange(48, 80).reshape(2, 16))
  np.testing.assert_array_equal(t.reshape(256)[100:104].numpy(), [100, 101, 102, 103])
  assert t[2, 5:9].tolist() == [37, 38, 39, 40]  # a row's part is still one byte range


def test_bitcast_windows_reinterpret_the_bytes_in_place(tmp_path):
  f = tmp_path / "words.bin"
  f.write_bytes(bytes(range(256)) * 2)
  t = Tensor.empty(16, 32, dtype=dtypes.uint8, device=disk(f))
  want = np.frombuffer(bytes(range(256)) * 2, np.uint16).reshape(16, 16)
  np.testing.assert_array_equal(t.bitcast(dtypes.uint16).numpy(), want)
  np.testing.assert_array_equal(t[1].bitcast(dtypes.uint16).numpy(), want[1])
  np.testing.assert_array_equal(t.bitcast(dtypes.uint16)[1].numpy(), want[1])
  np.testing.assert_array_equal(t.bitcast(dtypes.float32).bitcast(dtypes.uint8).numpy(), t.numpy())
  with pytest.raises(RuntimeError, match="not a multiple of 4"):
    Tensor.empty(3, dtype=dtypes.int16, device=disk(f)).bitcast(dtypes.float32)


def test_writes_reach_the_file(tmp_path):
  f = tmp_path / "out.bin"
  Tensor.ones(10, 10).contiguous().to(disk(f))
  assert f.read_bytes() == b"\x00\x00\x80\x3f" * 100
  t = Tensor.empty(10, dtype=dtypes.int64, device=disk(tmp_path / "ints.bin"))
  for i in range(5): t[2 * i:2 * i + 2].assign(np.array([i, -i]))
  np.testing.assert_array_equal(np.frombuffer((tmp_path / "ints.bin").read_bytes(), np.int64), [0, 0, 1, -1, 2, -2, 3, -3, 4, -4])
  u = Tensor([[0, 1, 2, 3], [4, 5, 6, 7]], device="CPU").to(disk(tmp_path / "rows.bin"))
  u[1] = [13, 12, 11, 10]  # setitem takes lists on DISK
  u[0, 1:3] = Tensor([-1, -2])
  np.testing.assert_array_equal(u.numpy(), [[0, -1, -2, 3], [13, 12, 11, 10]])
  v = Tensor.empty(4, dtype=dtypes.float32, device=disk(tmp_path / "bits.bin"))
  v.bitcast(dtypes.uint32).assign(Tensor.full((4,), 0x40490FDB, dtype=dtypes.uint32))
  np.testing.assert_allclose(v.numpy(), np.float32(3.1415927))


def test_a_view_sees_what_is_written_through_another(tmp_path):
  t = Tensor.empty(4, 4, dtype=dtypes.int32, device=disk(tmp_path / "shared.bin"))
  row = t[2]
  t[2:3].assign(Tensor([[7, 8, 9, 10]], dtype=dtypes.int32))
  assert row.tolist() == [7, 8, 9, 10]


def test_the_file_grows_to_a_larger_tensor_and_outlives_the_process(tmp_path):
  f = tmp_path / "grow.bin"
  f.write_bytes(b"\x01\x02")
  t = Tensor.empty(8, dtype=dtypes.uint8, device=disk(f))
  t[4:8].assign(Tensor([4, 5, 6, 7], dtype=dtypes.uint8))
  assert f.stat().st_size == 8 and f.read_bytes()[:2] == b"\x01\x02"
  code = f"from tinygrad import Tensor, dtypes; print(Tensor.empty(8, dtype=dtypes.uint8, device='disk:{f}')[4:].tolist())"
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, env=os.environ).stdout.decode()
  assert out.strip() == "[4, 5, 6, 7]"


def test_path_tensors_are_disk_windows(tmp_path):
  f = tmp_path / "data.bin"
  f.write_bytes(np.arange(100, dtype=np.uint8).tobytes())
  t = Tensor(f)
  assert t.device == f"DISK:{f.resolve()}" and t.dtype == dtypes.uint8 and t.shape == (100,)
  assert Tensor(f, dtype=dtypes.int16).shape == (50,)
  np.testing.assert_array_equal(Tensor(f, device="CPU").numpy(), np.arange(100, dtype=np.uint8))
  (tmp_path / "empty.bin").touch()
  assert Tensor(tmp_path / "empty.bin").shape == (0,)
  with pytest.raises(FileNotFoundError):
    Tensor(tmp_path / "missing.bin")


def test_copies_to_every_device_read_the_window(tmp_path):
  f = tmp_path / "copy.bin"
  f.write_bytes(bytes(range(256)) * 64)
  t = Tensor.empty(256 * 64, dtype=dtypes.uint8, device=disk(f))
  for off in (0, 314, 4096):
    for device in ("CPU", "INTERP"):
      np.testing.assert_array_equal(t[off:off + 512].to(device).numpy(), np.frombuffer(f.read_bytes(), np.uint8)[off:off + 512])
  assert (t[:4].to(Device.DEFAULT) + 1).tolist() == [1, 2, 3, 4]


def test_computing_on_disk_is_refused_with_what_to_do(tmp_path):
  t = Tensor.empty(4, 4, dtype=dtypes.int16, device=disk(tmp_path / "c.bin"))
  with pytest.raises(NotImplementedError, match="runs no kernels.*to\\('CPU'\\)"):
    t.cast(dtypes.float16).realize()
  with pytest.raises(NotImplementedError, match="PERMUTE of a DISK tensor"):
    t.permute(1, 0)
  with pytest.raises(NotImplementedError, match="not one byte range"):
    t[:, 1:3]
  with pytest.raises(NotImplementedError, match="tensor index"):
    t[Tensor([0, 2])] = 1
  assert t.cast(dtypes.float16).device.startswith("DISK:")  # lazily, until it would run


def test_a_file_that_cannot_be_mapped_is_an_error_naming_it(tmp_path):
  d = tmp_path / "a_directory"
  d.mkdir()
  with pytest.raises(RuntimeError, match="a_directory.*(Is a directory|not a regular file)"):
    Tensor.empty(4, device=disk(d)).numpy()
  with pytest.raises(RuntimeError, match="DISK needs a file"):
    Tensor.empty(4, device="disk:")


def test_tensor_io_reads_a_window_as_a_file(tmp_path):
  import zipfile
  from tinygrad.nn.state import TensorIO
  f = tmp_path / "a.zip"
  with zipfile.ZipFile(f, "w") as z: z.writestr("hello.txt", "hello from a DISK tensor")
  with zipfile.ZipFile(TensorIO(Tensor(f))) as z: assert z.read("hello.txt") == b"hello from a DISK tensor"
  io_ = TensorIO(Tensor(b"Hello World!"))
  assert (io_.read(5), io_.seek(-1, 2), io_.read(), io_.seek(99), io_.read(3)) == (b"Hello", 11, b"!", 12, b"")
  with pytest.raises(ValueError, match="1-d uint8"):
    TensorIO(Tensor([1.0]))
