"""Writes the PyTorch checkpoints test_torch_load.py reads without PyTorch (run with python3-torch installed):
torch_zip.pth (torch.save's zip archive), torch_legacy.pth (its older pickle stream) and torch_tar.pth (the
oldest tar archive, which no current PyTorch writes: built here by its layout, storages and tensors in files
of their own). Every value follows from arange, so the test recomputes it with numpy."""
import io
import os
import pickle
import struct
import sys
import tarfile

import torch


def state_dict():
  base = torch.arange(10, dtype=torch.float32)
  return {
    "conv.weight": torch.arange(54, dtype=torch.float32).reshape(2, 3, 3, 3) / 10,
    "conv.bias": torch.tensor([0.5, -0.5]),
    "fc.weight_t": torch.arange(12, dtype=torch.float32).reshape(3, 4).t(),  # strides (1, 4)
    "half": torch.arange(6).half() * 0.25,
    "bf16": (torch.arange(4).float() * 1.5).bfloat16(),
    "steps": torch.tensor(7),
    "mask": torch.tensor([True, False, True]),
    "shared_a": base[2:5],  # two views of one storage
    "shared_b": base[5:],
    "param": torch.nn.Parameter(torch.arange(3, dtype=torch.float32)),
    "ints": {"i8": torch.arange(-3, 4, dtype=torch.int8), "u8": torch.arange(250, 256, dtype=torch.uint8),
             "i16": torch.arange(-2, 3, dtype=torch.int16), "i32": torch.arange(5, dtype=torch.int32) * 1000,
             "f64": torch.arange(3, dtype=torch.float64) / 3},
    "meta": {"epoch": 3, "name": "demo"},
  }


def torch_global(pkl: bytes, placeholder: str, module: str, name: str) -> bytes:
  """A protocol-2 pickle with the string `placeholder` turned into a reference to the global module.name."""
  text = placeholder.encode()
  old = b"X" + struct.pack("<I", len(text)) + text
  assert pkl.count(old) >= 1
  return pkl.replace(old, b"c" + module.encode() + b"\n" + name.encode() + b"\n")


def write_tar(path: str) -> None:
  """The tar layout: `storages` (count, then per storage a pickled (key, location, type), an int64 element
  count and the bytes; then a pickled list of views), `tensors` (count, then per tensor a pickled
  (key, storage key, type), int32 ndim, 4 bytes, sizes, strides, offset) and `pickle` (the object, tensors
  as persistent ids)."""
  weight = (torch.arange(6, dtype=torch.float32) - 2.5).numpy().tobytes()
  counts = torch.arange(4, dtype=torch.int64).numpy().tobytes()
  storages = io.BytesIO()
  storages.write(pickle.dumps(2, protocol=2))
  for key, kind, data, n in ((0, "FLOAT", weight, 6), (1, "LONG", counts, 4)):
    storages.write(torch_global(pickle.dumps((key, "cpu", kind), protocol=2), kind, "torch", "FloatStorage" if kind == "FLOAT" else "LongStorage"))
    storages.write(struct.pack("<q", n) + data)
  storages.write(pickle.dumps([(2, 0, 3, 3)], protocol=2))  # storage 2: elements 3..5 of storage 0
  layouts = ((10, 0, (2, 3), (3, 1), 0), (11, 0, (3, 2), (1, 3), 0), (12, 1, (4,), (1,), 0), (13, 2, (3,), (1,), 0))
  tensors = io.BytesIO()
  tensors.write(pickle.dumps(len(layouts), protocol=2))
  for key, storage, size, stride, offset in layouts:
    tensors.write(pickle.dumps((key, storage, "torch.FloatTensor"), protocol=2))
    tensors.write(struct.pack("<i", len(size)) + b"\0" * 4 + struct.pack(f"<{len(size)}q", *size) + struct.pack(f"<{len(size)}q", *stride))
    tensors.write(struct.pack("<q", offset))

  class Persistent(pickle.Pickler):
    def persistent_id(self, obj):
      return obj.key if isinstance(obj, Ref) else None

  class Ref:
    def __init__(self, key): self.key = key

  main = io.BytesIO()
  Persistent(main, protocol=2).dump({"layer.weight": Ref(10), "layer.weight_t": Ref(11), "counts": Ref(12), "tail": Ref(13)})
  with tarfile.open(path, "w:", format=tarfile.PAX_FORMAT) as tar:
    for name, data in (("sys_info", pickle.dumps({"little_endian": True}, protocol=2)), ("storages", storages.getvalue()),
                       ("tensors", tensors.getvalue()), ("pickle", main.getvalue())):
      info = tarfile.TarInfo(name)
      info.size = len(data)
      tar.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
  out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
  torch.save(state_dict(), os.path.join(out, "torch_zip.pth"))
  torch.save(state_dict(), os.path.join(out, "torch_legacy.pth"), _use_new_zipfile_serialization=False)
  write_tar(os.path.join(out, "torch_tar.pth"))
