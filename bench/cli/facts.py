"""What ``bench info`` reports about a puzzle before any search.

The facts mirror polycube's ``-i`` output: dimensions, shapes with their
orientations, images, parity and copies, bounded images, the symmetry group,
the redundancy piece and the puzzle parity.  :func:`puzzle_facts` returns them
as an ordered dict (the ``--json`` form); :func:`format_facts` renders the same
dict as ``KEY=value`` lines.

Parity convention: a two-colouring (the cubic checkerboard, the triangle's up
and down) has two choices of "black".  We call black the colour the open
region has more of (the lattice's colour +1 on a tie: even x+y+z, up
triangles), so ``PUZZLE_PARITY`` is never negative and a shape's
``negativeParityImages`` are its images that favour the minority colour.  On
lattices without a two-colouring (hex, hexprism, fcc) the shape counts are 0
and ``PUZZLE_PARITY`` and ``MAX_PARITY`` are ``n/a``.
"""

from __future__ import annotations

from bench.text import escape


def _layout(cells) -> str:
    return ",".join(" ".join(str(int(v)) for v in c) for c in cells)


def puzzle_facts(puzzle, cover, timings: dict[str, float] | None = None, reasons: list[str] | None = None) -> dict:
    """Facts about a puzzle and its encoding, in a fixed order.

    Examples
    --------
    >>> import bench
    >>> [p] = bench.load("defs/pentominoes_10x6.txt")
    >>> f = puzzle_facts(p, bench.Cover.from_puzzle(p, redundancy=True))
    >>> f["ORIENTATIONS"], f["BOUNDED"], f["SYMMETRY_GROUP_ORDER"], f["REDUNDANCY_FILTER"], f["OPTIONS"]
    (63, 2056, 4, 'X', 2032)
    """
    # here, not at the top: every command's error line uses escape(), --help included
    from bench.models.diagnose import unsolvable_reasons
    from bench.models.expected import expected_for

    images = puzzle.images
    sign = 1 if puzzle.parity >= 0 else -1
    parity = puzzle.image_parity * sign
    shapes = []
    for s in puzzle.shapes:
        mine = images.shape == s.index
        shapes.append({
            "name": s.name,
            "size": s.size,
            "parity": s.parity,
            "orientations": len(s.orientations),
            "copies": s.multiplicity,
            "stationary": s.stationary,
            "images": int(mine.sum()),
            "negativeParityImages": int((parity[mine] < 0).sum()),
            "pieces": " ".join(s.names),
            "layout": _layout(s.cells),
        })
    group = puzzle.group
    red = cover.redundancy
    X, Y, Z = puzzle.dims
    facts = {
        "PUZZLE_FILE": puzzle.definition.path,
        "PUZZLE_INDEX": puzzle.definition.index,
        "DIMENSION": f"{X}x{Y}x{Z}",
        "LATTICE": puzzle.lattice.name,
        "ONE_SIDE": "ON" if puzzle.one_side else "OFF",
        "SHAPE": shapes,
        "SHAPES": len(puzzle.shapes),
        "PIECES": sum(s.multiplicity for s in puzzle.shapes),
        "STATIONARY_PIECES": len(puzzle.stationary),
        "ORIENTATIONS": sum(len(s.orientations) for s in puzzle.shapes),
        "ORIENTATION_CELLS": sum(len(s.orientations) * s.size for s in puzzle.shapes),
        "OPEN_CELLS": puzzle.n_open,
        "PIECE_VOLUME": puzzle.mobile_volume,
        "SPARE_PIECES": "true" if puzzle.spare else "false",
        "BOUNDED": len(images),
        "SYMMETRY_CONVENTION": puzzle.convention,
        "SYMMETRY_GROUP_ORDER": group.order,
        "SYMMETRY_GROUP": " ".join(group.names),
        "REDUNDANCY_FILTER": red.piece if red else ".",
        "REDUNDANCY_IMAGES": red.images if red else 0,
        "REDUNDANCY_KEPT": len(red.kept) if red else 0,
        "REDUNDANCY_SUBGROUP_ORDER": red.subgroup_order if red else 0,
        "ROTATIONALLY_UNIQUE": "true" if group.order == 1 or (red is not None and red.perfect) else "false",
        "ITEMS": cover.n_items,
        "CELL_ITEMS": cover.n_cells,
        "SHAPE_ITEMS": cover.n_items - cover.n_cells,
        "OPTIONS": cover.n_options,
        "PUZZLE_PARITY": abs(puzzle.parity) if puzzle.has_parity else "n/a",
        "MAX_PARITY": sum(s.parity * s.multiplicity for s in puzzle.shapes) if puzzle.has_parity else "n/a",
        "COVER_HASH": cover.hash,
    }
    expected = expected_for(puzzle)
    if expected is not None:
        facts["EXPECTED_UNIQUE"] = expected.unique if expected.unique is not None else "unknown"
        facts["EXPECTED_TOTAL"] = expected.total if expected.total is not None else "unknown"
    if reasons is None:
        reasons = unsolvable_reasons(cover)
    facts["UNSOLVABLE"] = "; ".join(reasons) if reasons else "no static proof"
    for key, seconds in (timings or {}).items():
        facts[f"{key.upper()}_SECONDS"] = round(seconds, 6)
    return facts


def format_facts(facts: dict) -> list[str]:
    """Render facts as ``KEY=value`` lines (values escaped, :func:`escape`); shapes become ``SHAPE[i]={k=v:...}``."""
    lines = []
    for key, value in facts.items():
        if key == "SHAPE":
            for i, shape in enumerate(value):
                body = ":".join(f"{k}={escape(v)}" for k, v in shape.items())
                lines.append(f"SHAPE[{i}]={{{body}}}")
        else:
            lines.append(f"{key}={escape(value)}")
    return lines
