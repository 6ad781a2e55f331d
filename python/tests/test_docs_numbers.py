"""scripts/docs_numbers.py: a page that no template renders holds no result typed by hand (every
number of it is a declared kind), every page is read whole or declared history, and the numbers
are read with their kind and precision. The rendered pages' own rules are tested in
test_docs_render.py."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("docs_numbers", ROOT / "scripts" / "docs_numbers.py")
assert _spec and _spec.loader
dn = importlib.util.module_from_spec(_spec)
sys.modules["docs_numbers"] = dn  # dataclasses look their module up
_spec.loader.exec_module(dn)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the docs and the README, to change."""
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    return tmp_path


def test_no_page_without_a_template_holds_a_typed_result(capsys):
    assert dn.run(ROOT) == 0, capsys.readouterr().err


def test_a_result_typed_into_a_page_without_a_template_fails_naming_it(tree: Path, capsys):
    page = tree / "docs" / "index.md"
    page.write_text(page.read_text() + "\nThe widget count came to 3.25 today.\n")
    assert dn.run(tree) == 1
    err = capsys.readouterr().err
    line = len(page.read_text().splitlines())
    assert f"docs/index.md:{line}: '3.25' is typed into the text" in err, err


def test_a_declared_kind_is_not_a_result(tree: Path, capsys):
    # A quotation of a paper, a date, a section reference and a run's size named by its unit.
    page = tree / "docs" / "index.md"
    page.write_text(page.read_text() + '\nThe paper says "up to 48%" (§3), measured 2026-11-28 over 5 seeds.\n')
    assert dn.run(tree) == 0, capsys.readouterr().err


def test_a_rendered_page_is_left_to_its_template(tree: Path, capsys):
    # A number typed into the rendered page itself is the renderer's concern (its check fails
    # when the page differs from its template's rendering); this check does not read it.
    page = tree / "docs" / "efs.md"
    page.write_text(page.read_text() + "\nThe widget count came to 3.25 today.\n")
    assert dn.run(tree) == 0, capsys.readouterr().err


def test_numbers_are_read_with_their_precision_and_kind():
    toks = [t for _, t in dn.tokens("Perf +1.6 ±0.3, 12 of 13 mixes, 0.80-0.97, `fig2.csv` §7 40 seeds")]
    assert [(t.text, t.kind) for t in toks] == [("+1.6 ±0.3", "pm"), ("12 of 13", "of"), ("0.80-0.97", "range")]
    assert dn.num("−2.35") == (-2.35, 2)


def tables_starting(text: str, heads: tuple[str, ...]) -> list[str]:
    """The lines of the Markdown tables of `text` whose header line starts with one of `heads`."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith(heads):
            inside = True
        elif not line.startswith("|"):
            inside = False
        if inside:
            out.append(line)
    return out


def test_the_mechanisms_table_in_docs_is_the_summary_scripts_mechanisms_writes():
    summary = (ROOT / "docs" / "results" / "mechanisms" / "summary.md").read_text()
    model = (ROOT / "docs" / "model.md").read_text()
    block = model[model.index("<!-- mechanisms:begin -->\n") : model.index("<!-- mechanisms:end -->")]
    heads = ("| paper | figure |", "| paper | conserve-only | off |")
    want = tables_starting(summary, heads)
    assert len(want) > 10
    assert tables_starting(block, heads) == want, "model.md copies them with table(...) from summary.md"


def test_every_page_is_read_whole_or_declared_history():
    # Every number of every page is checked (here, or by the renderer on its template); only
    # dated history is exempt, as a whole.
    pages = {p.stem for p in (ROOT / "docs").glob("*.md")} | {"README"}
    assert pages - dn.WHOLE_PAGES - dn.HISTORY_PAGES == set()
    assert dn.WHOLE_PAGES & dn.HISTORY_PAGES == set()
