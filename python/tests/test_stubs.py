"""The type stubs (`cosched/_cosched.pyi`) match the extension module, and mypy is clean."""

from __future__ import annotations

import ast
import inspect
import shutil
import subprocess
import sys
from pathlib import Path

import cosched
from cosched import _cosched

STUB = Path(cosched.__file__).with_name("_cosched.pyi")


def _stub_functions() -> dict[str, list[str]]:
    tree = ast.parse(STUB.read_text())
    return {n.name: [a.arg for a in n.args.args] for n in tree.body if isinstance(n, ast.FunctionDef)}


def test_stub_names_and_parameters_match_the_module():
    module = {
        n: getattr(_cosched, n)
        for n in dir(_cosched)
        if not n.startswith("_") and callable(getattr(_cosched, n)) and not isinstance(getattr(_cosched, n), type)
    }
    stub = {n: a for n, a in _stub_functions().items() if not n.startswith("_")}
    assert set(stub) == set(module)
    for name, fn in module.items():
        assert list(inspect.signature(fn).parameters) == stub[name], name
    assert "__version__" in STUB.read_text() and isinstance(_cosched.__version__, str)
    # The classes (a Python policy's Event and View) with their public attributes and methods.
    classes = {n.name: n for n in ast.parse(STUB.read_text()).body if isinstance(n, ast.ClassDef)}
    module_classes = {n for n in dir(_cosched) if isinstance(getattr(_cosched, n), type)}
    assert set(classes) == module_classes
    for name, node in classes.items():
        stubbed = {b.name for b in node.body if isinstance(b, ast.FunctionDef)} | {
            b.target.id for b in node.body if isinstance(b, ast.AnnAssign) and isinstance(b.target, ast.Name)
        }
        public = {a for a in dir(getattr(_cosched, name)) if not a.startswith("_")}
        assert stubbed == public, name
    assert Path(cosched.__file__).with_name("py.typed").exists()


def test_mypy_strict_is_clean():
    root = Path(__file__).resolve().parents[2]
    if shutil.which("mypy", path=str(Path(sys.executable).parent)) is None:
        import pytest

        pytest.skip("mypy is not installed in this environment")
    p = subprocess.run([sys.executable, "-m", "mypy"], check=False, cwd=root, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy_is_strict_with_no_global_ignore() -> None:
    """Every report is typed: `mypy --strict` checks the package against real stubs (pandas-stubs,
    types-tqdm in python/requirements-test.txt), not with every missing import ignored."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    mypy = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["mypy"]
    assert mypy.get("strict") is True
    assert "ignore_missing_imports" not in mypy, "a global ignore_missing_imports hides untyped imports"
    for override in mypy.get("overrides", []):
        assert not override.get("ignore_missing_imports"), f"an ignore for {override.get('module')}"


def test_the_typed_keywords_are_the_declarations() -> None:
    """Options declared once: the keywords of simulate, compare, assign and optimum are typed
    (``cosched/_knob_types.py``), generated from the Rust declarations; a knob declared
    in Rust and not in the file (or the other way round) fails here, naming the command
    that rewrites it."""
    from cosched import _knob_gen

    checkout = Path(__file__).resolve().parents[2] / _knob_gen.TARGET
    assert checkout.read_text() == _knob_gen.render(), "run, from the checkout's root: python -m cosched._knob_gen"
    import typing

    from cosched import _knob_types

    hints = typing.get_type_hints(_knob_types.Knobs)
    assert set(hints) == {k["name"] for k in _cosched.knob_list()} - {"machine", "workload"}
    assert (
        hints["timing"] is bool
        and typing.get_args(hints["efs_objective"])[0] == typing.Literal["energy", "energy-delay"]
    )


def test_the_python_defaults_are_read_from_the_declarations() -> None:
    """No default of a machine or workload is copied into Python: the signatures show the
    declarations'."""
    import inspect

    from cosched.sim import DEFAULT_MACHINE, DEFAULT_WORKLOAD

    known = {k["name"]: k["default"] for k in _cosched.knob_list()}
    assert (DEFAULT_MACHINE, DEFAULT_WORKLOAD) == (known["machine"], known["workload"])
    for fn, command in ((cosched.optimum, "optimum"), (cosched.assign, "assign")):
        declared = {k["name"]: k["default"] for k in _cosched.option_list(command)}
        params = inspect.signature(fn).parameters
        assert params["machine"].default == declared["machine"], command
        assert params["workload"].default == declared["workload"], command


def test_the_report_types_are_generated_from_the_rust_structs_and_match_a_report():
    """``cosched/_report_types.py`` is what ``python -m cosched._report_gen``
    writes from the Rust report structs (a field is declared once, in Rust),
    and a real report has exactly its keys, at every level."""
    import typing

    from cosched import _report_gen, _report_types

    checkout = Path(__file__).resolve().parents[2] / _report_gen.TARGET
    assert checkout.read_text() == _report_gen.render(), "run, from the checkout's root: python -m cosched._report_gen"
    run = cosched.simulate("i5-2500", "mcf", "cfs", seed=1, timing=False)
    hints = typing.get_type_hints(_report_types.Report)
    assert set(run.report) == set(hints)
    assert set(run.report["metrics"]) == set(typing.get_type_hints(_report_types.Metrics))
    assert set(run.report["jobs"][0]) == set(typing.get_type_hints(_report_types.JobReport))
    # Types as generated: a Rust Option is `| None`, a Vec a list.
    assert hints["threads"] == int | None and hints["jobs"] == list[_report_types.JobReport]
    assert _report_gen.py_type("Option<Vec<f64>>", set()) == "list[float] | None"
