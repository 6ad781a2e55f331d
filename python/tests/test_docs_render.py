"""scripts/docs_render.py: pages rendered from their result cells. Its rules on made-up cells
(a negative cell keeps its sign, a verdict follows its interval, a claim's verdict follows the
paper's direction, counts and extremes follow their rows, a missing file, row or column fails),
a changed cell changes the rendered page, and a number typed into a template's prose fails."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
_spec = importlib.util.spec_from_file_location("docs_render", ROOT / "scripts" / "docs_render.py")
assert _spec and _spec.loader
dr = importlib.util.module_from_spec(_spec)
sys.modules["docs_render"] = dr
_spec.loader.exec_module(dr)

CSV = """arm,saving,saving ci95,speed,speed ci95
tiny,-0.000017,0.0000001,0.5,0.7
up,2.5,0.4,-3.0,0.5
down,-1.5,0.2,1.0,0.1
"""


def page(tmp_path: Path, body: str, csv: str = CSV) -> str:
    """`body` rendered as a template over one made-up result file, `x/a.csv`."""
    (tmp_path / "docs" / "src").mkdir(parents=True, exist_ok=True)
    (tmp_path / "docs" / "results" / "x").mkdir(parents=True, exist_ok=True)
    (tmp_path / "docs" / "results" / "x" / "a.csv").write_text(csv)
    t = tmp_path / "docs" / "src" / "t.md.j2"
    t.write_text(body)
    return dr.render(tmp_path, t).split("\n", 1)[1]


def test_a_negative_cell_renders_with_its_sign_at_any_rounding(tmp_path):
    assert page(tmp_path, '{{ iv("x/a.csv", "tiny", "saving") | pm(2, sign=True) }}') == "−0.00 ±0.00"
    assert page(tmp_path, '{{ cell("x/a.csv", "tiny", "saving") | f(1) }}') == "−0.0"
    assert page(tmp_path, '{{ cell("x/a.csv", "up", "saving") | f(1, sign=True) }}') == "+2.5"
    assert page(tmp_path, '{{ cell("x/a.csv", "down", "saving").neg | f(1) }}') == "1.5"


def test_a_verdict_follows_its_unrounded_interval(tmp_path):
    # −0.000017 ±0.0000001 excludes 0 though it prints as −0.00 ±0.00; 0.5 ±0.7 holds it.
    assert page(tmp_path, '{{ iv("x/a.csv", "tiny", "saving") | verdict }}') == "a difference"
    assert page(tmp_path, '{{ iv("x/a.csv", "tiny", "speed") | paired(1) }}') == "+0.5 ±0.7 (no difference)"
    assert page(tmp_path, '{{ iv("x/a.csv", "up", "saving") | paired(1) }}') == "+2.5 ±0.4"


def test_a_claims_verdict_needs_the_papers_direction(tmp_path):
    # The paper claims a gain (+); ours is a loss whose interval excludes 0: reversed, never
    # "reproduced in direction" because |mean| exceeds the half-width.
    assert page(tmp_path, '{{ iv("x/a.csv", "down", "saving") | direction("+") }}') == "reversed"
    assert page(tmp_path, '{{ iv("x/a.csv", "down", "saving") | direction("−") }}') == "reproduced in direction"
    assert page(tmp_path, '{{ iv("x/a.csv", "tiny", "speed") | direction("+") }}') == "no difference"
    assert page(tmp_path, '{{ claim(iv("x/a.csv", "up", "saving"), 2.6) }}') == "reproduced (direction and size)"
    assert page(tmp_path, '{{ claim(iv("x/a.csv", "up", "saving"), 47.6) }}') == "direction; smaller here"
    assert page(tmp_path, '{{ claim(iv("x/a.csv", "up", "saving"), 1.0) }}') == "direction; larger here"
    assert page(tmp_path, '{{ claim(iv("x/a.csv", "up", "saving"), -5) }}') == "reversed"


def test_counts_and_extremes_follow_the_rows_they_summarise(tmp_path):
    body = (
        '{% set s = ivs("x/a.csv", "saving") %}'
        '{{ count(s | map(attribute="holds_zero")) }} of {{ s | length }} hold 0; '
        'up to {{ col("x/a.csv", "saving") | max | f(1) }}; worst {{ worst(s) | pm(1) }}'
    )
    assert page(tmp_path, body) == "0 of 3 hold 0; up to 2.5; worst 2.5 ±0.4"
    moved = CSV.replace("up,2.5,0.4", "up,0.1,0.4")
    assert page(tmp_path, body, moved) == "1 of 3 hold 0; up to 0.1; worst −1.5 ±0.2"


REPORT = """# a made-up report

| app | n | width |
|---|---|---|
| l1 | 1000 | 4.76 ±1.15 |
| mem | 1000 | 2.06 ±1.16 |

[1] first study
    simulated per workload: l1 1.8321, mem 0.4355
