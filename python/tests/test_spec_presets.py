"""The SPEC presets are what scripts/gen-spec-presets.py writes, and their phases keep the
published whole-run figures exact: total instructions / total cycles
(the instruction-weighted harmonic mean of the phases' IPC) and DRAM lines per KI."""

import importlib.util
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("gen_spec", ROOT / "scripts" / "gen-spec-presets.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


@pytest.mark.parametrize("name", sorted(gen.TABLE))
def test_preset_file_is_generated(name):
    text = (ROOT / "data" / "workloads" / f"{name}.toml").read_text()
    assert text == gen.render(name, gen.TABLE[name]), "rerun scripts/gen-spec-presets.py"


@pytest.mark.parametrize("name", sorted(gen.TABLE))
def test_phases_keep_whole_run_ipc_and_miss_rate(name):
    ipc, mpki = gen.TABLE[name][0], gen.TABLE[name][1]
    job = tomllib.loads((ROOT / "data" / "workloads" / f"{name}.toml").read_text())["job"][0]
    phases = job["phase"]
    instr = sum(p["instructions"] for p in phases)
    cycles = sum(p["instructions"] / p["ipc"] for p in phases)
    lines = sum(p["instructions"] * p["llc_mpki"] for p in phases)
    assert instr / cycles == pytest.approx(ipc, rel=2e-5)
    assert lines / instr == pytest.approx(mpki, rel=2e-5)
    # Solo length at 3 GHz as before phases: 5 s.
    assert instr * job.get("iterations", 1) / ipc / 3e9 == pytest.approx(gen.SOLO_SECONDS_AT_3GHZ, rel=1e-5)


def test_phases_differ_where_the_shape_says_so():
    job = tomllib.loads((ROOT / "data" / "workloads" / "mcf.toml").read_text())["job"][0]
    ipcs = [p["ipc"] for p in job["phase"]]
    assert max(ipcs) / min(ipcs) > 1.5
    assert len(tomllib.loads((ROOT / "data" / "workloads" / "lbm.toml").read_text())["job"][0]["phase"]) == 1
