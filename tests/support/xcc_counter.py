#!/usr/bin/env python3
"""A tiny exact-cover counter for Knuth's format: the external solver of the ``cmd:NAME`` engine's tests.

Usage: ``xcc_counter.py FILE [--add N]``; prints ``solutions: COUNT``.  It
reads primary items with bounds (``a:b|name``, ``b|name``), secondary items
after ``|`` and colours (``name:colour``), and decides every option in turn,
in or out, keeping each item within its bounds and each coloured item in
one colour: slow, independent of bench's reader and engines, and obviously
right.  ``--add N`` reports N more than it found (a stand-in that miscounts
on purpose).
"""

from __future__ import annotations

import re
import sys


def read(text: str):
    """``(bounds, options)``: bounds per item name, options as lists of (name, colour or None)."""
    lines = [line.split() for line in text.splitlines() if line.strip() and not line.strip().startswith("|")]
    bounds, secondary = {}, False
    for token in lines[0]:
        if token == "|":
            secondary = True
            continue
        match = re.fullmatch(r"(?:(\d+):)?(\d+)\|(.+)", token)
        if match:
            lo, hi, token = match.groups()
            bounds[token] = (int(lo if lo is not None else hi), int(hi))
        else:
            bounds[token] = (0, 1) if secondary else (1, 1)
    options = [[(w.partition(":")[0], w.partition(":")[2] or None) for w in line] for line in lines[1:]]
    return bounds, options


def count(bounds, options) -> int:
    """The covers: subsets of the options that keep every item within its bounds and every colour consistent."""
    used = {name: 0 for name in bounds}
    colour: dict[str, str | None] = {}
    left = {name: 0 for name in bounds}
    for option in options:
        for name, _ in option:
            left[name] += 1

    def fits(option) -> bool:
        for name, tint in option:
            if tint is not None and used[name] and colour[name] == tint:
                continue
            if used[name] >= bounds[name][1]:
                return False
        return True

    def search(k: int) -> int:
        if any(used[name] + left[name] < bounds[name][0] for name in bounds):
            return 0
        if k == len(options):
            return 1
        option = options[k]
        for name, _ in option:
            left[name] -= 1
        total = search(k + 1)
        if fits(option):
            saved = [(name, colour.get(name)) for name, _ in option]
            for name, tint in option:
                used[name] += 1
                colour[name] = tint
            total += search(k + 1)
            for name, _ in option:
                used[name] -= 1
            for name, tint in saved:
                colour[name] = tint
        for name, _ in option:
            left[name] += 1
        return total

    sys.setrecursionlimit(max(1000, 3 * len(options) + 100))
    return search(0)


def main(argv: list[str]) -> int:
    path, extra = argv[0], int(argv[argv.index("--add") + 1]) if "--add" in argv else 0
    with open(path, encoding="utf-8") as f:
        print(f"solutions: {count(*read(f.read())) + extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
