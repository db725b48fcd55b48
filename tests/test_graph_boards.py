"""Boards as explicit graphs (G blocks): the same counts as the box they describe, boards no box describes against
the brute force, and every malformed graph named at its line."""

from __future__ import annotations

import pytest

import bench
from bench import Cover
from bench.cli import main
from bench.engines import get_engine
from bench.errors import DefinitionError
from bench.models.expected import expected_for
from support import DATA, DEFS, available_engines, lattice_reference

ENGINES = sorted({"dlx", "fila", "cpsat", "sat"} & set(available_engines()))

TETROMINOES = """C:name=I:layout=0 0 0, 1 0 0, 2 0 0, 3 0 0
C:name=O:layout=0 0 0, 1 0 0, 0 1 0, 1 1 0
C:name=T:layout=0 0 0, 1 0 0, 2 0 0, 1 1 0
C:name=L:layout=0 0 0, 1 0 0, 2 0 0, 2 1 0
C:name=S:layout=0 0 0, 1 0 0, 1 1 0, 2 1 0
"""


def rows_of(width: int, height: int) -> str:
    return "".join(", ".join(f"{x} {y} 0" for x in range(width)) + "\n" for y in range(height))


def explicit_edges(width: int, height: int) -> str:
    """Every edge of a width x height box of squares written out: each pair once, E and N."""
    out = [f"{x} {y} 0 E {x + 1} {y} 0" for y in range(height) for x in range(width - 1)]
    out += [f"{x} {y} 0 N {x} {y + 1} 0" for y in range(height - 1) for x in range(width)]
    return "\n".join(out) + "\n"


def counts(puzzle, engine, redundancy=None):
    result = get_engine(engine).solve(Cover.from_puzzle(puzzle, redundancy=redundancy))
    return result.unique, result.total


@pytest.mark.parametrize("links", [True, False])
def test_a_graph_of_a_box_counts_as_the_box(tmp_path, links):
    # the 4x4 box of dominoes, as the box and as a graph (with the lattice's links, or every edge written out)
    [box] = bench.load(DEFS / "dominoes_4x4.txt")
    pieces = "".join(f"C:name=d{k}:layout=0 0 0, 1 0 0\n" for k in range(8))
    text = ("D:xDim=4:yDim=4:zDim=1\n" + ("G:links=lattice\n" if links else "G\n") + rows_of(4, 4)
            + ("" if links else explicit_edges(4, 4)) + "~G\n" + pieces + "~D\n")
    (tmp_path / "g.txt").write_text(text)
    [graph] = bench.load(tmp_path / "g.txt")
    assert (graph.group.order, len(graph.images), graph.has_parity) == (box.group.order, len(box.images), True)
    assert Cover.from_puzzle(graph).hash == Cover.from_puzzle(box).hash
    for engine in ENGINES:
        assert counts(graph, engine, True) == counts(box, engine) == (expected_for(box).unique, expected_for(box).total)


def test_a_graph_with_a_seam_counts_as_the_bundled_cylinder(tmp_path):
    seam = "".join(f"4 {y} 0 E 0 {y} 0\n" for y in range(4))
    (tmp_path / "g.txt").write_text("D:xDim=5:yDim=4:zDim=1\nG:links=lattice\n" + rows_of(5, 4) + seam + "~G\n"
                                    + TETROMINOES + "~D\n")
    [graph] = bench.load(tmp_path / "g.txt")
    [cylinder] = bench.load(DEFS / "tetrominoes_cylinder_5x4.txt")
    expected = expected_for(cylinder)
    assert (graph.group.order, len(graph.images)) == (cylinder.group.order, len(cylinder.images))
    assert graph.group.order == expected.group
    for engine in ENGINES:
        for redundancy in (None, True):
            assert counts(graph, engine, redundancy) == (expected.unique, expected.total), (engine, redundancy)


def test_a_twisted_torus_no_box_describes_agrees_with_the_brute_force_on_every_engine():
    path = DATA / "tetrominoes_twisted_torus_5x4.txt"
    [puzzle] = bench.load(path)
    oracle = lattice_reference.count(str(path))
    assert puzzle.group.order == oracle["group"] == 80
    assert (oracle["unique"], oracle["total"]) == (8, 640)
    for engine in ENGINES:
        for redundancy in (None, True):
            assert counts(puzzle, engine, redundancy) == (oracle["unique"], oracle["total"]), (engine, redundancy)


def test_a_graph_board_has_no_checkerboard_when_a_seam_joins_like_colours(tmp_path):
    # a 4-round cylinder of squares keeps its colours; glued with a shift of one row it does not
    seam = "".join(f"3 {y} 0 E 0 {(y + 1) % 2} 0\n" for y in range(2))
    (tmp_path / "g.txt").write_text("D:xDim=4:yDim=2:zDim=1\nG:links=lattice\n" + rows_of(4, 2) + seam + "~G\n"
                                    + "".join(f"C:name=d{k}:layout=0 0 0, 1 0 0\n" for k in range(4)) + "~D\n")
    [puzzle] = bench.load(tmp_path / "g.txt")
    assert not puzzle.has_parity


GOOD = "D:xDim=3:yDim=2:zDim=1\nG:links=lattice\n0 0 0, 1 0 0, 2 0 0\n0 1 0, 1 1 0, 2 1 0\n{edges}~G\n" \
       "C:name=a:layout=0 0 0, 1 0 0, 2 0 0\nC:name=b:layout=0 0 0, 1 0 0, 2 0 0\n~D\n"


