"""A machine preset with issue #30's time-sharing mechanisms switched on.

Usage: mechanisms_machine.py PRESET.toml ARM > COPY.toml, where ARM is
`conserve` (cache.conserve_capacity) or `conserve+by-access` (also
costs.refill_by_access). The preset's text is kept; the keys are inserted
under their tables (a [costs] table is added when the preset has none).
"""

import sys


def switched(text: str, arm: str) -> str:
    """`text` with the switches of `arm` set to true."""
    keys = {"cache": ["conserve_capacity = true"]}
    if arm == "conserve+by-access":
        keys["costs"] = ["refill_by_access = true"]
    elif arm != "conserve":
        raise SystemExit(f"mechanisms_machine.py: unknown arm {arm!r} (conserve, conserve+by-access)")
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
