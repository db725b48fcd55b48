"""Geometry: shapes, orientations, bounded images, parity and the symmetry group."""

from __future__ import annotations

import numpy as np
import pytest

import bench
from bench import parse_text
from bench.models.lattice import CUBIC
from bench.models.puzzle import Puzzle
from support import DATA, DEFS


def one(path):
    [puzzle] = bench.load(path)
    return puzzle


def from_text(text):
    [d] = parse_text(text)
    return Puzzle.from_definition(d)


def test_lattice_has_24_rotations_8_planar_4_one_sided():
    rotations = [g.matrix for g in CUBIC.motions if g.proper]
    assert len(rotations) == 24 and len(CUBIC.motions) == 48
    assert all(round(np.linalg.det(m)) == 1 for m in rotations)
    assert np.array_equal(CUBIC.motions[0].matrix, np.eye(3))
    assert len(CUBIC.allowed_motions((3, 3, 1), one_side=False)) == 8
    assert len(CUBIC.allowed_motions((3, 3, 1), one_side=True)) == 4
    assert len(CUBIC.allowed_motions((3, 3, 3), one_side=False)) == 24
    assert len({m.tobytes() for m in rotations}) == 24


def test_pentominoes_10x6_specification_figures():
    p = one(DEFS / "pentominoes_10x6.txt")
    assert sum(len(s.orientations) for s in p.shapes) == 63
    assert len(p.images) == 2056
    per_shape = {s.name: int((p.images.shape == s.index).sum()) for s in p.shapes}
    # numMobileImages of the polycube README's -i sample
    assert per_shape == {"F": 256, "I": 56, "L": 248, "N": 248, "P": 304, "T": 128, "U": 152,
                         "V": 128, "W": 128, "X": 32, "Y": 248, "Z": 128}
    assert p.group.order == 4
    assert p.parity == 0
    assert {s.name: s.parity for s in p.shapes}["X"] == 3


def test_tetris_cube_orientation_cells_match_table_1():
    p = one(DEFS / "tetriscube.txt")
    orientations = {s.name: len(s.orientations) for s in p.shapes}
    assert orientations == {n: (12 if n in "GJ" else 24) for n in "ABCDEFGHIJKL"}
    assert sum(len(s.orientations) * s.size for s in p.shapes) == 1416
    assert p.group.order == 24


def test_one_sided_pentominoes_are_18_shapes_with_63_orientations():
    p = one(DEFS / "pentominoes_1s_30x3.txt")
    assert len(p.shapes) == 18
    assert sum(len(s.orientations) for s in p.shapes) == 63
    assert len(p.images) == 1936
    # closed under mirroring with equal multiplicities: the flips qualify
    assert p.group.order == 4
    flips = [g for g, name in enumerate(p.group.names) if name.endswith("-z)")]
    assert flips and all(not np.array_equal(p.group.shape_perm[g], np.arange(18)) for g in flips)


def test_one_sided_set_not_closed_under_mirroring_keeps_only_turns():
    p = from_text("D:xDim=4:yDim=2:zDim=1:oneSide\nL\nL L L . . . . .\nL . . . J J J .\n. . . . . . J .\n~L\n~D")
    assert len(p.shapes) == 2 and p.group.order == 4
    q = from_text("D:xDim=4:yDim=2:zDim=1:oneSide\nL\nL L L . . . . .\nL . . . M M M .\n. . . . M . . .\n~L\n~D")
    # the same shape twice (both L): no mirror partner, so no flips
    assert len(q.shapes) == 1 and q.shapes[0].multiplicity == 2
    assert q.group.order == 2


def test_identical_pieces_are_one_shape_with_their_names():
    p = one(DEFS / "dominoes_4x4.txt")
    [s] = p.shapes
    assert s.multiplicity == 8 and s.names == tuple("abcdefgh")
    assert len(s.orientations) == 2 and len(p.images) == 24
    assert p.group.order == 8


def test_box_in_a_diamond_parity():
    p = one(DEFS / "hexominoes_box_in_diamond.txt")
    assert abs(p.parity) == 22
    assert len(p.shapes) == 35
    assert sum(1 for s in p.shapes if s.parity) == 11
    assert {s.parity for s in p.shapes} == {0, 2}
    assert sum(s.parity for s in p.shapes) == 22


def test_stationary_pieces_shape_the_region_and_the_group():
    p = one(DEFS / "pentominoes_8x8_scott.txt")
    assert p.n_open == 60 and p.group.order == 8
    off_centre = from_text("D:xDim=4:yDim=4:zDim=1\nL:stationary=S\nS . . .\n. . . .\n. . . .\n. . . .\n~L\n"
                           "C:name=a:layout=0 0 0,1 0 0,2 0 0\n" * 1 + "C:name=b:layout=0 0 0,1 0 0,2 0 0\n"
                           "C:name=c:layout=0 0 0,1 0 0,2 0 0\nC:name=d:layout=0 0 0,1 0 0,2 0 0\n"
                           "C:name=e:layout=0 0 0,1 0 0,2 0 0\n~D")
    # a corner removed leaves only the diagonal flip through it
    assert off_centre.group.order == 2


def test_spare_pieces_are_detected():
    p = one(DATA / "spare_3x3.txt")
    assert p.spare and p.mobile_volume == 12 and p.n_open == 9


def test_images_lie_in_the_open_region_in_ascending_order():
    p = one(DEFS / "pentominoes_8x8_scott.txt")
    imgs = p.images
    for i in range(0, len(imgs), 37):
        cells = imgs.image_cells(i)
        assert np.all(np.diff(cells) > 0)
        coords = p.open_coords[cells]
        shape = p.shapes[imgs.shape[i]]
        assert any(np.array_equal(np.sort(coords - coords.min(0), axis=0), np.sort(o, axis=0)) for o in shape.orientations)


