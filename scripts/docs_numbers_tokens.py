"""The numbers of a docs page as printed: each with its precision, and whether it is a result at
all (`skipped`: seeds, sizes and parameters of a run, section and figure numbers, names in
backticks); what scripts/docs_numbers.py pins to result cells."""

from __future__ import annotations

import re
from dataclasses import dataclass

from docs_numbers_forms import REFERENCE_BEFORE, RUN_SIZE_AFTER, constant_spans

# One number as printed: sign, digits (thousands with commas), decimals.
NUM = r"[+−-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[+−-]?\d+(?:\.\d+)?"
TOKEN = re.compile(
    rf"(?<![\w.\-/#§±])(?P<a>{NUM})"
    rf"(?:(?P<pm>\s*%?\s*±\s*)(?P<b>\d+(?:\.\d+)?)"
    rf"|(?P<range>[–-])(?P<c>{NUM})(?![\w.])"
    rf"|(?P<of> of |/)(?P<d>\d+)(?![\w.]))?"
)
# The words after a number that make it a parameter of the run, not a result.
PARAMETER_AFTER = re.compile(
    r"\s*(?:[-–]?\s*)?(seeds?|threads?|molecules|processes|process|copies|instances|periods|"
    r"programs?|jobs|mixes|workloads|benchmarks|applications|cores?|contexts?|"
    r"rounds|samples|assignments|partitions|repeats|times|x\b|×\s*(?:the|spec)|"
    r"ms periods|µs periods|MiB each|MB each|KiB|bits?|SPEC|PARSEC|/µs sustained|"
    r"SMT|-thread|-core|-way|th\b|st\b|nd\b|rd\b|k\b)",
)
PARAMETER_BEFORE = re.compile(
    r"(§|Fig\.?\s*|Figs\.?\s*|Table\s*|Eq\.?\s*|point\s*|points\s+|mix\s*|n\s*=\s*|"
    r"at\s+|first\s+|top\s+|of\s+|every\s+|k\s*=\s*|p\s*=\s*|level\s+|"
    r"beta\(|Weibull\(|Pareto\(|gpd\(|\d,\s*)$"
)
HALF_WIDTH = re.compile(r"(?<![a-z])ci(95)?(?![a-z])|±|half-width|interval")
LO_HI = re.compile(r"(^|[._ ])(lo|hi|low|high)$")
# How a cell may be printed: as it is, as a percentage, as the percentage change of a ratio, and
# each of those negated (a saving printed as a positive number, a loss as a negative speedup).
READINGS = {
    "value": (1.0, 0.0),
    "percent": (100.0, 0.0),
    "change": (100.0, -100.0),
    "negated": (-1.0, 0.0),
    "negated percent": (-100.0, 0.0),
    "saving": (-100.0, 100.0),
}


def num(text: str) -> tuple[float, int]:
    """The value and number of decimals of a printed number."""
    t = text.replace("−", "-").replace(",", "")
    return float(t), len(t.split(".")[1]) if "." in t else 0


@dataclass(frozen=True)
class Token:
    """A number (or a mean with its half-width, a range, a count of a total) in a doc cell."""

    text: str
    parts: tuple[str, ...]  # the printed numbers: (a,), (mean, half), (lo, hi), (count, total)
    kind: str  # "one", "pm", "range", "of"

    @property
    def values(self) -> list[tuple[float, int]]:
        return [num(p) for p in self.parts]


def tokens(cell: str, quoted: bool = False, whole: bool = False) -> list[tuple[int, Token]]:
    """The numbers of a table cell that are results, with their offsets; `quoted`: the cell opens
    inside a quotation a line above began (a paper's words, masked up to its closing mark);
    `whole`: the cell is of a page read whole, where the older skip rules (`skipped`: a number
    before "seeds", after "of") do not apply and only the declared constants and forms are
    left unread."""
    out = []
    if quoted:
        close = cell.find('"')
        cell_masked_to = len(cell) if close < 0 else close + 1
        cell = " " * cell_masked_to + cell[cell_masked_to:]
    # Backticked code and link targets are names, not numbers.
    masked = cell
    # The method's declared constants and never-result forms (dates, list numbers, quoted points).
    for lo, hi in constant_spans(cell):
        masked = masked[:lo] + " " * (hi - lo) + masked[hi:]
    masked = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), masked)
    masked = re.sub(r"\]\([^)]*\)", lambda m: " " * len(m.group(0)), masked)
    # Quoted text is the paper's words, and `462.libquantum` a name.
    masked = re.sub(r'"[^"]*"', lambda m: " " * len(m.group(0)), masked)
    # A quotation that opens here and closes on a later line: the paper's words to the line's end.
    if (open_at := masked.find('"')) >= 0:
        masked = masked[:open_at] + " " * (len(masked) - open_at)
    masked = re.sub(r"\b\d+\.[A-Za-z]\w*", lambda m: " " * len(m.group(0)), masked)

    for m in TOKEN.finditer(masked):
        a = m.group("a")
        if m.group("b"):
            tok = Token(cell[m.start() : m.end()].strip(), (a, m.group("b")), "pm")
        elif m.group("c"):
            tok = Token(cell[m.start() : m.end()], (a, m.group("c")), "range")
        elif m.group("d") and "." not in a and not re.match(r"[,/]\d", masked[m.end() :]):
            # A count of a total: whole numbers ("12 of 13", "8/10"), not a list ("0.5/1/1.5",
            # "512/3,375"), which is read number by number.
            tok = Token(cell[m.start() : m.end()], (a, m.group("d")), "of")
        elif m.group("d"):
            tok = Token(a, (a,), "one")
        else:
            tok = Token(a, (a,), "one")
        if not skipped(masked, m.start(), m.end(), tok, whole):
            out.append((m.start(), tok))
    return out


def skipped(text: str, start: int, end: int, tok: Token, whole: bool = False) -> bool:
    """A parameter of the run, a section or figure number, a name: not a result. On a page read
    whole only a section, figure, table or equation number and a number glued to a name are."""
    before, after = text[:start], text[end:]
    if whole:
        if tok.kind in ("one", "range") and REFERENCE_BEFORE.search(before):
            return True
        if tok.kind in ("one", "range") and RUN_SIZE_AFTER.match(after) and not after.startswith(" ×"):
            return True
        return bool(tok.kind == "one" and re.match(r"[A-Za-z_(]", after[:1]))
    if tok.kind == "one" and PARAMETER_AFTER.match(after) and not after.startswith(" ×"):
        return True
    if tok.kind in ("one", "range") and PARAMETER_BEFORE.search(before):
        return True
    return bool(tok.kind == "one" and re.match(r"[A-Za-z_(]", after[:1]))
