"""Lattices as data: the built-in lattices read from their descriptions, new lattices, malformed descriptions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hypothesis import given, reject, settings
from hypothesis import strategies as st

import bench
from bench import Cover
from bench.engines import get_engine
from bench.models.expected import expected_for
from bench.errors import DefinitionError
from bench.models.lattice import BUNDLED_NAMES, LATTICES, load_lattice
from support import DATA, DEFS, ROOT, available_engines, lattice_reference
from support.reference import enumerate_covers
from support.strategies import tiled_puzzles

# the native engines and the solver encodings; model counting (ganak) has its own tests and is slow here
ENGINES = sorted({"dlx", "fila", "cpsat", "sat"} & set(available_engines()))

PINS = json.loads((ROOT / "tests" / "lattice_pins.json").read_text())
"""Per puzzle of every bundled and test definition, with and without ``--mirror``: the cover hashes without and with
the redundancy filter, the group order, each shape's orientation count, the image count and the lattice's motion
count, as the hand-written lattice classes computed them (4c79b7a), before the lattices became data."""


@pytest.mark.parametrize("name", sorted({key.split("#")[0] for key in PINS}))
def test_every_definition_keeps_its_covers_groups_and_orientations(name):
    for mirror in (False, True):
        for i, p in enumerate(bench.load(ROOT / name, mirror=mirror), 1):
            key = f"{name}#{i}" + (" mirror" if mirror else "")
            got = {"plain": Cover.from_puzzle(p).hash, "filtered": Cover.from_puzzle(p, redundancy=True).hash,
                   "group": p.group.order, "orientations": [len(s.orientations) for s in p.shapes],
                   "images": len(p.images), "motions": len(p.lattice.motions)}
            assert got == PINS[key], key


# -- new lattices: free polyforms grown from one cell against the published counts ------------------------------

FREE_COUNTS = {
    # OEIS A197465, free tetrakis polyaboloes, holes allowed (polyaboloes, A006074: 1, 3, 4, 14, 30, 107, are not all
    # sets of tetrakis cells: of the 3 diaboloes the parallelogram is not, of the 4 triaboloes 2 are not)
    "tetrakis": [1, 2, 2, 6, 8, 22],
    # OEIS A343909, polyforms of the tetrahedral-octahedral honeycomb up to rigid motions and reflections, a(1..6)
    "tetraocta": [2, 1, 4, 9, 44, 195],
}


def free_polyforms(lattice, n_max: int) -> list[int]:
    """How many connected sets of n cells there are up to every motion of the lattice, n = 1 .. n_max."""
    every = range(len(lattice.motions))

    def key(cells):
        return min(lattice.normalize(lattice.apply(m, cells)).tobytes() for m in every)

    level = {key(np.array([rep])): np.array([rep]) for rep in lattice._reps}
    counts = [len(level)]
    for _ in range(n_max - 1):
        grown = {}
        for cells in level.values():
            around = lattice.neighbours(cells).reshape(-1, 3)
            around = around[lattice.valid(around)]
            have = {tuple(c) for c in cells.tolist()}
            for cell in {tuple(c) for c in around.tolist()} - have:
                bigger = np.vstack([cells, [cell]])
                grown.setdefault(key(bigger), bigger)
        level = grown
        counts.append(len(level))
    return counts


@pytest.mark.parametrize("name", sorted(FREE_COUNTS))
def test_new_lattices_grow_their_published_free_polyform_counts(name):
    assert free_polyforms(LATTICES[name], 6) == FREE_COUNTS[name]


@pytest.mark.parametrize("name, counts", [("cubic", [1, 1, 2, 7]), ("hex", [1, 1, 3, 7]),
                                           ("triangle", [1, 1, 1, 3])])
def test_the_growth_counter_finds_the_known_sequences_of_the_bundled_lattices(name, counts):
    # free polycubes A038119 (mirror images identified: cubic's 48 motions), polyhexes A000228, polyiamonds A000577
    assert free_polyforms(LATTICES[name], 4) == counts


# -- new lattices: puzzles against the independent brute force (tests/support/lattice_reference.py) --------------


@pytest.mark.parametrize("path", [DATA / "tetrakis_4x2.txt", DEFS / "tetraocta_octahedron_2.txt",
                                  pytest.param(DEFS / "tetraboloes_pentaboloes_4x4.txt", marks=pytest.mark.slow)],
                         ids=lambda p: p.name)
def test_new_lattice_puzzles_agree_with_the_brute_force_on_every_engine(path):
    [puzzle] = bench.load(path)
    expected = expected_for(puzzle)
    oracle = lattice_reference.count(str(path))
    assert (oracle["unique"], oracle["total"], oracle["group"]) == (expected.unique, expected.total, puzzle.group.order)
    assert puzzle.group.order == expected.group
    for redundancy in (None, True):
        cover = Cover.from_puzzle(puzzle, redundancy=redundancy)
        for engine in ENGINES:
            result = get_engine(engine).solve(cover)
            assert (result.unique, result.total) == (expected.unique, expected.total), (engine, redundancy)


@pytest.mark.parametrize("lattice", ["tetrakis", "tetraocta"])
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_random_tilings_of_the_new_lattices_agree_with_the_brute_force(lattice, data, tmp_path_factory):
    text = data.draw(tiled_puzzles(lattice))
    path = tmp_path_factory.mktemp("tiling") / "t.txt"
    path.write_text(text)
    [puzzle] = bench.load(path)
    oracle = lattice_reference.count(str(path))
    assert puzzle.group.order == oracle["group"]
    cover = Cover.from_puzzle(puzzle, redundancy=data.draw(st.sampled_from([None, True])))
    for engine in ENGINES:
        result = get_engine(engine).solve(cover)
        assert (result.unique, result.total) == (oracle["unique"], oracle["total"]), engine


# -- malformed descriptions: path:line: and what was expected -------------------------------------------------

CUBIC_TEXT = (ROOT / "bench" / "lattices" / "cubic.toml").read_text()
FCC_TEXT = (ROOT / "bench" / "lattices" / "fcc.toml").read_text()
TRIANGLE_TEXT = (ROOT / "bench" / "lattices" / "triangle.toml").read_text()
LABELS_TEXT = (DATA / "cubic_labels.toml").read_text()
"""The cubic lattice with its motions written as label permutations."""


def line_of(text: str, fragment: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if fragment in line)


@pytest.mark.parametrize("base, old, new, fragment, message", [
    (CUBIC_TEXT, 'opposite = ["E W", "N S", "U D"]', 'opposite = ["E W", "W N", "U D"]', "opposite =",
     "label W is paired with E and with N; expected each label in one pair (the pairing must be an involution)"),
    (CUBIC_TEXT, 'opposite = ["E W", "N S", "U D"]', 'opposite = ["E W", "N S"]', "opposite =",
     "labels without an opposite: D U"),
    (CUBIC_TEXT, 'map = "(-y, x, z)"', 'map = "(x+y, y, z)"', 'map = "(x+y, y, z)"',
     "motion 'quarter turn about z' does not preserve neighbours"),
    (FCC_TEXT, 'map = "(-y, x, z)"', 'map = "(x+1, y, z)"', 'map = "(x+1, y, z)"',
     "motion 'quarter turn about z' sends the cell (0, 0, 0) to (1, 0, 0), which is not a cell"),
    (CUBIC_TEXT, 'map = "(-y, x, z)"', 'map = "(-y, x, w)"', 'map = "(-y, x, w)"', "uses 'w'; expected the coordinates x, y, z"),
    (CUBIC_TEXT, 'map = "(-y, x, z)"', 'map = "(2x, y, z)"', 'map = "(2x, y, z)"', "does not preserve neighbours"),
    # the pairing is checked from each label in turn: b finds that B does not come back
    (TRIANGLE_TEXT, "B = [1, 0, -1]", "B = [1, 1, -1]", "b = [-1, 0, 1]",
     "label b leads from a up cell to a down cell, whose label B does not lead back (expected B = [1, 0, -1]"),
    (TRIANGLE_TEXT, "c = [0, -1, 1]", "c = [0, -1, 2]", "c = [0, -1, 2]", "neighbour c of a up cell, (0, -1, 2), is not a cell"),
    (CUBIC_TEXT, "W = [-1, 0, 0]", "W = [-1, 0]", "W = [-1, 0]", "expected an offset [x, y, z]"),
    (CUBIC_TEXT, 'axes = "xyz"', 'axes = "xyz"\nflat = true', "flat = true", "the translations move along xyz"),
    # TOML's own errors say where its parser stopped: the line after the unclosed array
    (CUBIC_TEXT, "E = [1, 0, 0]", "E = [1, 0, 0", "W = [-1, 0, 0]", "not TOML: Unclosed array"),
    # motions as label permutations
    (LABELS_TEXT, 'labels = { E = "N", N = "W", W = "S", S = "E" }', 'labels = { E = "N", N = "E" }', "N = \"E\" }",
     "motion 'quarter turn about z': labels does not preserve neighbours: no linear map of the steps sends each "
     "label's step to its image's (it would send"),
    (LABELS_TEXT, 'labels = { E = "N", N = "W", W = "S", S = "E" }', 'labels = { E = "N", W = "N" }', 'W = "N" }',
     "labels sends two labels to N; expected a permutation of the labels"),
    (LABELS_TEXT, 'labels = { E = "N", N = "W", W = "S", S = "E" }', 'labels = { E = "Q" }', '{ E = "Q" }',
     "labels: no label Q"),
    (TRIANGLE_TEXT, 'map = "(y, x, t)"', 'labels = { a = "b", b = "a" }', 'labels = { a = "b"',
     "labels = ... needs a lattice of one type"),
])
def test_every_malformed_description_names_its_line(tmp_path, base, old, new, fragment, message):
    text = base.replace(old, new, 1)
    assert text != base
    path = tmp_path / "mine.toml"
    path.write_text(text)
    with pytest.raises(DefinitionError) as info:
        load_lattice(path)
    error = info.value
    assert error.path == str(path)
    # the flat lattice's translations are checked where they are written; TOML's own errors where it stopped
    want = line_of(text, "translations") if "translations move" in message else line_of(text, fragment)
    assert error.line == want, str(error)
    assert message in error.message, str(error)


def test_a_definition_names_a_description_beside_it_and_a_bad_one_says_where(tmp_path):
    (tmp_path / "squares.toml").write_text(CUBIC_TEXT.replace('name = "cubic"', 'name = "squares"'))
    (tmp_path / "p.txt").write_text("D:xDim=2:yDim=2:zDim=1:lattice=squares.toml\nC:name=a:layout=0 0 0, 1 0 0\n"
                                    "C:name=b:layout=0 0 0, 1 0 0\n~D\n")
    result = bench.solve(tmp_path / "p.txt", engine="dlx")
    assert (result.unique, result.total) == (1, 2)
    (tmp_path / "cubic.toml").write_text(CUBIC_TEXT.replace("D = [0, 0, -1]", "D = [0, 0, -2]"))
    (tmp_path / "q.txt").write_text("D:xDim=2:yDim=2:zDim=1:lattice=cubic.toml\nC:name=a:layout=0 0 0\n~D\n")
    with pytest.raises(DefinitionError) as info:
        bench.load(tmp_path / "q.txt")
    assert info.value.path == str(tmp_path / "cubic.toml")
    assert info.value.line == line_of(CUBIC_TEXT, "U = [0, 0, 1]")
    assert "label U leads from a cube cell to a cube cell, whose label D does not lead back" in info.value.message
    (tmp_path / "r.txt").write_text("D:xDim=2:yDim=2:zDim=1:lattice=nowhere.toml\nC:name=a:layout=0 0 0\n~D\n")
    with pytest.raises(DefinitionError, match="cannot read the lattice description"):
        bench.load(tmp_path / "r.txt")


def test_the_worked_example_of_the_docs_parses_grows_and_solves(tmp_path):
    page = (ROOT / "docs" / "lattices.md").read_text()
    description = page.split("```toml\n", 1)[1].split("```", 1)[0]
    puzzle = page.split("A puzzle on it", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    (tmp_path / "octagons.toml").write_text(description)
    (tmp_path / "block.txt").write_text(puzzle)
    lattice = load_lattice(tmp_path / "octagons.toml")
    # OEIS A343577, generalized polyforms of the truncated square tiling: a(1..5)
    assert free_polyforms(lattice, 5) == [2, 2, 7, 22, 93]
    assert (len(lattice.motions), lattice.two_colourable) == (8, False)
    for engine in ENGINES:
        result = bench.solve(tmp_path / "block.txt", engine=engine)
        assert (result.unique, result.total) == (4, 8), engine


# -- boards that wrap round: cylinders and tori --------------------------------------------------------------------

WRAP_LATTICES = sorted(BUNDLED_NAMES)
ORACLE_NODES = 100_000
"""The brute force's node budget for a random wrapped puzzle (a few seconds of Python); a larger one is redrawn."""


