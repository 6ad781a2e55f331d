"""The values a rendered page prints and the rule that words them (scripts/docs_render.py): a
cell's number or a mean with its 95% half-width, printed with its true sign, and the verdict
words of docs/index.md's one rule applied to the unrounded cell."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

MINUS = "−"


class RenderError(Exception):
    """An expression that names a file, row or field that does not exist (or two rows)."""


class MissingField(RenderError, KeyError):
    """A row's field that does not exist (a KeyError too, so Jinja's `row.key` finds the
    attribute when no field is called `key`)."""

    def __str__(self) -> str:
        return str(self.args[0])


def number(x: float, prec: int, sign: bool = False) -> str:
    """`x` at `prec` decimals with its true sign: the pages' minus (U+2212), a negative that
    rounds to zero kept negative (−0.00), `+` before a non-negative one when `sign`, and
    thousands grouped as the pages write them (262,144)."""
    # Rounded half up from the number as written (a cell that reads 3.25 prints 3.3 at one
    # decimal, as a reader rounds it), not from its binary neighbour.
    q = Decimal(repr(abs(x))).quantize(Decimal(1).scaleb(-prec), rounding=ROUND_HALF_UP)
    text = f"{q:,.{prec}f}"
    if x < 0:
        return MINUS + text
    return ("+" if sign else "") + text


@dataclass(frozen=True)
class Value:
    """One number of a result cell, with where it was read."""

    x: float
    where: str

    @property
    def neg(self) -> Value:
        return Value(-self.x, self.where)

    @property
    def pct(self) -> Value:
        return Value(100 * self.x, self.where)

    @property
    def change(self) -> Value:
        return Value(100 * (self.x - 1), self.where)

    @property
    def saving(self) -> Value:
        return Value(100 * (1 - self.x), self.where)

    def __float__(self) -> float:
        return self.x

    def __lt__(self, other: object) -> bool:
        return self.x < float(other)  # type: ignore[arg-type]

    def __gt__(self, other: object) -> bool:
        return self.x > float(other)  # type: ignore[arg-type]

    def __str__(self) -> str:
        raise RenderError(f"{self.where}: printed without a format (use | f(P))")


@dataclass(frozen=True)
class Interval:
    """A mean and its 95% half-width as the cells hold them (unrounded)."""

    mean: float
    half: float
    where: str

    @property
    def neg(self) -> Interval:
        return Interval(-self.mean, self.half, self.where)

    @property
    def pct(self) -> Interval:
        return Interval(100 * self.mean, 100 * self.half, self.where)

    @property
    def change(self) -> Interval:
        return Interval(100 * (self.mean - 1), 100 * self.half, self.where)

    @property
    def saving(self) -> Interval:
        return Interval(100 * (1 - self.mean), 100 * self.half, self.where)

    @property
    def lo(self) -> float:
        return self.mean - self.half

    @property
    def hi(self) -> float:
        return self.mean + self.half

    @property
    def holds_zero(self) -> bool:
        """The rule of docs/index.md: "no difference" iff the interval holds 0."""
        return abs(self.mean) <= self.half

    def below(self, other: Interval) -> bool:
        """Unpaired intervals apart, this one lower."""
        return self.hi < other.lo

    def above(self, other: Interval) -> bool:
        return other.hi < self.lo

    def above_all(self, others: Iterable[Interval]) -> bool:
        """Above every one of `others`, each interval apart (unpaired)."""
        return all(self.above(o) for o in others)

    def __str__(self) -> str:
        raise RenderError(f"{self.where}: printed without a format (use | pm(P))")


def f(v: Value | Interval | float, prec: int, sign: bool = False) -> str:
    """A value (or an interval's mean) at `prec` decimals with its true sign."""
    x = v.mean if isinstance(v, Interval) else float(v)
    return number(x, prec, sign)


def pm(v: Interval, prec: int, sign: bool = False) -> str:
    """A mean ±half-width, each at `prec` decimals."""
    if not isinstance(v, Interval):
        raise RenderError(f"pm: {v!r} is not an interval")
    return f"{number(v.mean, prec, sign)} ±{number(v.half, prec)}"


def paired(v: Interval, prec: int) -> str:
    """A paired difference as a paired block prints it: signed mean ±half-width, and "(no
    difference)" after it exactly when the interval holds 0 (docs/index.md's rule)."""
    return pm(v, prec, sign=True) + (" (no difference)" if v.holds_zero else "")


def nd(v: Interval) -> str:
    """ " (no difference)" after an interval exactly when it holds 0, else nothing."""
    return " (no difference)" if v.holds_zero else ""


def verdict(v: Interval) -> str:
    """The word "no difference" when the interval holds 0, else "a difference"."""
    return "no difference" if v.holds_zero else "a difference"


def direction(v: Interval, paper: str) -> str:
    """A claim's verdict against the paper's sign (`+` or `−`): "reproduced in direction" when
    the interval excludes 0 on the paper's side, "reversed" on the other, else "no difference"."""
    if paper not in ("+", "-", MINUS):
        raise RenderError(f"direction: the paper's sign is + or −, not {paper!r}")
    if v.holds_zero:
        return "no difference"
    same = (v.mean > 0) == (paper == "+")
    return "reproduced in direction" if same else "reversed"


def claim(v: Interval, paper: float) -> str:
    """A claims table's verdict on a signed figure, by docs/index.md's rule from the unrounded
    interval: "no difference" when it holds 0, "reversed" when it excludes 0 on the other side of
    the paper's figure, and on the paper's side "reproduced (direction and size)" when the paper's
    figure lies inside it, else "direction; larger here" or "direction; smaller here"."""
    if v.holds_zero:
        return "no difference"
    if (v.mean > 0) != (paper > 0):
        return "reversed"
    lo, hi = sorted((abs(v.lo), abs(v.hi)))
    if lo <= abs(paper) <= hi:
        return "reproduced (direction and size)"
    return "direction; larger here" if abs(paper) < lo else "direction; smaller here"


def worst(vs: Iterable[Interval]) -> Interval:
    """The interval whose mean is farthest from 0."""
    return max(vs, key=lambda v: abs(v.mean))


def span(vs: Iterable[Value | float], prec: int, dash: str = "-") -> str:
    """The least and the greatest of `vs` at P decimals, `LOW-HIGH`, or the one number when both
    print the same (`0.19`, not `0.19-0.19`)."""
    xs = list(vs)
    if not xs:
        raise RenderError("a span of no values")
    lo, hi = f(min(xs, key=float), prec), f(max(xs, key=float), prec)
    return lo if lo == hi else f"{lo}{dash}{hi}"
