"""The cover as JSON: items with bounds, options, colours and the symmetry tables, read back with the same hash.

A document holds ``format`` (``polyform-bench matrix``) and ``version``
(1), ``header`` (what the export says about the puzzle and the filters),
``convention`` (what unique counts are up to: the puzzle's convention),
``items`` (``name``, ``lo``, ``hi``), ``n_cells`` (the first items are
the puzzle's cells), ``options`` (item numbers), ``colours`` (null, or
``names`` and one colour number per entry of each option, 0 for none) and
``symmetry`` (``names``, ``cell_perm``, ``opt_map`` as in
:class:`~bench.models.cover.CoverSymmetry`).  Read back, it is the same
counting problem, cover hash included, so unique and total are counted as
for the puzzle; it has no geometry to draw.
"""

from __future__ import annotations

import json

import numpy as np

from bench.errors import BenchError, DefinitionError
from bench.models.symmetry import CONVENTION_NONE, CONVENTIONS

NAME = "json"
SUMMARY = "the cover as JSON, symmetry tables included (reads back with the same cover hash)"
FORMAT = "polyform-bench matrix"
VERSION = 1


def write(cover, header: dict[str, str]) -> str:
    """The JSON document of ``cover``; its unique counts are up to ``header["convention"]`` (default ``none``)."""
    convention = header.get("convention", CONVENTION_NONE)
    sym = cover.symmetry
    options = [cover.option(o).tolist() for o in range(cover.n_options)]
    colours = None
    if cover.opt_colour is not None:
        colours = {"names": list(cover.colour_names),
                   "options": [cover.opt_colour[cover.opt_ptr[o]:cover.opt_ptr[o + 1]].tolist()
                               for o in range(cover.n_options)]}
    document = {
        "format": FORMAT, "version": VERSION, "header": dict(header), "convention": convention,
        "items": [{"name": name, "lo": int(a), "hi": int(b)}
                  for name, a, b in zip(cover.item_names, cover.item_lo, cover.item_hi)],
        "n_cells": int(cover.n_cells), "options": options, "colours": colours,
        "symmetry": {"names": list(sym.names), "cell_perm": sym.cell_perm.tolist(), "opt_map": sym.opt_map.tolist()},
    }
    return json.dumps(document, separators=(",", ":")) + "\n"


def read(text: str, path: str = "<string>"):
    """The :class:`~bench.models.cover.Cover` of a document :func:`write` wrote, and its symmetry convention."""
    from bench.models.cover import Cover, CoverSymmetry

    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DefinitionError(path, exc.lineno, f"not JSON: {exc.msg}") from None

    def fail(message: str):
        return DefinitionError(path, 1, message)

    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise fail(f"not a matrix written by bench export --format json (expected \"format\": \"{FORMAT}\")")
    if document.get("version") != VERSION:
        raise fail(f"version {document.get('version')!r}; expected {VERSION}")
    try:
        items = document["items"]
        names = [str(item["name"]) for item in items]
        lo = [int(item["lo"]) for item in items]
        hi = [int(item["hi"]) for item in items]
        options = [[int(i) for i in option] for option in document["options"]]
        n_cells = int(document["n_cells"])
        convention = str(document["convention"])
        if convention not in CONVENTIONS:
            raise BenchError(f"convention {convention!r}; expected one of {', '.join(CONVENTIONS)}")
        colours = document["colours"]
        sym = document["symmetry"]
        perm = np.array(sym["cell_perm"], dtype=np.int32).reshape(len(sym["names"]), n_cells)
        opt_map = np.array(sym["opt_map"], dtype=np.int32).reshape(len(sym["names"]), len(options))
        cover = Cover.from_options(options, lo, hi, n_cells, names,
                                   colours=None if colours is None else colours["options"],
                                   colour_names=() if colours is None else colours["names"])
        if len(sym["names"]) > 1:
            cover = Cover(cover.opt_ptr, cover.opt_items, cover.item_lo, cover.item_hi, cover.n_cells,
                          cover.item_names, CoverSymmetry.from_maps(sym["names"], perm, opt_map),
                          opt_colour=cover.opt_colour, colour_names=cover.colour_names)
            cover.validate()
    except BenchError as exc:
        raise fail(str(exc)) from None
    except (KeyError, TypeError, ValueError) as exc:
        raise fail(f"not a matrix document: {type(exc).__name__}: {exc}") from None
    return cover, convention