def wraps(lattice, dims) -> list[str]:
    """The wraps a box of ``dims`` allows: at least 3 round, a multiple of the lattice's period."""
    return [w for w in ("x", "y", "xy") if all(dims["xy".index(a)] >= 3 and not dims["xy".index(a)] %
                                                 lattice.period("xy".index(a)) for a in w)]


@pytest.mark.parametrize("lattice", WRAP_LATTICES)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_random_wrapped_tilings_agree_with_the_brute_force_on_every_engine(lattice, data, tmp_path_factory):
    text = data.draw(tiled_puzzles(lattice, small=True, wrappable=True))
    if not LATTICES[lattice].flat:
        # the oracle turns a 3-D lattice's pieces in one layer as in space (one-sided only on flat lattices)
        text = text.replace(":oneSide", "")
    [definition] = bench.parse_text(text, "t.txt")
    wrap = data.draw(st.sampled_from(wraps(definition.lattice, definition.dims) or [""]))
    if wrap:
        text = text.replace("\n", f":wrap={wrap}\n", 1)
    path = tmp_path_factory.mktemp("wrapped") / "t.txt"
    path.write_text(text)
    [puzzle] = bench.load(path)
    try:
        # a random wrapped board can have millions of partial tilings: the pure-Python oracle gives up on those
        oracle = lattice_reference.count(str(path), max_nodes=ORACLE_NODES)
    except lattice_reference.TooLarge:
        reject()
    except lattice_reference.Indistinct:
        # beyond the oracle: the engines, the redundancy filter on, against an unfiltered dlx
        single = get_engine("dlx").solve(Cover.from_puzzle(puzzle))
        oracle = {"group": puzzle.group.order, "unique": single.unique, "total": single.total}
    assert puzzle.group.order == oracle["group"], text
    cover = Cover.from_puzzle(puzzle, redundancy=data.draw(st.sampled_from([None, True])))
    for engine in ENGINES:
        result = get_engine(engine).solve(cover)
        assert (result.unique, result.total) == (oracle["unique"], oracle["total"]), (engine, text)


