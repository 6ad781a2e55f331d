"""scripts/docs_numbers.py: every number of the docs' result tables reads its pinned result cell,
a changed cell or a hand-typed number fails the check, `--update` regenerates the number, and a
verdict written beside an interval follows from it."""

from __future__ import annotations

import csv
import importlib.util
import io
import shutil
import sys
from collections.abc import Callable
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


def pins(root: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((root / dn.PIN_FILE).read_text())))


def failing_after(tree: Path, page: str, was: str, now: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Replace `was` (which the page must hold) by `now` on docs/`page`; the check must fail:
    its report."""
    path = tree / "docs" / page
    text = path.read_text()
    assert was in text, was
    path.write_text(text.replace(was, now, 1))
    assert dn.run(tree, "check") == 1
    return capsys.readouterr().err


def edit_pin(root: Path, which: Callable[[list[str]], bool], **fields: str) -> None:
    """Rewrite `fields` (by header name) of the first pin row `which` accepts."""
    path = root / dn.PIN_FILE
    rows = list(csv.reader(io.StringIO(path.read_text())))
    head, row = rows[0], next(r for r in rows[1:] if which(r))
    for name, value in fields.items():
        row[head.index(name.replace("_", " "))] = value
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue())


# The pages rendered from templates (docs/src, scripts/docs_render.py) hold no pins: their verdict
# rules (direction and size, a paired block's "(no difference)") are tested on made-up cells in
# test_docs_render.py.


def test_every_number_of_the_docs_reads_its_pinned_cell(capsys):
    assert dn.run(ROOT, "check") == 0, capsys.readouterr().err
    assert len(pins(ROOT)) >= 300, "fewer pins than the claims tables hold: has a table's layout changed?"


def changed_pin(root: Path) -> dict[str, str]:
    """The pin of a number (a mean, with or without its interval) on a page still pinned, read
    directly from a CSV field, and that field's cell rewritten in the file to a value far from it."""
    for p in pins(root):
        if p["file"].endswith(".csv") and p["reading"] == "value" and p["item"] == "0":
            path = root / "docs" / "results" / p["file"]
            rows = list(csv.reader(io.StringIO(path.read_text())))
            col = rows[0].index(p["field"])
            rows[int(p["row"])][col] = str(float(rows[int(p["row"])][col]) + 37.0)
            buf = io.StringIO()
            csv.writer(buf, lineterminator="\n").writerows(rows)
            path.write_text(buf.getvalue())
            return p
    raise AssertionError("no CSV-read number pinned on any page")


def test_changing_one_value_in_a_cited_csv_fails_the_check_naming_the_number(tree: Path, capsys):
    p = changed_pin(tree)
    assert dn.run(tree, "check") == 1
    err = capsys.readouterr().err
    number = p["token"].split(":", 1)[1]
    assert f"{p['doc']}:" in err and repr(number) in err and "--update rewrites it" in err, err


def test_update_regenerates_a_changed_number_and_the_check_passes_again(tree: Path, capsys):
    p = changed_pin(tree)
    number = p["token"].split(":", 1)[1]
    mean, _ = dn.num(number.split("±")[0].strip())
    assert dn.run(tree, "update") == 0, capsys.readouterr().err
    page = (tree / p["doc"]).read_text()
    assert dn.run(tree, "check") == 0, capsys.readouterr().err
    # The regenerated mean is 37 above the old one, at the same precision.
    decimals = dn.num(number.split("±")[0].strip())[1]
    new = f"{mean + 37.0:.{decimals}f}"
    assert new in page, (number, new)


def test_a_no_difference_beside_an_interval_excluding_zero_fails(tree: Path, capsys):
    # The defect the docs had: "+2.2 ±1.1 (no difference)".
    page = tree / "docs" / "runtime.md"
    page.write_text(page.read_text() + "\nFair +2.2 ±1.1 (no difference) above 120.\n")
    assert dn.run(tree, "check") == 1
    assert "the interval excludes 0, so it is a difference" in capsys.readouterr().err
    assert dn.verdict_problems(ROOT) == []


def test_numbers_are_read_with_their_precision_and_kind():
    toks = [t for _, t in dn.tokens("Perf +1.6 ±0.3, 12 of 13 mixes, 0.80-0.97, `fig2.csv` §7 40 seeds")]
    assert [(t.text, t.kind) for t in toks] == [("+1.6 ±0.3", "pm"), ("12 of 13", "of"), ("0.80-0.97", "range")]
    assert dn.printed([-2.345, 0.061], toks[0]) == "−2.3 ±0.1"
    assert dn.printed([12.0], toks[1]) == "12 of 13"
    assert dn.rounds_to(0.3346, 0.33, 2) and not dn.rounds_to(0.336, 0.33, 2)


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
    assert tables_starting(block, heads) == want, "copy them from docs/results/mechanisms/summary.md"


def test_a_number_its_sentence_does_not_tie_to_a_cell_is_refused(tmp_path: Path, capsys):
    (tmp_path / "docs" / "results" / "t").mkdir(parents=True)
    (tmp_path / "README.md").write_text("# t\n")
    page = tmp_path / "docs" / "t.md"
    page.write_text(
        "Results in `docs/results/t`.\n\n<!-- numbers: results/t -->\nThe widget count came to 3.25 today.\n\n"
        "<!-- numbers: results/t -->\nThe green size is 7.5 now.\n"
    )
    csv_path = tmp_path / "docs" / "results" / "t" / "a.csv"
    csv_path.write_text("name,size\nblue,3.25\ngreen,7.5\n")
    # 3.25 rounds to row "blue", field "size", but nothing around "widget count" names them:
    # --write refuses to pin it, and the check fails on it.
    assert dn.run(tmp_path, "write") == 1
    assert "'3.25' (line 1) is in no result file its section names" in capsys.readouterr().err
    page.write_text(page.read_text().replace("The widget count", "The blue size"))
    assert dn.run(tmp_path, "write") == 0, capsys.readouterr().err
    assert dn.run(tmp_path, "check") == 0, capsys.readouterr().err
    csv_path.write_text("name,size\nblue,4.5\ngreen,8.5\n")
    assert dn.run(tmp_path, "update") == 0
    err = capsys.readouterr().err
    assert "'7.5' (line 1) -> '8.5'" in err and "suspect" not in err, err
    assert "blue size came to 4.50 today" in page.read_text()
    # A pin written by hand to a cell of the same value that its sentence does not name fails.
    csv_path.write_text("name,size,weight\nblue,4.5,1\ngreen,8.5,2\nred,0,4.5\n")
    edit_pin(tmp_path, lambda r: r[3] == "0:4.50", row="3", row_key="red", field="weight")
    assert dn.run(tmp_path, "check") == 1
    assert "'4.50' (line 1): its pin (t/a.csv, row 'red', 'weight') names nothing its sentence says" in (
        capsys.readouterr().err
    )


def test_a_pin_into_a_file_its_section_does_not_name_fails(tree: Path, capsys):
    # rda.md's claims table once read "1.27" from a runtime JSON's `jobs.predicted`: a file the
    # section never names.
    # The same cells under a name the section does not give: the pin still reads its number.
    results = tree / "docs" / "results"
    pin = next(p for p in pins(tree) if p["file"].endswith(".csv") and not p["file"].startswith("runtime/"))
    shutil.copy(results / pin["file"], results / "runtime" / "figs-copy.csv")
    edit_pin(tree, lambda r: r[0] == pin["doc"] and r[4] == pin["file"], file="runtime/figs-copy.csv")
    assert dn.run(tree, "check") == 1
    assert "reads runtime/figs-copy.csv, which its section names neither by file nor by folder" in (
        capsys.readouterr().err
    )


def test_on_a_page_read_whole_a_changed_prose_number_fails(tree: Path, capsys):
    # runtime.md is read whole: a number of its prose, outside any table or marker, is checked.
    err = failing_after(tree, "runtime.md", "108.4 ns at 8 MiB", "108.5 ns at 8 MiB", capsys)
    assert "docs/runtime.md:" in err and "runtime" in dn.WHOLE_PAGES, err


def test_a_setting_is_a_result_unless_the_constants_list_names_it(tree: Path, capsys):
    # "with 100 ms quanta" is a declared constant of the method; a new setting in prose is not.
    err = failing_after(tree, "runtime.md", "with 100 ms quanta", "with 100 ms quanta and a 37 s floor", capsys)
    assert "'37'" in err, err


def test_on_a_page_read_whole_a_number_after_of_or_at_is_read(tree: Path, capsys):
    # The older rules skip a number after "of" or "at" (a setting, as often a result); a page read
    # whole reads it: a chase's fit error "at 4.7%" is pinned, and a changed one fails.
    err = failing_after(
        tree, "runtime.md", "the 24 MiB chase (3.0%) at 4.7%", "the 24 MiB chase (3.0%) at 4.9%", capsys
    )
    assert "'4.9'" in err and "runtime" in dn.WHOLE_PAGES, err


def test_a_marker_names_its_blocks_only_sources(tree: Path, capsys):
    # runtime.md's time-sharing table is marked `results/runtime/host-check/calibrate.txt`: a pin
    # of it into the section's other named files (host-check's summary.md) fails.
    # The same cells under another name in a folder the section names: the pin still reads.
    host = tree / "docs" / "results" / "runtime" / "host-check"
    shutil.copy(host / "calibrate.txt", host / "calibrate-copy.txt")
    edit_pin(
        tree,
        lambda r: r[0] == "docs/runtime.md" and r[4] == "runtime/host-check/calibrate.txt" and r[3].endswith(":786"),
        file="runtime/host-check/calibrate-copy.txt",
    )
    assert dn.run(tree, "check") == 1
    assert "reads runtime/host-check/calibrate-copy.txt, which its section names neither" in capsys.readouterr().err


def test_a_count_read_from_a_report_line_needs_the_lines_own_noun(tree: Path, capsys):
    # "18 cells beyond 30%" reads host-check's summary line "18 cells beyond 30%"; said of
    # anything else ("18 rows") the same small number is a coincidence and fails.
    err = failing_after(
        tree,
        "runtime.md",
        "18 cells beyond 30% missed the worst-case target",
        "18 rows beyond 30% missed the worst-case target",
        capsys,
    )
    assert "'18'" in err, err


def test_every_page_is_read_whole_or_declared_history():
    # #65 item 1: every number of every page is checked; only dated history is exempt, as a whole.
    pages = {p.stem for p in (ROOT / "docs").glob("*.md")} | {"README"}
    assert pages - dn.WHOLE_PAGES - dn.HISTORY_PAGES == set()
    assert dn.WHOLE_PAGES & dn.HISTORY_PAGES == set()
