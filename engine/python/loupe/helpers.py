"""tinygrad's helpers: environment switches (getenv, ContextVar, Context; DEBUG, NOOPT and BEAM drive the
engine), GlobalCounters, Timing, and the small sequence utilities tinygrad programs import."""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import itertools
import math
import os
import platform
import sys
import tempfile
import time
from typing import Any, Callable, ClassVar, Iterable, Optional, Sequence, TypeVar

from loupe import _loupe

T = TypeVar("T")
OSX = platform.system() == "Darwin"
WINDOWS = platform.system() == "Windows"


@functools.lru_cache(maxsize=None)
def getenv(key: str, default: Any = 0) -> Any:
  """The environment variable `key` converted to the type of `default` (tinygrad's getenv)."""
  return type(default)(os.getenv(key, default))


class ContextVar:
  """A named switch read from the environment once; ``Context(NAME=value)`` changes it for a block."""
  _cache: ClassVar[dict[str, "ContextVar"]] = {}
  value: Any

  def __init__(self, key: str, default_value: Any):
    if key in ContextVar._cache: raise RuntimeError(f"attempt to recreate ContextVar {key}")
    ContextVar._cache[key] = self
    self.key = key
    self.value = getenv(key, default_value)

  def __bool__(self) -> bool: return bool(self.value)
  def __ge__(self, x) -> bool: return self.value >= x
  def __gt__(self, x) -> bool: return self.value > x
  def __lt__(self, x) -> bool: return self.value < x
  def __le__(self, x) -> bool: return self.value <= x
  def __eq__(self, x) -> bool: return self.value == x
  def __hash__(self) -> int: return hash(self.key)
  def __int__(self) -> int: return int(self.value)
  def __repr__(self) -> str: return f"ContextVar({self.key}={self.value!r})"


class _EngineVar(ContextVar):
  """A switch the engine itself reads (DEBUG, NOOPT, BEAM, TRAINING...): its value lives in the engine."""

  def __init__(self, key: str):
    ContextVar._cache[key] = self
    self.key = key

  @property
  def value(self) -> Any:  # type: ignore[override]
    return _loupe.get_option(self.key)

  @value.setter
  def value(self, v: Any) -> None:
    _loupe.set_option(self.key, v)


class Context(contextlib.ContextDecorator):
  """``with Context(DEBUG=2, NOOPT=1): ...`` sets switches for a block, then restores them."""

  def __init__(self, **kwargs: Any):
    self.kwargs = kwargs

  def __enter__(self) -> None:
    unknown = [k for k in self.kwargs if k not in ContextVar._cache]
    if unknown: raise KeyError(f"Context: unknown switch {', '.join(unknown)} (known: {', '.join(sorted(ContextVar._cache))})")
    self.old = {k: ContextVar._cache[k].value for k in self.kwargs}
    for k, v in self.kwargs.items(): ContextVar._cache[k].value = v

  def __exit__(self, *exc: Any) -> None:
    for k, v in self.old.items(): ContextVar._cache[k].value = v


DEBUG, NOOPT, BEAM, THREADS = _EngineVar("DEBUG"), _EngineVar("NOOPT"), _EngineVar("BEAM"), _EngineVar("THREADS")
COMPARE_NOOPT, NO_MEMORY_PLANNER, SCACHE = _EngineVar("COMPARE_NOOPT"), _EngineVar("NO_MEMORY_PLANNER"), _EngineVar("SCACHE")
IMAGE, WINO, TRACEMETA = ContextVar("IMAGE", 0), ContextVar("WINO", 0), ContextVar("TRACEMETA", 1)
CAPTURING = _EngineVar("CAPTURING")  # 0: a TinyJit capturing its step does not record what runs meanwhile
TRANSCENDENTAL, FUSE_ARANGE, SPLIT_REDUCEOP = ContextVar("TRANSCENDENTAL", 1), ContextVar("FUSE_ARANGE", 0), ContextVar("SPLIT_REDUCEOP", 1)
JIT, PROFILE, VIZ = ContextVar("JIT", 1), ContextVar("PROFILE", 0), ContextVar("VIZ", 0)
CI = os.getenv("CI", "") != ""