@pytest.mark.parametrize("name", ["tetrominoes_torus_5x4.txt", "tetrominoes_cylinder_5x4.txt"])
def test_the_bundled_torus_and_cylinder_agree_with_the_brute_force_on_every_engine(name):
    path = DEFS / name
    [puzzle] = bench.load(path)
    expected = expected_for(puzzle)
    oracle = lattice_reference.count(str(path))
    assert (oracle["unique"], oracle["total"], oracle["group"]) == (expected.unique, expected.total, expected.group)
    assert puzzle.group.order == expected.group and puzzle.wrapped and not puzzle.has_parity
    for redundancy in (None, True):
        cover = Cover.from_puzzle(puzzle, redundancy=redundancy)
        for engine in ENGINES:
            result = get_engine(engine).solve(cover)
            assert (result.unique, result.total) == (expected.unique, expected.total), (engine, redundancy)


def test_the_pentomino_torus_has_the_240_symmetries_of_its_convention():
    [puzzle] = bench.load(DEFS / "pentominoes_torus_10x6.txt")
    expected = expected_for(puzzle)
    # 60 translations, each with the identity, the half turn and the two flips; no quarter turn fits 10x6
    assert puzzle.group.order == expected.group == 240 and expected.total == 240 * expected.unique
    assert sorted({name.split("+")[0] for name in puzzle.group.names}) == ["(-x,-y,z)", "(-x,y,-z)", "(x,-y,-z)", "(x,y,z)"]


