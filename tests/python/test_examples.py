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
    "train_cnn.py": [0.790897011756897, 0.6673144102096558, 0.8098354935646057, 0.6876779794692993, 0.6581897735595703,
                     0.6496460437774658, 0.623431921005249, 0.6087597608566284, 0.5957063436508179, 0.5287237167358398,
                     0.47447729110717773, 0.42512547969818115, 0.3374902009963989, 0.2611471712589264, 0.22513970732688904,
                     0.12057250738143921, 0.08339682221412659, 0.07743510603904724, 0.040798187255859375, 0.03746378794312477],
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
  assert losses[-1] < 0.5 * losses[0]
  assert "step   1  loss" in p.stderr  # the program's own prints go to stderr under eval


def test_training_example_runs_with_its_arguments(tmp_path):
  trace = tmp_path / "train.loupe"
  p = subprocess.run([os.environ["LOUPE_CLI"], "run", os.path.join(EXAMPLES, "train_cnn.py"), "--trace", str(trace), "--", "--steps", "3"],
                     capture_output=True, text=True, timeout=1800)
  assert p.returncode == 0, p.stderr[-3000:]
  assert "step   3  loss" in p.stdout and "step   4" not in p.stdout
  assert "test accuracy" in p.stdout and "out: shape (3,)" in p.stdout
  assert trace.read_bytes()[:15] == b"SQLite format 3"