class _UnreadVar(ContextVar):
  """A tinygrad switch Loupe's engine does not read: it holds tinygrad's default, and setting it to anything
  else (Context(NAME=...), or the environment) is an error naming it rather than a switch that does nothing."""

  def __init__(self, key: str, default_value: Any, why: str):
    self.why, self.default = why, default_value
    super().__init__(key, default_value)

  @property
  def value(self) -> Any:  # type: ignore[override]
    return self.__dict__.get("_value", self.default)

  @value.setter
  def value(self, v: Any) -> None:
    if v != self.default and "_value" in self.__dict__:
      raise NotImplementedError(f"{self.key}={v!r}: Loupe's engine does not read {self.key} ({self.why})")
    if v != self.default: print(f"loupe: {self.key}={v!r} in the environment has no effect ({self.why})", file=sys.stderr)
    self.__dict__["_value"] = self.default


# the rest of tinygrad v0.10.2's switches, each with what Loupe does instead
USE_TC = _UnreadVar("TC", 1, "tensor cores are chosen by the kernel optimizer where the device has them")
TC_SELECT, TC_OPT = _UnreadVar("TC_SELECT", -1, "one tensor core per device"), _UnreadVar("TC_OPT", 0, "one tensor core policy")
AMX = _UnreadVar("AMX", 0, "no Apple AMX renderer")
TC_SEARCH_OVER_SHAPE = _UnreadVar("TC_SEARCH_OVER_SHAPE", 1, "tensor cores are searched over the kernel's shape")
FUSE_CONV_BW = _UnreadVar("FUSE_CONV_BW", 0, "the scheduler's fusion decisions are its own")
TRACK_MATCH_STATS = _UnreadVar("TRACK_MATCH_STATS", 0, "Loupe records every rewrite while a trace records (loupe-cli run --trace, VIZ=1, "
                               "LOUPE_TRACE) and counts rules in its rule profiler")


class _RingVar(_UnreadVar):
  """RING: Loupe's sharded reductions all-reduce naively (each device adds the others' copied partials), which is
  tinygrad's RING=0 and its RING=1 below the ring's size threshold; RING=2 (always the ring) is refused."""

  @property
  def value(self) -> Any:  # type: ignore[override]
    return self.__dict__.get("_value", self.default)

  @value.setter
  def value(self, v: Any) -> None:
    if v in (0, 1): self.__dict__["_value"] = v
    elif "_value" in self.__dict__:
      raise NotImplementedError(f"RING={v!r}: Loupe has no ring all-reduce (sharded reductions all-reduce naively, tinygrad's RING=0)")
    else: _UnreadVar.value.fset(self, v)  # from the environment: a note, and the default


RING = _RingVar("RING", 1, "sharded reductions all-reduce naively; there is no ring all-reduce")

PICKLE_BUFFERS = _UnreadVar("PICKLE_BUFFERS", 1, "tensors pickle their values")
LRU = _UnreadVar("LRU", 1, "the allocator's reuse is the memory planner's")
CACHELEVEL = _UnreadVar("CACHELEVEL", 2, "compiled kernels are cached on disk per device")
IGNORE_BEAM_CACHE = _UnreadVar("IGNORE_BEAM_CACHE", 0, "BEAM results are cached with the kernels")
DEVECTORIZE = _UnreadVar("DEVECTORIZE", 1, "the renderers choose vector widths per device")
DONT_REALIZE_EXPAND = _UnreadVar("DONT_REALIZE_EXPAND", 0, "the scheduler's realize decisions are its own")


@dataclasses.dataclass(frozen=True)
class Metadata:
  """The tensor op behind a kernel: its name, the user's line that called it, and whether it is part of a
  backward pass (tinygrad's Metadata; Loupe's engine records the same per op, ir/metadata.h)."""
  name: str
  caller: str
  backward: bool = False
  def __hash__(self) -> int: return hash(self.name)
  def __repr__(self) -> str: return str(self) + (f" - {self.caller}" if self.caller else "")
  def __str__(self) -> str: return self.name + (" bw" if self.backward else "")