@pytest.mark.slow  # 1.3 million covers of the filtered matrix: minutes
def test_the_pentominoes_on_the_10x6_torus_count_as_expected():
    [puzzle] = bench.load(DEFS / "pentominoes_torus_10x6.txt")
    expected = expected_for(puzzle)
    result = get_engine("dlx").solve(Cover.from_puzzle(puzzle, redundancy=True))
    assert (result.covers, result.unique, result.total) == (expected.unique, expected.unique, expected.total)


@pytest.mark.parametrize("header, message", [
    ("D:xDim=5:yDim=4:zDim=1:wrap=z", "wrap=z; expected wrap=x or wrap=y (a cylinder) or wrap=xy (a torus)"),
    ("D:xDim=2:yDim=4:zDim=1:wrap=xy", "wrap=xy round xDim=2; expected at least 3 cells round"),
    ("D:xDim=5:yDim=4:zDim=4:lattice=fcc:wrap=x", "wrap=x round xDim=5 on the fcc lattice: its cells repeat along x "
     "only every 2 steps, so the glued sides would join unlike cells; expected xDim a multiple of 2"),
    ("D:xDim=8:yDim=6:zDim=4:lattice=tetraocta:wrap=xy", "wrap=xy round yDim=6 on the tetraocta lattice: its cells "
     "repeat along y only every 4 steps"),
])
def test_a_wrap_that_cannot_be_says_so_at_its_line(header, message):
    with pytest.raises(DefinitionError) as info:
        bench.parse_text(header + "\nC:name=a:layout=0 0 0\n~D\n", "t.txt")
    assert info.value.line == 1 and message in info.value.message, str(info.value)


