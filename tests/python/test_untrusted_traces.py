"""A trace from someone else is data, never a program. Each attack here starts from a genuine trace this
test records and edits it with sqlite3, exactly as an attacker would (a trace is meant to be shared):

- stepping a kernel whose inputs the trace did not keep re-runs the recorded program: a trace pointing at
  /usr/lib/python3.11/timeit.py with `-s "import os; os.system(...)"`, or at a helper.py shipped beside
  it, ran the attacker's command without asking. Now nothing runs without --allow-rerun (the error shows
  what would run and the command to run it by hand), and recorded settings are checked first;
- --disasm wrote the compiled object under a path made of the recorded kernel name (`../../x` put a shared
  object anywhere, a `sitecustomize` with a constructor ran at the next python3 start). Now names never
  form paths and nothing outside the private temporary folder is written;
- recorded strings printed raw passed terminal escape codes through;
- two runs writing one trace path both said "trace written"; a finished trace needed side files and a
  writable folder.
"""
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

import pytest

CLI = os.environ.get("LOUPE_CLI", "loupe-cli")

SEEDED = """
import sys
import numpy as np
from tinygrad import Tensor
n = int(sys.argv[1])
a = Tensor(np.arange(n * n, dtype=np.float32).reshape(n, n) % 7 - 3)
b = Tensor(np.arange(n * n, dtype=np.float32).reshape(n, n) % 5 - 2)
print((a @ b).sum().item())
"""


def run(*args, cwd=None, env=None, timeout=600):
  e = dict(os.environ)
  e.update(env or {})
  return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd, env=e)


@pytest.fixture(scope="module")
def genuine(tmp_path_factory):
  """A trace this user recorded: the matmul's inputs (> 4096 bytes) are not kept."""
  d = tmp_path_factory.mktemp("genuine")
  (d / "prog.py").write_text(SEEDED)
  p = run("run", "prog.py", "--trace", str(d / "prog.loupe"), "--", "48", cwd=d, env={"TRACE_INPUTS": "4096"})
  assert p.returncode == 0, p.stderr[-2000:]
  prof = run("trace", str(d / "prog.loupe"), "--profile")
  kernel = [line.split()[3] for line in prof.stdout.splitlines() if line.startswith("***") and " r_" in line][0]
  return d / "prog.loupe", kernel


def attacker_copy(genuine, tmp_path, name="shared.loupe"):
  trace, kernel = genuine
  d = tmp_path / "from-elsewhere"
  d.mkdir(exist_ok=True)
  shutil.copy(trace, d / name)
  return d / name, kernel


def edit(trace, *statements):
  db = sqlite3.connect(trace)
  for s, args in statements:
    db.execute(s, args)
  db.commit()
  db.close()


def set_run(trace, **values):
  edit(trace, *[("INSERT OR REPLACE INTO run_info(key, value) VALUES (?, ?)", (k, v)) for k, v in values.items()])


def step(trace, kernel, *extra, env=None):
  return run("trace", str(trace), "--step-kernel", kernel, "--at", "7", "--json", *extra, cwd="/", env=env)


def test_a_trace_pointing_at_timeit_with_a_setup_command_runs_nothing(genuine, tmp_path):
  trace, kernel = attacker_copy(genuine, tmp_path)
  marker = tmp_path / "PWNED-timeit"
  timeit = "/usr/lib/python3.11/timeit.py"
  if not os.path.exists(timeit):
    import timeit as t
    timeit = t.__file__
  text = open(timeit, encoding="utf-8").read()
  set_run(trace, script_path=timeit, script=text, script_sha256=hashlib.sha256(open(timeit, "rb").read()).hexdigest(),
          ARGS=json.dumps(["-n", "1", "-s", f"import os; os.system('touch {marker}')", "pass"]), CWD=str(tmp_path))
  p = step(trace, kernel)
  assert p.returncode == 1, p.stderr
  assert not marker.exists()
  # the error shows exactly what would run, and how to agree or to run it by hand
  for words in ("--allow-rerun", timeit, "import os; os.system", "folder:", str(tmp_path), "not known to be yours", "env DEVICE=CPU"):
    assert words in p.stderr, (words, p.stderr)


