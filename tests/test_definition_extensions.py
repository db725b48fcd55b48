"""The definition format's extensions: copies ranges, optional cells, colours, per-piece motions.

Counts are checked against an oracle that knows nothing of bench's model:
it turns each piece by the 8 motions of the square itself, places it,
checks colours, and counts the sets of placements that fill the board
within the copies bounds (:func:`placements_oracle`).  The bundled
definitions' totals are checked against the recurrences behind their
published figures, their unique counts against orbits under the motions
that keep the board, its colours and its optional cells.
"""

from __future__ import annotations

import json
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import bench
from bench import Cover, DefinitionError, parse_text
from bench.cli import main
from bench.engines import get_engine
from bench.models.puzzle import Puzzle
from support import DATA, DEFS, ROOT

SQUARE_MOTIONS = [np.array(m) for m in ([[1, 0], [0, 1]], [[0, -1], [1, 0]], [[-1, 0], [0, -1]], [[0, 1], [-1, 0]],
                                        [[-1, 0], [0, 1]], [[1, 0], [0, -1]], [[0, 1], [1, 0]], [[0, -1], [-1, 0]])]
"""The turns (first 4) and flips of the square, on (x, y)."""


def puzzle(text: str) -> Puzzle:
    return Puzzle.from_definition(parse_text(text, "t.txt")[0])


