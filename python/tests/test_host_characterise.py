"""cosched.host.characterise: the command line's characterisation from Python, on a recorded
block (fitted from its record: no process runs), against `cosched characterise --from-record`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cosched import _cosched, host
from cosched.errors import ConfigError, OptionError

ROOT = Path(__file__).resolve().parents[2]
BLOCK = ROOT / "docs" / "results" / "runtime" / "host-random-31-33"


def test_the_fit_of_a_record_is_the_command_lines_byte_for_byte(cli, tmp_path: Path) -> None:
    record, machine = str(BLOCK / "record.json"), str(BLOCK / "host.toml")
    out = tmp_path / "programs.toml"
    cli("characterise", "--from-record", record, "-m", machine, "-o", str(out), parse=False)
    c = host.characterise(machine, from_record=record, file=str(out))
    assert c.workload == out.read_text()
    frame = c.to_pandas()
    assert len(frame) >= len(c.record["jobs"]) >= 3
    assert set(frame["access"]) <= {"random", "sequential", "none"}
    for j in c.jobs:
        lo, hi = j["footprint_range"]
        assert lo <= j["footprint_mb"] <= hi
        assert j["presence"] is None  # not fitted without presence=True
    # A job this host's noise made untrustworthy says why (the record holds such jobs).
    assert any(j["untrusted"] for j in c.jobs)
    # Without its adaptive pirates: fewer co-runs fitted, the same jobs.
    none = host.characterise(machine, from_record=record, added_pirates=0)
    assert [j["name"] for j in none.record["jobs"]] == [j["name"] for j in c.record["jobs"]]


def test_the_defaults_are_the_command_lines(cli) -> None:
    helped = cli("characterise", "--help", parse=False)
    for flag, value in (
        ("--repeat", _cosched.CHARACTERISE_REPEAT),
        ("--within", _cosched.CHARACTERISE_WITHIN),
        ("--max-rounds", _cosched.CHARACTERISE_MAX_ROUNDS),
        ("--budget-s", _cosched.CHARACTERISE_BUDGET_S),
    ):
        found = re.search(rf"^\s+{flag} <[A-Z_]+>\n(?:.*\n)*?\s+\[default: ([^\]]+)\]", helped, re.MULTILINE)
        assert found is not None, flag
        assert float(found.group(1)) == value, (flag, found.group(1), value)


def test_bad_settings_are_refused_naming_the_keyword(tmp_path: Path) -> None:
    machine, record = str(BLOCK / "host.toml"), str(BLOCK / "record.json")
    with pytest.raises(OptionError, match="mix, from_record: give one"):
        host.characterise(machine)
    with pytest.raises(OptionError, match=r"^repeat: must be from 1 to"):
        host.characterise(machine, from_record=record, repeat=10**6)
    with pytest.raises(OptionError, match=r"^max_rounds: must be at least --repeat"):
        host.characterise(machine, from_record=record, repeat=5, max_rounds=2)
    with pytest.raises(OptionError, match=r"^access: must be both, random or all"):
        host.characterise(machine, from_record=record, access="seq")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match=r"^`added_pirates`: .*none of .*fixed sweep"):
        host.characterise("i5-2500", from_record=record, added_pirates=1)
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(ConfigError, match="not a characterisation record"):
        host.characterise(machine, from_record=str(bad))