def test_a_cylinder_round_an_even_number_of_squares_keeps_its_checkerboard():
    [puzzle] = bench.parse_text("D:xDim=4:yDim=2:zDim=1:wrap=x\nC:name=a:layout=0 0 0, 1 0 0\nC:name=b:layout=0 0 0, 1 0 0\n"
                                "C:name=c:layout=0 0 0, 1 0 0\nC:name=d:layout=0 0 0, 1 0 0\n~D\n", "t.txt")
    from bench.models.puzzle import Puzzle
    p = Puzzle.from_definition(puzzle)
    # dominoes round a cylinder 4 round and 2 high: 4 ways with both rows round, 4 with a pair upright, 1 all upright
    assert p.has_parity and (p.group.order, len(p.images)) == (16, 12)
    result = get_engine("dlx").solve(Cover.from_puzzle(p))
    assert (result.unique, result.total) == (4, 9)


def test_info_shows_the_lattice_its_group_orders_and_the_wrap(capsys):
    from bench.cli import main

    assert main(["info", str(DEFS / "tetrominoes_torus_5x4.txt")]) == 0
    facts = dict(line.split("=", 1) for line in capsys.readouterr().out.splitlines() if "=" in line)
    assert (facts["LATTICE"], facts["LATTICE_MOTIONS"], facts["LATTICE_PROPER_MOTIONS"], facts["WRAP"],
            facts["SYMMETRY_GROUP_ORDER"]) == ("cubic", "48", "24", "xy", "80")


def test_a_torus_is_drawn_flat_with_its_seams_marked():
    from bench.drawing.picture import SEAM, draw
    from bench.drawing.solution import Solution

    [puzzle] = bench.load(DEFS / "tetrominoes_torus_5x4.txt")
    cover = Cover.from_puzzle(puzzle)
    chosen = enumerate_covers(cover, limit=1)[0]
    solution = Solution.from_cover(cover, chosen, "torus")
    assert Solution.from_json(solution.to_json()).wrap == "xy"
    scene = draw(solution)
    seams = [item for item in scene.items if getattr(item, "role", "") == "seam"]
    # drawn flat, the 5x4 torus shows its left-right seam twice (4 edges at each side) and its top-bottom one twice
    assert len(seams) == 2 * 4 + 2 * 5 and all(line.stroke == SEAM for line in seams)
    captions = [item.text for item in scene.items if getattr(item, "role", "") == "caption"]
    assert any("a torus" in text for text in captions)


