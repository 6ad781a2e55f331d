"""The package's ``cosched`` command: ``cosched report`` (Python: an HTML
report of the papers' figures, a comparison, a run or a sweep); every other
subcommand is the Rust ``cosched`` binary's, run as a child process.

The Python extension links only the experiments library, not the command line
(its parser, progress bars and real-process control stay out of the wheel), so
the binary is found: ``$COSCHED_BIN``, else the ``target/release/cosched`` of
the source tree the package was installed from, else another ``cosched`` on
``PATH`` than this script. Without one, the message says how to build it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from . import _cosched

REPORT_HELP = "  report     Write one self-contained HTML report (papers' figures, a compare, a run or a sweep): cosched report --help"


def binary() -> str | None:
    """The Rust ``cosched`` binary this command runs, or None."""
    given = os.environ.get("COSCHED_BIN")
    if given:
        return given
    tree = getattr(_cosched, "SOURCE_TREE", None)
    if tree:
        built = Path(tree) / "target" / "release" / "cosched"
        if built.is_file() and os.access(built, os.X_OK):
            return str(built)
    me = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    for d in os.environ.get("PATH", "").split(os.pathsep):
        found = shutil.which("cosched", path=d) if d else None
        if found and Path(found).resolve() != me and _is_native(Path(found)):
            return found
    return None


def _is_native(path: Path) -> bool:
    """Whether ``path`` is an executable binary, not a Python entry-point script."""
    try:
        with path.open("rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cosched`` console script; returns the exit status."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "report":
        from .report import main as report_main

        return report_main(args[1:])
    exe = binary()
    if exe is None:
        print(
            "error: this command runs the Rust cosched binary, which was not found: build it with "
            "`cargo build --release --bin cosched` in the source tree, or set COSCHED_BIN to its path",
            file=sys.stderr,
        )
        return 2
    sys.stdout.flush()
    try:
        status = subprocess.call([exe, *args])
    except OSError as e:
        print(f"error: {exe}: {e.strerror}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    if not args or args[0] in ("-h", "--help", "help"):
        print("\nFrom the Python package:\n" + REPORT_HELP)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