def test_group_maps_every_image_to_an_image():
    for name in ("pentominoes_10x6.txt", "tetriscube.txt", "pentominoes_1s_30x3.txt", "somacube.txt"):
        p = one(DEFS / name)
        m = p.group.image_map
        assert m.shape == (p.group.order, len(p.images))
        assert np.array_equal(m[0], np.arange(len(p.images)))
        for g in range(p.group.order):
            assert len(np.unique(m[g])) == len(p.images)


@pytest.mark.parametrize("dims, order", [((3, 2, 1), 4), ((3, 3, 1), 8), ((2, 2, 3), 8), ((2, 3, 4), 4), ((3, 3, 3), 24)])
def test_group_order_of_empty_boxes(dims, order):
    X, Y, Z = dims
    cells = ", ".join("0 0 0" if False else f"{k} 0 0" for k in range(1))
    text = f"D:xDim={X}:yDim={Y}:zDim={Z}\n" + "".join(f"C:name=m{k}:layout={cells}\n" for k in range(X * Y * Z)) + "~D"
    assert from_text(text).group.order == order


# -- pieces turn in three dimensions, in flat puzzles too --------------------------------------------


def _redrawn(path, planes, index=0):
    """The text of the ``index``-th puzzle of ``path`` with each piece as a C layout; piece k is turned out of
    the layer into the plane ``planes[k % len(planes)]`` ('xy' keeps it, 'xz' and 'yz' the planes x = 0, y = 0)."""
    d = bench.load(path)[index].definition
    turn = {"xy": lambda x, y: (x, y, 0), "yz": lambda x, y: (0, x, y), "xz": lambda x, y: (y, 0, x)}
    X, Y, Z = d.dims
    lines = [f"D:xDim={X}:yDim={Y}:zDim={Z}" + (":oneSide" if d.one_side else "")]
    for k, piece in enumerate(d.pieces):
        cells = [turn[planes[k % len(planes)]](x, y) for x, y, _ in piece.cells]
        lines.append(f"C:name={piece.name}:layout=" + ", ".join("%d %d %d" % c for c in cells))
    return "\n".join(lines + ["~D", ""])


def _counts(text):
    from bench.engines import get_engine

    puzzle = from_text(text)
    r = get_engine("dlx").solve(bench.Cover.from_puzzle(puzzle, redundancy=True))
    return len(puzzle.images), puzzle.group.order, r.unique, r.total


@pytest.mark.parametrize("planes", [["xy"], ["xz"], ["yz"], ["xy", "xz", "yz"]])
def test_a_flat_puzzle_turns_pieces_drawn_in_any_plane_into_it(planes):
    text = _redrawn(DEFS / "pentominoes_20x3.txt", planes)
    assert _counts(text) == (len(one(DEFS / "pentominoes_20x3.txt").images), 4, 2, 8)


@pytest.mark.parametrize("planes", [["xz"], ["yz"], ["xy", "yz", "xz"]])
def test_a_one_sided_piece_drawn_in_another_plane_shows_the_side_that_faces_its_axis(planes):
    # drawn in the yz (xz) plane, a piece is read in y z (z x): the rotation that lays it keeps it the same
    # one-sided piece, so the 18 one-sided pentominoes still give the article's 46 (184 in all)
    plain = one(DEFS / "pentominoes_1s_30x3.txt")
    text = _redrawn(DEFS / "pentominoes_1s_30x3.txt", planes)
    assert _counts(text) == (len(plain.images), 4, 46, 184)
    assert [s.names for s in from_text(text).shapes] == [s.names for s in plain.shapes]


def test_a_one_sided_piece_drawn_mirrored_in_another_plane_is_its_mirror_image():
    # the F read the other way round in the xz plane is the f: two f's, no F
    text = _redrawn(DEFS / "pentominoes_1s_30x3.txt", ["xy"])
    f_line = next(line for line in text.splitlines() if line.startswith("C:name=F:"))
    cells = [tuple(map(int, c.split())) for c in f_line.split("layout=")[1].split(",")]
    mirrored = f_line.split("layout=")[0] + "layout=" + ", ".join(f"{x} 0 {y}" for x, y, _ in cells)
    puzzle = from_text(text.replace(f_line, mirrored))
    assert ("F", "f") in [s.names for s in puzzle.shapes] and len(puzzle.shapes) == 17


def test_a_piece_that_cannot_lie_flat_fits_nowhere_in_a_flat_puzzle():
    text = "D:xDim=3:yDim=2:zDim=1\nC:name=A:layout=0 0 0, 1 0 0, 1 1 0, 1 1 1\nC:name=B:layout=0 0 0, 0 0 1, 0 0 2\n~D\n"
    puzzle = from_text(text)
    assert len(puzzle.images.of_shape(0)) == 0 and len(puzzle.images.of_shape(1)) == 2


def test_the_35_hexominoes_drawn_in_any_plane_are_refused_by_parity_at_once(tmp_path, capsys):
    from bench.cli import main

    path = tmp_path / "hexominoes_in_planes.txt"
    path.write_text(_redrawn(DEFS / "hexominoes_rectangles.txt", ["xz", "yz", "xy"]))
    assert main(["solve", "-q", "-i", str(path)]) == 0
    captured = capsys.readouterr()
    assert "SOLUTIONS=0" in captured.out and "unsolvable without search: parity" in captured.err
    assert "fits nowhere" not in captured.err
