"""The checksum that holds a recorded block's refit (`scripts/host-refit DIR`) without a rerun.

A refit replays files (a recorded characterisation and its check rounds) through today's code and
takes about a minute a block; 16 blocks made it the largest share of `scripts/check-results`. Its
output is a function of its inputs and of the code, so `check-results` reruns a block only when
this checksum differs from the one written beside its `refit.md` (`refit.sum`, written by
`check-results --write` after a rerun). The checksum covers every file of the block's folder but
the sum itself (its `refit.md` too, so an edit of the held file by hand is a mismatch, and the
rerun that follows shows it), and the code as the model's version: every file under `crates/` and `data/` but the crates'
tests, benches and examples, the workspace's `Cargo.toml` and `Cargo.lock`, and the scripts that run the refit (this one included).
`python/tests/test_refit_sum.py` holds it to changing when any of those does.

    python3 scripts/refit_sum.py DIR            # print the checksum
    python3 scripts/refit_sum.py DIR --check    # exit 0 when DIR/refit.sum holds it, else 1
    python3 scripts/refit_sum.py DIR --write    # write it into DIR/refit.sum
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

# What the refit runs: the code's version (`crates/` and `data/`, walked) and the scripts it is run by.
CODE_FILES = (
    "Cargo.toml",
    "Cargo.lock",
    "scripts/host-refit",
    "scripts/refit-lib.sh",
    "scripts/refit_sum.py",
)
# The sum's own file, the one file of a block it cannot cover.
OUTPUTS = frozenset({"refit.sum"})
# Folders a build or an interpreter leaves inside the walked trees.
SKIP_DIRS = frozenset({"target", "__pycache__", ".pytest_cache"})
# The crates' tests, benches and examples, which the built `cosched` does not contain (a commit that
# only adds a test keeps every block held).
NOT_BUILT = frozenset({"tests", "benches", "examples"})


def _walk(base: Path, skip: frozenset[str] = SKIP_DIRS) -> list[str]:
    """Every file under `base` outside folders named in `skip`, relative to it, in a fixed order."""
    found: list[str] = []
    for here, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in skip)
        found += [str(Path(here, f).relative_to(base)) for f in sorted(files)]
    return found


def digest(root: Path, block: Path) -> str:
    """The checksum of block folder `block` (relative to `root` or absolute) and the code under `root`."""
    names = [f"crates/{rel}" for rel in _walk(root / "crates", SKIP_DIRS | NOT_BUILT)]
    names += [f"data/{rel}" for rel in _walk(root / "data")]
    names += [f for f in CODE_FILES if (root / f).is_file()]
    block = block if block.is_absolute() else root / block
    inputs = [f for f in _walk(block) if Path(f).name not in OUTPUTS or Path(f).parent != Path(".")]
    h = hashlib.sha256()
    for label, base, rels in (("code", root, sorted(names)), ("block", block, sorted(inputs))):
        for rel in rels:
            data = (base / rel).read_bytes()
            h.update(f"{label}\0{rel}\0{len(data)}\0".encode())
            h.update(data)
    return h.hexdigest()


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2 or (len(argv) == 2 and argv[1] not in ("--check", "--write")):
        print("usage: refit_sum.py DIR [--check | --write]", file=sys.stderr)
        return 2
    root = Path(__file__).resolve().parent.parent
    block = Path(argv[0])
    if not (root / block).is_dir() and not block.is_dir():
        print(f"refit_sum.py: {argv[0]}: not a folder", file=sys.stderr)
        return 2
    sum_now = digest(root, block)
    kept = (block if block.is_absolute() else root / block) / "refit.sum"
    if len(argv) == 1:
        print(sum_now)
        return 0
    if argv[1] == "--write":
        kept.write_text(sum_now + "\n")
        return 0
    held = kept.is_file() and kept.read_text().strip() == sum_now
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