# -- motions as label permutations (the thesis's t(North) = West, ...) -------------------------------------------

@pytest.mark.parametrize("name", ["dominoes_4x4.txt", "somacube.txt"])
def test_the_cubic_lattice_with_label_permutations_is_the_cubic_lattice(tmp_path, name):
    (tmp_path / "cubic_labels.toml").write_text(LABELS_TEXT)
    text = (DEFS / name).read_text()
    header = next(line for line in text.splitlines() if line.startswith("D:"))
    (tmp_path / name).write_text(text.replace(header, header + ":lattice=cubic_labels.toml", 1))
    [mine] = bench.load(tmp_path / name)
    [cubic] = bench.load(DEFS / name)
    assert mine.lattice.name == "cubic-labels"
    assert [g.name for g in mine.lattice.motions] == [g.name for g in cubic.lattice.motions]
    assert (mine.group.order, len(mine.images)) == (cubic.group.order, len(cubic.images))
    assert Cover.from_puzzle(mine, redundancy=True).hash == Cover.from_puzzle(cubic, redundancy=True).hash
    result = get_engine("dlx").solve(Cover.from_puzzle(mine, redundancy=True))
    expected = expected_for(cubic)
    assert (result.unique, result.total) == (expected.unique, expected.total)


def test_a_wrap_that_makes_a_cell_touch_one_cell_twice_says_so(tmp_path):
    # steps of 2: round 4 cells, east and west lead to the same cell
    text = CUBIC_TEXT.replace('name = "cubic"', 'name = "spread"')
    for old, new in (("[1, 0, 0]", "[2, 0, 0]"), ("[-1, 0, 0]", "[-2, 0, 0]"), ("[0, 1, 0]", "[0, 2, 0]"),
                     ("[0, -1, 0]", "[0, -2, 0]"), ("[0, 0, 1]", "[0, 0, 2]"), ("[0, 0, -1]", "[0, 0, -2]")):
        text = text.replace(f"= {old}", f"= {new}")
    (tmp_path / "spread.toml").write_text(text)
    (tmp_path / "t.txt").write_text("D:xDim=4:yDim=5:zDim=1:lattice=spread.toml:wrap=x\nC:name=a:layout=0 0 0\n~D\n")
    with pytest.raises(DefinitionError) as info:
        bench.load(tmp_path / "t.txt")
    assert info.value.line == 1
    assert "wrap=x round 4x5: a cube cell would touch one cell twice (labels E and W)" in info.value.message


def test_pieces_that_cover_the_same_ring_are_still_told_apart(tmp_path):
    # on a cylinder 3 round, the L and the T tetromino are both a ring and one cell: one partition of the board,
    # two covers (which piece lies where); the oracle says it cannot tell them apart, the engines count both
    path = tmp_path / "ring.txt"
    path.write_text("D:xDim=3:yDim=3:zDim=1:wrap=y\nC:name=L:layout=0 0 0, 1 0 0, 0 1 0, 0 2 0\n"
                    "C:name=T:layout=1 1 0, 2 1 0, 2 0 0, 2 2 0\nC:name=hole:type=S:layout=1 2 0\n~D\n")
    with pytest.raises(lattice_reference.Indistinct, match="L and T can cover the same cells"):
        lattice_reference.count(str(path))
    [puzzle] = bench.load(path)
    for redundancy in (None, True):
        cover = Cover.from_puzzle(puzzle, redundancy=redundancy)
        for engine in ENGINES:
            result = get_engine(engine).solve(cover)
            assert (result.covers if redundancy is None else 4, result.unique, result.total) == (4, 1, 4), engine
