"""Pictures of solutions: valid SVG, one shape per cell, a colour per piece that every solution keeps."""

from __future__ import annotations

import functools
import json
import os
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bench
from bench.cli import main
from bench.drawing.colours import luminance, piece_colours
from bench.drawing.geometry import UPWARDS, footprint
from bench.drawing.picture import GLYPH, draw
from bench.drawing.scene import to_svg
from bench.drawing.solution import Solution
from bench.engines import Limits, Settings, get_engine
from support import DEFS

SVG = "{http://www.w3.org/2000/svg}"
# (definition, lattice, drawn in 3-D)
PUZZLES = [("dominoes_4x4.txt", "cubic", False), ("somacube.txt", "cubic", True), ("tetrahexes_4x7.txt", "hex", False),
           ("hexiamonds_6x6.txt", "triangle", False), ("polyspheres_tetrahedron_20.txt", "fcc", True),
           ("hexprism_shader_triangle.txt", "hexprism", True), ("polyspheres_square_pyramid_30.txt", "fcc", True)]


def first_solutions(name: str, n: int):
    [puzzle] = bench.load(str(DEFS / name))[:1]
    cover = bench.Cover.from_puzzle(puzzle)
    found = []
    get_engine("dlx").solve(cover, Settings(), Limits(max_solutions=n), on_solutions=lambda batch, _: found.extend(batch))
    return cover, [Solution.from_cover(cover, options, f"{name} {i}") for i, options in enumerate(found[:n])]


def cell_fills(root) -> dict[str, set[str]]:
    """Piece name -> the fills of its cells in the layer drawings."""
    out: dict[str, set[str]] = {}
    for el in root.iter():
        if el.get("class") == "cell":
            title = el.find(f"{SVG}title")
            out.setdefault(title.text, set()).add(el.get("data-colour") or el.get("fill"))
    return out


@pytest.mark.parametrize("name,lattice,three_d", PUZZLES)
def test_every_cell_is_one_shape_and_every_piece_one_colour(name, lattice, three_d):
    cover, solutions = first_solutions(name, 3)
    assert len(solutions) == 3 and solutions[0].lattice == lattice and solutions[0].three_d == three_d
    fills_seen = []
    for solution in solutions:
        root = ET.fromstring(to_svg(draw(solution)))
        assert root.tag == f"{SVG}svg" and float(root.get("width")) > 0 and float(root.get("height")) > 0
        cells = [el for el in root.iter() if el.get("class") == "cell"]
        stationary = {p.name for p in solution.pieces if p.stationary}
        foot = footprint(lattice).fitted(np.vstack([p.cells for p in solution.pieces if not p.stationary]))
        drawn = [p for p in solution.pieces if foot.shows_stationary or not p.stationary]
        assert len(cells) == sum(len(p.cells) for p in drawn) == cover.puzzle.n_open + sum(
            len(p.cells) for p in drawn if p.stationary)
        fills = cell_fills(root)
        assert set(fills) == {p.name for p in drawn}
        assert all(len(f) == 1 for f in fills.values()), "a piece drawn in two colours"
        mobile = {name: f for name, f in fills.items() if name not in stationary}
        assert len({next(iter(f)) for f in mobile.values()}) == len(mobile), "two pieces share a colour"
        labels = {el.text for el in root.iter() if el.get("class") == "label"}
        legend = {el.text for el in root.iter() if el.get("class") == "legend"}
        # every piece named: in full, or by a label of its own that the legend gives in full
        assert labels == set(mobile) if not legend else (legend == set(mobile) and len(labels) == len(mobile))
        view = [el for el in root.iter() if el.get("class") in ("face", "ball")]
        assert bool(view) == three_d
        if three_d:
            layers = sorted({foot.layer(c) for p in drawn for c in p.cells})
            captions = {el.text for el in root.iter() if el.get("class") == "caption"}
            assert captions == {foot.caption(k, len(layers)) for k in layers}
        fills_seen.append(fills)
    # the same piece has the same colour in every solution
    assert fills_seen[0] == fills_seen[1] == fills_seen[2]


