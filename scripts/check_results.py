"""The numbers in docs/results are reruns: every entry of `docs/results/reruns.toml` (which command
writes which file, declared there once) is rerun into a temporary folder and compared byte for byte
with the file it names; a difference fails the run, naming the file and the command. Then the pages
rendered from the rerun files (`--write` only: scripts/docs_render.py) and scripts/docs-numbers (no
result typed into a page not rendered), unless scripts/test-all checked this same tree.

    python3 scripts/check_results.py           # compare (what scripts/check-results runs)
    python3 scripts/check_results.py --write   # rewrite docs/results from the reruns
    python3 scripts/check_results.py --list    # every command and the file it writes, run nothing

Standard library only: it runs before the project's Python environment exists.
"""

from __future__ import annotations

import filecmp
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
MANIFEST = RESULTS / "reruns.toml"
BIN = ROOT / "target" / "release" / "cosched"


def say(line: str) -> None:
    """A progress or verdict line, on stderr (stdout is left to nothing: a piped run still shows it)."""
    print(f"check-results: {line}", file=sys.stderr, flush=True)


def expand(run: list[str], **at: str) -> list[str]:
    """`run` with {bin}, {out}, {dir} and {glob:PATTERN} filled in (a glob by every match, sorted)."""
    out: list[str] = []
    for word in run:
        if word.startswith("{glob:") and word.endswith("}"):
            out += sorted(os.path.relpath(p, ROOT) for p in glob.glob(str(ROOT / word[6:-1])))
        else:
            out.append(word.format(bin=BIN, **at))
    return out


def shown(cmd: list[str]) -> str:
    """A command as a user would type it (the release binary as `cosched`)."""
    return " ".join("cosched" if w == str(BIN) else w for w in cmd)


@dataclass
class Check:
    """One run of the check: whether it rewrites docs/results, and whether anything differed."""

    write: bool
    tmp: Path
    failed: bool = False

    def run(self, cmd: list[str], stdout: Path | None, quiet: bool = False) -> bool:
        """Run `cmd` from the repository root (its standard output into `stdout` when given);
        whether it succeeded. A failure is said, with the command, and fails the check."""
        with open(stdout, "wb") if stdout else open(os.devnull, "wb") as sink:
            err = subprocess.DEVNULL if quiet else None
            r = subprocess.run(cmd, cwd=ROOT, stdout=sink, stderr=err, check=False)
        if r.returncode != 0:
            say(f"`{shown(cmd)}` failed (exit {r.returncode})")
            self.failed = True
        return r.returncode == 0

    def record(self, rerun: Path, recorded: Path, cmd: list[str]) -> None:
        """Keep `rerun` as `recorded` (--write) or compare them, naming the command on a difference."""
        if self.write:
            recorded.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(rerun, recorded)
        elif not recorded.is_file() or not filecmp.cmp(rerun, recorded, shallow=False):
            rel = recorded.relative_to(ROOT)
            say(f"{rel} differs from a rerun of `{shown(cmd)}` (scripts/check-results --write updates it)")
            self.failed = True


def scratch(tmp: Path, rel: str) -> Path:
    """A rerun's own file in the temporary folder, named after the file it reruns."""
    return tmp / rel.replace("/", "--")


def papers(c: Check, entries: list[dict[str, Any]]) -> None:
    """Each folder one `cosched paper` run writes, every file of it compared (and none left over)."""
    for e in entries:
        folder, cmd = e["folder"], [str(BIN), *e["args"]]
        say(f"cosched {' '.join(e['args'])}")
        out = c.tmp / "papers" / folder
        out.mkdir(parents=True)
        c.run([*cmd, "--out", str(out)], out / "report.md")
        recorded = RESULTS / folder
        if c.write:
            recorded.mkdir(parents=True, exist_ok=True)
            for f in sorted(out.iterdir()):
                shutil.copyfile(f, recorded / f.name)
            continue
        for f in sorted(p for p in recorded.iterdir() if p.is_file()):
            if not (out / f.name).exists():
                say(f"{f.relative_to(ROOT)} is not written by `{shown(cmd)}`: stale?")
                c.failed = True
        for f in sorted(out.iterdir()):
            c.record(f, recorded / f.name, cmd)


def outputs(c: Check, entries: list[dict[str, Any]]) -> None:
    """Each file that is one command's standard output (or that the command writes itself)."""
    for e in entries:
        rerun = scratch(c.tmp, e["file"])
        cmd = expand(e["run"], out=str(rerun))
        say(shown(cmd))
        writes = bool(e.get("writes_out", False))
        if c.run(cmd, None if writes else rerun, quiet=bool(e.get("quiet", False))):
            c.record(rerun, RESULTS / e["file"], cmd)


def validate(c: Check, entry: dict[str, Any]) -> None:
    """One `cosched validate --out` run, every rendering it writes compared with its file."""
    out = c.tmp / "validate"
    cmd = expand(entry["run"], out=str(out))
    say(shown(cmd))
    if not c.run(cmd, None):
        say("cosched validate: a point left its tolerance (cosched validate prints which)")
    for name, rel in entry["files"].items():
        c.record(out / name, RESULTS / rel, cmd)


