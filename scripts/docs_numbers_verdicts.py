"""Verdicts read from full precision: every verdict word written beside an interval is checked
against the unrounded cell its numbers are pinned to, by the rule docs/index.md writes once
("Numbers, verdicts and intervals"):

- "no difference" (or "no different") beside an interval: the interval holds 0;
- "a difference", "resolved", "excludes 0", "above", "below", "beats" beside it: it excludes 0;
- in a block declared `paired` (`<!-- numbers: results/DIR paired -->`), every interval that
  holds 0 says "(no difference)" and no other does;
- a claims table's verdict "direction ..." or "reversed ...": the row's first interval excludes
  0; "direction and size": the paper's figure (the first number quoted in the claim) lies inside
  the interval, or within the tolerance the verdict states ("within 25%").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docs_numbers_tokens import Token, num

# A verdict right after an interval, in its parenthesis or its clause.
AFTER = re.compile(
    r"^\s*(?:%|points?|pp|s|×)?\s*(?:\((?P<paren>[^)]*)\)|(?P<clause>[^.;,()]{0,40}))",
)
NO_DIFFERENCE = re.compile(r"\bno (?:difference|different)\b")
A_DIFFERENCE = re.compile(r"\b(?:a (?:resolved )?difference|resolved|excludes? (?:0|zero)|above|below|beats?)\b")
# "no difference (−1.00 ±0.72%)": the verdict before its interval.
BEFORE = re.compile(r"(?P<v>no (?:difference|different)|(?:a |is )?(?:resolved )?difference)[^.;()]{0,20}\($")
TOLERANCE = re.compile(r"within (?P<t>\d+(?:\.\d+)?)\s*(?P<u>%|points?)")


@dataclass(frozen=True)
class Interval:
    """A pinned mean ±half-width as the cell holds it (unrounded) and as the page prints it."""

    mean: float
    half: float
    printed: str

    @property
    def holds_zero(self) -> bool:
        return abs(self.mean) <= self.half


def said_after(text: str) -> str:
    """The verdict words written right after an interval (its parenthesis, else its clause)."""
    m = AFTER.match(text)
    if not m:
        return ""
    return (m.group("paren") or m.group("clause") or "").lower()


def beside(iv: Interval, before: str, after: str, paired: bool) -> str | None:
    """What is wrong with the verdict written beside one interval, or None."""
    words = said_after(after)
    b = BEFORE.search(before.lower())
    says_none = bool(NO_DIFFERENCE.search(words)) or bool(b and NO_DIFFERENCE.search(b.group("v")))
    says_one = not says_none and (bool(A_DIFFERENCE.search(words)) or bool(b))
    unrounded = f"(unrounded {iv.mean:.4g} ±{iv.half:.4g})"
    if says_none and not iv.holds_zero:
        return f"says no difference, but the interval excludes 0 {unrounded}"
    if says_one and iv.holds_zero:
        return f"says it is a difference (or above, below, beats), but the interval holds 0 {unrounded}"
    if paired and iv.holds_zero and not says_none:
        return f"holds 0 {unrounded} in a paired block: write '(no difference)' beside it"
    return None


def paper_figure(claim: str) -> float | None:
    """The first number the paper is quoted with in a claim ("… by 47.6%"), else None."""
    for quote in re.findall(r'"([^"]*)"', claim):
        m = re.search(r"\d+(?:\.\d+)?", quote)
        if m:
            return num(m.group(0))[0]
    return None


def table_verdict(verdict: str, claim: str, first: Interval | None) -> str | None:
    """What is wrong with a claims table's verdict cell, given the row's first pinned interval."""
    v = verdict.strip().lower()
    # A verdict on the sign of a difference (not a trend's "direction (shrinks with n)").
    if first is None or not v.startswith(
        ("direction only", "direction and size", "direction;", "reversed", "reproduced")
    ):
        return None
    unrounded = f"(unrounded {first.mean:.4g} ±{first.half:.4g})"
    if v.startswith("reproduced"):
        # A claim that a figure stays within a bound ("within 10%") is reproduced when the whole
        # interval does; a verdict naming its exceptions ("all but water-sp", "except …") shows
        # an exception's interval first, which is not the claim's.
        if re.search(r"\b(all but|except)\b", v):
            return None
        bound = re.search(r"within (\d+(?:\.\d+)?)%", claim)
        if bound:
            b = float(bound.group(1))
            if abs(first.mean) + first.half > b:
                return f"says '{verdict[:40]}', but the row's first interval {first.printed} {unrounded} leaves the paper's {b:g}%"
            return None
    if first.holds_zero:
        return f"says '{verdict[:40]}', but the row's first interval {first.printed} holds 0 {unrounded}"
    if v.startswith("direction and size"):
        p = paper_figure(claim)
        if p is None:
            return "says 'direction and size' but the claim quotes no figure of the paper to compare"
        tol = TOLERANCE.search(v)
        m = abs(first.mean)
        if tol:
            t = float(tol.group("t"))
            ok = abs(m - p) <= (t / 100 * p if tol.group("u") == "%" else t)
        else:
            ok = abs(m - p) <= first.half
        if not ok:
            return (
                f"says 'direction and size', but the paper's {p:g} is outside {first.printed} {unrounded} "
                "and no tolerance is stated ('within N%')"
            )
    return None


def interval(tok: Token, values: list[float] | None) -> Interval | None:
    """A pm token's pinned cell as an interval."""
    if tok.kind != "pm" or values is None or len(values) != 2:
        return None
    return Interval(values[0], values[1], tok.text)