def parse_error(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as info:
        puzzle(text)
    return info.value


# -- every existing file reads as before ---------------------------------------------------------------------------


def test_every_bundled_and_test_definition_keeps_its_cover_hash():
    # tests/cover_hashes.json: each puzzle's hash without and with the redundancy filter, under both conventions,
    # as main computed them (1e1beea) before the format was extended
    recorded = json.loads((ROOT / "tests" / "cover_hashes.json").read_text())
    for key, (plain, filtered) in recorded.items():
        name, _, rest = key.partition("#")
        index, _, mirror = rest.partition(" ")
        if mirror and recorded[key.removesuffix(" mirror")] == [plain, filtered]:
            continue  # a flat puzzle: --mirror encodes it as without
        p = bench.load(ROOT / name, mirror=bool(mirror))[int(index) - 1]
        assert [Cover.from_puzzle(p).hash, Cover.from_puzzle(p, redundancy=True).hash] == [plain, filtered], key
    assert {k.split("#")[0] for k in recorded} >= {f"defs/{p.name}" for p in DEFS.glob("*.txt")
                                                   if "copies=" not in p.read_text() and "K\n" not in p.read_text()
                                                   and "optional" not in p.read_text()}
    assert {k.split("#")[0] for k in recorded} >= {f"tests/data/{p.name}" for p in DATA.glob("*.txt")}


# -- syntax -------------------------------------------------------------------------------------------------------

BOX = "D:xDim=3:yDim=2:zDim=1\n"


@pytest.mark.parametrize("body, line, message", [
    ("C:name=a:copies=3..2:layout=0 0 0\n", 2, "copies=3..2; expected lo..hi"),
    ("C:name=a:copies=x:layout=0 0 0\n", 2, "copies=x; expected a count"),
    ("C:name=a:motions=sideways:layout=0 0 0\n", 2, "motions=sideways; expected one of all, turns, upright, fixed"),
    ("C:name=a:colours=b w:layout=0 0 0\n", 2, "1 cells but 2 colours"),
    ("C:name=a:type=S:copies=2:layout=0 0 0\n", 2, "copies= belongs to mobile pieces"),
    ("C:name=a:layout=0 0 0\nP:name=b:copies=2\n", 3, "no mobile piece of that name"),
    ("C:name=a:layout=0 0 0\nP:name=a:copies=2\nP:name=a:motions=fixed\n", 4, "already has a P: line"),
    ("C:name=a:copies=1:layout=0 0 0\nP:name=a:copies=2\n", 3, "already gives copies="),
    ("K\nb w b\n~K\nC:name=a:layout=0 0 0\n", 2, "colour drawing has 1 rows but yDim=2"),
    ("K:colour=b\nC:name=a:layout=0 0 0\n", 2, "expected K:colour=C:layout="),
    ("K:colour=b:layout=0 0 0\nK:colour=w:layout=0 0 0\nC:name=a:copies=*:layout=0 0 0\n", 3, "has two colours"),
    ("K:colour=b:layout=5 0 0\nC:name=a:copies=*:layout=0 0 0\n", 2, "outside the box"),
    ("C:name=o:type=O:layout=0 0 0\nC:name=p:type=O:layout=0 0 0\nC:name=a:copies=*:layout=0 0 0\n", 3,
     "listed as optional twice"),
    ("C:name=o:type=O:layout=9 0 0\nC:name=a:copies=*:layout=0 0 0\n", 2, "is outside the box"),
    ("L:optional=z\no . .\n. . .\n~L\nC:name=a:copies=*:layout=0 0 0\n", 2, "optional cells 'z' does not appear"),
    ("C:name=a:copies=7:layout=0 0 0\n", 1, "needs (copies=) have volume 7 but the box has 6 open cells"),
    ("C:name=o:type=O:layout=0 0 0\nC:name=a:copies=4:layout=0 0 0\n", 1, "5 open cells that must be filled"),
])
def test_every_error_in_the_extensions_names_its_line(body, line, message):
    error = parse_error(BOX + body + "~D\n")
    assert error.line == line, str(error)
    assert message in error.message, str(error)


def test_extended_pieces_read_with_their_attributes():
    p = puzzle(BOX + "C:name=a:copies=0..2:motions=fixed:colours=b .:layout=0 0 0, 1 0 0\n"
                     "C:name=b:layout=0 0 0, 0 1 0\nP:name=b:copies=1..*\nK\nb w b\nw b w\n~K\n~D\n")
    a, b = p.shapes
    assert (a.names, a.minimum, a.multiplicity, a.motions, len(a.orientations)) == (("a", "a.2"), 0, 2, "fixed", 1)
    assert (b.minimum, b.multiplicity, b.motions, len(b.orientations)) == (1, 3, "all", 2)
    assert p.colour_names == ("b", "w") and p.spare
    assert Cover.from_puzzle(p).item_names[-2:] == ("a*0..2", "b*1..3")


# -- an oracle that knows only the rules ---------------------------------------------------------------------------


def placements_oracle(board: list[tuple[int, int]], optional: set, colour: dict, pieces: list[dict]) -> int:
    """Tilings of ``board`` (cells (x, y)) by ``pieces``, counted from the rules alone.

    A piece: ``cells`` [(x, y)], ``colours`` (None per cell for none),
    ``motions`` (``all``: the square's 8 motions; ``turns``: its 4 turns;
    ``fixed``), ``lo``..``hi`` copies.  A placement is a moved and shifted
    piece on board cells, each coloured piece cell on a board cell of its
    colour; two placements of one piece are one when they cover the same
    cells.  A tiling covers every board cell not in ``optional`` once and
    the others at most once, with lo..hi placements of each piece.
    """
    cells = set(board)
    placements = []
    for k, piece in enumerate(pieces):
        motions = {"all": SQUARE_MOTIONS, "turns": SQUARE_MOTIONS[:4], "fixed": SQUARE_MOTIONS[:1]}[piece["motions"]]
        seen = set()
        for m in motions:
            moved = [tuple(int(v) for v in m @ np.array(c)) for c in piece["cells"]]
            for dx in range(-10, 10):
                for dy in range(-10, 10):
                    spot = [(x + dx, y + dy) for x, y in moved]
                    if not set(spot) <= cells:
                        continue
                    if any(t is not None and colour.get(c) != t for c, t in zip(spot, piece["colours"])):
                        continue
                    key = frozenset(spot)
                    if key not in seen:
                        seen.add(key)
                        placements.append((k, key))
    per = [0] * len(pieces)

    def choose(i: int, used: frozenset) -> int:
        # every subset of the placements, in or out in turn, that does not overlap or exceed a piece's copies
        if i == len(placements):
            return int((cells - optional) <= used and all(p["lo"] <= n for p, n in zip(pieces, per)))
        k, key = placements[i]
        total = choose(i + 1, used)
        if not key & used and per[k] < pieces[k]["hi"]:
            per[k] += 1
            total += choose(i + 1, used | key)
            per[k] -= 1
        return total

    return choose(0, frozenset())


@st.composite
def small_extended_puzzles(draw):
    """A 2x2 to 3x3 board with optional cells and colours, and one to three small pieces with the extensions."""
    width, height = draw(st.integers(2, 3)), draw(st.integers(2, 3))
    board = [(x, y) for x in range(width) for y in range(height)]
    optional = set(draw(st.lists(st.sampled_from(board), max_size=2)))
    colour = {c: draw(st.sampled_from([None, "b", "w"])) for c in board}
    # pieces of different shapes: identical ones would be one shape, which the oracle does not know
    shapes = draw(st.permutations([[(0, 0)], [(0, 0), (1, 0)], [(0, 0), (1, 0), (1, 1)], [(0, 0), (1, 0), (2, 0)]]))
    pieces = []
    for k in range(draw(st.integers(1, 3))):
        cells = shapes[k]
        lo = draw(st.integers(0, 2))
        pieces.append({"cells": cells, "colours": [draw(st.sampled_from([None, None, "b", "w"])) for _ in cells],
                       "motions": draw(st.sampled_from(["all", "turns", "fixed"])), "lo": lo,
                       "hi": draw(st.integers(max(lo, 1), 3))})
    lines = [f"D:xDim={width}:yDim={height}:zDim=1"]
    for c in sorted(optional):
        lines.append(f"C:name=o{c[0]}{c[1]}:type=O:layout={c[0]} {c[1]} 0")
    for c, t in colour.items():
        if t is not None:
            lines.append(f"K:colour={t}:layout={c[0]} {c[1]} 0")
    for k, p in enumerate(pieces):
        tints = " ".join(t or "." for t in p["colours"])
        layout = ", ".join(f"{x} {y} 0" for x, y in p["cells"])
        lines.append(f"C:name=p{k}:copies={p['lo']}..{p['hi']}:motions={p['motions']}:colours={tints}:layout={layout}")
    lines.append("~D")
    return "\n".join(lines) + "\n", board, optional, colour, pieces


@settings(max_examples=30, deadline=None)
@given(small_extended_puzzles())
def test_extended_puzzles_count_as_the_rules_say(case):
    text, board, optional, colour, pieces = case
    try:
        p = puzzle(text)
    except DefinitionError as exc:
        # too much or too little volume: the oracle finds nothing either
        assert placements_oracle(board, optional, colour, pieces) == 0, str(exc)
        return
    cover = Cover.from_puzzle(p)
    expected = placements_oracle(board, optional, colour, pieces)
    for spec in ("dlx", "cpsat"):
        result = get_engine(spec).solve(cover)
        assert result.covers == expected == result.total, (spec, text)
    assert get_engine("dlx").solve(Cover.from_puzzle(p, redundancy=True)).total == expected, text


# -- the bundled definitions ---------------------------------------------------------------------------------------


def square_motions_keeping(p) -> list[np.ndarray]:
    """The square's motions that map the board onto itself, with its colours and optional cells (on (x, y))."""
    region = {tuple(map(int, c[:2])): k for k, c in enumerate(p.open_coords)}
    colour = {c: int(p.cell_colour[p.open_box[k]]) for c, k in region.items()}
    optional = {c for c, k in region.items() if p.optional_cells[k]}
    keep = []
    for m in SQUARE_MOTIONS:
        moved = {c: tuple(int(v) for v in m @ np.array(c)) for c in region}
        low = np.array(sorted(moved.values())[0]) - np.array(sorted(region)[0])
        moved = {c: (x - low[0], y - low[1]) for c, (x, y) in moved.items()}
        if set(moved.values()) == set(region) and all(colour[moved[c]] == colour[c] for c in region) and \
                {moved[c] for c in optional} == optional:
            keep.append((m, low))
    return keep


def tilings(width: int, height: int, squares: bool) -> int:
    """Tilings of the width x height rectangle by dominoes (and squares): fill the first empty cell every way."""
    cells = [(x, y) for x in range(width) for y in range(height)]
    board = set(cells)

    def fill(taken: frozenset) -> int:
        free = next((c for c in cells if c not in taken), None)
        if free is None:
            return 1
        x, y = free
        total = fill(taken | {free}) if squares else 0
        for other in ((x + 1, y), (x, y + 1)):
            if other in board and other not in taken:
                total += fill(taken | {free, other})
        return total

    return fill(frozenset())


@pytest.mark.parametrize("name, total", [("squares_dominoes_2x6.txt", 733), ("dominoes_optional_2x5.txt", 228),
                                         ("dominoes_checkered_6x6.txt", 6728), ("dominoes_fixed_2x10.txt", 89)])
def test_bundled_extension_puzzles_match_their_published_counts_and_their_orbits(name, total):
    from bench.models.expected import expected_for

    [p] = bench.load(DEFS / name)
    expected = expected_for(p)
    assert expected.total == total
    cover = Cover.from_puzzle(p)
    solutions: list = []
    result = get_engine("dlx").solve(cover, on_solutions=lambda batch, _: solutions.extend(batch))
    assert (result.covers, result.unique, result.total) == (total, expected.unique, total)
    # orbits under the square's motions that keep the board, counted here from the placements' cells
    keep = square_motions_keeping(p)
    assert len(keep) == p.group.order == expected.group
    where = [frozenset(tuple(int(v) for v in p.open_coords[i][:2]) for i in cover.option(o) if i < cover.n_cells)
             for o in range(cover.n_options)]
    tilings = {frozenset(where[o] for o in solution) for solution in solutions}
    region = [tuple(int(v) for v in c[:2]) for c in p.open_coords]
    maps = [{c: tuple(int(v) for v in m @ np.array(c) - low) for c in region} for m, low in keep]
    orbits = set()
    for tiling in tilings:
        images = []
        for cell_map in maps:
            moved = frozenset(frozenset(cell_map[c] for c in piece) for piece in tiling)
            assert moved in tilings
            images.append(moved)
        orbits.add(min(images, key=lambda t: sorted(sorted(c) for c in t)))
    assert len(orbits) == expected.unique


def test_counting_tilings_gives_the_published_figures():
    # OEIS A030186 (squares and dominoes in 2 x n; matchings of the ladder), A000045, A004003
    assert [tilings(n, 2, True) for n in range(1, 7)] == [2, 7, 22, 71, 228, 733]
    assert [tilings(n, 2, False) for n in range(1, 11)] == [1, 2, 3, 5, 8, 13, 21, 34, 55, 89]
    assert tilings(6, 6, False) == 6728


# -- filters, engines and symmetry keep to the rules ---------------------------------------------------------------


def test_filters_that_fill_every_cell_refuse_optional_cells_and_fila_says_why(capsys):
    path = DEFS / "dominoes_optional_2x5.txt"
    for option in ("-V", "-P", "-p"):
        assert main(["solve", "-q", option, str(path)]) == 2
        assert "assumes every open cell is filled" in capsys.readouterr().err
    assert main(["solve", "-q", "-F", str(path)]) == 0
    assert "228 covers" in capsys.readouterr().err
    assert main(["solve", "-q", "-e", "fila", str(path)]) == 2
    assert "cells that may stay empty" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["squares_dominoes_2x6.txt", "dominoes_checkered_6x6.txt",
                                  "dominoes_fixed_2x10.txt"])
