"""What the commands print: puzzle facts, count lines and statuses, solutions in polycube's formats.

**Facts** (``bench info``, ``bench solve -i``) mirror polycube's ``-i``
output: dimensions, shapes with their orientations, images, parity and
copies, bounded images, the symmetry group, the redundancy piece and the
puzzle parity.  :func:`puzzle_facts` returns them as an ordered dict (the
``--json`` form); :func:`format_facts` renders the same dict as
``KEY=value`` lines.

Parity convention: a two-colouring (the cubic checkerboard, the triangle's
up and down) has two choices of "black".  We call black the colour the open
region has more of (the lattice's colour +1 on a tie: even x+y+z, up
triangles), so ``PUZZLE_PARITY`` is never negative and a shape's
``negativeParityImages`` are its images that favour the minority colour.
On lattices without a two-colouring (hex, hexprism, fcc) the shape counts
are 0 and ``PUZZLE_PARITY`` and ``MAX_PARITY`` are ``n/a``.

**The count line.**  After every puzzle ``bench solve`` writes one line on
standard error (so it never mixes with solutions)::

    defs/tetriscube.txt: 9839 covers, 9839 unique, 236136 total in 7.390 s (fila, solved)

and, when a limit or a signal cut the search short, a warning saying what
stopped it and that the counts are partial.  The exit statuses are those
of :data:`EXIT_STATUS_HELP`.

**Solutions** are printed in polycube's formats, two letters: the puzzle
form (``B`` brief: the placed pieces only; ``F`` full: a complete
definition that reads back as input; ``S`` sub-puzzle: like full, with the
placed pieces stationary) and the piece form (``L`` layout drawing, ``C``
coordinate directives).  Layouts show the box as horizontal slices side by
side, bottom slice first, top row first, drawn by the conventions of the
puzzle's lattice (:mod:`bench.models.definition`), so that ``F`` output
reads back as the same puzzle.
"""

from __future__ import annotations

import numpy as np

from bench.text import escape
from bench.engines import Limits, Result, Status
from bench.errors import UsageError
from bench.models.diagnose import unsolvable_reasons
from bench.models.expected import expected_for
from bench.models.lattice import CUBIC, Lattice
from bench.system import signals


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
    if not puzzle.geometric:
        facts = matrix_facts(puzzle, cover)
    else:
        facts = geometric_facts(puzzle, cover)
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


def matrix_facts(matrix, cover) -> dict:
    """The facts of a matrix read from an exchange file (:class:`~bench.formats.matrix.Matrix`): no geometry."""
    lo, hi = cover.item_lo, cover.item_hi
    once = int(((lo == 1) & (hi == 1)).sum())
    optional = int(((lo == 0) & (hi == 1)).sum())
    return {
        "PUZZLE_FILE": matrix.definition.path,
        "PUZZLE_INDEX": matrix.definition.index,
        "FORMAT": matrix.definition.format,
        "ITEMS": cover.n_items,
        "ITEMS_EXACTLY_ONCE": once,
        "ITEMS_AT_MOST_ONCE": optional,
        "ITEMS_WITH_OTHER_BOUNDS": cover.n_items - once - optional,
        "COLOURED_ITEMS": len(cover.coloured_items),
        "COLOURS": len(cover.colour_names),
        "OPTIONS": cover.n_options,
        "EXTENSIBLE": "true" if cover.extensible else "false",
        "SYMMETRY_CONVENTION": matrix.convention,
        "SYMMETRY_GROUP_ORDER": matrix.group.order,
        "COVER_HASH": cover.hash,
    }