# the op being called, as tinygrad's Tensor sets it (Loupe's native ops record their own: OpScope)
_METADATA: contextvars.ContextVar[Optional[Metadata]] = contextvars.ContextVar("_METADATA", default=None)


def mv_address(mv) -> int:
  """The address of a writable memoryview's first byte (for Tensor.from_blob)."""
  import ctypes
  return ctypes.addressof(ctypes.c_char.from_buffer(mv))


def from_mv(mv, to_type=None):
  """A ctypes array over a writable memoryview's bytes (no copy): what memset/memmove take."""
  import ctypes
  array = (ctypes.c_char * memoryview(mv).nbytes).from_buffer(mv)
  return array if to_type is None else ctypes.cast(array, ctypes.POINTER(to_type))


def to_mv(ptr: int, size: int) -> memoryview:
  """A writable memoryview of `size` bytes at `ptr` (an address, a ctypes array or pointer; no copy)."""
  import ctypes
  address = ptr if isinstance(ptr, int) else ctypes.addressof(ptr) if isinstance(ptr, ctypes.Array) else ctypes.cast(ptr, ctypes.c_void_p).value
  return memoryview((ctypes.c_uint8 * size).from_address(address)).cast("B")


def time_to_str(t: float, w: int = 8) -> str:
  """A duration in seconds as a fixed-width string: seconds above 10 s, milliseconds above 10 ms, else microseconds."""
  if t > 10: return f"{t:{w}.2f}s "
  if t > 0.01: return f"{t * 1e3:{w}.2f}ms"
  return f"{t * 1e6:{w}.2f}us"


def to_char_p_p(options: list, to_type=None):
  import ctypes
  to_type = to_type or ctypes.c_char
  return (ctypes.POINTER(to_type) * len(options))(*[ctypes.cast(ctypes.create_string_buffer(o), ctypes.POINTER(to_type)) for o in options])


class _Counters(type):
  """GlobalCounters' attributes read the engine's counters (kernels run, FLOPs, bytes, kernel time)."""

  def __getattr__(cls, name: str) -> Any:
    counters = _loupe.counters()
    if name in counters: return counters[name]
    if name == "mem_used": return _loupe.memory_used()
    raise AttributeError(name)


class GlobalCounters(metaclass=_Counters):
  @staticmethod
  def reset() -> None: _loupe.reset_counters()


class Timing(contextlib.ContextDecorator):
  """``with Timing("step: "):`` prints the block's wall time in ms."""

  def __init__(self, prefix: str = "", on_exit: Optional[Callable[[int], str]] = None, enabled: bool = True):
    self.prefix, self.on_exit, self.enabled = prefix, on_exit, enabled

  def __enter__(self) -> "Timing":
    self.st = time.perf_counter_ns()
    return self

  def __exit__(self, *exc: Any) -> None:
    self.et = time.perf_counter_ns() - self.st
    if self.enabled: print(f"{self.prefix}{self.et * 1e-6:6.2f} ms" + (self.on_exit(self.et) if self.on_exit else ""))


def _diskcache_path() -> str:
  return getenv("CACHEDB", "") or os.path.join(cache_dir, "loupe-diskcache.db")


def diskcache_put(table: str, key: Any, value: Any) -> Any:
  """Keeps `value` (pickled) under (table, key) in a SQLite file in the cache folder (CACHEDB overrides the path),
  for the next process: tinygrad's disk cache, as its tools use it. Returns value."""
  import hashlib, pickle, sqlite3
  os.makedirs(os.path.dirname(_diskcache_path()) or ".", exist_ok=True)
  digest = hashlib.sha256(pickle.dumps(key)).hexdigest()
  with contextlib.closing(sqlite3.connect(_diskcache_path(), timeout=30)) as db, db:
    db.execute("CREATE TABLE IF NOT EXISTS cache (tbl TEXT, key TEXT, value BLOB, PRIMARY KEY (tbl, key))")
    db.execute("INSERT OR REPLACE INTO cache VALUES (?, ?, ?)", (table, digest, pickle.dumps(value)))
  return value


