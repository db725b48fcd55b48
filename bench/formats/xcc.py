"""Knuth's exact-cover text format (DLX1, DLX2's colours, DLX3's multiplicities), read and written.

The format, as Knuth's programs read it (``dlx1.w``, ``dlx2.w``, ``dlx3.w``)::

    | a comment: any line whose first non-blank character is |
    A B 2:3|C | X Y
    A B X:0 Y:0
    A C X:1 Y:1
    C X:0

The first line that is not a comment names the items: the primary ones,
then ``|``, then the secondary ones (``|`` may be left out when there are
none).  A primary item may carry bounds: ``a:b|name`` (covered a to b
times) or ``b|name`` (exactly b times); without them, exactly once.  Every
other line is an option: the names of its items, each secondary one with an
optional colour, ``name:colour``.  Options that give a secondary item the
same colour may share it; an option that gives it none owns it.  An item
name is any run of non-blank characters without ``:`` and ``|`` (Knuth's
programs stop at 8 characters; bench has no limit).

Read, the file is a :class:`~bench.models.cover.Cover` without symmetry:
primary items keep their bounds, secondary items get bounds 0..1.  Knuth's
programs skip an option without a primary item with a warning; here it is
an error, as is an unknown or repeated item, a colour on a primary item, a
second ``|`` or an option given twice, each as ``path:line: ...``.

Written, items of bounds 0..1 go after ``|`` (secondary) where that means
the same: always for coloured ones, and for the others unless an option
covers no item of exact bounds, where a secondary item could never be the
primary item Knuth requires of every option; they are then ``0:1|name``.
"""

from __future__ import annotations

import re

import numpy as np

from bench.errors import DefinitionError, UsageError
from bench.models.symmetry import CONVENTION_NONE

NAME = "xcc"
SUMMARY = "Knuth's DLX/XCC text: items (primary | secondary, a:b|bounds), one option a line, item:colour"

_BOUNDS = re.compile(r"^(?:(\d+):)?(\d+)\|(.*)$")
_RESERVED = re.compile(r"[\s:|]")


def read(text: str, path: str = "<string>"):
    """The :class:`~bench.models.cover.Cover` of Knuth's text ``text`` (``path`` names it in errors), and its
    symmetry convention: ``none`` (no symmetry assumed).

    Examples
    --------
    >>> cover, _ = read("A B 2:3|C | X Y\\nA B X:0 Y:0\\nA C X:1 Y:1\\nC X:0\\nB X:1\\nC Y:1\\n")
    >>> cover.item_names, cover.item_lo.tolist(), cover.item_hi.tolist(), cover.n_options
    (('A', 'B', 'C', 'X', 'Y'), [1, 1, 2, 0, 0], [1, 1, 3, 1, 1], 5)
    """
    from bench.models.cover import Cover

    names: list[str] = []
    index: dict[str, int] = {}
    lo: list[int] = []
    hi: list[int] = []
    n_primary = None
    options: list[list[int]] = []
    colours: list[list[int]] = []
    colour_index: dict[str, int] = {}
    first_seen: dict[tuple, int] = {}
    header_line = 0
    for lineno, raw in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("|"):
            continue
        if not header_line:
            header_line = lineno
            n_primary = _read_items(line, lineno, path, names, index, lo, hi)
            continue
        items, tints = [], []
        for token in line.split():
            name, colon, colour = token.partition(":")
            if "|" in token:
                raise DefinitionError(path, lineno, f"'{_clip(token)}' in an option: '|' belongs to the item line "
                                                    "and to comment lines only")
            if name not in index:
                raise DefinitionError(path, lineno, f"unknown item '{_clip(name)}'; expected one of the items named "
                                                    f"on line {header_line}")
            item = index[name]
            if item in items:
                raise DefinitionError(path, lineno, f"item '{_clip(name)}' appears twice in this option")
            if colon:
                if not colour or ":" in colour:
                    raise DefinitionError(path, lineno, f"'{_clip(token)}' is not an item with a colour; expected "
                                                        f"{_clip(name)}:COLOUR, the colour without ':'")
                if item < n_primary:
                    raise DefinitionError(path, lineno, f"primary item '{_clip(name)}' has a colour; colours "
                                                        "belong to secondary items (after '|' on the item line)")
                tint = colour_index.setdefault(colour, len(colour_index) + 1)
            else:
                tint = 0
            items.append(item)
            tints.append(tint)
        if not any(item < n_primary for item in items):
            raise DefinitionError(path, lineno, "this option has no primary item; every option needs one (Knuth's "
                                                "programs skip such an option)")
        key = tuple(sorted(zip(items, tints)))
        if key in first_seen:
            raise DefinitionError(path, lineno, f"this option repeats the option on line {first_seen[key]}")
        first_seen[key] = lineno
        options.append(items)
        colours.append(tints)
    if not header_line:
        raise DefinitionError(path, max(1, text.count("\n")), "no item line; expected the names of the items, "
                                                              "primary ones, then '|' and secondary ones")
    return (Cover.from_options(options, lo, hi, item_names=names, colours=colours, colour_names=list(colour_index)),
            CONVENTION_NONE)


