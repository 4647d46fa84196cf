"""Ways a trace file can be damaged or crafted, for the fuzzers: random corruption (bit flips, truncation,
zeroed pages), table and type edits through sqlite3 as an attacker would make them (hostile values in
any column: paths, escape codes, huge and negative numbers, other types), and crafted structure (cycles in
the context and pass trees, absurd depths and counts, recorded names that are paths)."""
import os
import random
import sqlite3

PAGE = 4096

HOSTILE = [
  None, -1, 0, 1, 2**31, 2**63 - 1, -2**63, 10**9, 1e308, -0.0, float("nan"), "", "x" * 70000,
  "../../../../tmp/loupe-fuzz-escape", "/etc/passwd", "..", "r_4\x1b]0;fuzz\x07\x1b[2J", "a\rb\x00c", "\u202eevil",
  "'; DROP TABLE kernels; --", "[1e999]", "[-1]", "[9223372036854775807, 9223372036854775807]", "[[[[[[[[", "{}",
  "i99999999999999999999;", "s999999:x", "(((((((((((((", "oBOGUS;", "O3:abc", b"\xff\xfe\x00\x01", "naïve ✓",
  "float32x4*-1L", "void*9223372036854775807", "1 2 3 4 5 6 7 8 9 10", "999999999", "-5",
]