def test_a_helper_shipped_beside_the_trace_runs_nothing(genuine, tmp_path):
  trace, kernel = attacker_copy(genuine, tmp_path)
  marker = tmp_path / "PWNED-helper"
  helper = trace.parent / "helper.py"
  helper.write_text(f"open({str(marker)!r}, 'w').close()\n")
  set_run(trace, script_path="helper.py", script=helper.read_text(), script_sha256=hashlib.sha256(helper.read_bytes()).hexdigest(),
          CWD=str(trace.parent), ARGS="[]")
  p = step(trace, kernel)
  assert p.returncode == 1 and "--allow-rerun" in p.stderr and str(helper) in p.stderr, p.stderr
  assert not marker.exists()
  # the copyable command quotes every word: a shell runs what it shows, nothing more
  command = p.stderr.splitlines()[-1].strip()
  assert command.startswith("cd ") and "run " + str(helper) in command, command


def test_the_users_own_trace_edited_afterwards_is_no_longer_trusted(genuine, tmp_path):
  trace, kernel = genuine
  mine = tmp_path / "mine.loupe"
  shutil.copy(trace, mine)
  set_run(mine, ARGS=json.dumps(["49"]))
  p = step(mine, kernel)
  assert p.returncode == 1 and "not one Loupe remembers you recording" in p.stderr, p.stderr


def test_settings_from_the_trace_are_checked_before_anything_runs(genuine, tmp_path):
  trace, kernel = attacker_copy(genuine, tmp_path)
  for key, value, allowed in (("DEVICE", "CPU; touch /tmp/x", "one of"), ("BEAM", "99999999", "0..256"),
                              ("THREADS", "-1", "0..4096"), ("NOOPT", "yes", "0 or 1")):
    bad = tmp_path / f"bad-{key}.loupe"
    shutil.copy(trace, bad)
    set_run(bad, **{key: value})
    p = step(bad, kernel, "--allow-rerun")  # even with consent: the value is refused
    assert p.returncode == 1, p.stderr
    assert f"recorded setting {key}=" in p.stderr and allowed in p.stderr, p.stderr
  bad = tmp_path / "bad-args.loupe"
  shutil.copy(trace, bad)
  set_run(bad, ARGS=json.dumps(["ok", "line\nbreak"]))
  p = step(bad, kernel, "--allow-rerun")
  assert p.returncode == 1 and "program argument 2" in p.stderr and "control characters" in p.stderr, p.stderr


def test_a_genuine_trace_from_elsewhere_re_runs_with_consent(genuine, tmp_path):
  trace, kernel = attacker_copy(genuine, tmp_path)
  edit(trace, ("UPDATE meta SET value = ? WHERE key = 'machine_id'", ("0" * 32,)))
  p = step(trace, kernel)
  assert p.returncode == 1 and "recorded on another machine" in p.stderr, p.stderr
  p = step(trace, kernel, "--allow-rerun")
  assert p.returncode == 0, p.stderr[-2000:]
  assert "(--allow-rerun)" in p.stderr
  assert "the same bytes as in the recorded run" in json.loads(p.stdout)["inputs"]


def kernel_id(trace, name):
  db = sqlite3.connect(trace)
  (kid,) = db.execute("SELECT id FROM kernels WHERE name = ? ORDER BY id LIMIT 1", (name,)).fetchone()
  db.close()
  return kid


