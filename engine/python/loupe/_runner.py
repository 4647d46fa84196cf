"""`loupe-cli run` and `loupe-cli eval` (DESIGN.md §6), in the Python process loupe-cli execs.

  run  [--trace OUT] [--compare-noopt] [--columns N] PROGRAM [-- ARGS]
  eval PROGRAM | eval --jsonl

A program runs as `python3 PROGRAM ARGS` would (its own __main__, sys.argv, its folder on sys.path), with
`Tensor` and `dtypes` predefined. Its result, where a tool asks for one, is the variable `out`."""
from __future__ import annotations

import builtins
import json
import os
import sys
import traceback

from loupe import _loupe
from loupe._session import run_settings
from loupe.dtype import dtypes
from loupe.tensor import Tensor


def _globals(path: str) -> dict:
  return {"__name__": "__main__", "__file__": path, "__builtins__": builtins, "Tensor": Tensor, "dtypes": dtypes}


def _execute(source: str, path: str, scope: dict) -> None:
  exec(compile(source, path, "exec"), scope)


def _user_error(exc: BaseException, path: str) -> str:
  """"ValueError: message (program.py, line 3)": the exception and the deepest line of the program itself."""
  line = None
  for frame in traceback.extract_tb(exc.__traceback__):
    if frame.filename == path: line = frame.lineno
  where = f" (line {line})" if line is not None else ""
  if isinstance(exc, SyntaxError): return f"{type(exc).__name__}: {exc.msg} (line {exc.lineno}:{exc.offset})"
  return f"{type(exc).__name__}: {exc}{where}"


def _print_traceback(exc: BaseException) -> None:
  """The traceback without the runner's own frames, as `python3 program.py` would print it."""
  frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.endswith(os.path.join("loupe", "_runner.py"))]
  if frames: print("Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)), end="", file=sys.stderr)
  print("".join(traceback.format_exception_only(type(exc), exc)), end="", file=sys.stderr)


def _read(path: str) -> str:
  if path == "-": return sys.stdin.read()
  try:
    with open(path, encoding="utf-8") as f: return f.read()
  except OSError as e:
    raise SystemExit(f"loupe-cli: cannot read the program '{path}': {e.strerror}")


def _out_of(scope: dict) -> Tensor:
  if "out" not in scope: raise NameError("the program does not assign 'out' (its result)")
  out = scope["out"]
  if not isinstance(out, Tensor): raise TypeError(f"'out' must be a Tensor, not {type(out).__name__}")
  return out.to(out.device[0]) if isinstance(out.device, tuple) else out  # a sharded result, gathered


def run(args: list[str]) -> int:
  trace, compare, columns, program_args = None, False, 80, []
  if "--" in args:
    program_args = args[args.index("--") + 1:]
    args = args[:args.index("--")]
  while args and args[0].startswith("--"):
    flag = args.pop(0)
    if flag == "--trace": trace = args.pop(0)
    elif flag == "--compare-noopt": compare = True
    elif flag == "--columns": columns = int(args.pop(0))
  path = args[0]
  source = _read(path)
  display = "<stdin>" if path == "-" else path
  viz = False
  try:
    if trace is not None: _loupe.trace_start(trace, count_attempts=True)
    else:
      started = _loupe.trace_start_from_env()
      viz = bool(started and started[1])
  except RuntimeError as e:  # the path is being written by another run, or cannot be created
    print(f"loupe-cli run: error: no trace is written: {e}", file=sys.stderr)
    return 1
  if _loupe.trace_active():
    _loupe.trace_record_run(display, source, run_settings(program_args))
  sys.argv = [display, *program_args]
  if path != "-": sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
  scope, status = _globals(display), 0
  _loupe.rule_stats_begin()
  try:
    _execute(source, display, scope)
    out = scope.get("out")
    if isinstance(out, Tensor) and isinstance(out.device, tuple): out = out.to(out.device[0])  # a sharded result, gathered
    if isinstance(out, Tensor): print(_loupe.format_result(out, _loupe.kernel_count()), flush=True)
    if compare: print("\n" + _loupe.noopt_comparisons(columns), end="", flush=True)
  except SystemExit as e:
    status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    if e.code is not None and not isinstance(e.code, int): print(e.code, file=sys.stderr)
  except _loupe.InputsCaptured:  # a re-run for one kernel's inputs (TRACE_INPUTS_OF): done once they are kept
    print("loupe: the inputs asked for were captured; the program stopped there", file=sys.stderr)
  except KeyboardInterrupt:
    print("\ninterrupted", file=sys.stderr)
    status = 130
  except BaseException as e:  # what was recorded up to the error stays in the trace
    _print_traceback(e)
    status = 1
  finally:
    _loupe.rule_stats_end()
    problem = _loupe.trace_problem()
    written = _loupe.trace_finish()
    if written and problem:  # said as it is: the trace holds only what was recorded before the failure
      print(f"loupe: the trace {written} is incomplete: recording stopped early ({problem}); it holds what was"
            " recorded until then", file=sys.stderr)
      if status == 0: status = 1
    elif written:
      print(f"trace written to {written}", file=sys.stderr)
    if written and viz: print(_loupe.open_trace_in_app(written), file=sys.stderr)
  return status


def _answers_stream():
  """The real stdout for the JSON answers; everything else the process prints (the program's prints, the
  engine's DEBUG lines) goes to stderr, so the answers stay one per line."""
  sys.stdout.flush()
  answers = os.fdopen(os.dup(1), "w", buffering=1)
  os.dup2(2, 1)
  sys.stdout = sys.stderr
  return answers


def _evaluate(source: str, path: str, case_id) -> tuple[str, str | None]:
  """(the JSON answer, the error message or None)."""
  scope = _globals(path)
  sys.argv = [path]
  try:
    _execute(source, path, scope)
    return _loupe.eval_json(json.dumps(case_id), _out_of(scope), _loupe.kernel_count()), None
  except KeyboardInterrupt:
    raise
  except BaseException as e:
    message = _user_error(e, path)
    return _loupe.error_json(json.dumps(case_id), message), message


def evaluate(args: list[str]) -> int:
  answers = _answers_stream()
  _loupe.rule_stats_begin()
  try:
    if args[0] == "--jsonl":
      for line in sys.stdin:
        if not line.strip(): continue
        case = None
        try:
          try:
            case = json.loads(line)
          except json.JSONDecodeError as e:
            raise ValueError(f"the case is not JSON: {e}") from None
          if not isinstance(case, dict): raise ValueError(f"a case must be a JSON object, not {type(case).__name__}")
          program = case.get("program")
          if not isinstance(program, str): raise ValueError("the case has no 'program' string")
        except ValueError as e:
          answers.write(_loupe.error_json(json.dumps(case.get("id") if isinstance(case, dict) else None), str(e)) + "\n")
          continue
        answers.write(_evaluate(program, "<program>", case.get("id"))[0] + "\n")
      return 0
    path = args[0]
    answer, error = _evaluate(_read(path), path, path)
    answers.write(answer + "\n")
    if error is not None:
      print(error, file=sys.stderr)
      return 1
    return 0
  except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    return 130
  finally:
    _loupe.rule_stats_end()
    answers.flush()


def main() -> int:
  mode, args = sys.argv[1], sys.argv[2:]
  return run(args) if mode == "run" else evaluate(args)


if __name__ == "__main__":
  sys.exit(main())