def geometric_facts(puzzle, cover) -> dict:
    """The facts of a puzzle of pieces in a box (see :func:`puzzle_facts`)."""
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
            "copies": f"{s.minimum}..{s.multiplicity}" if s.ranged and s.minimum != s.multiplicity else s.multiplicity,
            "stationary": s.stationary,
            "images": int(mine.sum()),
            "negativeParityImages": int((parity[mine] < 0).sum()),
            "pieces": " ".join(s.names),
            "layout": _layout(s.cells),
        })
        if not s.plain:
            shapes[-1]["motions"] = s.motions
            if s.colours is not None:
                shapes[-1]["colours"] = " ".join(puzzle.colour_names[t] if t >= 0 else "." for t in s.cell_colours)
    group = puzzle.group
    red = cover.redundancy
    X, Y, Z = puzzle.dims
    facts = {
        "PUZZLE_FILE": puzzle.definition.path,
        "PUZZLE_INDEX": puzzle.definition.index,
        "DIMENSION": f"{X}x{Y}x{Z}",
        "LATTICE": puzzle.lattice.name,
        # the lattice's own group (its motions modulo translations), apart from the board's below
        "LATTICE_MOTIONS": len(puzzle.lattice.motions),
        "LATTICE_PROPER_MOTIONS": sum(g.proper for g in puzzle.lattice.motions),
        "WRAP": puzzle.definition.wrap or "none",
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
        **({"OPTIONAL_CELLS": int(puzzle.optional_cells.sum())} if puzzle.has_optional_cells else {}),
        **({"COLOURS": " ".join(puzzle.colour_names)} if puzzle.colour_names else {}),
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


EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LIMIT = 0, 1, 2, 3

EXIT_STATUS_HELP = """exit status:
  0    every search finished (or stopped at --max-solutions, as asked)
  1    an engine failed, or counts disagree (with each other or with expected.toml)
  2    bad input: a definition, an option or a file
  3    --time-limit or --node-limit cut a search short: its counts are partial
  128+N  signal N stopped the run (130 Ctrl-C, 129 SIGHUP, 143 SIGTERM): counts partial,
       a split run continues with --resume"""


def counted(result: Result) -> tuple[int | None, int | None]:
    """``(unique, total)`` of a finished search; ``(None, None)`` for one cut short, whatever the engine returned.

    Both count the whole search: a search stopped early (a limit, a
    signal) has only the covers it found, which say nothing of them.
    """
    if result.status != Status.SOLVED:
        return None, None
    return result.unique, result.total


def count_line(name: str, result: Result) -> str:
    """``NAME: C covers, U unique, T total in S s (ENGINE, STATUS)``; unique and total where the engine knows them.

    A search cut short says ``unique and total not counted`` instead.
    """
    parts = [f"{result.covers} covers" if result.covers is not None else "covers not counted"]
    unique, total = counted(result)
    if unique is not None:
        parts += [f"{unique} unique", f"{total} total"]
    elif result.status != Status.SOLVED and result.covers is not None:
        parts[0] += " (unique and total not counted)"
    seconds = result.timings.get("solve", 0.0)
    status = result.status.value + ("" if result.status == Status.SOLVED else ", partial")
    return f"{escape(name)}: {', '.join(parts)} in {seconds:.3f} s ({result.engine}, {status})"


def brief_reasons(reasons: list[str]) -> str:
    """The first reason a static check gives, and how many more: one short phrase where the list may be long.

    >>> brief_reasons(["piece B fits nowhere in the open region", "piece C fits nowhere in the open region"])
    'piece B fits nowhere in the open region (and 1 more reason)'
    """
    more = len(reasons) - 1
    return reasons[0] + (f" (and {more} more reason{'s' * (more > 1)})" if more else "")


def stopped_by(result: Result, limits: Limits) -> str | None:
    """What cut the search short (None when it finished, failed, or stopped at ``--max-solutions`` as asked)."""
    if result.status == Status.TIMEOUT:
        return f"--time-limit {limits.time_limit:g} s" if limits.time_limit is not None else "a time limit"
    if result.status == Status.INTERRUPTED:
        signum = signals.stop_requested()
        return signals.signal_name(signum) if signum is not None else "an interrupt"
    if result.status == Status.LIMIT and not reached_max_solutions(result, limits):
        return f"--node-limit {limits.node_limit}" if limits.node_limit is not None else "a limit"
    return None


def reached_max_solutions(result: Result, limits: Limits) -> bool:
    """True when the search stopped because it found the ``--max-solutions`` covers asked for."""
    return (result.status == Status.LIMIT and limits.max_solutions is not None and result.covers is not None
            and result.covers >= limits.max_solutions)


def warning(name: str, result: Result, limits: Limits) -> str | None:
    """The warning line of a search a limit or a signal cut short (None otherwise)."""
    cause = stopped_by(result, limits)
    if cause is None:
        return None
    hint = f"; {result.message}" if result.message else ""
    return f"warning: {escape(name)}: {cause} stopped the search; the counts are partial{hint}"


def exit_status(errors: bool, failed: bool, limited: bool) -> int:
    """The status of a command that was not stopped by a signal (that one is :func:`bench.system.signals.exit_status`)."""
    if errors:
        return EXIT_USAGE
    if failed:
        return EXIT_FAILED
    return EXIT_LIMIT if limited else EXIT_OK


FORMS = {"B", "F", "S"}
PIECE_FORMS = {"L", "C"}


def parse_format(text: str) -> tuple[str, str]:
    """``"BL"``, ``"F"``, ``"SC"``... into (puzzle form, piece form)."""
    text = (text or "B").upper()
    form, piece = text[:1], text[1:2] or "L"
    if form not in FORMS or piece not in PIECE_FORMS or len(text) > 2:
        raise UsageError(f"output format '{text}'; expected one of B, F, S followed by L or C (e.g. BL, FC, SL)")
    return form, piece


def layout_lines(grid: np.ndarray, lattice: Lattice = CUBIC) -> list[str]:
    """The drawing of a name grid (indexed like the lattice's ``grid_shape``).

    One line per row y, top first; layers side by side, bottom first,
    separated by commas; cells placed as :meth:`Lattice.drawing_column`
    says, so hexagon and triangle rows are offset as in the plane and the
    fcc's rows show only its points.  Reading the lines back as an ``L``
    drawing gives the same cells (white space is ignored there).
    """
    coords = np.indices(grid.shape).reshape(3, -1).T
    coords = coords[lattice.valid(coords)]
    names = [str(grid[tuple(c)]) for c in coords]
    width = max((len(n) for n in names), default=1)
    layer, _ = lattice.drawing_slot(coords)
    start = lattice.drawing_column(coords) * (width + 1) // 2
    n_layers = int(layer.max()) + 1 if len(coords) else 0
    block = [int(start[layer == z].max()) + width for z in range(n_layers)]
    rows = [[[" "] * block[z] for z in range(n_layers)] for _ in range(grid.shape[1])]
    for (_, y, _), z, at, name in zip(coords, layer, start, names):
        rows[y][z][at : at + width] = name.ljust(width)
    return [", ".join("".join(b) for b in rows[y]).rstrip() for y in range(grid.shape[1] - 1, -1, -1)]


def _coords(cells) -> str:
    return ", ".join(" ".join(str(int(v)) for v in c) for c in sorted(map(tuple, np.asarray(cells).tolist())))


def _header(puzzle) -> str:
    X, Y, Z = puzzle.dims
    lattice = "" if puzzle.lattice is CUBIC else f":lattice={puzzle.lattice.name}"
    return f"D:xDim={X}:yDim={Y}:zDim={Z}" + lattice + (":oneSide" if puzzle.one_side else "")


def render(cover, options, form: str = "B", piece_form: str = "L", partial: bool = False) -> list[str]:
    """Lines for one solution (or partial assembly) of a puzzle cover; a matrix's are its options in Knuth's format."""
    puzzle = cover.puzzle
    if puzzle is None:
        from bench.formats.xcc import option_lines

        return option_lines(cover, sorted(int(o) for o in options))
    placed = cover.placements(options, partial)
    grid = np.full(puzzle.grid_dims, ".", dtype=object)
    for name, coords, _ in placed:
        grid[coords[:, 0], coords[:, 1], coords[:, 2]] = name
    if form == "B":
        if piece_form == "L":
            return layout_lines(grid, puzzle.lattice)
        return [f"C:name={name}:type={'S' if fixed else 'M'}:layout={_coords(c)}" for name, c, fixed in placed]
    used = {name for name, _, _ in placed}
    unplaced = [p for p in puzzle.definition.pieces if not p.stationary and p.name not in used]
    lines = [_header(puzzle)]
    # a drawing holds one character per cell, so longer names force coordinates
    drawable = piece_form == "L" and all(len(name) == 1 for name, _, _ in placed)
    fixed_names = [name for name, _, fixed in placed if fixed or form == "S"]
    for piece in unplaced:
        lines.append(f"C:name={piece.name}:type=M:layout={_coords(piece.cells)}")
    if drawable:
        lines.append("L:stationary=" + " ".join(fixed_names) if fixed_names else "L")
        lines.extend(layout_lines(grid, puzzle.lattice))
        lines.append("~L")
    else:
        for name, c, fixed in placed:
            lines.append(f"C:name={name}:type={'S' if fixed or form == 'S' else 'M'}:layout={_coords(c)}")
    lines.append("~D")
    return lines