def test_borders_between_pieces_are_drawn_and_inside_a_piece_are_not():
    _, [solution] = first_solutions("dominoes_4x4.txt", 1)
    root = ET.fromstring(to_svg(draw(solution)))
    borders = [el for el in root.iter() if el.get("class") == "border"]
    # a 4x4 square: 16 outside edges; 8 dominoes of 24 inner edges, 8 inside a domino
    assert len(borders) == 16 + 24 - 8


def test_names_from_a_definition_are_escaped():
    cover, [solution] = first_solutions("dominoes_4x4.txt", 1)
    odd = Solution(solution.lattice, solution.dims, solution.pieces, solution.names, title='<&"> title')
    root = ET.fromstring(to_svg(draw(odd)))
    assert root.find(f"{SVG}title").text == '<&"> title'


def test_a_stored_solution_reads_back():
    _, [solution] = first_solutions("somacube.txt", 1)
    again = Solution.from_json(solution.to_json())
    assert to_svg(draw(again)) == to_svg(draw(solution))


@given(st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=40, unique=True), st.randoms())
def test_colours_depend_on_the_names_only_and_differ(names, rnd):
    colours = piece_colours(names)
    shuffled = list(names)
    rnd.shuffle(shuffled)
    assert piece_colours(shuffled) == colours
    assert len(set(colours.values())) == len(names)


def test_neighbouring_palette_colours_differ_in_grey():
    from bench.drawing.colours import palette

    greys = [luminance(c) for c in palette(24)]
    assert min(abs(a - b) for a, b in zip(greys, greys[1:])) > 0.15


@pytest.mark.parametrize("name,bound,drawn", [
    ("dominoes_4x4", "-u", 9),  # 2-D: the 9 solutions unique up to the square's symmetry
    ("tetrahexes_4x7", "-u", 9),  # hexagons
    ("polyspheres_tetrahedron_20", "-u", 4),  # spheres
    ("somacube", "--max-solutions=5", 5),  # 3-D: the first 5 covers
])
def test_solve_draws_every_solution_and_a_gallery(tmp_path, capsys, name, bound, drawn):
    status = main(["solve", "-q", bound, "--draw", str(tmp_path), "--gallery", "3", str(DEFS / f"{name}.txt")])
    out, err = capsys.readouterr()
    assert status == 0 and out == ""
    files = sorted(tmp_path.glob(f"{name}-*.svg"))
    assert len(files) == drawn
    for f in files:
        assert sum(el.get("class") == "cell" for el in ET.fromstring(f.read_text()).iter()) > 0
    page = (tmp_path / f"{name}.html").read_text()
    assert page.count("<svg") == 3 and f"3 of {drawn} solutions" in page
    assert f"{drawn} pictures" in err


def test_solve_draws_png_on_request(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["solve", "--max-solutions", "2", "--draw", str(tmp_path), "--draw-format", "png",
                 str(DEFS / "somacube.txt")]) == 0
    capsys.readouterr()
    files = sorted(tmp_path.glob("somacube-*.png"))
    assert len(files) == 2 and all(f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for f in files)


