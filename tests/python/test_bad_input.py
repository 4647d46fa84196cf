"""Bad input never crashes the process: every Tensor method, called with odd arguments on odd tensors (0-d,
empty, bool), raises a Python exception or works; never a segfault or an abort. The calls run in batches in
child processes; a batch that dies is rerun call by call to name the culprit."""
import subprocess
import sys

from loupe import Tensor

ARGS = ["", "0", "-1", "5", "(1, 0)", "None", "2, 3", "Tensor([0])", "1.5", "((1, 1),)", "dim=7", "'x'"]
BASES = ["Tensor(2.0)", "Tensor.ones(0, 3)", "Tensor([True, False])", "Tensor.arange(6).reshape(2, 3)"]
CALL = """try:
  r = x.{name}({args})
  for t in (r if isinstance(r, (tuple, list)) else (r,)):
    if isinstance(t, Tensor): t.realize()
except Exception:
  pass
"""


def run(program: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=900)


def test_every_method_survives_odd_arguments():
  names = sorted(n for n in dir(Tensor) if not n.startswith("_") and callable(getattr(Tensor, n, None)) and n not in ("manual_seed",))
  crashes = []
  for base in BASES:
    calls = [(n, a) for n in names for a in ARGS]
    head = f"from loupe import Tensor\nx = {base}\n"
    for i in range(0, len(calls), 150):
      chunk = calls[i:i + 150]
      if run(head + "".join(CALL.format(name=n, args=a) for n, a in chunk)).returncode == 0: continue
      for n, a in chunk:
        p = run(head + CALL.format(name=n, args=a))
        if p.returncode != 0: crashes.append(f"{base}.{n}({a}): exit {p.returncode} {p.stderr.strip()[-200:]}")
  assert not crashes, "\n".join(crashes)