@pytest.mark.parametrize("text, line, message", [
    (GOOD.replace("0 1 0, 1 1 0", "0 1 0, 1 0 0"), 4, "cell (1 0 0) is listed twice (first on line 3)"),
    (GOOD.format(edges="2 0 0 E 5 0 0\n"), 5, "edge to or from the unknown cell (5 0 0)"),
    # E of (2 0 0) already leads to (0 0 0): a second E is no involution
    (GOOD.format(edges="2 0 0 E 0 0 0\n2 0 0 E 0 1 0\n"), 6, "label E of cell (2 0 0) leads to (0 0 0) already (from line 5)"),
    # W of (0 1 0) is taken by the first seam, so the second seam's way back clashes
    (GOOD.format(edges="2 0 0 E 0 1 0\n2 1 0 E 0 1 0\n"), 6, "label W of cell (0 1 0) leads to (2 0 0) already"),
    (GOOD.format(edges="1 0 0 E 2 1 0\n"), 5, "label E of cell (1 0 0) leads to (2 0 0) already (from the lattice"),
    (GOOD.format(edges="2 0 0 Q 0 0 0\n"), 5, "label Q on a cube cell; expected one of E W N S U D"),
    (GOOD.format(edges="2 0 0 E 2 0 0\n"), 5, "cell (2 0 0) is joined to itself"),
    (GOOD.format(edges="2 0 0 E 0 0\n"), 5, "'2 0 0 E 0 0'; expected an edge 'x y z LABEL x y z'"),
    (GOOD.format(edges="2 0, 1 1 1\n"), 5, "'2 0' is neither a cell 'x y z'"),
    (GOOD.format(edges="2 0 0 E 0 0 0 0\n"), 5, "expected an edge 'x y z LABEL x y z'"),
    (GOOD.replace("0 1 0, 1 1 0, 2 1 0", "0 1 0, 1 1 0, 2 1 0, 3 1 0"), 4, "cell (3 1 0) is outside the 3x2x1 box"),
    (GOOD.replace("G:links=lattice", "G"), 2, "the graph is not connected"),
    (GOOD.replace("G:links=lattice", "G:links=all"), 2, "links=all; expected links=lattice"),
    (GOOD.format(edges="").replace("~G\n", ""), 7, "missing '~G': the graph begun on line 2 is still open at '~D'"),
    (GOOD.format(edges="").replace("zDim=1", "zDim=1:wrap=x"), 2, "a second board: the puzzle has a wrap=x already"),
    (GOOD.format(edges="").replace("0 1 0, 1 1 0, 2 1 0", "0 1 0, 1 1 0").replace("~D", "C:name=s:type=S:layout=2 1 0\n~D"),
     8, "stationary piece 's' has cell (2 1 0) off the board's graph; expected cells the G block on line 2 lists"),
    (GOOD.format(edges="").replace("~D", "C:name=s:type=S:layout=1 0 0, 1 1 0\n~D"), 2,
     "the stationary pieces cut the graph's open cells apart"),
    # triangles: E-like labels lead from up to down cells; an edge between two up cells is none the lattice has
    ("D:xDim=2:yDim=1:zDim=1:lattice=triangle\nG\n0 0 0, 0 0 1, 1 0 0, 1 0 1\n0 0 0 a 1 0 0\n~G\n"
     "C:name=a:layout=0 0 0, 0 0 1\nC:name=b:layout=0 0 0, 0 0 1\n~D\n", 4,
     "label a leads from a up cell to a down cell, but (1 0 0) is a up cell"),
])
def test_every_malformed_graph_names_its_line_and_exits_2(tmp_path, capsys, text, line, message):
    path = tmp_path / "bad.txt"
    path.write_text(text.replace("{edges}", ""))
    with pytest.raises(DefinitionError) as info:
        [puzzle] = bench.load(path)
        puzzle.images
    assert (info.value.line, info.value.path) == (line, str(path)), str(info.value)
    assert message in info.value.message, str(info.value)
    assert main(["info", str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"{path}:{line}: ")


def test_the_worked_example_of_the_docs_parses_and_solves(tmp_path):
    page = (DATA.parent.parent / "docs" / "lattices.md").read_text()
    example = page.split("## Boards as graphs", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    (tmp_path / "twisted.txt").write_text(example)
    [puzzle] = bench.load(tmp_path / "twisted.txt")
    assert puzzle.group.order == 80
    for engine in ENGINES:
        assert counts(puzzle, engine, True) == (8, 640), engine


def test_a_graph_board_is_drawn_with_its_seams_marked():
    from bench.drawing.picture import SEAM, draw
    from bench.drawing.solution import Solution
    from support.reference import enumerate_covers

    [puzzle] = bench.load(DATA / "tetrominoes_twisted_torus_5x4.txt")
    cover = Cover.from_puzzle(puzzle)
    solution = Solution.from_cover(cover, enumerate_covers(cover, limit=1)[0], "twisted")
    # each of the 9 written edges and its implied opposite: 18 sides the plane does not join
    assert len(solution.seams) == 18
    assert Solution.from_json(solution.to_json()).seams == solution.seams
    scene = draw(solution)
    seams = [item for item in scene.items if getattr(item, "role", "") == "seam"]
    # the twisted seam at the left and right sides (4 each), the straight one at the top and bottom (5 each)
    assert len(seams) == 2 * 4 + 2 * 5 and all(line.stroke == SEAM for line in seams)
    assert any("a board given as a graph" in item.text for item in scene.items if getattr(item, "role", "") == "caption")
    # a box's own graph has no seam to mark
    [box] = bench.load(DEFS / "dominoes_4x4.txt")
    plain = Cover.from_puzzle(box)
    assert Solution.from_cover(plain, enumerate_covers(plain, limit=1)[0]).seams == ()