def diskcache_get(table: str, key: Any) -> Any:
  """The value diskcache_put kept under (table, key), or None."""
  import hashlib, pickle, sqlite3
  if not os.path.exists(_diskcache_path()): return None
  digest = hashlib.sha256(pickle.dumps(key)).hexdigest()
  with contextlib.closing(sqlite3.connect(_diskcache_path(), timeout=30)) as db:
    try: row = db.execute("SELECT value FROM cache WHERE tbl = ? AND key = ?", (table, digest)).fetchone()
    except sqlite3.OperationalError: return None  # no table yet
  return None if row is None else pickle.loads(row[0])


class Profiling(contextlib.ContextDecorator):
  """``with Profiling():`` runs the block under cProfile and prints its `frac` most expensive calls by `sort`."""

  def __init__(self, enabled: bool = True, sort: str = "cumtime", frac: float = 0.2, fn: Optional[str] = None, ts: int = 1):
    self.enabled, self.sort, self.frac, self.fn = enabled, sort, frac, fn

  def __enter__(self) -> "Profiling":
    import cProfile
    self.pr = cProfile.Profile()
    if self.enabled: self.pr.enable()
    return self

  def __exit__(self, *exc: Any) -> None:
    if not self.enabled: return
    import pstats
    self.pr.disable()
    if self.fn: self.pr.dump_stats(self.fn)
    stats = pstats.Stats(self.pr).strip_dirs().sort_stats(self.sort)
    stats.print_stats(self.frac)


# ---- small utilities ----
def prod(x: Iterable[T]) -> T | int: return functools.reduce(lambda a, b: a * b, x, 1)
def dedup(x: Iterable[T]) -> list[T]: return list(dict.fromkeys(x))
def argfix(*x: Any) -> tuple:
  if x and x[0].__class__ in (tuple, list):
    if len(x) != 1: raise ValueError(f"bad arg {x}")
    return tuple(x[0])
  return x
def argsort(x: Sequence) -> list[int]: return sorted(range(len(x)), key=x.__getitem__)
def all_same(items: Sequence) -> bool: return all(x == items[0] for x in items)
def all_int(t: Sequence) -> bool: return all(isinstance(s, int) for s in t)
def colored(st: str, color: Optional[str], background: bool = False) -> str:
  if not color: return st
  names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]
  return f"\u001b[{10 * background + 60 * (color.upper() == color) + 30 + names.index(color.lower())}m{st}\u001b[0m"
def ansistrip(s: str) -> str:
  import re
  return re.sub("\x1b\\[(K|.*?m)", "", s)
def ansilen(s: str) -> int: return len(ansistrip(s))
def make_tuple(x: int | Sequence[int], cnt: int) -> tuple[int, ...]: return (x,) * cnt if isinstance(x, int) else tuple(x)
def make_pair(x: int | Sequence[int], cnt: int = 2) -> tuple[int, ...]: return make_tuple(x, cnt)
def flatten(items: Iterable[Iterable[T]]) -> list[T]: return [item for sub in items for item in sub]
def fully_flatten(items: Any) -> list:
  if getattr(items, "shape", None) == (): return [items[()]]  # a 0-d array: its one value
  if hasattr(items, "__len__") and not isinstance(items, (str, bytes)): return flatten(fully_flatten(x) for x in items)
  return [items]
def strip_parens(fst: str) -> str:
  return fst[1:-1] if fst[:1] == "(" and fst[-1:] == ")" and fst[1:-1].find("(") <= fst[1:-1].find(")") else fst
