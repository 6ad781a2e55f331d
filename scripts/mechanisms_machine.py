"""A machine preset with the time-sharing mechanisms switched off.

Usage: mechanisms_machine.py PRESET.toml ARM > COPY.toml, where ARM is
`off` (cache.conserve_capacity and costs.refill_by_access both false: the
model before them) or `conserve-only` (costs.refill_by_access false).
The preset's text is kept; the keys are inserted under their tables (a
[costs] table is added when the preset has none).
"""

import sys


def switched(text: str, arm: str) -> str:
    """`text` with the switches of `arm` set to false."""
    keys = {"costs": ["refill_by_access = false"]}
    if arm == "off":
        keys["cache"] = ["conserve_capacity = false"]
    elif arm != "conserve-only":
        raise SystemExit(f"mechanisms_machine.py: unknown arm {arm!r} (off, conserve-only)")
    out = []
    for line in text.splitlines():
        out.append(line)
        table = line.strip()[1:-1] if line.strip().startswith("[") and not line.startswith("[[") else None
        if table in keys:
            out.extend(keys.pop(table))
    for table, lines in keys.items():
        out.append(f"[{table}]")
        out.extend(lines)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: mechanisms_machine.py PRESET.toml ARM")
    with open(sys.argv[1], encoding="utf-8") as f:
        sys.stdout.write(switched(f.read(), sys.argv[2]))
