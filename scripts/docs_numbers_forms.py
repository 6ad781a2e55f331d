"""The never-result forms of the docs check: kinds of text that are not results whatever their
phrase (`FORMS`), the references and run sizes read by their neighbours (`REFERENCE_BEFORE`,
`RUN_SIZE_AFTER`), and the spans of a line the declared constants and forms cover
(`constant_spans`). The constants themselves: scripts/docs_numbers_constants.py."""

from __future__ import annotations

import re

from docs_numbers_constants import CONSTANTS

#: Text that is never a result: an ISO date, the number of a numbered list item, zero as the
#: point an interval holds or excludes, a numbered point of a quoted heading ("Why ours differ" 1).
FORMS = [
    re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b"),
    re.compile(r"^\s*\d+\.(?=\s)"),
    re.compile(r"\b(?:holds?|excludes?|excluding|holding|contains|near|from|to|above|below) (0)\b(?![.,]\d)"),
    re.compile(r"\b(?:holds?|excludes?|excluding|holding|contains) (1)\b(?![.,]\d)"),
    # A factor set on a run ("declared demands ×0.5 and ×2", "x = 2").
    re.compile(r"(?:×|\bx = )\s?(\d+(?:\.\d+)?)\b"),
    re.compile(r'" (\d+)\b(?![.,]\d)'),
    # One as the point a ratio is above or below ("a percentage above 1", "ratio ≥ 1").
    re.compile(r"(?:\babove|\bbelow|≥|≤) (1)\b(?![.,]\d)"),
    # A seed named by number ("seed 1"), and an approximate run time ("≈44 s"): a setting, and a
    # duration on whatever host ran it.
    re.compile(r"\bseeds? (\d+(?:[-–]\d+)?)\b(?![.,]\d)"),
    re.compile(r"\bO\((\d+)\)"),
    re.compile(r"\bsession (\d+)\b"),
    re.compile(r"\bsections (\d+(?:[-–]\d+)?)"),
    re.compile(r"\bet al\.,? ((?:19|20)\d\d)\b"),
    # A citation by author and year ("Smith 1985", "al. 2018" where "et" ends the line before).
    re.compile(r"\b(?:[A-Z][A-Za-z]+|al\.) ((?:19|20)\d\d)\b"),
    # A symbol's value in a formula or a model's parameter ("κ = 0.4", "μ = 150 M/s").
    re.compile(r"[α-ωΑ-Ω] = (−?\d+(?:\.\d+)?)"),
    # A list of a run's sizes before their unit ("32, 64 or 128 threads", "2, 4 and 8 streams").
    re.compile(r"\b(\d+), (\d+),? (?:or|and) \d+ (?:threads|processes|streams|seeds|cores|contexts)"),
    re.compile(r"× (\d+) hardware threads"),
    # A time of day ("07:41 UTC"), and one subtracted in a formula ("(jobs − 1)", "solo time − 1").
    re.compile(r"\b(\d{1,2}:\d{2}(?::\d{2})?(?:[–-]\d{1,2}:\d{2})?)\s*UTC"),
    # A run named by its time of day ("the 18:48 run", "at 18:48 they ran").
    re.compile(r"\b(\d{1,2}:\d{2}) run\b|\bat (\d{1,2}:\d{2})\b"),
    re.compile(r"[a-z)] [−-] (1)\b(?![.,]\d)"),
    # A publication's year ("PACT 2008", "TPDS 2011", "a 2018 port"), a crate's version, patch
    # numbers, powers of ten written as such, a confidence level.
    re.compile(r"\b(?:[A-Z]{2,}|a) ((?:19|20)\d\d)\b"),
    re.compile(r"`[\w-]+` \((\d+(?:\.\d+)*), crates\.io\)"),
    re.compile(r"\bpatch(?:es)? (\d+)(?: and (\d+))?"),
    re.compile(r"\b(10)[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+"),
    re.compile(r"\b(95|99|90)% (?:t-)?(?:interval|confidence|CI)"),
    re.compile(r"\bnominal (?:coverage is )?(95)%|, not (95)%|the (95)% cut"),
    # A distribution's shape or a parameter's value named by its symbol ("ξ = −1", "beta(5, 1.5)").
    re.compile(r"ξ\s*(?:=|≥|≤|<|>)\s*(−?\d+(?:\.\d+)?)|ξ below (−1)|Between (−1) and (−0\.5)"),
    re.compile(r"(?:beta|Weibull|Pareto|gpd|uniform|Exp|Γ)\((\d+(?:\.\d+)?)(?:, (\d+(?:\.\d+)?))?\)"),
    re.compile(r"\bn = ((?:[\d,]+(?:, | and ))*[\d,]+)"),
    re.compile(
        r"\bC\((\d+|n), (\d+)\)|\bfootnote (\d+)|\bjob (\d+)\b(?![.,]\d)|\bCPU (\d+)\b(?![.,]\d)|points' (15)% tolerance"
    ),
    # A size in bytes: a footprint, a working set or a cache a preset declares ("4 and 8 MiB",
    # "1-2 MiB each", "12 MB L3"), a setting of the run or of the machine. Not a host's measured
    # effective LLC ("effective LLC 6.57 MiB", "the LLC then 5.64 MiB", "had moved to 4.03 MiB"):
    # `cosched calibrate` measures it, so it is a result and is pinned like one.
    re.compile(
        r"(?<!LLC )(?<!LLC of )(?<!LLC is )(?<!LLC then )(?<!moved to )(?<!LLCs of )(?<![\d.])"
        r"\b(\d+(?:\.\d+)?)(?:(?:-|–| and | to |, )(\d+(?:\.\d+)?))? (?:MiB|MB|KiB|KB|GiB|GB)\b(?!/)"
    ),
    # A size written as rows × columns ("200×200", "256 × 256").
    re.compile(r"\b(\d+) ?× ?(\d+)\b"),
    # One as a bound of a utilisation or a ratio in a formula or its limit ("1 − U", "tends to 1").
    re.compile(r"\b(1) [−-] [A-Za-zΣ]"),
    re.compile(r"(?:tends to|close\s+to|exceed|sum near|near|^\s*to) (1)\b(?![.,]\d)"),
    re.compile(r"[≈~]\s?(\d+(?:\.\d+)?)\s?(?:s|min)\b"),
    # A wall-clock time measured on a dated host ("1 min 48 s", "about 1.5 min"): a duration on
    # whatever host ran it, recorded with its date in docs/benchmarks.md.
    re.compile(r"\b(\d+) min (\d+) s\b"),
    re.compile(r"\babout (\d+(?:\.\d+)?) min\b"),
    # A citation's year and DOI; equation numbers ("Eqs. 18, 19, 9", "Eqs. 10 + 16", "n + 1").
    re.compile(r"\((\d{4})[),;]"),
    re.compile(r"doi:(\S+)"),
    re.compile(r"\bEqs?\.\s*((?:\d+(?:\s*[,+–-]\s*|\s+and\s+))*\d+)"),
    re.compile(r"\bn \+ (1)\b"),
    # A threshold or a target ("≥ 20%", "p99 < 5 µs"), copies of a program ("8×povray").
    re.compile(r"(?:≥|≤|<|>)\s*(\d[\d,]*(?:\.\d+)?)"),
    re.compile(r"(?<![\d.])\b(\d+)\s*×\s*(?=[a-z])"),
    # A change of a run's size: "6 → 12 processes", "from 1 to 6".
    re.compile(r"(?<![\d.])\b(\d+) → (\d+)\b(?![.,]\d)"),
    re.compile(r"\bfrom (\d+) to (\d+)\b(?![.,]\d)"),
    # Mixes named by number: "mixes 2, 10 and 13".
    re.compile(r"\bmix(?:es)? ((?:\d+(?:, | and ))*\d+)\b(?![.,]\d)"),
]

