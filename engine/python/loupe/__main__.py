"""`python3 -m loupe PROGRAM.py [ARGS...]`: runs a program as `loupe-cli run PROGRAM.py -- ARGS` does, with
the `tinygrad` compatibility package on the path first, so an unmodified tinygrad program runs on Loupe.
Settings come from the environment as for any program (DEBUG, NOOPT, BEAM, DEVICE, VIZ, LOUPE_TRACE)."""
import sys

USAGE = "usage: python3 -m loupe PROGRAM.py [ARGS...]   (runs PROGRAM with `import tinygrad` resolving to Loupe)"


def main(argv: list[str]) -> int:
  if not argv or argv[0] in ("-h", "--help"):
    print(USAGE, file=sys.stderr if not argv else sys.stdout)
    return 2 if not argv else 0
  if argv[0].startswith("-") and argv[0] != "-":
    print(f"python3 -m loupe: unknown option {argv[0]} (options come from the environment: DEBUG, NOOPT, BEAM, DEVICE, "
          f"LOUPE_TRACE)\n{USAGE}", file=sys.stderr)
    return 2
  import loupe
  sys.path.insert(0, loupe.compat_path())
  from loupe import _runner
  return _runner.run([argv[0], "--", *argv[1:]])


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
