"""The package's ``cosched`` command: ``cosched report`` (Python: an HTML
report of the papers' figures, a comparison, a run or a sweep) and every
subcommand of the Rust CLI, run in-process through the bindings.

``cosched run``, ``probe`` and ``calibrate`` control real processes through a
watchdog process and the ``cosched-bench`` program beside the binary; they
are served by the Rust binary (``cargo build --release --bin cosched``), not
from a Python interpreter.
"""

from __future__ import annotations

import sys

from . import _cosched

REAL_MACHINE = ("run", "probe", "calibrate")
REPORT_HELP = "  report     Write one self-contained HTML report (papers' figures, a compare, a run or a sweep): cosched report --help"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cosched`` console script; returns the exit status."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "report":
        from .report import main as report_main

        return report_main(args[1:])
    if args and args[0] in REAL_MACHINE:
        print(
            f"error: `cosched {args[0]}` controls real processes with a watchdog and cosched-bench: "
            "use the Rust binary (cargo build --release --bin cosched; target/release/cosched)",
            file=sys.stderr,
        )
        return 2
    sys.stdout.flush()
    status = int(_cosched.cli(["cosched", *args]))
    if not args or args[0] in ("-h", "--help", "help"):
        print("\nFrom the Python package:\n" + REPORT_HELP)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
