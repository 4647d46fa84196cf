"""The bundled Python examples run unchanged through `loupe-cli` and compute what tinygrad computes: the
losses of the training loop (resources/examples/train_cnn.py) and of the transformer
(resources/examples/transformer.py) equal real tinygrad v0.10.2's (CLANG=1, the same files, printed with
`out.tolist()`) within 1e-4, and fall."""
import json
import os
import subprocess

import pytest

EXAMPLES = os.path.join(os.environ.get("LOUPE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")), "resources", "examples")

TINYGRAD_LOSSES = {
    "train_cnn.py": [2.3127269744873047, 2.3950369358062744, 2.3097493648529053, 2.307177782058716, 2.271939516067505,
                     2.339942455291748, 2.274691581726074, 2.2675161361694336, 2.157299518585205, 2.315044641494751,
                     2.173150062561035, 2.110089063644409, 2.1546552181243896, 2.2105956077575684, 2.145660161972046,
                     1.9030522108078003, 2.022423267364502, 1.9348889589309692, 1.7454266548156738, 1.8034305572509766],
    "transformer.py": [2.763547897338867, 2.459876775741577, 2.4142606258392334, 2.1275687217712402, 2.0272867679595947,
                       1.726746916770935, 1.5632917881011963, 1.3432029485702515, 1.140235185623169, 0.9751551151275635,
                       0.8606946468353271, 0.7166821956634521],
}


@pytest.mark.parametrize("example", sorted(TINYGRAD_LOSSES))
def test_losses_equal_tinygrads(example):
  path = os.path.join(EXAMPLES, example)
  p = subprocess.run([os.environ["LOUPE_CLI"], "eval", path, "--json"], capture_output=True, text=True, timeout=1800)
  assert p.returncode == 0, p.stderr[-3000:]
  answer = json.loads(p.stdout)
  losses, want = answer["values"], TINYGRAD_LOSSES[example]
  assert answer["shape"] == [len(want)] and answer["dtype"] == "float32"
  for step, (got, ref) in enumerate(zip(losses, want), 1):
    assert abs(got - ref) <= 1e-4 * max(1.0, abs(ref)), f"step {step}: {got} vs tinygrad {ref}"
  assert losses[-1] < 0.8 * losses[0]
  assert "step   1  loss" in p.stderr  # the program's own prints go to stderr under eval


def test_training_example_runs_with_its_arguments(tmp_path):
  trace = tmp_path / "train.loupe"
  p = subprocess.run([os.environ["LOUPE_CLI"], "run", os.path.join(EXAMPLES, "train_cnn.py"), "--trace", str(trace), "--", "--steps", "3"],
                     capture_output=True, text=True, timeout=1800)
  assert p.returncode == 0, p.stderr[-3000:]
  assert "step   3  loss" in p.stdout and "step   4" not in p.stdout
  assert "test accuracy" in p.stdout and "out: shape (3,)" in p.stdout
  assert trace.read_bytes()[:15] == b"SQLite format 3"


def test_training_example_through_tinyjit_gives_the_same_losses():
  run = lambda *extra: subprocess.run([os.environ["LOUPE_CLI"], "run", os.path.join(EXAMPLES, "train_cnn.py"), "--", "--steps", "8", *extra],
                                      capture_output=True, text=True, timeout=1800)
  plain, jit = run(), run("--jit")
  assert plain.returncode == 0 and jit.returncode == 0, jit.stderr[-3000:]
  losses = lambda out: [line.split()[3] for line in out.splitlines() if line.startswith("step ")]
  assert losses(plain.stdout) == losses(jit.stdout) and len(losses(jit.stdout)) == 8
  assert "timing: steps 4-8" in jit.stdout


# resources/examples/kv_decoder.py under real tinygrad v0.10.2 (CPU=1, the same file, --steps 64): the
# jitted and the unjitted decode give these tokens.
TINYGRAD_DECODED = [29, 34, 60, 35, 29, 29, 29, 35, 38, 24, 20, 12, 2, 42, 35, 35, 35, 24, 9, 59, 9, 13, 39, 51, 12, 53, 59, 63, 15,
                    32, 42, 35, 24, 9, 26, 29, 9, 39, 29, 2, 29, 33, 29, 2, 39, 37, 35, 29, 12, 29, 10, 35, 35, 15, 20, 12, 37, 12, 62, 9,
                    37, 35, 35, 35]


def _decode(tmp_path, steps, *extra):
  import sqlite3
  trace = tmp_path / f"decode-{steps}{''.join(extra)}.loupe"
  p = subprocess.run([os.environ["LOUPE_CLI"], "run", os.path.join(EXAMPLES, "kv_decoder.py"), "--trace", str(trace), "--", "--steps", str(steps),
                      *extra], capture_output=True, text=True, timeout=1800)
  assert p.returncode == 0, p.stderr[-3000:]
  tokens = json.loads(p.stdout.split("tokens: ", 1)[1].splitlines()[0])
  db = sqlite3.connect(str(trace))
  compiled = db.execute("SELECT count(*) FROM kernels").fetchone()[0]
  runs = db.execute("SELECT count(*) FROM run_vars").fetchone()[0]
  defines = db.execute("SELECT count(*) FROM uops WHERE op = 'DEFINE_VAR'").fetchone()[0]
  return tokens, compiled, runs, defines


def test_kv_decoder_compiles_each_kernel_once_under_tinyjit(tmp_path):
  """64 tokens through TinyJit with start_pos a bound Variable: tinygrad's tokens, the same as without the
  JIT, and as many compiled kernels as for 2 tokens (each decode kernel compiled once, its start_pos passed
  per replay); the trace records the DEFINE_VAR and every run's binding."""
  tokens, compiled, runs, defines = _decode(tmp_path, 64)
  assert tokens == TINYGRAD_DECODED
  plain, _, _, _ = _decode(tmp_path, 64, "--no-jit")
  assert plain == TINYGRAD_DECODED
  _, compiled_two, _, _ = _decode(tmp_path, 2)
  assert compiled == compiled_two, f"{compiled} kernels compiled for 64 tokens, {compiled_two} for 2"
  assert defines >= 1 and runs > 63