[2] second study
    simulated per workload: l1 0.0000, mem 0.0104
"""


def report_page(tmp_path: Path, body: str) -> str:
    """`body` rendered over a made-up text report, `x/r.md`."""
    (tmp_path / "docs" / "results" / "x").mkdir(parents=True, exist_ok=True)
    (tmp_path / "docs" / "results" / "x" / "r.md").write_text(REPORT)
    return page(tmp_path, body)


def test_a_report_line_is_read_by_its_entry_and_by_name_and_a_table_is_copied_whole(tmp_path):
    # The same line under two numbered entries: `after` picks the entry, `name` the number after
    # a name, never a position that a coincidence could shift.
    assert report_page(tmp_path, '{{ line("x/r.md", "simulated", after="[2]", name="mem") | f(4) }}') == "0.0104"
    assert report_page(tmp_path, '{{ line("x/r.md", "simulated", after="[1]", name="l1") | f(2) }}') == "1.83"
    with pytest.raises(dr.RenderError, match="2 lines start so"):
        report_page(tmp_path, '{{ line("x/r.md", "simulated") | f(2) }}')
    with pytest.raises(dr.RenderError, match="no number after 'cpu'"):
        report_page(tmp_path, '{{ line("x/r.md", "simulated", after="[1]", name="cpu") | f(2) }}')
    # A row's own ± half-width, and a table copied from its file as the file writes it.
    rows = 'select("x/r.md", {"app": "*"})'
    assert (
        report_page(tmp_path, "{{ ivs_of(" + rows + ', "width", half="±") | map(attribute="half") | max | f(2) }}')
        == "1.16"
    )
    assert report_page(tmp_path, '{{ table("x/r.md", "app") }}') == (
        "| app | n | width |\n|---|---|---|\n| l1 | 1000 | 4.76 ±1.15 |\n| mem | 1000 | 2.06 ±1.16 |"
    )


@pytest.mark.parametrize(
    ("expr", "says"),
    [
        ('cell("x/none.csv", "up", "saving")', "x/none.csv: no such result file"),
        ('cell("x/a.csv", "sideways", "saving")', "no row 'sideways'"),
        ('cell("x/a.csv", "up", "savings")', "no row 'up' with a field 'savings'"),
        ('iv("x/a.csv", "up", "speed", half="speed sd")', "no half-width field 'speed sd'"),
        ('cell("x/a.csv", "up", "saving")', "printed without a format"),
    ],
)
def test_a_missing_file_row_or_column_fails_naming_it(tmp_path, expr, says):
    with pytest.raises(dr.RenderError, match="docs/src/t.md.j2") as e:
        page(tmp_path, "{{ " + expr + " }}")
    assert says in str(e.value), e.value


def test_a_changed_cell_changes_the_page_that_states_it(tmp_path, capsys):
    # A scratch copy of the docs and their results: efs.md's Fig. 10 unfairness counts follow the
    # rows; make the mcf mix's EFS unfairness equal to its CFS one and the count moves.
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    assert dr.main(["--check", "--root", str(tmp_path)]) == 0, capsys.readouterr().err
    fig10 = tmp_path / "docs" / "results" / "efs" / "fig10.csv"
    lines = fig10.read_text().splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("mcf+libquantum+soplex+lbm,"))
    cells = lines[row].split(",")
    head = lines[0].split(",")
    cells[head.index("unfairness EFS")] = cells[head.index("unfairness CFS")]
    lines[row] = ",".join(cells)
    fig10.write_text("\n".join(lines) + "\n")
    assert dr.main(["--check", "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "docs/efs.md differs from its rendering" in err and "higher in 1" in err, err


def test_a_number_typed_into_a_templates_prose_fails_naming_the_line(tmp_path, capsys):
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    t = tmp_path / "docs" / "src" / "efs.md.j2"
    lines = t.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("### Why ours differ"))
    lines.insert(at + 1, "EFS saved 12.3% more here.\n")
    t.write_text("".join(lines))
    assert dr.main(["--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"docs/src/efs.md.j2:{at + 2}: 12.3 is typed into the text" in err, err


def test_a_setting_is_a_result_unless_the_constants_list_names_it(tmp_path, capsys):
    # "with 100 ms quanta" is a declared constant of the method (scripts/docs_numbers_constants.py);
    # a new setting typed beside it is not, and fails like any typed number.
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    t = tmp_path / "docs" / "src" / "runtime.md.j2"
    text = t.read_text()
    assert "with 100 ms quanta" in text
    assert dr.main(["--check", "--root", str(tmp_path)]) == 0, capsys.readouterr().err
    t.write_text(text.replace("with 100 ms quanta", "with 100 ms quanta and a 37 s floor", 1))
    assert dr.main(["--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "37 is typed into the text" in err and "100 is typed" not in err, err


def test_every_committed_page_matches_its_template(capsys):
    assert dr.main(["--check"]) == 0, capsys.readouterr().err