def test_a_kernel_name_that_is_a_path_writes_nothing_anywhere(genuine, tmp_path):
  trace, kernel = attacker_copy(genuine, tmp_path)
  kid = kernel_id(trace, kernel)
  victim = tmp_path / "victim" / "python"
  victim.mkdir(parents=True)
  marker = tmp_path / "PWNED-constructor"
  # no `void name(` in the source: the old code fell back to the recorded name for the file it wrote
  source = (f'#include <stdio.h>\n__attribute__((constructor)) static int pwn(void) {{ FILE* f = fopen("{marker}", "w");'
            " if (f) fclose(f); return 0; }\nint loupe_placeholder;\n")
  evil = "../" * 12 + str(victim).lstrip("/") + "/sitecustomize"
  edit(trace, ("UPDATE kernels SET name = ? WHERE id = ?", (evil, kid)),
       ("UPDATE kernel_sources SET source = ? WHERE kernel_id = ?", (source, kid)))
  scratch = tmp_path / "tmpdir"
  scratch.mkdir()
  p = run("trace", str(trace), "--disasm", str(kid), env={"TMPDIR": str(scratch)})
  assert p.returncode == 1 and "is not a C identifier" in p.stderr, p.stderr
  assert list(victim.iterdir()) == [] and list(scratch.iterdir()) == []
  # under a plain name the source compiles, to be read only: its constructor never runs
  edit(trace, ("UPDATE kernels SET name = 'sitecustomize' WHERE id = ?", (kid,)))
  p = run("trace", str(trace), "--disasm", str(kid), env={"TMPDIR": str(scratch)})
  assert p.returncode == 0, p.stderr
  assert "sitecustomize" in p.stdout
  assert list(victim.iterdir()) == [] and list(scratch.iterdir()) == [] and not marker.exists()
  subprocess.run([sys.executable, "-c", "pass"], env={**os.environ, "PYTHONPATH": str(victim)}, check=True)
  assert not marker.exists()


def llvm_trace(tmp_path):
  d = tmp_path / "llvm"
  d.mkdir()
  (d / "p.py").write_text("from tinygrad import Tensor\nprint((Tensor.arange(64).float() * 2).sum().item())\n")
  p = run("run", "p.py", "--trace", str(d / "p.loupe"), cwd=d, env={"DEVICE": "LLVM"})
  if p.returncode != 0: pytest.skip(f"no LLVM device here: {p.stderr[-300:]}")
  db = sqlite3.connect(d / "p.loupe")
  row = db.execute("SELECT k.id, k.name FROM kernels k JOIN kernel_sources s ON s.kernel_id = k.id"
                   " WHERE s.backend = 'LLVM' AND s.variant = 'opt' LIMIT 1").fetchone()
  db.close()
  if row is None: pytest.skip("the LLVM trace has no LLVM kernel")
  return d / "p.loupe", row[0], row[1]


def test_llvm_sources_that_crash_or_stall_the_compiler_are_errors(tmp_path):
  trace, kid, name = llvm_trace(tmp_path)
  bad_asm = f'define void @{name}(ptr noalias %data0) {{\nentry:\n  call void asm sideeffect "bogus %%%", ""()\n  ret void\n}}\n'
  edit(trace, ("UPDATE kernel_sources SET source = ? WHERE kernel_id = ? AND variant = 'opt'", (bad_asm, kid)))
  p = run("trace", str(trace), "--disasm", str(kid))
  assert p.returncode == 1 and f"LLVM compiling {name}" in p.stderr, p.stderr
  huge = (f"define void @{name}(ptr noalias %data0) {{\nentry:\n  %v = load <268435456 x float>, ptr %data0\n"
          "  %w = fdiv <268435456 x float> %v, %v\n  store <268435456 x float> %w, ptr %data0\n  ret void\n}\n")
  edit(trace, ("UPDATE kernel_sources SET source = ? WHERE kernel_id = ? AND variant = 'opt'", (huge, kid)))
  t0 = time.monotonic()
  p = run("trace", str(trace), "--disasm", str(kid), env={"LOUPE_READ_COMPILE_SECONDS": "3"})
  assert p.returncode == 1 and f"LLVM compiling {name}" in p.stderr, p.stderr
  assert time.monotonic() - t0 < 15


def test_recorded_strings_reach_the_terminal_escaped(genuine, tmp_path):
  trace, kernel = attacker_copy(genuine, tmp_path)
  kid = kernel_id(trace, kernel)
  edit(trace, ("UPDATE kernels SET name = ? WHERE id = ?", ("r_\x1b]0;owned\x07\x1b[2J", kid)),
       ("UPDATE contexts SET name = ? WHERE id = 1", ("naïve ✓ \u202eevil",)),
       ("UPDATE rules SET name = ? WHERE id = 1", ("rule\x1b[31mred",)),
       ("INSERT OR REPLACE INTO run_info(key, value) VALUES ('script_path', ?)", ("/x\x1b[8m.py",)))
  outputs = []
  for args in ([], ["--profile"], ["-t"], ["--rules"], ["--kernel", str(kid)], ["--search", "r_"], ["--kernel", "nope\x1b[5m"]):
    p = run("trace", str(trace), *args)
    outputs.append(p.stdout + p.stderr)
  text = "".join(outputs)
  assert "\x1b" not in text and "\u202e" not in text
  assert "\\x1b]0;owned\\x07" in text and "rule\\x1b[31mred" in text and "naïve ✓ \\u202eevil" in text


