"""cosched.figures render without a display; `cosched report` HTML renders its
figures in a real headless browser (Debian's Chromium)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

import cosched
from cosched import figures, report

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"


@pytest.mark.parametrize("name", list(figures.PAPER_FIGURES))
def test_each_paper_figure_renders_to_png(name, tmp_path):
    draw, _ = figures.PAPER_FIGURES[name]
    ax = draw(RESULTS)
    assert ax.has_data()
    out = tmp_path / "f.png"
    ax.figure.savefig(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5_000
    plt.close("all")


def test_gantt_draws_every_slice(tmp_path):
    run = cosched.simulate("i5-2500", "spec-mix24", "g-rrs", timing=False)
    tr = run.trace()
    ax = figures.gantt(tr, until_s=0.1)
    bars = sum(len(c.get_paths()) for c in ax.collections)
    assert bars == (tr["start_s"] < 0.1).sum()
    _, ax2 = plt.subplots()
    assert figures.gantt(tr, ax=ax2) is ax2
    plt.close("all")


def test_missing_results_say_which_command_writes_them(tmp_path):
    with pytest.raises(FileNotFoundError, match="cosched paper slits --out"):
        figures.slits_fig3(tmp_path)


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _render(page: Path, tmp_path: Path) -> tuple[str, Path]:
    exe = _chromium()
    if exe is None:
        if os.environ.get("COSCHED_REQUIRE_BROWSER") == "1":
            pytest.fail("Chromium is required (scripts/test-all installs Debian's chromium)")
        pytest.skip("no Chromium on this machine (apt-get install chromium)")
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    url = page.resolve().as_uri()
    dom = subprocess.run(
        [exe, *flags, "--virtual-time-budget=5000", "--dump-dom", url],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    shot = tmp_path / "shot.png"
    subprocess.run(
        [exe, *flags, "--window-size=1200,1600", f"--screenshot={shot}", url],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return dom, shot


def _counts(dom: str) -> tuple[int, int]:
    m = re.search(r'data-figures-rendered="(\d+)" data-figures="(\d+)"', dom)
    assert m, dom[:500]
    return int(m.group(1)), int(m.group(2))


def test_papers_report_renders_every_figure_in_chromium(tmp_path):
    page = report.write(tmp_path / "papers.html", report.papers_html(RESULTS))
    dom, shot = _render(page, tmp_path)
    assert _counts(dom) == (len(figures.PAPER_FIGURES), len(figures.PAPER_FIGURES))
    assert shot.stat().st_size > 20_000
    assert "SLITS Fig. 3" in dom


def test_report_command_compare_and_simulate_render(tmp_path):
    cmd = [sys.executable, "-m", "cosched.cli", "report"]
    for args, figs in [
        (["compare", "-m", "i5-2500", "-w", "mcf", "--policies", "cfs,g-rrs", "--seeds", "2"], 2),
        (["simulate", "-m", "i5-2500", "-w", "spec-mix24", "-p", "g-rrs"], 1),
    ]:
        out = tmp_path / f"{args[0]}.html"
        subprocess.run([*cmd, *args, "-o", str(out)], check=True, capture_output=True)
        dom, _ = _render(out, tmp_path)
        assert _counts(dom) == (figs, figs)
    bad = subprocess.run(
        [*cmd, "compare", "-w", "nope", "-o", str(tmp_path / "x.html")], check=False, capture_output=True, text=True
    )
    assert bad.returncode == 2 and bad.stderr.startswith("error: workload `nope`: no such preset")


def test_sweep_report(tmp_path):
    grid = tmp_path / "g.json"
    grid.write_text('{"machine": "i5-2500", "workload": "mcf", "quantum_ms": [2, 8], "policy": ["cfs", "g-rrs"]}')
    out = tmp_path / "s.html"
    subprocess.run(
        [sys.executable, "-m", "cosched.cli", "report", "sweep", str(grid), "-o", str(out)],
        check=True,
        capture_output=True,
    )
    assert "4 runs" in out.read_text()


def test_package_cli_runs_the_rust_binary(cli):
    # `cli` skips unless target/release/cosched is built: the package finds it in its source tree.
    p = subprocess.run(
        [sys.executable, "-m", "cosched.cli", "list", "policies", "--format", "json"],
        check=True,
        capture_output=True,
        text=True,
    )
    assert '"name": "cfs"' in p.stdout
    env = {**os.environ, "COSCHED_BIN": "/nonexistent/cosched"}
    p = subprocess.run(
        [sys.executable, "-m", "cosched.cli", "list", "policies"], check=False, capture_output=True, text=True, env=env
    )
    assert p.returncode == 2 and p.stderr.startswith("error: /nonexistent/cosched:"), p.stderr


def test_report_says_each_step_on_stderr_once_it_runs_long(tmp_path, monkeypatch, capsys):
    # As if QUIET seconds had passed already: every step is announced, and stdout keeps only the file name.
    monkeypatch.setattr(report, "QUIET", 0.0)
    out = tmp_path / "s.html"
    assert report.main(["simulate", "-m", "i5-2500", "-w", "mcf", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == str(out)
    lines = captured.err.splitlines()
    steps = [ln for ln in lines if ln.startswith("cosched report: ")]
    assert any("simulate cfs on i5-2500 with mcf" in s for s in steps), lines
    assert steps[-1].startswith(f"cosched report: writing {out} ("), lines