def _read_items(line: str, lineno: int, path: str, names, index, lo, hi) -> int:
    """Fill in the items of the item line; returns the number of primary items (they come first)."""
    n_primary = None
    for token in line.split():
        if token.startswith("|") and not _BOUNDS.match(token):
            if n_primary is not None:
                raise DefinitionError(path, lineno, "the item line holds '|' twice; expected primary items, '|', "
                                                    "secondary items")
            n_primary = len(names)
            token = token[1:]
            if not token:
                continue
        bounds = _BOUNDS.match(token)
        a = b = 1
        if bounds:
            if n_primary is not None:
                raise DefinitionError(path, lineno, f"'{_clip(token)}': secondary items have no bounds")
            a_text, b_text, token = bounds.groups()
            b = int(b_text)
            a = b if a_text is None else int(a_text)
            if b < 1 or a > b:
                raise DefinitionError(path, lineno, f"bounds {a}:{b} of item '{_clip(token)}'; expected a:b with "
                                                    "0 <= a <= b and b >= 1")
        if not token or _RESERVED.search(token):
            raise DefinitionError(path, lineno, f"'{_clip(token)}' is not an item name; expected a name without "
                                                "':' or '|'")
        if token in index:
            raise DefinitionError(path, lineno, f"item '{_clip(token)}' is named twice")
        index[token] = len(names)
        names.append(token)
        secondary = n_primary is not None
        lo.append(0 if secondary else a)
        hi.append(1 if secondary else b)
    n_primary = len(names) if n_primary is None else n_primary
    if n_primary == 0:
        raise DefinitionError(path, lineno, "no primary item; expected at least one name before '|'")
    return n_primary


def item_names(cover) -> list[str]:
    """The cover's item names as Knuth's format allows them: ``:``, ``|`` and white space escaped as ``%XX``.

    Raises
    ------
    UsageError
        When two names become one.
    """
    out = [_escape(name) for name in cover.item_names]
    if len(set(out)) != len(out):
        raise UsageError("two items have the same name in Knuth's format; rename them")
    return out


def write(cover, header: dict[str, str]) -> str:
    """Knuth's text of ``cover``, ``header`` first as comment lines.

    Raises
    ------
    UsageError
        For an option Knuth's format cannot hold: one made of coloured
        items only (it would have no primary item).
    """
    names = item_names(cover)
    lo, hi = cover.item_lo, cover.item_hi
    coloured = np.zeros(cover.n_items, dtype=bool)
    coloured[cover.coloured_items] = True
    secondary = (lo == 0) & (hi == 1) & (coloured | (not cover.extensible))
    primary_of = ~secondary[cover.opt_items]
    if cover.n_options and not np.logical_or.reduceat(primary_of, cover.opt_ptr[:-1]).all():
        raise UsageError("an option covers coloured items only: Knuth's format needs a primary item in every option")
    lines = [f"| {key}: {value}" if key else f"| {value}" for key, value in header.items()]
    head = []
    for item in np.flatnonzero(~secondary):
        a, b = int(lo[item]), int(hi[item])
        bounds = "" if a == b == 1 else f"{b}|" if a == b else f"{a}:{b}|"
        head.append(bounds + names[item])
    tail = [names[item] for item in np.flatnonzero(secondary)]
    lines.append(" ".join(head + (["|"] + tail if tail else [])))
    lines += option_lines(cover, range(cover.n_options), names)
    return "\n".join(lines) + "\n"


def option_lines(cover, options, names: list[str] | None = None) -> list[str]:
    """The lines of ``options`` in Knuth's format: item names, each coloured one as ``name:colour``."""
    names = names or item_names(cover)
    colour = cover.opt_colour
    lines = []
    for o in options:
        start, end = int(cover.opt_ptr[o]), int(cover.opt_ptr[o + 1])
        words = []
        for k in range(start, end):
            word = names[cover.opt_items[k]]
            if colour is not None and colour[k]:
                word += ":" + _escape(cover.colour_names[colour[k] - 1])
            words.append(word)
        lines.append(" ".join(words))
    return lines


def _escape(name: str) -> str:
    return _RESERVED.sub(lambda m: f"%{ord(m.group()):02X}", name.replace("%", "%25"))


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