def test_draw_into_a_file_is_a_clear_error(tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("")
    assert main(["solve", "--draw", str(target), str(DEFS / "dominoes_4x4.txt")]) == 2
    assert "not a directory" in capsys.readouterr().err


@given(st.sampled_from(["cubic", "hex", "triangle", "hexprism"]), st.integers(1, 4), st.integers(1, 4), st.integers(1, 2),
       st.randoms(use_true_random=False))
def test_borders_are_the_edges_between_different_pieces_on_every_polygon_lattice(lattice_name, X, Y, Z, rnd):
    import numpy as np

    from bench.drawing.solution import Placed
    from bench.models.lattice import get_lattice

    lattice = get_lattice(lattice_name)
    if lattice.flat:
        Z = 1
    cells = lattice.box_coords((X, Y, Z))
    owner = {tuple(c): rnd.choice("ABC") for c in cells.tolist()}
    pieces = tuple(Placed(name, np.array([c for c, o in owner.items() if o == name]))
                   for name in sorted(set(owner.values())))
    solution = Solution(lattice_name, (X, Y, Z), pieces, tuple(sorted(set(owner.values()))))
    root = ET.fromstring(to_svg(draw(solution)))
    assert sum(el.get("class") == "cell" for el in root.iter()) == len(cells)
    # the oracle: the lattice's own neighbours within a layer, not the drawing's geometry
    sides = {"cubic": 4, "hex": 6, "triangle": 3, "hexprism": 6}[lattice_name]
    pairs = same = 0
    for c in cells.tolist():
        for n in lattice.neighbours([c])[0].tolist():
            if n[2] == c[2] or lattice_name == "triangle":
                if tuple(n) in owner and tuple(n) > tuple(c):
                    pairs += 1
                    same += owner[tuple(n)] == owner[tuple(c)]
    borders = sum(el.get("class") == "border" for el in root.iter())
    assert borders == sides * len(cells) - pairs - same


def layer_sizes(foot, cells) -> list[int]:
    layers = [foot.layer(c) for c in cells]
    return [layers.count(k) for k in sorted(set(layers))]


@pytest.mark.parametrize("name,sizes,caption", [("polyspheres_tetrahedron_20.txt", [10, 6, 3, 1], "layer 1 (bottom)"),
                                                ("polyspheres_square_pyramid_30.txt", [16, 9, 4, 1], "layer 1 (bottom)")])
def test_spheres_are_drawn_by_the_layers_one_stacks(name, sizes, caption):
    _, [solution] = first_solutions(name, 1)
    cells = np.vstack([p.cells for p in solution.pieces if not p.stationary])
    foot = footprint("fcc").fitted(cells)
    assert layer_sizes(foot, cells) == sizes
    root = ET.fromstring(to_svg(draw(solution)))
    # the box's stationary balls are not part of the pile: only its own balls are drawn
    assert sum(el.get("class") == "cell" for el in root.iter()) == sum(sizes)
    assert caption in {el.text for el in root.iter() if el.get("class") == "caption"}


@functools.cache
def open_cells(name: str) -> np.ndarray:
    _, [solution] = first_solutions(name, 1)
    return np.vstack([p.cells for p in solution.pieces if not p.stationary])


@settings(max_examples=40)
@given(st.sampled_from(["polyspheres_tetrahedron_20.txt", "polyspheres_square_pyramid_30.txt"]),
       st.integers(0, 47))
def test_a_pile_of_balls_stands_the_same_however_the_file_turns_it(name, motion):
    import bench.models.lattice as lattice

    cells = open_cells(name)
    turned = lattice.FCC.apply(motion, cells)
    foot = footprint("fcc").fitted(turned)
    assert layer_sizes(foot, turned) == layer_sizes(footprint("fcc").fitted(cells), cells)
    assert tuple(foot.up) in UPWARDS
    # touching balls of one layer are one diameter apart in the drawing, as they are in space
    centres = {tuple(c): foot.centre(c) for c in turned.tolist()}
    for c in turned.tolist():
        for offset in lattice.FCC.offsets:
            other = tuple(a + b for a, b in zip(c, offset))
            if other in centres and foot.layer(other) == foot.layer(c):
                assert np.linalg.norm(centres[other] - centres[tuple(c)]) == pytest.approx(1.0)


@pytest.mark.parametrize("name", [name for name, _, _ in PUZZLES] + ["polyspheres_tetrahedron_20.txt"])
def test_every_label_fits_inside_its_cell(name):
    _, [solution] = first_solutions(name, 1)
    foot = footprint(solution.lattice)
    root = ET.fromstring(to_svg(draw(solution)))
    balls = [float(el.get("r")) for el in root.iter() if el.get("class") == "cell" and el.tag == f"{SVG}circle"]
    room = 2 * min(balls) if balls else foot.label_width * foot.pixels
    for el in root.iter():
        if el.get("class") == "label":
            assert GLYPH * float(el.get("font-size")) * len(el.text) <= room + 1e-6, el.text


# -- --draw writes through the package's writer, bounded ------------------------------------------------------


def test_a_symlink_named_like_a_picture_is_replaced_not_followed(tmp_path, capsys):
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    pictures = tmp_path / "pictures"
    pictures.mkdir()
    (pictures / "dominoes_4x4-0001.svg").symlink_to(outside)
    (pictures / "dominoes_4x4.html").symlink_to(outside)
    assert main(["solve", "-q", "-u", "--draw", str(pictures), str(DEFS / "dominoes_4x4.txt")]) == 0
    capsys.readouterr()
    assert outside.read_text() == "keep me"
    first = pictures / "dominoes_4x4-0001.svg"
    assert not first.is_symlink() and first.read_text().startswith("<svg")
    assert not (pictures / "dominoes_4x4.html").is_symlink()


def test_a_fifo_named_like_a_picture_is_refused_before_the_search(tmp_path):
    import subprocess
    import sys

    os.mkfifo(tmp_path / "dominoes_4x4-0003.svg")
    child = subprocess.run([sys.executable, "-m", "bench", "solve", "-q", "--draw", str(tmp_path),
                            str(DEFS / "dominoes_4x4.txt")], capture_output=True, text=True, timeout=120)
    assert child.returncode == 2, child.stderr
    assert child.stderr.strip().endswith(f"--draw {tmp_path / 'dominoes_4x4-0003.svg'}: is a FIFO; expected a "
                                         "regular file or a new file name")
    assert "covers" not in child.stderr and not list(tmp_path.glob("*.svg"))[1:]


def test_puzzles_of_one_stem_keep_their_own_pictures_and_a_new_run_no_stale_ones(tmp_path, capsys):
    for folder, name in (("a", "dominoes_4x4.txt"), ("b", "somacube.txt")):
        (tmp_path / folder).mkdir()
        shutil.copy(DEFS / name, tmp_path / folder / "puz.txt")
    pictures = tmp_path / "pictures"
    pictures.mkdir()
    (pictures / "puz-0042.svg").write_text("an earlier run's")
    (pictures / "other-0001.svg").write_text("another puzzle's")
    assert main(["solve", "-q", "-u", "--max-solutions", "3", "--draw", str(pictures), str(tmp_path / "a" / "puz.txt"),
                 str(tmp_path / "b" / "puz.txt")]) == 0
    err = capsys.readouterr().err
    names = sorted(p.name for p in pictures.iterdir())
    assert names == ["other-0001.svg", "puz-0001.svg", "puz-0002.svg", "puz-0003.svg", "puz.html", "puz_2-0001.svg",
                     "puz_2-0002.svg", "puz_2-0003.svg", "puz_2.html"], names
    assert "puz_2.html" in err
    # the first puzzle's pictures are the dominoes' (16 cells), the second's the Soma cube's (27 in its layers)
    cells = {name: sum(el.get("class") == "cell" for el in ET.fromstring((pictures / name).read_text()).iter())
             for name in ("puz-0001.svg", "puz_2-0001.svg")}
    assert cells["puz-0001.svg"] == 16 and cells["puz_2-0001.svg"] >= 27, cells


def test_draw_stops_at_its_bound_says_so_and_keeps_its_time_apart(tmp_path, capsys):
    status = main(["solve", "-q", "--json", "--draw", str(tmp_path), "--draw-max", "4", str(DEFS / "dominoes_4x4.txt")])
    out, err = capsys.readouterr()
    [doc] = json.loads(out)
    assert status == 0 and doc["result"]["covers"] == 36
    assert len(list(tmp_path.glob("dominoes_4x4-*.svg"))) == 4
    assert "4 of 36 solutions drawn (--draw-max 4 draws more)" in err
    assert doc["result"]["timings"]["draw"] > 0


def test_draw_into_a_folder_that_cannot_be_written_is_refused_before_the_search(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["solve", "-q", "--draw", str(tmp_path / "file" / "pictures"), str(DEFS / "dominoes_4x4.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"--draw {tmp_path / 'file' / 'pictures'}: cannot write there") and "covers" not in err


def test_gallery_links_are_url_encoded(tmp_path, capsys):
    shutil.copy(DEFS / "dominoes_4x4.txt", tmp_path / "a #?b.txt")
    assert main(["solve", "-q", "--max-solutions", "1", "--draw", str(tmp_path / "pictures"),
                 str(tmp_path / "a #?b.txt")]) == 0
    capsys.readouterr()
    page = (tmp_path / "pictures" / "a #?b.html").read_text()
    assert 'href="a%20%23%3Fb-0001.svg"' in page
