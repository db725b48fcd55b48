"""Counting up to reflections (``--mirror``): groups, chirality, every engine, expected counts as data."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import bench
from support import lattice_reference
from bench import Cover
from bench.cli import main
from bench.engines import Limits, Status, get_engine
from bench.errors import BenchError
from bench.models.definition import parse_text
from bench.models.expected import expected_for, load_expected, resolve
from bench.models.puzzle import Puzzle
from support import DEFS, available_engines
from support.reference import enumerate_covers, orbit_counts
from support.strategies import tiled_puzzles

ENGINES = sorted({"dlx", "fila", "cpsat", "sat"} & set(available_engines()))
# where CP-SAT and SAT enumerate in about a second with the redundancy filter (the pentacube boxes take them
# 20 s to minutes, the Soma cube's 11,520 covers without the filter minutes)
SOLVER_FRIENDLY = {"somacube.txt", "polyspheres_tetrahedron_20.txt", "polyspheres_square_pyramid_30.txt"}
# 3-D puzzles quick enough for every test here: (unique up to rotations, up to reflections too, total)
QUICK_3D = {"somacube.txt": (480, 240, 11520), "polyspheres_tetrahedron_20.txt": (4, 2, 48),
            "polyspheres_square_pyramid_30.txt": (8, 4, 32), "hexprism_shader_triangle.txt": (110, 110, 660),
            "pentacubes_planar_2x3x10.txt": (24, 12, 96), "pentacubes_planar_2x5x6.txt": (528, 264, 2112)}


def one(path, mirror=False):
    [puzzle] = bench.load(path, mirror=mirror)
    return puzzle


def counts(result):
    assert result.status == Status.SOLVED
    return result.unique, result.total


# -- groups and chirality -----------------------------------------------------------------------------


def test_a_reflection_is_a_symmetry_of_the_soma_cube_because_it_swaps_the_chiral_pair():
    rotations, mirror = one(DEFS / "somacube.txt"), one(DEFS / "somacube.txt", mirror=True)
    assert (rotations.convention, rotations.group.order) == ("rotations", 24)
    assert (mirror.convention, mirror.group.order) == ("mirror", 48)
    names = [s.name for s in mirror.shapes]
    swapped = {(names[a], names[b]) for g in range(mirror.group.order) for a, b in enumerate(mirror.group.shape_perm[g])
               if a != b}
    assert swapped == {("A", "B"), ("B", "A")}
    assert all(mirror.lattice.motions[int(m)].proper == (list(p) == list(range(len(names))))
               for m, p in zip(mirror.group.motions, mirror.group.shape_perm))


def test_no_reflection_is_a_symmetry_when_a_chiral_piece_has_no_mirror_image_in_the_set():
    # the Tetris Cube: six chiral pieces without their mirror images; its mirror count is its rotation count
    p = one(DEFS / "tetriscube.txt", mirror=True)
    assert p.convention == "mirror" and p.group.order == 24
    assert all(p.lattice.motions[int(m)].proper for m in p.group.motions)


@pytest.mark.parametrize("name", ["pentominoes_20x3.txt", "pentominoes_1s_30x3.txt", "hexiamonds_6x6.txt",
                                  "tetrahexes_4x7.txt", "pentominoes_8x8_scott.txt"])
def test_a_flat_puzzle_already_counts_up_to_its_reflections(name):
    plain, mirror = one(DEFS / name), one(DEFS / name, mirror=True)
    assert plain.convention == mirror.convention == "mirror"
    assert list(plain.group.motions) == list(mirror.group.motions)


@pytest.mark.parametrize("name", sorted(QUICK_3D))
def test_every_engine_counts_up_to_reflections(name):
    rotations, mirror, total = QUICK_3D[name]
    for flag, unique in ((False, rotations), (True, mirror)):
        puzzle = one(DEFS / name, mirror=flag)
        expected = expected_for(puzzle)
        assert (expected.convention, expected.unique, expected.total) == (puzzle.convention, unique, total)
        for redundancy in (None, True):
            cover = Cover.from_puzzle(puzzle, redundancy=redundancy)
            for engine in ENGINES:
                if engine in ("cpsat", "sat") and (name not in SOLVER_FRIENDLY or redundancy is None):
                    continue
                assert counts(get_engine(engine).solve(cover, limits=Limits())) == (unique, total), (engine, flag)


def _mirror_puzzle(text):
    """The puzzle of a definition text under ``mirror``, its unfiltered cover, and up to 300 of its solutions."""
    [definition] = parse_text(text, "t.txt")
    puzzle = Puzzle.from_definition(definition, mirror=True)
    unfiltered = Cover.from_puzzle(puzzle)
    return puzzle, unfiltered, enumerate_covers(unfiltered, limit=300)


def _agree_with_two_oracles(text, puzzle, unfiltered, solutions, redundancy, folder):
    """bench's unique, total and group order under ``mirror`` equal both oracles', on every engine."""
    # orbits of bench's group, checked to be a group acting on the solutions
    unique, total = orbit_counts(puzzle, solutions, unfiltered)
    # an oracle that builds its own group from Cartesian motions and checks Burnside's lemma
    path = folder / "t.txt"
    path.write_text(text.replace(":lattice=cubic", ""))
    independent = lattice_reference.count(str(path), mirror=True)
    assert (independent["unique"], independent["total"], independent["group"]) == (unique, total, puzzle.group.order)
    cover = Cover.from_puzzle(puzzle, redundancy=redundancy)
    for engine in ENGINES:
        assert counts(get_engine(engine).solve(cover, limits=Limits())) == (unique, total), engine


@pytest.mark.parametrize("lattice", ["cubic", "fcc", "hexprism"])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_mirror_counts_agree_with_two_oracles_on_random_3d_tilings(lattice, data, tmp_path_factory):
    text = data.draw(tiled_puzzles(lattice, solid=True))
    [definition] = parse_text(text, "t.txt")
    assume(definition.dims[2] > 1)
    puzzle, unfiltered, solutions = _mirror_puzzle(text)
    assume(len(solutions) < 300)
    _agree_with_two_oracles(text, puzzle, unfiltered, solutions, data.draw(st.sampled_from([None, True])),
                            tmp_path_factory.mktemp("mirror"))


# hypothesis found it: the open spheres lie in the plane y = z, whose reflection (x,z,y) leaves each of them in
# place; the 8 motions that keep the region are 4 cell maps, each a rotation and a reflection
FLAT_FCC_REGION = """D:xDim=3:yDim=2:zDim=2:lattice=fcc
C:name=p0:layout=0 0 0, 0 1 1
C:name=p1:layout=2 0 0, 2 1 1
C:name=hole:type=S:layout=1 0 1, 1 1 0
~D
"""


@pytest.mark.parametrize("redundancy", [None, True])
def test_a_reflection_that_leaves_every_open_cell_in_place_is_the_identity(redundancy, tmp_path):
    puzzle, unfiltered, solutions = _mirror_puzzle(FLAT_FCC_REGION)
    group = puzzle.group
    assert group.names == ("(x,y,z)", "(-x,-z,-y)", "(-x,z,y)", "(x,-y,-z)")
    assert len({perm.tobytes() for perm in group.cell_perm}) == group.order == 4
    assert len(solutions) == 1
    _agree_with_two_oracles(FLAT_FCC_REGION, puzzle, unfiltered, solutions, redundancy, tmp_path)


def test_the_turns_about_a_row_of_cells_are_the_identity():
    # a 4x1 strip: of the four turns that keep the layer, the half turn about the row's own line moves no cell
    [definition] = parse_text("D:xDim=4:yDim=1:zDim=1\nC:name=a:layout=0 0 0, 1 0 0\n"
                              "C:name=b:layout=2 0 0, 3 0 0\n~D\n", "t.txt")
    group = Puzzle.from_definition(definition).group
    assert (group.order, group.names) == (2, ("(x,y,z)", "(-x,-y,z)"))


# -- the command line ---------------------------------------------------------------------------------


def _kv(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_solve_mirror_gives_the_soma_cubes_240(capsys):
    assert main(["solve", "--mirror", "-q", "-i", str(DEFS / "somacube.txt")]) == 0
    kv = _kv(capsys.readouterr().out)
    assert (kv["UNIQUE"], kv["TOTAL"], kv["SYMMETRY_CONVENTION"], kv["SYMMETRY_GROUP_ORDER"]) == ("240", "11520", "mirror", "48")
    assert (kv["EXPECTED_UNIQUE"], kv["mirror"]) == ("240", "1")
    assert main(["solve", "-q", "--json", str(DEFS / "somacube.txt")]) == 0
    [document] = json.loads(capsys.readouterr().out)
    assert (document["result"]["unique"], document["result"]["convention"]) == (480, "rotations")


def test_run_mirror_cross_validates_every_engine(capsys, tmp_path):
    out_file = tmp_path / "run.json"
    engines = ",".join(sorted({"dlx", "fila", "cpsat", "sat", "xcover"} & set(available_engines())))
    status = main(["run", "--mirror", "--output-file", str(out_file), "-e", engines, "--timeout", "60",
                   str(DEFS / "somacube.txt"), str(DEFS / "polyspheres_tetrahedron_20.txt")])
    err = capsys.readouterr().err
    assert status == 0, err
    doc = json.loads(out_file.read_text())
    assert doc["run_settings"]["mirror"] is True and doc["validation"] == []
    assert {p["key"]: (p["convention"], p["group"], p["expected"]["convention"], p["expected"]["unique"])
            for p in doc["puzzles"]} == {"somacube.txt": ("mirror", 48, "mirror", 240),
                                         "polyspheres_tetrahedron_20.txt": ("mirror", 24, "mirror", 2)}
    solved = {(r["puzzle"], r["engine"]): r["unique"] for r in doc["rows"] if r["status"] == "solved"}
    assert set(solved) == {(p, e) for p in ("somacube.txt", "polyspheres_tetrahedron_20.txt") for e in engines.split(",")}
    assert {u for (p, _), u in solved.items() if p == "somacube.txt"} == {240}
    assert {u for (p, _), u in solved.items() if p == "polyspheres_tetrahedron_20.txt"} == {2}


# -- expected counts say their convention -------------------------------------------------------------


def _write(tmp_path, body):
    (tmp_path / "somacube.txt").write_text((DEFS / "somacube.txt").read_text())
    (tmp_path / "expected.toml").write_text(body)
    load_expected.cache_clear()
    return tmp_path / "somacube.txt"


def test_legacy_unique_and_group_are_the_puzzles_own_convention(tmp_path):
    path = _write(tmp_path, '["somacube.txt"]\nunique = 480\ntotal = 11520\ngroup = 24\nsymmetry = "x"\nsource = "y"\n')
    plain = expected_for(one(path))
    assert (plain.convention, plain.unique, plain.group, plain.total) == ("rotations", 480, 24, 11520)
    mirror = expected_for(one(path, mirror=True))
    # recorded for 24 rotations: nothing is known of the 48 motions but the total
    assert (mirror.convention, mirror.unique, mirror.group, mirror.total) == ("mirror", None, None, 11520)


def test_each_convention_is_looked_up_by_its_key_and_its_group_is_checked(tmp_path):
    path = _write(tmp_path, '["somacube.txt"]\nunique_rotations = 480\ngroup_rotations = 24\nunique_mirror = 240\n'
                            'group_mirror = 48\ntotal = 11520\nsymmetry = "x"\nsource = "y"\n')
    assert expected_for(one(path)).unique == 480 and expected_for(one(path, mirror=True)).unique == 240
    path = _write(tmp_path, '["somacube.txt"]\nunique_mirror = 240\ngroup_mirror = 24\nsymmetry = "x"\nsource = "y"\n')
    with pytest.raises(BenchError, match=r"records group_mirror = 24, but the puzzle's symmetry group \(mirror\) has order 48"):
        expected_for(one(path, mirror=True))


def test_a_mirror_group_of_the_rotations_order_is_the_rotation_group(tmp_path):
    # the Tetris Cube's reflections are no symmetries, so its rotation count is its mirror count
    (tmp_path / "tetriscube.txt").write_text((DEFS / "tetriscube.txt").read_text())
    (tmp_path / "expected.toml").write_text('["tetriscube.txt"]\nunique_rotations = 9839\ngroup_rotations = 24\n'
                                            'symmetry = "x"\nsource = "y"\n')
    load_expected.cache_clear()
    e = expected_for(one(tmp_path / "tetriscube.txt", mirror=True))
    assert (e.convention, e.unique, e.group) == ("mirror", 9839, 24)


@pytest.mark.parametrize("body, message", [
    ('unique_mirror = 2\nsymmetry = "x"\nsource = "y"\n', "unique_mirror needs group_mirror"),
    ('unique = 2\ngroup = 4\nunique_mirror = 2\ngroup_mirror = 4\nsymmetry = "x"\nsource = "y"\n', "not both"),
    ('total = 2\nsymmetry = "x"\nsource = "y"\n', "missing field 'group_rotations' or 'group_mirror' or 'group_none'"),
    ('unique_chiral = 2\ngroup = 4\nsymmetry = "x"\nsource = "y"\n', "unknown field 'unique_chiral'"),
])
def test_malformed_conventions_are_refused_with_the_file_and_table(tmp_path, body, message):
    _write(tmp_path, '["somacube.txt"]\n' + body)
    with pytest.raises(BenchError, match=message):
        load_expected(str(tmp_path))


def test_the_bundled_expected_counts_all_name_their_convention():
    recorded = load_expected(str(DEFS))
    assert recorded and all("legacy" not in entry.unique for entry in recorded.values())
    for key in ("somacube.txt", "polyspheres_tetrahedron_20.txt", "pentacubes_planar_3x4x5.txt"):
        assert set(recorded[key].unique) == {"rotations", "mirror"}
    soma = resolve(recorded["somacube.txt"], one(DEFS / "somacube.txt", mirror=True))
    assert (soma.unique, soma.group) == (240, 48)