def ceildiv(num: int, amt: int) -> int: return -(num // -amt)
def round_up(num: int, amt: int) -> int: return (num + amt - 1) // amt * amt
def merge_dicts(ds: Iterable[dict]) -> dict:
  out: dict = {}
  for d in ds:
    for k, v in d.items():
      if k in out and out[k] != v: raise AssertionError(f"cannot merge {k}: {out[k]} != {v}")  # (tinygrad asserts)
      out[k] = v
  return out
def partition(itr: Iterable[T], fxn: Callable[[T], bool]) -> tuple[list[T], list[T]]:
  yes, no = [], []
  for s in itr: (yes if fxn(s) else no).append(s)
  return yes, no
def unwrap(x: Optional[T]) -> T:
  assert x is not None
  return x
def get_child(obj: Any, key: str) -> Any:
  """obj.a.b[0].c for key "a.b.0.c" (state-dict names)."""
  for k in key.split("."):
    obj = obj[int(k)] if k.isnumeric() else obj[k] if isinstance(obj, dict) else getattr(obj, k)
  return obj
def to_function_name(s: str) -> str: return "".join(c if c.isalnum() or c == "_" else f"{ord(c):02X}" for c in ansistrip(s))
def temp(x: str) -> str: return os.path.join(tempfile.gettempdir(), x)
def polyN(x: Any, p: Sequence[float]) -> Any: return functools.reduce(lambda acc, c: acc * x + c, p, 0.0)


cache_dir: str = os.path.join(getenv("XDG_CACHE_HOME", os.path.expanduser("~/Library/Caches" if OSX else "~/.cache")), "tinygrad")


def fetch(url: str, name: Optional[Any] = None, subdir: Optional[str] = None, gunzip: bool = False,
          allow_caching: bool = not getenv("DISABLE_HTTP_CACHE")):
  """The local path of `url`, at the place tinygrad caches downloads (~/.cache/tinygrad/downloads, the md5 of the
  url, `.gunzip` when the file is stored decompressed): a cached file is used as it is, else it is downloaded (a
  partial download never lands at that path). Local paths ('/...', './...') are returned as they are."""
  import gzip
  import hashlib
  import pathlib
  import urllib.request
  if url.startswith(("/", ".")): return pathlib.Path(url)
  if name is not None and (isinstance(name, pathlib.Path) or "/" in name): fp = pathlib.Path(name)
  else:
    fp = pathlib.Path(cache_dir) / "downloads" / (subdir or "") / ((name or hashlib.md5(url.encode("utf-8")).hexdigest()) + (".gunzip" if gunzip else ""))
  if fp.is_file() and allow_caching: return fp
  fp.parent.mkdir(parents=True, exist_ok=True)
  try:
    with urllib.request.urlopen(url, timeout=10) as r:
      if r.status != 200: raise RuntimeError(f"fetch: {url} answered HTTP {r.status}")
      length = None if gunzip else int(r.headers.get("content-length", 0) or 0)
      source = gzip.GzipFile(fileobj=r) if gunzip else r
      with tempfile.NamedTemporaryFile(dir=fp.parent, delete=False) as f:
        try:
          while chunk := source.read(1 << 16): f.write(chunk)
          f.close()
          if length and (size := os.stat(f.name).st_size) < length: raise RuntimeError(f"fetch: {url} ended after {size} of {length} bytes")
          pathlib.Path(f.name).rename(fp)
        except BaseException:
          pathlib.Path(f.name).unlink(missing_ok=True)
          raise
  except OSError as e:
    raise RuntimeError(f"fetch: {url} is not in the download cache ({fp}) and could not be downloaded: {e}") from e
  return fp


class tqdm:
  """A minimal progress bar over an iterable (tinygrad's own tqdm stand-in)."""

  def __init__(self, iterable=None, desc: str = "", disable: bool = False, unit: str = "it", total: Optional[int] = None, **kwargs):
    self.iterable, self.desc, self.disable, self.unit = iterable, desc, disable, unit
    self.total = total if total is not None else (len(iterable) if hasattr(iterable, "__len__") else None)
    self.n, self.st = 0, time.perf_counter()

  def __iter__(self):
    for x in self.iterable:
      yield x
      self.update(1)
    self.close()

  def update(self, n: int = 1) -> None:
    self.n += n
    if not self.disable:
      total = f"/{self.total}" if self.total is not None else ""
      print(f"\r{self.desc}{': ' if self.desc else ''}{self.n}{total} {self.unit}", end="", file=sys.stderr, flush=True)

  def set_description(self, desc: str) -> None: self.desc = desc
  def close(self) -> None:
    if not self.disable: print(file=sys.stderr)
  def __enter__(self): return self
  def __exit__(self, *exc: Any) -> None: self.close()


def trange(n: int, **kwargs) -> tqdm: return tqdm(range(n), total=n, **kwargs)
