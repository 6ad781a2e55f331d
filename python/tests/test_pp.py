"""The Python progress-period client under a real `cosched run`: RDA Strict
admits two periods that together exceed the LLC one after the other; with
no server the context manager is a no-op."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COSCHED = ROOT / "target" / "release" / "cosched"

from cosched import pp

CLIENT = textwrap.dedent(
    """
    import sys, time
    from cosched import pp
    mb = int(sys.argv[1])
    t0 = time.time()
    with pp.period("llc", mb << 20, "high") as pid:
        t1 = time.time()
        c0 = time.process_time()
        while time.process_time() - c0 < 0.3:
            pass
        t2 = time.time()
    print(pid, t0, t1, t2)
    """
)


MACHINE = "xeon-e5645"


def oversized_pair_mb(machine: str) -> int:
    """A period size, whole MiB, that fits the LLC of the description the run uses
    (the preset given with -m, never this host's) alone but not twice: ceil(3/4 LLC)."""
    import math

    import cosched

    llc = float(cosched.Machine(machine)["cache.llc_mb"])
    mb = math.ceil(0.75 * llc)
    assert mb <= llc < 2 * mb, llc
    return mb


def test_no_server_is_a_no_op(monkeypatch):
    monkeypatch.delenv(pp.SOCKET_ENV, raising=False)
    with pp.period("llc", 1 << 20) as pid:
        assert pid == 0
    with pytest.raises(ValueError):
        pp.begin("l3", 1)


def test_periods_queue_under_rda_strict(tmp_path):
    assert COSCHED.exists(), "build first: cargo build --release"
    (tmp_path / "client.py").write_text(CLIENT)
    mb = oversized_pair_mb(MACHINE)
    # The clients import the installed package (scripts/test-all: `pip install .` into .venv).
    env = {"COSCHED_TEST": "1"}
    mix = tmp_path / "mix.toml"
    mix.write_text(
        '[[job]]\nname = "py"\n'
        f'cmd = [{json.dumps(sys.executable)}, "client.py", "{mb}"]\ncount = 2\n'
        f"env = {{ COSCHED_TEST = {json.dumps(env['COSCHED_TEST'])} }}\n"
    )
    out = tmp_path / "out"
    r = subprocess.run(
        [str(COSCHED), "run", "-p", "rda-strict", "-m", MACHINE, "-w", str(mix), "--output-dir", str(out)],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert r.returncode == 0, r.stderr
    rows = sorted([tuple(map(float, (out / f"py#{k}.out").read_text().split())) for k in range(2)], key=lambda x: x[2])
    (id1, _, _, end1), (id2, call2, adm2, _) = rows
    assert id1 > 0 and id2 > 0
    assert adm2 >= end1 - 0.01, rows
    assert adm2 - call2 > 0.2, rows


VANISHER = textwrap.dedent(
    """
    import os, sys, time
    from cosched import pp
    pid = pp.begin("llc", int(sys.argv[1]) << 20, "high")
    print(pid, time.time(), flush=True)
    time.sleep(0.3)
    os._exit(0)  # vanishes inside its period, without pp_end
    """
)


def test_a_client_that_vanishes_mid_period_releases_it(tmp_path):
    assert COSCHED.exists(), "build first: cargo build --release"
    (tmp_path / "vanish.py").write_text(VANISHER)
    (tmp_path / "client.py").write_text(CLIENT)
    mb = oversized_pair_mb(MACHINE)
    pypath = json.dumps("1")
    exe = json.dumps(sys.executable)
    (tmp_path / "mix.toml").write_text(
        f'[[job]]\nname = "gone"\ncmd = [{exe}, "vanish.py", "{mb}"]\nenv = {{ COSCHED_TEST = {pypath} }}\n'
        f'[[job]]\nname = "next"\ncmd = [{exe}, "-c", "import time; time.sleep(0.2); exec(open(\'client.py\').read())", "{mb}"]\n'
        f"env = {{ COSCHED_TEST = {pypath} }}\n"
    )
    out = tmp_path / "out"
    r = subprocess.run(
        [
            str(COSCHED),
            "run",
            "-p",
            "rda-strict",
            "-m",
            MACHINE,
            "-w",
            str(tmp_path / "mix.toml"),
            "--output-dir",
            str(out),
            "--timeout-s",
            "20",
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    gone_id, gone_t = (out / "gone.out").read_text().split()
    nid, _, adm, _ = map(float, (out / "next.out").read_text().split())
    assert int(gone_id) > 0 and nid > 0
    assert adm >= float(gone_t) + 0.25, "the waiting period is admitted only once the vanished one is released"


def test_importing_pp_does_not_load_the_analysis_stack():
    code = (
        "import sys, cosched.pp; assert 'pandas' not in sys.modules, 'pandas loaded'; import cosched; cosched.simulate"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