def blocks(c: Check, entries: list[dict[str, Any]]) -> None:
    """The real machine's summaries, each read again from its block's check files."""
    for d in sorted(p for p in (RESULTS / "runtime").iterdir() if p.is_dir()):
        if not any(d.glob("check-*.json")):
            continue
        rel_dir = str(d.relative_to(ROOT))
        for e in entries:
            if not (d / e["file"]).is_file():
                continue
            rerun = scratch(c.tmp, f"{d.name}/{e['file']}")
            cmd = expand(e["run"], dir=rel_dir)
            if c.run(cmd, rerun):
                c.record(rerun, d / e["file"], cmd)


def refit_held(d: Path) -> bool:
    """Whether block `d`'s refit.sum holds its files and the code (scripts/refit_sum.py --check)."""
    r = subprocess.run([sys.executable, "scripts/refit_sum.py", str(d), "--check"], cwd=ROOT, check=False)
    return r.returncode == 0


def refits(c: Check, entry: dict[str, Any]) -> None:
    """Every block's refit, rerun unless its checksum holds it (--write reruns all and renews the sums)."""
    for f in sorted((RESULTS / "runtime").glob(f"*/{entry['file']}")):
        d = f.parent
        rel_dir = str(d.relative_to(ROOT))
        if not c.write and refit_held(d):
            say(
                f"scripts/host-refit {rel_dir}: held (its files and the code are those of its last rerun: {rel_dir}/refit.sum)"
            )
            continue
        rerun = scratch(c.tmp, f"{d.name}/{entry['file']}")
        cmd = expand(entry["run"], dir=rel_dir, out=str(rerun))
        say(shown(cmd))
        if not c.run(cmd, None):
            continue
        c.record(rerun, f, cmd)
        if c.write:
            subprocess.run([sys.executable, "scripts/refit_sum.py", rel_dir, "--write"], cwd=ROOT, check=True)
        elif filecmp.cmp(rerun, f, shallow=False):
            say(f"{rel_dir}/refit.sum is stale (the refit reran and matched): scripts/check-results --write renews it")


def tree_checked() -> bool:
    """Whether scripts/test-all checked docs numbers on this same tree (COSCHED_DOCS_NUMBERS_CHECKED:
    HEAD and a hash of `git status --porcelain`, as test-all wrote it)."""
    said = os.environ.get("COSCHED_DOCS_NUMBERS_CHECKED", "")
    if not said:
        return False
    git = ["git", "-C", str(ROOT)]
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    status = subprocess.run([*git, "status", "--porcelain"], capture_output=True, check=False).stdout
    return said == f"{head}{hashlib.md5(status).hexdigest()}  -"


def listing(m: dict[str, Any]) -> None:
    """Every command of the manifest beside the file or folder it writes."""
    for e in m["paper"]:
        print(f"docs/results/{e['folder']}/\tcosched {' '.join(e['args'])}")
    for e in m["output"]:
        print(f"docs/results/{e['file']}\t{shown(expand(e['run'], out='docs/results/' + e['file']))}")
    for rel in m["validate"]["files"].values():
        print(f"docs/results/{rel}\t{shown(expand(m['validate']['run'], out='DIR'))}")
    for e in [*m["block"], m["refit"]]:
        print(f"docs/results/runtime/BLOCK/{e['file']}\t{shown(expand(e['run'], dir='BLOCK', out=e['file']))}")


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("", "--write", "--list"):
        print(f"check_results.py: unknown argument {mode!r} (--write or --list)", file=sys.stderr)
        return 2
    m = tomllib.loads(MANIFEST.read_text(encoding="utf-8"))
    if mode == "--list":
        listing(m)
        return 0
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "cosched"], cwd=ROOT, check=True)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        # `compare` keeps each seed's bound in the cache folder and reuses it (docs/optimum.md,
        # "Kept between runs"); the reruns here compute it, in an empty one of their own.
        os.environ["COSCHED_CACHE_DIR"] = str(tmp / "cache")
        c = Check(write=mode == "--write", tmp=tmp)
        papers(c, m["paper"])
        outputs(c, m["output"])
        validate(c, m["validate"])
        blocks(c, m["block"])
        refits(c, m["refit"])
    # After --write the pages are rendered again from the rewritten files (docs/index.md, "After an
    # output change": read the diff, and scripts/output_changes.py lists what moved).
    if c.write:
        py = ROOT / ".venv" / "bin" / "python"
        c.run([str(py) if py.exists() else sys.executable, "scripts/docs_render.py"], None)
    if tree_checked():
        say("docs numbers: checked by scripts/test-all on this tree before the reruns")
    else:
        c.run(["bash", "scripts/docs-numbers"], None)
    if not c.failed:
        say("every file of docs/results is a byte-identical rerun")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
