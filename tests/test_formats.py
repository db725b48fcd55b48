"""Exchange formats: bench export, Knuth's format read as a puzzle, DIMACS counted elsewhere, JSON read back."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import assume, given, settings

import bench
from bench import Cover
from bench.cli import main
from bench.engines import get_engine
from bench.errors import DefinitionError, UsageError
from bench.formats import get_format
from support import DEFS
from support.reference import brute_force
from support.strategies import matrices

KNUTH = "| dlx3.w's example\nA B 2:3|C | X Y\nA B X:0 Y:0\nA C X:1 Y:1\nC X:0\nB X:1\nC Y:1\n"


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def export(capsys, tmp_path, definition, fmt, *options):
    out = tmp_path / f"{definition.stem}.{fmt}"
    status, _, err = run(capsys, "export", definition, "--format", fmt, "--output-file", out, *options)
    assert status == 0, err
    return out


def facts(out: str) -> dict:
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line and not line.startswith("SHAPE["))


def count_line(err: str) -> tuple[int, int, int]:
    line = next(line for line in err.splitlines() if " covers, " in line)
    words = line.split(": ", 1)[1].replace(",", "").split()
    return int(words[0]), int(words[2]), int(words[4])


# -- Knuth's format --------------------------------------------------------------------------------------------


def test_knuths_example_reads_with_bounds_secondary_items_and_colours():
    cover, convention = get_format("xcc").read(KNUTH, "k.xcc")
    assert convention == "none"
    assert cover.item_names == ("A", "B", "C", "X", "Y")
    assert (cover.item_lo.tolist(), cover.item_hi.tolist()) == ([1, 1, 2, 0, 0], [1, 1, 3, 1, 1])
    assert cover.colour_names == ("0", "1") and cover.coloured_items.tolist() == [3, 4]
    assert get_engine("dlx").solve(cover).covers == 1


@pytest.mark.parametrize("text, line, message", [
    ("A B\nA C\n", 2, "unknown item 'C'"),
    ("A B\nA A\n", 2, "appears twice"),
    ("A | X\nA:red X\n", 2, "primary item 'A' has a colour"),
    ("A | X | Y\nA\n", 1, "'|' twice"),
    ("3:2|A\nA\n", 1, "bounds 3:2"),
    ("0|A\nA\n", 1, "bounds 0:0"),
    ("A | 2|X\nA\n", 1, "secondary items have no bounds"),
    ("A | X\nX\n", 2, "no primary item"),
    ("| comment\nA B\nA\nB\nA\n", 5, "repeats the option on line 3"),
    ("| only a comment\n", 1, "no item line"),
    ("A | X\nA X:\n", 2, "not an item with a colour"),
    ("A A\n", 1, "named twice"),
    ("A\nA|B\n", 2, "'|' belongs to the item line"),
])
def test_every_error_in_knuths_format_names_its_line(text, line, message):
    with pytest.raises(DefinitionError, match=message) as caught:
        get_format("xcc").read(text, "bad.xcc")
    assert str(caught.value).startswith(f"bad.xcc:{line}: ")


def test_bench_solve_reads_a_matrix_and_says_what_it_cannot_do(capsys, tmp_path):
    path = tmp_path / "knuth.dlx"
    path.write_text(KNUTH)
    status, out, err = run(capsys, "solve", path)
    assert status == 0
    assert out.splitlines()[1:] == ["A C X:1 Y:1", "B X:1", "C Y:1"]
    assert count_line(err) == (1, 1, 1)
    for refused in (["-V"], ["-r", "A"], ["--draw", tmp_path / "pictures"], ["-e", "fila"], ["-e", "dlx:bits"]):
        status, _, err = run(capsys, "solve", "-q", *refused, path)
        assert status == 2, refused
        assert err.strip(), refused
    bad = tmp_path / "bad.txt"
    bad.write_text("A B\nA C\n")
    status, _, err = run(capsys, "solve", "--format", "xcc", bad)
    assert status == 2 and f"{bad}:2: unknown item 'C'" in err


# -- export ----------------------------------------------------------------------------------------------------


def test_an_exported_matrix_solves_to_the_puzzles_covers(capsys, tmp_path):
    status, out, err = run(capsys, "solve", "-q", "-r", DEFS / "pentominoes_10x6.txt")
    puzzle_counts = count_line(err)
    path = export(capsys, tmp_path, DEFS / "pentominoes_10x6.txt", "xcc", "-r")
    text = path.read_text()
    assert "| filters: redundancy filter on piece X" in text
    status, out, err = run(capsys, "info", "-r", "#", DEFS / "pentominoes_10x6.txt")
    assert f"| cover hash: {facts(out)['COVER_HASH']}" in text
    status, _, err = run(capsys, "solve", "-q", path)
    assert status == 0
    assert count_line(err) == (puzzle_counts[0],) * 3 == (2339,) * 3


def test_xcover_reads_the_exported_file_and_finds_the_same_covers(capsys, tmp_path):
    from xcover import covers
    from xcover.io import read_xcover_from_file

    path = export(capsys, tmp_path, DEFS / "tetrahexes_4x7.txt", "xcc", "-r")
    options, primary, secondary, colored = read_xcover_from_file(str(path))
    found = {frozenset(cover) for cover in covers(options, primary, secondary, colored)}
    [puzzle] = bench.load(DEFS / "tetrahexes_4x7.txt")
    mine = get_engine("dlx").solve(Cover.from_puzzle(puzzle, redundancy=True))
    assert len(found) == mine.covers > 0


def test_json_reads_back_as_the_same_counting_problem(capsys, tmp_path):
    path = export(capsys, tmp_path, DEFS / "somacube.txt", "json", "-r")
    document = json.loads(path.read_text())
    status, out, err = run(capsys, "info", "-r", "#", DEFS / "somacube.txt")
    assert document["header"]["cover hash"] == facts(out)["COVER_HASH"]
    cover, convention = get_format("json").read(path.read_text(), str(path))
    assert cover.hash == document["header"]["cover hash"] and convention == "rotations"
    status, out, err = run(capsys, "solve", "-q", path)
    assert count_line(err)[1:] == (480, 11520)


def test_dimacs_is_counted_by_ganak_through_its_projection(capsys, tmp_path):
    import pyganak

    for definition, options in ((DEFS / "dominoes_4x4.txt", ()), (DEFS / "tetrahexes_4x7.txt", ("-r",))):
        path = export(capsys, tmp_path, definition, "dimacs", *options)
        n_vars, clauses, show = read_dimacs(path.read_text())
        counter = pyganak.Counter(verbose=0, seed=0)
        counter.new_vars(n_vars)
        counter.add_clauses(clauses)
        counter.set_sampling_set(show)
        [puzzle] = bench.load(definition)
        expected = get_engine("dlx").solve(Cover.from_puzzle(puzzle, redundancy=bool(options))).covers
        assert int(counter.count()) == expected, definition


@pytest.mark.skipif(shutil.which("clasp") is None, reason="clasp is not installed (apt-get install clasp)")
def test_dimacs_models_are_the_covers_one_for_one(capsys, tmp_path):
    # clasp enumerates models without projecting: every auxiliary variable must be defined by the options
    path = export(capsys, tmp_path, DEFS / "tetrahexes_4x7.txt", "dimacs", "-r")
    out = subprocess.run(["clasp", "--models", "0", "--quiet=2", str(path)], capture_output=True, text=True).stdout
    assert "c Models         : 9\n" in out


@settings(max_examples=40, deadline=None)
@given(matrices())
def test_matrices_written_and_read_back_count_exactly(cover):
    try:
        text = get_format("xcc").write(cover, {"": "test"})
    except UsageError:
        assume(False)
    again, _ = get_format("xcc").read(text, "m.xcc")
    expected = len(brute_force(cover))
    assert len(brute_force(again)) == expected
    for spec in ("dlx", "cpsat"):
        assert get_engine(spec).solve(again).covers == expected, spec


def test_an_option_of_coloured_items_only_cannot_be_written():
    cover = Cover.from_options([[0], [1]], [1, 0], [1, 1], colours=[[0], [1]], colour_names=["red"])
    with pytest.raises(UsageError, match="needs a primary item"):
        get_format("xcc").write(cover, {})


def test_extensible_covers_write_their_optional_items_as_primary():
    cover = Cover.from_options([[0], [0, 1]], [1, 0], [2, 1])
    text = get_format("xcc").write(cover, {})
    assert text.splitlines()[0] == "1:2|i0 0:1|i1"
    again, _ = get_format("xcc").read(text)
    assert again.hash == cover.hash


def read_dimacs(text: str) -> tuple[int, list[list[int]], list[int]]:
    """``(variables, clauses, projection)`` of DIMACS text with ``c p show`` lines."""
    n_vars, show, numbers = 0, [], []
    for line in text.splitlines():
        words = line.split()
        if words[:3] == ["c", "p", "show"]:
            show += [int(w) for w in words[3:-1]]
        elif words[:1] == ["p"]:
            n_vars = int(words[2])
        elif words and words[0] != "c":
            numbers += [int(w) for w in words]
    clauses, current = [], []
    for lit in numbers:
        if lit:
            current.append(lit)
        else:
            clauses.append(current)
            current = []
    return n_vars, clauses, show


@pytest.mark.slow
def test_the_10x6_matrix_read_back_and_by_xcover(capsys, tmp_path):
    # 9356 covers without a filter, read back by bench and by xcover (Ganak takes more than 25 minutes on its CNF)
    from xcover import covers
    from xcover.io import read_xcover_from_file

    path = export(capsys, tmp_path, DEFS / "pentominoes_10x6.txt", "xcc")
    status, _, err = run(capsys, "solve", "-q", path)
    assert count_line(err) == (9356, 9356, 9356)
    options, primary, secondary, colored = read_xcover_from_file(str(path))
    assert sum(1 for _ in covers(options, primary, secondary, colored)) == 9356


def test_export_refuses_in_search_filters_and_several_puzzles_without_a_choice(capsys, tmp_path):
    status, _, err = run(capsys, "export", DEFS / "pentominoes_10x6.txt", "--format", "xcc", "-V", "13")
    assert status == 2 and "filters at search nodes" in err
    status, _, err = run(capsys, "export", DEFS / "hexominoes_rectangles.txt", "--format", "xcc", "--puzzle", "9")
    assert status == 2 and "holds 6 puzzle(s)" in err
    status, out, _ = run(capsys, "export", DEFS / "hexominoes_rectangles.txt", "--format", "xcc", "--puzzle", "2")
    assert status == 0 and "hexominoes_rectangles.txt#2" in out
    status, _, err = run(capsys, "export", DEFS / "dominoes_4x4.txt", "--format", "cnf")
    assert status == 2 and "unknown format 'cnf'" in err
    status, _, err = run(capsys, "solve", "--format", "dimacs", DEFS / "dominoes_4x4.txt")
    assert status == 2 and "does not read it" in err