def tables(db):
  return [r[0] for r in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")]


def columns(db, table):
  return [r[1] for r in db.execute(f"SELECT * FROM pragma_table_info('{table}')")]


def flip_bits(data, rng, n):
  data = bytearray(data)
  for _ in range(n):
    i = rng.randrange(len(data))
    data[i] ^= 1 << rng.randrange(8)
  return bytes(data)


def corrupt_bytes(data, rng):
  kind = rng.choice(["flip", "flip_header", "truncate", "zero_page", "garbage_page", "swap_pages"])
  if kind == "flip": return kind, flip_bits(data, rng, rng.choice([1, 2, 8, 64]))
  if kind == "flip_header":
    d = bytearray(data)
    i = rng.randrange(100)
    d[i] ^= 1 << rng.randrange(8)
    return kind, bytes(d)
  if kind == "truncate": return kind, data[:rng.randrange(len(data))]
  pages = max(1, len(data) // PAGE)
  p = rng.randrange(pages)
  d = bytearray(data)
  if kind == "zero_page": d[p * PAGE:(p + 1) * PAGE] = bytes(PAGE)
  elif kind == "garbage_page": d[p * PAGE:(p + 1) * PAGE] = bytes(rng.randrange(256) for _ in range(PAGE))
  else:
    q = rng.randrange(pages)
    a, b = bytes(d[p * PAGE:(p + 1) * PAGE]), bytes(d[q * PAGE:(q + 1) * PAGE])
    d[p * PAGE:(p + 1) * PAGE], d[q * PAGE:(q + 1) * PAGE] = b, a
  return kind, bytes(d[:len(data)])


def edit_tables(path, rng):
  """One to three hostile edits; returns what was done."""
  db = sqlite3.connect(path)
  done = []
  try:
    for _ in range(rng.randint(1, 3)):
      t = rng.choice([t for t in tables(db) if t != "sqlite_sequence"])
      kind = rng.choice(["update", "update", "update", "delete", "duplicate", "drop_column_values", "drop_table"])
      rows = [r[0] for r in db.execute(f"SELECT rowid FROM {t} LIMIT 2000")] if kind != "drop_table" else []
      if kind == "drop_table" and rng.random() < 0.3:
        db.execute(f"DROP TABLE {t}")
      elif kind == "delete" and rows:
        db.execute(f"DELETE FROM {t} WHERE rowid = ?", (rng.choice(rows),))
      elif kind == "duplicate" and rows:
        cols = columns(db, t)
        db.execute(f"INSERT OR IGNORE INTO {t} SELECT * FROM {t} WHERE rowid = ?", (rng.choice(rows),))
      elif rows:
        c = rng.choice(columns(db, t))
        v = rng.choice(HOSTILE)
        where = "" if kind == "drop_column_values" else "WHERE rowid = ?"
        args = (v,) if kind == "drop_column_values" else (v, rng.choice(rows))
        try:
          db.execute(f"UPDATE OR IGNORE {t} SET {c} = ? {where}", args)
        except sqlite3.IntegrityError:
          pass
      else:
        continue
      done.append(f"{kind} {t}")
    db.commit()
  except sqlite3.DatabaseError as e:
    done.append(f"(sqlite refused: {e})")
  finally:
    db.close()
  return "edit: " + ", ".join(done)


CRAFTED = [
  ("context_self_parent", "UPDATE contexts SET parent_id = id"),
  ("context_two_cycle", "UPDATE contexts SET parent_id = (SELECT MAX(id) FROM contexts) WHERE id = (SELECT MIN(id) + 1 FROM contexts);"
                        "UPDATE contexts SET parent_id = (SELECT MIN(id) + 1 FROM contexts) WHERE id = (SELECT MAX(id) FROM contexts)"),
  ("pass_self_parent", "UPDATE passes SET parent_id = id WHERE id % 3 = 0"),
  ("pass_two_cycle", "UPDATE passes SET parent_id = 3 WHERE id = 2; UPDATE passes SET parent_id = 2 WHERE id = 3"),
  ("pass_depth", "UPDATE passes SET depth = 1000000000"),
  ("match_count", "UPDATE passes SET match_count = 9223372036854775807"),
  ("negative_match_count", "UPDATE passes SET match_count = -5"),
  ("match_idx", "UPDATE matches SET idx = idx + 1000000000 WHERE idx > 2"),
  ("launch_dims", "UPDATE kernels SET global_size = '[1000000000000, 1000000000000, 1000000000000]', local_size = '[1048576]'"),
  ("kernel_name_path", "UPDATE kernels SET name = '../../../../tmp/loupe-fuzz-escape/' || name"),
  ("kernel_device", "UPDATE kernels SET device = '../../x'; UPDATE kernel_sources SET backend = 'CUDA:9999'"),
  ("buffer_count", "UPDATE kernel_buffers SET idx = idx * 1000000"),
  ("input_blobs", "UPDATE kernel_inputs SET bytes = x'00'"),
  ("profile_huge", "UPDATE profile SET duration_ns = 9223372036854775807, bytes = -1, start_ns = -9223372036854775808"),
  ("node_sources", "UPDATE uops SET src = '1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1' WHERE id > 10 AND id % 7 = 0"),
  ("node_args", "UPDATE uops SET arg_code = '(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((' WHERE id % 5 = 0"),
  ("settings", "INSERT OR REPLACE INTO run_info VALUES ('DEVICE', 'CPU; touch /tmp/x'), ('BEAM', '1e9'), ('ARGS', '[[[')"),
  ("rule_location", "UPDATE rules SET file = '../../../../etc/passwd', line = -1, name = 'r\x1b[31m'"),
  ("beam", "UPDATE beam_candidates SET opts = '[\"UPCAST 99999999\"]', round = 2147483647"),
  ("schedule_roots", "UPDATE schedule_roots SET node_id = 999999999"),
  ("tensor_calls", "UPDATE tensor_calls SET metadata_id = -1"),
  ("memory_plan", "UPDATE memory_plan SET first_kernel = 1000000000, last_kernel = -1000000000"),
]


def crafted(path, rng):
  name, sql = rng.choice(CRAFTED)
  db = sqlite3.connect(path)
  for statement in sql.split(";"):
    try:
      db.execute(statement)
    except sqlite3.DatabaseError:
      pass  # a table this trace does not have
  db.commit()
  db.close()
  return "crafted: " + name


def mutate(genuine, out, rng):
  """Writes a damaged or crafted copy of `genuine` to `out`; returns a line saying how."""
  data = open(genuine, "rb").read()
  r = rng.random()
  if r < 0.4:
    kind, damaged = corrupt_bytes(data, rng)
    with open(out, "wb") as f: f.write(damaged)
    return kind
  with open(out, "wb") as f: f.write(data)
  return edit_tables(out, rng) if r < 0.75 else crafted(out, rng)
