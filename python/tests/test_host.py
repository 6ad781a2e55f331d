"""``cosched.host``: the experiments that run real processes, from Python,
through the command line's code (``cosched_host``): interleaved rounds, the
replay of a recorded check, and their errors."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from cosched import host
from cosched.errors import ConfigError, OptionError, PolicyError

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "docs/results/runtime/host-check"
MIX = ROOT / "data/mixes/host-check/check-bandwidth.toml"


def naps(tmp_path: Path) -> Path:
    mix = tmp_path / "naps.toml"
    mix.write_text('name = "naps"\n[[job]]\nname = "nap"\ncmd = ["sleep", "0.2"]\ncount = 2\n')
    return mix


def test_interleaved_rounds_pair_each_policy_with_the_baseline_and_give_python_its_signals_back(
    tmp_path: Path,
) -> None:
    before = signal.getsignal(signal.SIGINT)
    r = host.interleaved(naps(tmp_path), ["linux", "g-rrs"], repeat=2, seed=5, quantum_ms=50)
    assert r.data["rounds"] == 2 and r.data["baseline"] == "linux"
    labels = [p["policy"] for p in r.data["policies"]]
    assert labels == ["linux", "g-rrs"]
    assert r.data["no_best_static"].startswith("give `profile`")
    for rnd in r.data["round"]:
        assert sorted(rnd["order"]) == ["g-rrs", "linux"]
        # Two naps of 0.2 s on this host: the makespan is at least one nap.
        assert all(m >= 0.2 for m in rnd["makespan_s"])
    df = r.to_pandas()
    assert list(df["policy"]) == labels
    assert df.loc[0, "speedup"] == 1.0 and df.loc[1, "speedup"] > 0
    assert df.loc[1, "speedup_lo"] <= df.loc[1, "speedup"] <= df.loc[1, "speedup_hi"]
    # The runtime handled SIGINT during the runs and gave Python's handler back.
    assert signal.getsignal(signal.SIGINT) is before


def test_the_same_seed_gives_the_same_round_orders(tmp_path: Path) -> None:
    mix = naps(tmp_path)
    orders = [
        [rnd["order"] for rnd in host.interleaved(mix, ["linux", "g-rrs", "random"], repeat=2, seed=9).data["round"]]
        for _ in range(2)
    ]
    assert orders[0] == orders[1]


def _recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CHECK / "check-bandwidth.json").read_text())
    return data


def test_a_replay_reads_the_recorded_rounds_and_predicts_every_cell_again() -> None:
    rec = _recorded()
    r = host.replay(CHECK / "check-bandwidth.json", MIX, programs=CHECK / "programs.toml")
    jobs = rec["check"]["result"]["jobs"]
    assert len(r.data["cells"]) == len(jobs)
    for c, j in zip(r.data["cells"], jobs, strict=True):
        assert c["measured"] == j["measured"]["mean"] and c["recorded"] == j["predicted"]
        assert c["replayed"] > 0
    df = r.to_pandas()
    assert list(df.columns) == ["policy", "job", "measured", "recorded", "replayed"] and len(df) == len(jobs)


def test_a_recorded_check_without_its_fields_is_refused_naming_file_and_field(tmp_path: Path) -> None:
    rec = _recorded()
    del rec["check"]["model"]
    bad = tmp_path / "no-model.json"
    bad.write_text(json.dumps(rec))
    with pytest.raises(ConfigError) as e:
        host.replay(bad, MIX, programs=CHECK / "programs.toml")
    assert e.value.file == str(bad) and e.value.field == "check.model" and e.value.problem == "missing"
    assert str(e.value) == f"{bad}: check.model: missing"


def test_bad_settings_are_refused_naming_the_keyword(tmp_path: Path) -> None:
    mix = naps(tmp_path)
    with pytest.raises(PolicyError, match="unknown policy `g-rs`.*g-rrs") as p:
        host.interleaved(mix, ["linux", "g-rs"], repeat=1)
    assert p.value.kind == "unknown"
    with pytest.raises(OptionError, match=r"^tick_ms: must be from 1 to 10000 ms, got 0.5$"):
        host.interleaved(mix, ["linux"], repeat=1, tick_ms=0.5)
    with pytest.raises(OptionError, match="^freezer: must be one of"):
        host.interleaved(mix, ["linux"], repeat=1, freezer="ice")
    with pytest.raises(OptionError, match="^repeat: must be from 1 to 1000"):
        host.interleaved(mix, ["linux"], repeat=5000)
    with pytest.raises(OptionError, match="^policies: give at least one"):
        host.interleaved(mix, [], repeat=1)
    with pytest.raises(OptionError, match="is not a knob"):
        host.interleaved(mix, ["linux"], repeat=1, quantum=3)  # type: ignore[call-arg]
    with pytest.raises(OptionError, match="^model: must be cfs or eevdf"):
        host.calibrate_check(mix, "kvm-epyc-2c", model="bfs")
    # How long a check measures: each keyword named, as the CLI's flags are.
    with pytest.raises(OptionError, match="^within: must be a percentage from 0 to 100, got 150$"):
        host.calibrate_check(mix, "kvm-epyc-2c", within=150)
    with pytest.raises(OptionError, match="^within: must be a number"):
        host.calibrate_check(mix, "kvm-epyc-2c", within="5")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="^max_rounds: must be a whole number"):
        host.calibrate_check(mix, "kvm-epyc-2c", max_rounds=0)
    with pytest.raises(OptionError, match="^budget_s: must be from 0 to 86400"):
        host.calibrate_check(mix, "kvm-epyc-2c", budget_s=-1)


def _marked(marker: str) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if marker.encode() in (d / "cmdline").read_bytes():
                out.append(int(d.name))
        except OSError:
            pass
    return out


def _released(pid: int, cpus: str) -> str | None:
    """Why ``pid`` is still held (stopped, in a cosched cgroup, pinned), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cgroups = Path(f"/proc/{pid}/cgroup").read_text()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None  # gone
    if stat[stat.rfind(")") + 2] == "T":
        return f"{pid} is stopped"
    if "/cosched-" in cgroups:
        return f"{pid} is still in a cosched cgroup"
    allowed = next(
        line.split(":", 1)[1].strip() for line in status.splitlines() if line.startswith("Cpus_allowed_list")
    )
    return None if allowed == cpus else f"{pid} is pinned to {allowed}"


