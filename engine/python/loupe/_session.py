"""Traces for plain `python3 program.py` runs: LOUPE_TRACE=path records one, VIZ=1 records one to a temporary
file and opens it in the Loupe app when the program exits."""
import atexit
import json
import os
import sys

from loupe import _loupe


def run_settings(program_args: list[str]) -> dict[str, str]:
  """What a re-run of the program needs to compute the same kernels: the switches, its arguments and folder."""
  settings = {k: str(_loupe.get_option(k)) for k in ("NOOPT", "BEAM", "DEBUG", "THREADS", "COMPARE_NOOPT", "HOTSPOTS", "TRAINING")}
  settings["DEVICE"] = _loupe.default_device()
  settings["ARGS"] = json.dumps(list(program_args))
  settings["CWD"] = os.getcwd()
  return settings


def start_from_env() -> None:
  if _loupe.trace_active(): return  # loupe-cli run started one already
  try:
    started = _loupe.trace_start_from_env()
  except RuntimeError as e:  # another run writes that path, or it cannot be created: say so, run without a trace
    print(f"loupe: no trace is written: {e}", file=sys.stderr)
    return
  if started is None: return
  path, viz = started
  main = sys.modules.get("__main__")
  program = getattr(main, "__file__", None) or "<python>"
  source = ""
  if program and os.path.isfile(program):
    with open(program, encoding="utf-8", errors="replace") as f: source = f.read()
  _loupe.trace_record_run(program, source, run_settings(sys.argv[1:]))

  def finish() -> None:
    problem = _loupe.trace_problem()
    done = _loupe.trace_finish()
    if done and problem:
      print(f"loupe: the trace {done} is incomplete: recording stopped early ({problem})", file=sys.stderr)
    elif done:
      print(f"trace written to {done}", file=sys.stderr)
    if done and viz: print(_loupe.open_trace_in_app(done), file=sys.stderr)
  atexit.register(finish)