#: On a page read whole, the only numbers left unread by their neighbours (beside `CONSTANTS` and
#: `FORMS`): a reference (a section, figure, table, equation, a numbered point of "Why ours
#: differ", a mix by its number, a distribution's parameter) before it, and a run's size named by
#: its unit after it (seeds, threads, processes, cores, periods...: a setting of the run, never
#: its outcome). Not "of", "at" or "every", which the older rules of the other pages also skip and
#: which precede results as often as settings ("a speedup of 1.9%", "finishes at 407.7 s").
REFERENCE_BEFORE = re.compile(
    r"(§|ranks?\s+(?:\d+\s+and\s+)?|summary \(|§\d+ \(|Figs?\.?\s*(?:\d+(?:[-–]\d+)?(?:,\s*|\s+and\s+))*|Tables?\s*|Eqs?\.?\s*|points?\s+(?:\d+(?:,\s*|\s+and\s+))*|mix\s*|n\s*=\s*|k\s*=\s*|p\s*=\s*|"
    r"beta\(|Weibull\(|Pareto\(|gpd\(|(?:design )?notes?\s+(?:\d+,\s*)*|issue #|items?\s+|round\s+)$"
)
RUN_SIZE_AFTER = re.compile(
    r"\s*(?:[-–]?\s*)?(?:random |uniform |seeded |ablation )?(seeds?|threads?|molecules|processes|process|copies|instances|periods|"
    r"programs?|jobs|mixes|workloads|benchmarks|applications|cores?|contexts?|v?CPUs?|busy loops|ticks|"
    r"rounds|samples|assignments|partitions|repeats|replicates|schedulers|streams|"
    r"MiB each|MB each|SPEC|PARSEC|"
    r"SMT|-thread|-core|-socket|-way|th\b|st\b|nd\b|rd\b)\b",
)

_PHRASES = [re.compile(p) for _, p, _ in CONSTANTS]


def constant_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` prints a declared constant or a never-result form: spans to leave unread."""
    spans = []
    for f in FORMS:
        for m in f.finditer(text):
            groups = range(1, (m.lastindex or 0) + 1) if m.lastindex else [0]
            spans += [(m.start(g), m.end(g)) for g in groups if m.group(g)]
    for phrase in _PHRASES:
        for m in phrase.finditer(text):
            spans += [(m.start(g), m.end(g)) for g in range(1, (m.lastindex or 0) + 1) if m.group(g)]
    return spans