def test_fila_counts_ranges_colours_and_motions(name):
    [p] = bench.load(DEFS / name)
    cover = Cover.from_puzzle(p, redundancy=True)
    dlx = get_engine("dlx").solve(cover)
    fila = get_engine("fila").solve(cover)
    assert (fila.covers, fila.unique, fila.total) == (dlx.covers, dlx.unique, dlx.total)


def test_small_extension_puzzles_agree_on_cp_sat_and_sat():
    for name in ("dominoes_optional_2x5.txt", "dominoes_fixed_2x10.txt"):
        [p] = bench.load(DEFS / name)
        cover = Cover.from_puzzle(p)
        counts = {spec: get_engine(spec).solve(cover) for spec in ("dlx", "cpsat", "sat")}
        assert len({(r.covers, r.unique, r.total) for r in counts.values()}) == 1, name


def test_a_piece_drawn_out_of_the_layer_with_colours_is_refused():
    with pytest.raises(DefinitionError, match="must be drawn in its layer"):
        puzzle(BOX + "C:name=a:colours=b w:layout=0 0 0, 0 0 1\nC:name=b:copies=*:layout=0 0 0\n~D\n")



def test_a_solution_with_copies_is_drawn_with_a_colour_for_every_copy():
    from bench.drawing.picture import draw
    from bench.drawing.scene import to_svg
    from bench.drawing.solution import Solution
    from bench.engines import Limits

    [puzzle] = bench.load(DEFS / "squares_dominoes_2x6.txt")
    cover = Cover.from_puzzle(puzzle)
    [options] = get_engine("dlx").solve(cover, limits=Limits(max_solutions=1, keep_solutions=1)).solutions
    solution = Solution.from_cover(cover, options)
    placed = {p.name for p in solution.pieces}
    # twelve cells take at least six pieces of the two shapes: copies beyond the first (m.2, d.2, ...) are placed
    assert any("." in name for name in placed) and placed <= set(solution.names)
    assert to_svg(draw(solution)).startswith("<svg")
