"""The lattices: their groups, polyform counts, definitions, board symmetry, engines and output on each."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import bench
from bench import Cover, DefinitionError, UsageError, parse_text
from bench.engines import Limits, Status, get_engine
from bench.models.expected import expected_for
from bench.models.filters import parity_filter
from bench.models.lattice import BUNDLED_NAMES, CUBIC, FCC, HEX, HEXPRISM, LATTICES, TRIANGLE, get_lattice
from bench.models.parity import parity_monitor
from bench.models.puzzle import Puzzle
from bench.cli.output import layout_lines, render
from support import DATA, available_engines
from support.reference import enumerate_covers, orbit_counts
from support.strategies import tiled_puzzles

ORDERS = {"cubic": (48, 24), "hex": (12, 6), "triangle": (12, 6), "hexprism": (24, 12), "fcc": (48, 24)}
NEIGHBOURS = {"cubic": 6, "hex": 6, "triangle": 3, "hexprism": 8, "fcc": 12}


def puzzle_of(text: str) -> Puzzle:
    [definition] = parse_text(text, "t.txt")
    return Puzzle.from_definition(definition)


def cell_set(coords) -> set:
    return set(map(tuple, np.asarray(coords).tolist()))


# -- the groups ----------------------------------------------------------------------------------


def test_registry_lists_exactly_the_bundled_lattices():
    # a description a definition names joins the registry for the process (the docs' example, in another test)
    assert sorted(BUNDLED_NAMES) == ["cubic", "fcc", "hex", "hexprism", "tetrakis", "tetraocta", "triangle"]
    assert set(BUNDLED_NAMES) <= set(LATTICES)
    assert get_lattice("hex") is HEX
    with pytest.raises(UsageError, match="unknown lattice 'square'; expected one of: cubic, fcc, hex, hexprism, tetrakis, "
                                         "tetraocta, triangle, or a description FILE.toml"):
        get_lattice("square")


def test_a_bundled_description_is_read_when_first_asked_for(tmp_path):
    # the registry reads a bundled file on first use: one never asked for costs nothing, even a broken one
    from bench.models.lattice import _Registry

    hex_text = Path(HEX.path).read_text()
    (tmp_path / "hex.toml").write_text(hex_text)
    (tmp_path / "broken.toml").write_text("name = \n")
    (tmp_path / "wrong.toml").write_text(hex_text)
    registry = _Registry({path.stem: path for path in sorted(tmp_path.glob("*.toml"))})
    assert list(registry) == ["broken", "hex", "wrong"] and "broken" in registry and len(registry) == 3
    assert registry["hex"].digest == HEX.digest and registry["hex"] is registry["hex"]
    with pytest.raises(DefinitionError, match=r"wrong.toml:2: .*must be called 'wrong'"):
        registry["wrong"]
    with pytest.raises(DefinitionError, match=r"broken.toml:1: not TOML"):
        registry["broken"]


def motion_key(lattice, coords):
    """The map a motion makes of an ordered sample, forgetting the translation (rows relative to the first)."""
    return (coords - coords[0]).tobytes()


@pytest.mark.parametrize("name", sorted(ORDERS))
def test_group_order_identity_first_and_closure(name):
    lattice = get_lattice(name)
    motions = lattice.motions
    assert (len(motions), sum(g.proper for g in motions)) == ORDERS[name]
    assert np.array_equal(motions[0].matrix, np.eye(3)) and not motions[0].shift.any()
    # proper motions come first, so allowed-motion indices of 3-D puzzles are 0 .. n_proper - 1
    assert [g.proper for g in motions] == sorted((g.proper for g in motions), reverse=True)
    sample = lattice.box_coords((3, 3, 1) if lattice.flat else (3, 3, 3))
    moved = [lattice.apply(i, sample) for i in range(len(motions))]
    keys = {motion_key(lattice, m): i for i, m in enumerate(moved)}
    # no two motions are the same map up to a translation
    assert len(keys) == len(motions)
    composed = 0
    for a, b in itertools.product(range(len(motions)), repeat=2):
        twice = lattice.apply(a, moved[b])
        c = keys[motion_key(lattice, twice)]
        # ... and the two differ by a translation of the lattice
        step = twice[0] - moved[c][0]
        assert lattice.is_translation([step]).all() and not (step * (1 - lattice.translation_axes)).any()
        composed += 1
    assert composed == len(motions) ** 2


@pytest.mark.parametrize("name", sorted(ORDERS))
def test_motions_keep_cells_and_neighbours(name):
    lattice = get_lattice(name)
    cells = lattice.box_coords((4, 4, 1) if lattice.flat else (4, 4, 4))
    assert lattice.valid(cells).all() and len(cells) > 10
    nbrs = lattice.neighbours(cells)
    assert nbrs.shape == (len(cells), NEIGHBOURS[name], 3)
    assert lattice.valid(nbrs.reshape(-1, 3)).all()
    # the neighbour relation is symmetric
    for c, around in zip(cells, nbrs):
        for n in around:
            assert tuple(c) in cell_set(lattice.neighbours([n])[0])
    checked = 0
    for i in range(len(lattice.motions)):
        moved = lattice.apply(i, cells)
        assert lattice.valid(moved).all()
        moved_nbrs = lattice.apply(i, nbrs.reshape(-1, 3)).reshape(nbrs.shape)
        for around, want in zip(moved_nbrs, lattice.neighbours(moved)):
            assert cell_set(around) == cell_set(want)
            checked += 1
    assert checked == len(lattice.motions) * len(cells)


def test_off_lattice_points_are_rejected():
    assert list(HEX.valid([[0, 0, 0], [1, 2, 3]])) == [True, False]
    assert list(TRIANGLE.valid([[0, 0, 1], [0, 0, 2], [0, 0, -1]])) == [True, False, False]
    assert list(FCC.valid([[1, 1, 0], [1, 0, 0]])) == [True, False]
    assert CUBIC.valid([[5, -3, 2]]).all() and HEXPRISM.valid([[5, -3, 2]]).all()


def test_triangle_turn_is_the_hexagon_turn_of_the_centroids():
    # centroids of the triangles, scaled by 3, in the axial coordinates of the hexagon lattice
    cells = TRIANGLE.box_coords((4, 4, 1))
    centroid = np.stack([3 * cells[:, 0] + 1 + cells[:, 2], 3 * cells[:, 1] + 1 + cells[:, 2]], axis=1)
    turned = np.stack([-centroid[:, 1], centroid[:, 0] + centroid[:, 1]], axis=1)
    x, y, t = cells.T
    formula = np.stack([-y - 1, x + y + t, 1 - t], axis=1)
    back = np.stack([3 * formula[:, 0] + 1 + formula[:, 2], 3 * formula[:, 1] + 1 + formula[:, 2]], axis=1)
    assert np.array_equal(back, turned)
    # the lattice's turn is that map up to a translation of the lattice
    matches = [i for i in range(12) if motion_key(TRIANGLE, TRIANGLE.apply(i, cells)) == motion_key(TRIANGLE, formula)]
    assert len(matches) == 1 and TRIANGLE.motions[matches[0]].proper
    step = formula[0] - TRIANGLE.apply(matches[0], cells[:1])[0]
    assert step.tolist() == [-1, 0, 0]


def test_describe_and_colours():
    assert CUBIC.describe(CUBIC.motions[0]) == "(x,y,z)" and HEX.describe(HEX.motions[0]) == "(q,r)"
    assert "(r,q)" in [HEX.describe(g) for g in HEX.motions if not g.proper]
    assert "(-y,x+y+t,1-t)" in [TRIANGLE.describe(g) for g in TRIANGLE.motions if g.proper]
    assert list(CUBIC.colour([[0, 0, 0], [1, 0, 0]])) == [1, -1]
    assert list(TRIANGLE.colour([[0, 0, 0], [0, 0, 1]])) == [1, -1]
    assert HEX.colour([[0, 0, 0]]) is None and HEXPRISM.colour([[0, 0, 0]]) is None and FCC.colour([[0, 0, 0]]) is None


def test_normalize_moves_only_by_lattice_translations():
    # the triangle's t never changes, and fcc points stay fcc points
    assert TRIANGLE.normalize([[3, 5, 1], [4, 5, 0]]).tolist() == [[0, 0, 1], [1, 0, 0]]
    odd_corner = np.array([[1, 0, 1], [0, 1, 1]])
    shifted = FCC.normalize(odd_corner)
    assert FCC.valid(shifted).all() and FCC.is_translation([odd_corner[0] - shifted[1]]).all()
    assert np.array_equal(FCC.normalize(odd_corner + [5, 3, 0]), shifted)


@pytest.mark.parametrize("name", BUNDLED_NAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_orientations_at_once_are_each_motion_applied_and_normalized(name, data):
    # _distinct moves a piece by every motion at once: the same images, in the same order, as one motion at a time
    lattice = LATTICES[name]
    cells = [lattice.normalize(np.zeros((1, 3), dtype=np.int64))[0]]
    for _ in range(data.draw(st.integers(0, 6))):
        cell = cells[data.draw(st.integers(0, len(cells) - 1))]
        offsets = lattice.type_offsets[lattice.type_of(cell[None, :])[0]]
        cells.append(cell + offsets[data.draw(st.integers(0, len(offsets) - 1))])
    cells = np.unique(np.array(cells), axis=0)
    motions = data.draw(st.lists(st.integers(0, len(lattice.motions) - 1), min_size=1, unique=True))
    one_at_a_time: dict[bytes, np.ndarray] = {}
    for m in motions:
        image = lattice.normalize(lattice.apply(m, cells))
        one_at_a_time.setdefault(image.tobytes(), image)
    at_once = lattice._distinct(cells, motions)
    assert [o.tolist() for o in at_once] == [o.tolist() for o in one_at_a_time.values()]


@pytest.mark.parametrize("name, dims, one_side, count", [
    ("cubic", (3, 3, 1), False, 8), ("cubic", (3, 3, 1), True, 4), ("cubic", (3, 3, 3), False, 24),
    ("hex", (3, 3, 1), False, 12), ("hex", (3, 3, 1), True, 6),
    ("triangle", (3, 3, 1), False, 12), ("triangle", (3, 3, 1), True, 6),
    ("hexprism", (3, 3, 1), False, 12), ("hexprism", (3, 3, 1), True, 6), ("hexprism", (3, 3, 2), False, 12),
    ("fcc", (3, 3, 1), False, 8), ("fcc", (3, 3, 1), True, 4), ("fcc", (3, 3, 3), False, 24),
])
def test_allowed_motions(name, dims, one_side, count):
    lattice = get_lattice(name)
    allowed = lattice.allowed_motions(dims, one_side)
    assert len(allowed) == count and allowed[0] == 0
    if dims[2] == 1 and not lattice.flat:
        assert all(abs(lattice.motions[i].matrix[2, 2]) == 1 for i in allowed)
    if not lattice.flat and dims[2] > 1:
        assert all(lattice.motions[i].proper for i in allowed)


# -- polyforms -------------------------------------------------------------------------------------


def polyform_counts(name, dims, one_side, largest, mirrors=False):
    """Classes of connected n-cell pieces, n = 1 .. largest, grown cell by cell from one cell.

    Classes are taken under the motions a piece of a ``dims`` puzzle may
    undergo, or under the whole group with ``mirrors``.
    """
    lattice = get_lattice(name)
    motions = range(len(lattice.motions)) if mirrors else lattice.allowed_motions(dims, one_side)

    def key(cells):
        return min(lattice.normalize(lattice.apply(int(m), cells)).tobytes() for m in motions)

    origin = np.zeros((1, 3), dtype=np.int64)
    level = {key(origin): origin}
    counts = [len(level)]
    for _ in range(largest - 1):
        grown = {}
        for cells in level.values():
            for cell in cell_set(lattice.neighbours(cells).reshape(-1, 3)) - cell_set(cells):
                if dims[2] == 1 and not lattice.flat and cell[2] != 0:
                    continue
                bigger = np.vstack([cells, [cell]])
                grown.setdefault(key(bigger), bigger)
        level = grown
        counts.append(len(level))
    return counts


@pytest.mark.parametrize("name, dims, one_side, expected", [
    ("cubic", (9, 9, 1), False, [1, 1, 2, 5, 12, 35]),        # free polyominoes
    ("cubic", (9, 9, 1), True, [1, 1, 2, 7, 18, 60]),         # one-sided polyominoes
    ("cubic", (9, 9, 9), False, [1, 1, 2, 8, 29, 166]),       # polycubes, mirror images distinct
    ("hex", (9, 9, 1), False, [1, 1, 3, 7, 22, 82]),          # free polyhexes
    ("hex", (9, 9, 1), True, [1, 1, 3, 10, 33, 147]),         # one-sided polyhexes
    ("hexprism", (9, 9, 1), False, [1, 1, 3, 7, 22, 82]),     # one layer of prisms: polyhexes again
    ("triangle", (9, 9, 1), False, [1, 1, 1, 3, 4, 12, 24]),  # free polyiamonds
    ("triangle", (9, 9, 1), True, [1, 1, 1, 4, 6, 19, 43]),   # one-sided polyiamonds
    ("fcc", (9, 9, 1), False, [1, 1, 2, 5, 12]),              # one fcc layer is a square grid
    ("fcc", (9, 9, 9), False, [1, 1, 5]),                     # polyspheres: see below
])
def test_polyform_counts(name, dims, one_side, expected):
    assert polyform_counts(name, dims, one_side, len(expected)) == expected


def test_three_balls_bend_at_60_90_120_or_180_degrees_and_the_120_bend_is_chiral():
    # up to all 48 motions: a triangle and bends of 90, 120 and 180 degrees; the 120 degree bend's mirror
    # image (in its own plane, a reflection the cube does not have) is no rotation of it
    assert polyform_counts("fcc", (9, 9, 9), False, 3, mirrors=True) == [1, 1, 4]
    assert polyform_counts("cubic", (9, 9, 9), False, 5, mirrors=True) == [1, 1, 2, 7, 23]


@pytest.mark.slow
def test_octacubes_octahexes_and_enneiamonds():
    assert polyform_counts("cubic", (9, 9, 9), False, 8)[-2:] == [1023, 6922]
    assert polyform_counts("hex", (9, 9, 1), False, 8)[-2:] == [333, 1448]
    assert polyform_counts("triangle", (9, 9, 1), False, 9)[-2:] == [66, 160]


# -- definitions ---------------------------------------------------------------------------------


def parse_error(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as info:
        for d in parse_text(text, "t.txt"):
            Puzzle.from_definition(d)
    return info.value


@pytest.mark.parametrize("text, line, fragment", [
    ("D:xDim=1:yDim=1:zDim=1:lattice=square\n~D", 1, "unknown lattice 'square'; expected one of: cubic, fcc, hex, hexprism, "
                                                      "tetrakis, tetraocta, triangle"),
    ("D:xDim=2:yDim=2:zDim=2:lattice=hex\n~D", 1, "the hex lattice is two-dimensional, but zDim=2; expected zDim=1"),
    ("D:xDim=2:yDim=2:zDim=3:lattice=triangle\n~D", 1, "the triangle lattice is two-dimensional"),
    ("D:xDim=2:yDim=2:zDim=2:lattice=fcc:oneSide\n~D", 1, "oneSide needs a 2-D puzzle (zDim=1), but zDim=2"),
    ("D:xDim=2:yDim=2:zDim=2:lattice=hexprism:oneSide\n~D", 1, "oneSide needs a 2-D puzzle"),
    ("D:xDim=3:yDim=3:zDim=1:lattice=hex\nC:name=a:layout=0 0 0, 1 2 3\n~D", 2, "cell (1 2 3) is not on the hex lattice; expected z = 0"),
    ("D:xDim=3:yDim=3:zDim=1:lattice=triangle\nC:name=a:layout=0 0 2\n~D", 2, "cell (0 0 2) is not on the triangle lattice; expected t = 0 (up) or t = 1 (down)"),
    ("D:xDim=3:yDim=3:zDim=3:lattice=fcc\nC:name=a:layout=0 0 0, 1 0 0\n~D", 2, "cell (1 0 0) is not on the fcc lattice; expected x + y + z even"),
    ("D:xDim=2:yDim=1:zDim=1:lattice=triangle\nC:name=s:type=S:layout=2 0 0\nC:name=a:layout=0 0 0\n~D", 2,
     "outside the 2x1x1 box; expected 0 <= x < 2, 0 <= y < 1, 0 <= t < 2"),
    ("D:xDim=2:yDim=2:zDim=1:lattice=hex\nC:name=s:type=S:layout=0 2 0\nC:name=a:layout=0 0 0\n~D", 2,
     "outside the 2x2x1 box; expected 0 <= q < 2, 0 <= r < 2, 0 <= z < 1"),
    ("D:xDim=3:yDim=2:zDim=1:lattice=fcc\nL\na\na a a\n~L\n~D", 4, "ragged drawing row"),
    ("D:xDim=3:yDim=3:zDim=1:lattice=fcc\nL\na a a\na\n~L\n~D", 4, "only the lattice points are drawn"),
    ("D:xDim=2:yDim=1:zDim=1:lattice=triangle\nL\na a a\na a\n~L\n~D", 4, "ragged drawing row"),
    ("D:xDim=2:yDim=1:zDim=1:lattice=hex\nL\na a, b b\n~L\n~D", 3, "2 slices but zDim=1"),
])
def test_every_lattice_error_names_file_line_and_expectation(text, line, fragment):
    err = parse_error(text)
    assert (err.path, err.line) == ("t.txt", line), str(err)
    assert fragment in err.message, str(err)


def test_lattice_key_absent_means_cubic_and_is_kept():
    [d] = parse_text("D:xDim=2:yDim=1:zDim=1\nC:name=a:layout=0 0 0,1 0 0\n~D")
    assert d.lattice is CUBIC
    for name in LATTICES:
        z = 1 if get_lattice(name).flat else 2
        cell = " ".join(map(str, get_lattice(name).box_coords((3, 3, z))[0]))
        [d] = parse_text(f"D:xDim=2:yDim=2:zDim={z}:lattice={name}\nC:name=a:layout={cell}\n~D")
        assert d.lattice is get_lattice(name)


@pytest.mark.parametrize("header, drawing, coordinates", [
    ("D:xDim=3:yDim=2:zDim=1:lattice=hex", "  . b b\n. . b", "1 1 0, 2 1 0, 2 0 0"),
    ("D:xDim=3:yDim=2:zDim=1:lattice=hex", ".bb\n..b", "1 1 0, 2 1 0, 2 0 0"),
    ("D:xDim=3:yDim=2:zDim=1:lattice=triangle", "  . b b . . .\n. . b . . .", "0 1 1, 1 1 0, 1 0 0"),
    ("D:xDim=2:yDim=2:zDim=2:lattice=hexprism", " b ., . .\nb b, . b", "0 1 0, 0 0 0, 1 0 0, 1 0 1"),
    # fcc rows that fit a box of either width: x = 1, 3 above x = 0, 2 (mobile pieces may be drawn past the box)
    ("D:xDim=3:yDim=2:zDim=1:lattice=fcc", " b b\nb b", "1 1 0, 3 1 0, 0 0 0, 2 0 0"),
    ("D:xDim=4:yDim=2:zDim=2:lattice=fcc", " b ., . b\nb . , b .", "1 1 0, 0 0 0, 1 0 1, 2 1 1"),
])
def test_drawings_equal_their_coordinate_forms(header, drawing, coordinates):
    [drawn] = parse_text(f"{header}\nL\n{drawing}\n~L\n~D")
    [listed] = parse_text(f"{header}\nC:name=b:layout={coordinates}\n~D")
    assert cell_set(drawn.pieces[0].cells) == cell_set(listed.pieces[0].cells)
    assert len(drawn.pieces[0].cells) == len(coordinates.split(","))


def test_docstring_examples_parse():
    import re

    import bench.models.definition as definition

    blocks = re.findall(r"::\n\n((?:    .*\n|\n)+)", definition.__doc__)
    lattices = []
    for block in blocks[1:]:
        [d] = parse_text("\n".join(line[4:] for line in block.splitlines()))
        puzzle = Puzzle.from_definition(d)
        assert puzzle.n_open == puzzle.mobile_volume
        lattices.append(d.lattice.name)
    assert lattices == ["hex", "triangle", "hexprism", "fcc"]


# -- the puzzle model ----------------------------------------------------------------------------


def test_box_numbering_leaves_out_points_off_the_lattice():
    p = puzzle_of("D:xDim=3:yDim=2:zDim=2:lattice=fcc\n" + "".join(f"C:name=m{k}:layout=0 0 0\n" for k in range(6)) + "~D")
    assert p.box_cells == 6 and p.n_open == 6 and p.grid_dims == (3, 2, 2)
    assert FCC.valid(p.box_coords).all()
    assert np.array_equal(p.box_index(p.box_coords), np.arange(6))
    t = puzzle_of("D:xDim=2:yDim=2:zDim=1:lattice=triangle\n" + "".join(f"C:name=m{k}:layout=0 0 0\n" for k in range(8)) + "~D")
    assert t.box_cells == 8 and t.grid_dims == (2, 2, 2) and t.dims == (2, 2, 1)
    # a 2 x 2 parallelogram of rhombi is a rhombus: the half turn and two mirrors; full, but not rows of squares
    assert t.planar and not t.rectangle and t.group.order == 4


def test_images_translate_only_along_the_lattice():
    # the up triangle fits in every rhombus, but never as a down triangle
    t = puzzle_of("D:xDim=2:yDim=2:zDim=1:lattice=triangle\n" + "".join(f"C:name=m{k}:layout=0 0 0\n" for k in range(8)) + "~D")
    [shape] = t.shapes
    assert len(shape.orientations) == 2 and len(t.images) == 8
    f = puzzle_of("D:xDim=3:yDim=3:zDim=1:lattice=fcc\n" + "".join(f"C:name=m{k}:layout=0 0 0, 1 1 0\n" for k in range(2))
                  + "C:name=x:layout=0 0 0\n~D")
    assert FCC.valid(f.open_coords).all() and f.n_open == 5
    for i in range(len(f.images)):
        assert FCC.valid(f.open_coords[f.images.image_cells(i)]).all()


@pytest.mark.parametrize("name, dims", [("cubic", (3, 3, 2)), ("hex", (3, 3, 1)), ("triangle", (3, 2, 1)),
                                        ("hexprism", (3, 2, 2)), ("fcc", (3, 3, 3))])
def test_cell_neighbours_follow_the_lattice(name, dims):
    lattice = get_lattice(name)
    cells = lattice.box_coords(dims)
    text = f"D:xDim={dims[0]}:yDim={dims[1]}:zDim={dims[2]}:lattice={name}\n" + "".join(
        f"C:name=m{k}:layout={' '.join(map(str, cells[0]))}\n" for k in range(len(cells))) + "~D"
    p = puzzle_of(text)
    ptr, nbr = p.cell_neighbours
    edges = 0
    for c in range(p.n_open):
        want = cell_set(lattice.neighbours(p.open_coords[[c]])[0]) & cell_set(p.open_coords)
        assert cell_set(p.open_coords[nbr[ptr[c]:ptr[c + 1]]]) == want
        edges += len(want)
    assert edges > p.n_open


def test_parity_only_where_there_is_a_two_colouring():
    hexes = puzzle_of("D:xDim=3:yDim=1:zDim=1:lattice=hex\nC:name=a:layout=0 0 0, 1 0 0, 2 0 0\n~D")
    assert not hexes.has_parity and hexes.parity == 0 and not hexes.image_parity.any()
    with pytest.raises(UsageError, match="the parity filter is not available on the hex lattice \\(it has no two-colouring\\)"):
        parity_monitor(hexes)
    with pytest.raises(UsageError, match="not available on the fcc lattice"):
        parity_filter(Cover.from_puzzle(puzzle_of("D:xDim=2:yDim=2:zDim=1:lattice=fcc\nC:name=a:layout=0 0 0, 1 1 0\n~D")))
    # the triangle has one: a row of three triangles has two up triangles and one down
    tri = puzzle_of("D:xDim=2:yDim=1:zDim=1:lattice=triangle\nC:name=a:layout=0 0 0, 0 0 1, 1 0 0\n"
                    "C:name=b:layout=0 0 0\n~D")
    assert tri.has_parity and {s.name: s.parity for s in tri.shapes} == {"a": 1, "b": 1}
    assert parity_monitor(tri).target == tri.parity == 0
    from bench.cli.output import puzzle_facts

    facts = puzzle_facts(hexes, Cover.from_puzzle(hexes))
    assert (facts["LATTICE"], facts["PUZZLE_PARITY"], facts["MAX_PARITY"]) == ("hex", "n/a", "n/a")
    # a straight row: its half turn and its end-to-end flip, one cell map each (the flip about the row's own
    # line moves no cell, so it is the identity again)
    assert facts["SYMMETRY_GROUP"].split()[0] == "(q,r)" and facts["SYMMETRY_GROUP_ORDER"] == 2


def test_unsolvable_triangle_parity_is_proved_without_search():
    from bench.models.diagnose import unsolvable_reasons

    # a triangle of side 2 (three up triangles round one down) cannot take two diamonds (one up, one down each)
    p = puzzle_of("D:xDim=2:yDim=2:zDim=1:lattice=triangle\nC:name=s:type=S:layout=1 0 1, 0 1 1, 1 1 0, 1 1 1\n"
                  "C:name=a:layout=0 0 0, 0 0 1\nC:name=b:layout=0 0 0, 0 0 1\n~D")
    assert p.parity == 2
    reasons = unsolvable_reasons(Cover.from_puzzle(p))
    assert len(reasons) == 1 and reasons[0].startswith("parity:")


# -- symmetry of boards --------------------------------------------------------------------------


def hexagon_board(side: int) -> str:
    """A regular hexagon of hexagons cut out of a parallelogram box by one stationary piece."""
    n = 2 * side - 1
    centre = side - 1
    inside = [(q, r) for q in range(n) for r in range(n) if max(abs(q - centre), abs(r - centre), abs(q + r - 2 * centre)) < side]
    outside = [(q, r) for q in range(n) for r in range(n) if (q, r) not in inside]
    lines = [f"D:xDim={n}:yDim={n}:zDim=1:lattice=hex",
             "C:name=frame:type=S:layout=" + ", ".join(f"{q} {r} 0" for q, r in outside)]
    # one single hexagon, the rest bars of three: a free piece set
    lines.append("C:name=s:layout=0 0 0")
    for k in range((len(inside) - 1) // 3):
        lines.append(f"C:name=b{k}:layout=0 0 0, 1 0 0, 2 0 0")
    return "\n".join(lines + ["~D"])


@pytest.mark.parametrize("side", [2, 3])
def test_a_hexagon_in_a_parallelogram_keeps_its_twelve_symmetries(side):
    p = puzzle_of(hexagon_board(side))
    assert p.n_open == 3 * side * (side - 1) + 1
    assert p.group.order == 12
    assert p.group.cell_perm.shape == (12, p.n_open)
    assert all(sorted(row) == list(range(p.n_open)) for row in p.group.cell_perm.tolist())


def test_a_big_triangle_has_the_six_symmetries_of_a_triangle():
    n = 3
    cells = TRIANGLE.box_coords((n, n, 1))
    inside = [c for c in cells.tolist() if c[0] + c[1] + c[2] <= n - 1]
    outside = [c for c in cells.tolist() if c not in inside]
    assert len(inside) == n * n
    text = (f"D:xDim={n}:yDim={n}:zDim=1:lattice=triangle\nC:name=frame:type=S:layout="
            + ", ".join(" ".join(map(str, c)) for c in outside) + "\n"
            + "".join(f"C:name=m{k}:layout=0 0 0\n" for k in range(n * n)) + "~D")
    assert puzzle_of(text).group.order == 6


def pyramid(n: int) -> list[tuple[int, int, int]]:
    """The balls of a square pyramid with an n x n base, shifted into the box (n odd keeps them on the lattice)."""
    return [(i + j + h, i - j + n - 1, h) for h in range(n) for i in range(n - h) for j in range(n - h)]


def test_a_square_pyramid_of_balls_turns_four_ways():
    balls = pyramid(3)
    assert FCC.valid(balls).all() and len(set(balls)) == 14
    box = [tuple(c) for c in FCC.box_coords((5, 5, 3)).tolist()]
    frame = [c for c in box if c not in set(balls)]
    text = ("D:xDim=5:yDim=5:zDim=3:lattice=fcc\nC:name=frame:type=S:layout=" + ", ".join(" ".join(map(str, c)) for c in frame)
            + "\n" + "".join(f"C:name=m{k}:layout=0 0 0\n" for k in range(14)) + "~D")
    p = puzzle_of(text)
    assert p.n_open == 14 and p.group.order == 4
    assert all(FCC.motions[int(m)].matrix[2, 2] == 1 for m in p.group.motions)


# -- every engine against the oracle on each lattice ---------------------------------------------

# the native engines and the solver encodings; model counting (ganak) has its own tests and is slow here
ENGINES = sorted({"dlx", "fila", "cpsat", "sat"} & set(available_engines()))


@pytest.mark.parametrize("lattice", ["hex", "triangle", "hexprism", "fcc", "cubic"])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_engines_agree_with_the_oracle_on_random_tilings(lattice, data):
    puzzle = puzzle_of(data.draw(tiled_puzzles(lattice, small=data.draw(st.booleans()))))
    unfiltered = Cover.from_puzzle(puzzle)
    solutions = enumerate_covers(unfiltered, limit=500)
    assume(len(solutions) < 500)
    assert solutions, "a tiled puzzle has a solution"
    unique, total = orbit_counts(puzzle, solutions, unfiltered)
    assert total == len(solutions) and unique <= total
    redundancy = data.draw(st.sampled_from([None, True]))
    cover = Cover.from_puzzle(puzzle, redundancy=redundancy)
    covers = len(enumerate_covers(cover))
    compared = 0
    for name in ENGINES:
        engine = get_engine(name)
        result = engine.solve(cover, limits=Limits())
        assert result.status == Status.SOLVED, name
        assert (result.covers, result.unique, result.total) == (covers, unique, total), name
        compared += 1
    assert compared == len(ENGINES) and {"dlx", "fila"} <= set(ENGINES)


LATTICE_BOARDS = ["hex_hexagon_side3.txt", "triangle_side4.txt", "hexprism_hexagon_2_layers.txt", "fcc_pyramid_3.txt"]


@pytest.mark.parametrize("name", LATTICE_BOARDS)
def test_engines_count_orbits_on_symmetric_boards(name):
    [puzzle] = bench.load(DATA / name)
    expected = expected_for(puzzle)
    unfiltered = Cover.from_puzzle(puzzle)
    solutions = enumerate_covers(unfiltered)
    assert orbit_counts(puzzle, solutions, unfiltered) == (expected.unique, expected.total)
    assert puzzle.group.order == expected.group and expected.unique < expected.total
    compared = 0
    for redundancy, method in itertools.product([None, True], ["orientation", "orbit"]):
        cover = Cover.from_puzzle(puzzle, redundancy=redundancy, method=method)
        covers = len(enumerate_covers(cover))
        assert (cover.redundancy is not None) == bool(redundancy)
        assert expected.unique <= covers <= expected.total
        for engine in ENGINES:
            result = get_engine(engine).solve(cover)
            assert (result.covers, result.unique, result.total) == (covers, expected.unique, expected.total), \
                (engine, redundancy, method)
            compared += 1
    assert compared == 4 * len(ENGINES)


# -- output reads back -----------------------------------------------------------------------------


def option_set(cover):
    """The options as a set of item tuples: equal puzzles, whatever orientation the pieces were drawn in."""
    return {tuple(cover.option(o)) for o in range(cover.n_options)}


@pytest.mark.parametrize("lattice", ["hex", "triangle", "hexprism", "fcc"])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_full_output_reads_back_as_the_same_puzzle(lattice, data):
    # one-letter names, so the solution is drawn rather than listed
    text = re.sub(r"name=p(\d+)", lambda m: "name=" + "abcdefghijklmnopqrstuvwxyz"[int(m.group(1))], data.draw(tiled_puzzles(lattice)))
    puzzle = puzzle_of(text.replace("name=hole", "name=H"))
    cover = Cover.from_puzzle(puzzle)
    [solution] = get_engine("dlx").solve(cover, limits=Limits(max_solutions=1, keep_solutions=1)).solutions
    for piece_form in ("L", "C"):
        lines = render(cover, solution, "F", piece_form)
        drawn = any(line == "L" or line.startswith("L:") for line in lines)
        assert f":lattice={lattice}" in lines[0] and drawn == (piece_form == "L")
        back = puzzle_of("\n".join(lines))
        assert back.lattice is puzzle.lattice and back.dims == puzzle.dims and back.one_side == puzzle.one_side
        assert option_set(Cover.from_puzzle(back)) == option_set(cover)
        # the solution is drawn where it lies: as a sub-puzzle it has exactly one solution
        fixed = puzzle_of("\n".join(render(cover, solution, "S", piece_form)))
        assert fixed.n_open == 0 and get_engine("dlx").solve(Cover.from_puzzle(fixed)).covers == 1


@pytest.mark.parametrize("lattice, dims", [("hex", (4, 3, 1)), ("triangle", (3, 2, 1)), ("hexprism", (3, 2, 2)),
                                           ("fcc", (4, 3, 2))])
def test_one_letter_drawings_read_back_cell_for_cell(lattice, dims):
    geometry = get_lattice(lattice)
    cells = geometry.box_coords(dims)
    letters = "abcdefghijklmnopqrstuvwxyz"
    grid = np.full(geometry.grid_shape(dims), ".", dtype=object)
    for k, c in enumerate(cells):
        grid[tuple(c)] = letters[k]
    drawing = layout_lines(grid, geometry)
    header = f"D:xDim={dims[0]}:yDim={dims[1]}:zDim={dims[2]}:lattice={lattice}"
    [d] = parse_text(header + "\nL\n" + "\n".join(drawing) + "\n~L\n~D")
    assert {p.name: p.cells for p in d.pieces} == {letters[k]: (tuple(map(int, c)),) for k, c in enumerate(cells)}


def test_hexagon_rows_are_indented_like_the_plane():
    grid = np.full((2, 2, 1), "o", dtype=object)
    assert layout_lines(grid, HEX) == [" o o", "o o"]
    tri = np.full((2, 2, 2), "o", dtype=object)
    assert layout_lines(tri, TRIANGLE) == ["  o o o o", "o o o o"]
    balls = np.full((3, 2, 1), "o", dtype=object)
    assert layout_lines(balls, FCC) == [" o", "o o"]