SLOW = "import time\nfrom tinygrad import Tensor\nprint((Tensor.arange(16).float() + 1).sum().item())\ntime.sleep(3)\n"


def test_two_runs_writing_one_trace_report_truthfully(tmp_path):
  (tmp_path / "slow.py").write_text(SLOW)
  trace = tmp_path / "same.loupe"
  first = subprocess.Popen([CLI, "run", "slow.py", "--trace", str(trace)], cwd=tmp_path, stderr=subprocess.PIPE, text=True)
  for _ in range(100):  # until the first has claimed the path
    if trace.exists() and trace.stat().st_size > 0: break
    time.sleep(0.05)
  second = run("run", "slow.py", "--trace", str(trace), cwd=tmp_path)
  _, first_err = first.communicate(timeout=120)
  assert first.returncode == 0 and "trace written to" in first_err, first_err
  assert second.returncode == 1 and "another run is writing this trace" in second.stderr, second.stderr
  assert "trace written" not in second.stderr
  p = run("trace", str(trace), "--json")
  assert p.returncode == 0 and json.loads(p.stdout)["finished"], p.stderr


def test_a_finished_trace_needs_no_side_files_nor_a_writable_folder(genuine):
  trace, _ = genuine
  d = tempfile.mkdtemp(prefix="loupe-readonly-")  # not under pytest's 0700 folders: nobody must reach it
  try:
    shutil.copy(trace, os.path.join(d, "t.loupe"))
    assert run("trace", os.path.join(d, "t.loupe")).returncode == 0
    assert sorted(os.listdir(d)) == ["t.loupe"]  # reading left nothing beside it
    os.chmod(os.path.join(d, "t.loupe"), 0o444)
    os.chmod(d, 0o555)
    if os.geteuid() == 0:  # root writes anywhere: read as nobody instead
      p = subprocess.run([CLI, "trace", os.path.join(d, "t.loupe"), "--json"], capture_output=True, text=True, timeout=120,
                         preexec_fn=lambda: (os.setgid(65534), os.setuid(65534)), cwd="/")
    else:
      p = run("trace", os.path.join(d, "t.loupe"), "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["finished"]
    assert sorted(os.listdir(d)) == ["t.loupe"]
  finally:
    os.chmod(d, 0o755)
    shutil.rmtree(d)


def test_a_run_whose_trace_fills_the_disk_says_so(tmp_path):
  """A full disk (here: a file-size limit) stops the recording; the run says the trace is incomplete,
  exits 1, and what was committed before reads back."""
  import resource
  (tmp_path / "many.py").write_text("from tinygrad import Tensor\nx = Tensor.arange(64).float()\n"
                                    "for i in range(300):\n  x = (x * 1.0001 + i).relu()\n  x.realize()\nprint(x.sum().item())\n")
  trace = tmp_path / "full.loupe"

  def small_files():
    resource.setrlimit(resource.RLIMIT_FSIZE, (400 << 10, 400 << 10))

  p = subprocess.run([CLI, "run", "many.py", "--trace", str(trace)], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                     preexec_fn=small_files, env={**os.environ, "DISABLE_COMPILER_CACHE": "1"})
  assert p.returncode == 1, p.stderr[-2000:]
  assert "is incomplete: recording stopped early" in p.stderr and "trace written to" not in p.stderr, p.stderr[-2000:]
  q = run("trace", str(trace), "--json")
  assert q.returncode == 0, q.stderr
  listing = json.loads(q.stdout)
  assert not listing["finished"] and len(listing["contexts"]) > 0