def test_python_killed_mid_run_leaves_every_process_released(tmp_path: Path) -> None:
    """SIGKILL of the Python process running the rounds: its watchdog (this
    interpreter, calling the extension) releases every managed process and
    removes the run's cgroup, as the command line's does."""
    import os
    import subprocess
    import sys
    import time

    marker = f"cosched-pykill-{os.getpid()}"
    mix = tmp_path / "spin.toml"
    work = "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done"
    mix.write_text(f'name = "spin"\n[[job]]\nname = "loop"\ncmd = ["sh", "-c", "{work}", "{marker}"]\ncount = 3\n')
    # Three loops on this host's CPUs under g-rrs: the scheduler freezes, pins or moves them.
    code = f"from cosched import host; host.interleaved({str(mix)!r}, ['g-rrs'], repeat=1)"
    cpus = next(
        line.split(":", 1)[1].strip()
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith("Cpus_allowed_list")
    )
    p = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.DEVNULL)
    try:
        start = time.monotonic()
        # Kill it while it holds a process (g-rrs's run: one stopped, frozen or pinned),
        # not during the solo or `linux` runs, which hold none.
        while not [pid for pid in _marked(marker) if _released(pid, cpus)]:
            assert time.monotonic() - start < 120, "the rounds held no process in 120 s"
            assert p.poll() is None, "the rounds ended before g-rrs held a process"
            time.sleep(0.005)
        p.kill()
        p.wait()
        run_dirs = [Path(r) / f"cosched-{p.pid}" for r in ("/sys/fs/cgroup/freezer", "/sys/fs/cgroup")]
        start = time.monotonic()
        while True:
            held = [d.name for d in run_dirs if d.exists()] + [
                why for pid in _marked(marker) if (why := _released(pid, cpus))
            ]
            if not held:
                break
            assert time.monotonic() - start < 60, f"still held 60 s after the kill: {held}"
            time.sleep(0.02)
    finally:
        p.kill()
        for pid in _marked(marker):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
