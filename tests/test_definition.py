"""The definition-file reader: syntax, layouts, and one error per malformed input."""

from __future__ import annotations

import io
import sys

import pytest

from bench import DefinitionError, load, parse_text
from bench.models.definition import parse_file
from support import DEFS

PENT = """
D:xDim=3:yDim=2:zDim=1
C:name=A:type=M:layout=0 0 0, 1 0 0, 2 0 0
L
B B B
~L
~D
"""


def parse_error(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as info:
        defs = parse_text(text, "t.txt")
        from bench.models.puzzle import Puzzle

        for d in defs:
            Puzzle.from_definition(d)
    return info.value


def test_coordinate_and_layout_pieces():
    [d] = parse_text(PENT)
    assert d.dims == (3, 2, 1) and not d.one_side
    a, b = d.pieces
    assert a.name == "A" and a.cells == ((0, 0, 0), (1, 0, 0), (2, 0, 0)) and not a.stationary
    # the first drawing line is y = yDim - 1
    assert b.cells == ((0, 1, 0), (1, 1, 0), (2, 1, 0))


def test_comments_blank_lines_and_several_puzzles():
    text = "# header\n\n" + PENT + "   # between\n" + PENT.replace("xDim=3", "xDim=3 ") + "\n"
    defs = parse_text(text)
    assert [d.index for d in defs] == [1, 2]
    assert defs[1].line > defs[0].end_line


def test_three_dimensional_layout_slices_bottom_first():
    [d] = parse_text("D:xDim=2:yDim=2:zDim=2\nL\nA A, B B\nA . , B B\n~L\n~D\n")
    a, b = d.pieces
    assert set(a.cells) == {(0, 1, 0), (1, 1, 0), (0, 0, 0)}
    assert set(b.cells) == {(0, 1, 1), (1, 1, 1), (0, 0, 1), (1, 0, 1)}


def test_horizontal_white_space_is_ignored_in_layouts():
    [d1] = parse_text("D:xDim=3:yDim=1:zDim=1\nL\nA A A\n~L\n~D")
    [d2] = parse_text("D:xDim=3:yDim=1:zDim=1\nL\nAAA\n~L\n~D")
    assert d1.pieces[0].cells == d2.pieces[0].cells


def test_mobile_pieces_may_be_drawn_outside_the_box():
    text = "D:xDim=2:yDim=1:zDim=1\nL\n. . . . . A A\n. . . . . . .\n. . . . . . .\n~L\n~D"
    [puzzle] = [p for p in map(__import__("bench").Puzzle.from_definition, parse_text(text))]
    assert len(puzzle.images) == 1


def test_stationary_pieces_are_placed_where_drawn():
    text = "D:xDim=3:yDim=2:zDim=1\nL:stationary=S\nS . .\n. . .\n~L\nC:name=a:layout=0 0 0,1 0 0,2 0 0,3 0 0,4 0 0\n~D"
    [puzzle] = [__import__("bench").Puzzle.from_definition(d) for d in parse_text(text)]
    assert puzzle.stationary[0].cells == ((0, 1, 0),)
    assert puzzle.n_open == 5 and puzzle.spare is False


def test_one_side_flag_forms():
    for flag in (":oneSide", ":oneSide=1"):
        [d] = parse_text(f"D:xDim=2:yDim=1:zDim=1{flag}\nC:name=a:layout=0 0 0,1 0 0\n~D")
        assert d.one_side
    [d] = parse_text("D:xDim=2:yDim=1:zDim=1:oneSide=0\nC:name=a:layout=0 0 0,1 0 0\n~D")
    assert not d.one_side


def test_standard_input(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(PENT.encode())))
    [d] = parse_file("-")
    assert d.path == "<stdin>"


def test_blank_line_inside_a_layout_is_an_empty_row():
    [d] = parse_text("D:xDim=1:yDim=3:zDim=1\nL:stationary=S\nS\n\nS\n~L\nC:name=m:layout=0 0 0\n~D")
    assert set(d.pieces[0].cells) == {(0, 2, 0), (0, 0, 0)}


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("X:foo=1\n", 1, "unknown directive 'X'"),
        ("D:xDim=1:yDim=1:zDim=1:colour=red\n~D", 1, "unknown attribute 'colour'"),
        ("D:xDim=1:yDim=1:zDim=1\nQ:name=a\n~D", 2, "unknown directive 'Q'"),
        ("D:xDim=1:yDim=1:zDim=1\nC:name=a:layout=0 0 0:size=3\n~D", 2, "unknown attribute 'size'"),
        ("D:xDim=1:yDim=1:zDim=1\nC:name=a:layout=0 0 0\n", 2, "missing '~D'"),
        ("D:xDim=1:yDim=1:zDim=1\nL\na\n", 3, "missing '~L'"),
        ("D:xDim=1:yDim=1:zDim=1\nL\na\n~D\n", 4, "missing '~L'"),
        ("D:xDim=0:yDim=1:zDim=1\n~D", 1, "xDim=0 is not a positive integer"),
        ("D:xDim=2:yDim=x:zDim=1\n~D", 1, "yDim=x is not a positive integer"),
        ("D:xDim=2:yDim=1\n~D", 1, "missing attribute 'zDim'"),
        ("D:xDim=2:yDim=2:zDim=2:oneSide\n~D", 1, "oneSide needs a 2-D puzzle"),
        ("D:xDim=2:yDim=1:zDim=1\nC:name=a:type=S:layout=2 0 0\nC:name=b:layout=0 0 0\n~D", 2, "outside the 2x1x1 box"),
        ("D:xDim=2:yDim=1:zDim=1\nC:name=a:type=S:layout=0 0 0\nC:name=b:type=S:layout=0 0 0\nC:name=c:layout=0 0 0\n~D", 3, "overlaps stationary piece 'a'"),
        ("D:xDim=1:yDim=1:zDim=1\nC:name=.:layout=0 0 0\n~D", 2, "reserved"),
        ("D:xDim=1:yDim=1:zDim=1\nL:stationary=.\na\n~L\n~D", 2, "reserved"),
        ("D:xDim=2:yDim=1:zDim=1\nC:name=a:layout=0 0 0\nC:name=a:layout=0 0 0\n~D", 3, "duplicate piece name 'a'"),
        ("D:xDim=2:yDim=1:zDim=1\nC:name=a:layout=0 0 0\nL\n. a\n~L\n~D", 4, "duplicate piece name 'a'"),
        ("D:xDim=1:yDim=1:zDim=1\nC:name=a:layout=\n~D", 2, "is empty"),
        ("D:xDim=3:yDim=2:zDim=1\nL\na a a\na a\n~L\n~D", 4, "ragged drawing row"),
        ("D:xDim=3:yDim=1:zDim=1\nL\na a a, b b b\n~L\n~D", 3, "2 slices but zDim=1"),
        ("D:xDim=3:yDim=1:zDim=1\nC:name=a:layout=0 0 0, 1 0 0\n~D", 1, "volume 2 but the box has 3 open cells"),
        ("D:xDim=1:yDim=1:zDim=1\nC:name=a:layout=0 0\n~D", 2, "is not a coordinate"),
        ("D:xDim=1:yDim=1:zDim=1\nC:name=a:layout=0 0 0, 0 0 0\n~D", 2, "twice"),
        ("D:xDim=1:yDim=1:zDim=1\nC:name=a:type=X:layout=0 0 0\n~D", 2, "type=X"),
        ("D:xDim=1:yDim=1:zDim=1\nL:stationary=Q\na\n~L\n~D", 2, "does not appear in the drawing"),
        ("C:name=a:layout=0 0 0\n", 1, "outside a puzzle"),
        ("~D\n", 1, "outside a puzzle"),
        ("# nothing\n", 1, "no puzzle found"),
        ("D:xDim=1000:yDim=1000:zDim=1000\n~D", 1, "more than the supported"),
        ("D:xDim=1:yDim=1:zDim=1\nC:name=a:layout=0 0 99999999999\n~D", 2, "out of range"),
        ("D:xDim=1:yDim=1:zDim=1\n~L\n~D", 2, "'~L' without a matching 'L'"),
        ("D:xDim=1:yDim=1:zDim=1\nD:xDim=1:yDim=1:zDim=1\n~D", 2, "missing '~D'"),
        ("D:xDim=1000000000:yDim=1000000000:zDim=1000000000\n~D", 1, "has 1,000,000,000,000,000,000,000,000,000 cells"),
        ("D:xDim=4294967296:yDim=4294967297:zDim=1\n~D", 1, "has 18,446,744,078,004,518,912 cells"),
        ("D:xDim=2:yDim=1:zDim=1\nL\nA\u200bA\n~L\n~D", 3, "invisible character U+200B (ZERO WIDTH SPACE)"),
        ("D:xDim=2:yDim=1:zDim=1\nC:name=a\u2060:layout=0 0 0, 1 0 0\n~D", 2, "invisible character U+2060"),
        ("D:xDim=2:yDim=1:zDim=1\nL\nAx\u0301\n~L\n~D", 3, "combining character U+0301"),
        ("D:xDim=2:yDim=1:zDim=1\nL\nA\x1b\n~L\n~D", 3, "control character U+001B"),
        ("D:xDim=2000:yDim=1:zDim=1\nL\n" + "A" * 1_000_001 + "\n~L\n~D", 3, "more than the 1,000,000 cells"),
        ("D:xDim=2:yDim=1:zDim=1\n" + "".join(f"C:name=p{k}:layout=" + ", ".join(f"{i} {k} 0" for i in range(1000))
                                              + "\n" for k in range(1001)) + "~D", 1002, "more than the 1,000,000 cells"),
    ],
)
def test_every_malformed_input_names_file_line_and_expectation(text, line, fragment):
    err = parse_error(text)
    assert err.path == "t.txt"
    assert err.line == line, str(err)
    assert fragment in err.message, str(err)
    assert str(err).startswith(f"t.txt:{line}: ")


def test_unreadable_file_is_a_user_error(tmp_path):
    from bench import BenchError

    with pytest.raises(BenchError, match="cannot read"):
        load(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"D:xDim=1:yDim=1:zDim=1\n\xff\n")
    with pytest.raises(DefinitionError, match="bad.txt:2: the file is not UTF-8"):
        load(bad)


SCOTT = (DEFS / "pentominoes_8x8_scott.txt").read_text()


def pieces_of(text: str):
    return [(p.name, p.cells, p.stationary) for d in parse_text(text) for p in d.pieces]


@pytest.mark.parametrize("where", [0, 1, 4, 8])
def test_comment_lines_inside_a_drawing_are_no_rows(where):
    # a comment line between the rows of Scott's stationary drawing once shifted every row above it
    lines = SCOTT.split("\n")
    start = lines.index("L:stationary=O") + 1
    lines.insert(start + where, "   # a remark about the board")
    assert pieces_of("\n".join(lines)) == pieces_of(SCOTT)


def test_comment_lines_inside_a_mobile_drawing_are_no_rows():
    text = (DEFS / "pentominoes_10x6.txt").read_text()
    assert pieces_of(text.replace("\nL\n", "\nL\n# the pieces\n").replace("\n~L", "\n# end\n~L")) == pieces_of(text)


def test_a_stationary_drawing_with_a_row_missing_is_an_error():
    # Scott's 8x8 with one row missing gave 768/1536 instead of 65/520, silently
    lines = SCOTT.split("\n")
    start = lines.index("L:stationary=O")
    del lines[start + 1]
    error = parse_error("\n".join(lines))
    assert error.line == start + 1 and "7 rows but yDim=8" in error.message


def test_a_stationary_drawing_with_a_row_too_many_is_an_error():
    lines = SCOTT.split("\n")
    start = lines.index("L:stationary=O")
    lines.insert(start + 1, ". . . . . . . .")
    assert "9 rows but yDim=8" in parse_error("\n".join(lines)).message


def test_a_stationary_drawing_with_a_slice_missing_is_an_error():
    error = parse_error("D:xDim=1:yDim=2:zDim=2\nL:stationary=S\nS, S\n.\n~L\nC:name=a:layout=0 0 0\n~D\n")
    assert error.line == 4 and "1 slices but zDim=2" in error.message


def test_blank_lines_before_the_end_of_a_stationary_drawing_hold_no_cell():
    lines = SCOTT.split("\n")
    end = lines.index("~L", lines.index("L:stationary=O"))
    lines.insert(end, "   ")
    assert pieces_of("\n".join(lines)) == pieces_of(SCOTT)


def test_a_blank_line_inside_a_drawing_is_still_an_empty_row():
    [d] = parse_text("D:xDim=1:yDim=3:zDim=1\nL:stationary=S\nS\n\n.\n~L\nC:name=a:layout=0 0 0\n~D\n")
    assert d.pieces[0].cells == ((0, 2, 0),)


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf" + SCOTT.encode())
    assert [(p.name, p.cells) for d in parse_file(path) for p in d.pieces] == \
        [(name, cells) for name, cells, _ in pieces_of(SCOTT)]


def test_names_are_read_in_normal_form_c_so_a_name_is_one_piece_however_it_was_typed():
    composed, decomposed = "\u00c5", "A\u030a"
    [d] = parse_text(f"D:xDim=2:yDim=1:zDim=1\nL\n{composed}{decomposed}\n~L\n~D")
    assert [(p.name, len(p.cells)) for p in d.pieces] == [(composed, 2)]
    [d] = parse_text(f"D:xDim=2:yDim=1:zDim=1\nC:name={decomposed}:layout=0 0 0, 1 0 0\n~D")
    assert d.pieces[0].name == composed


def test_invisible_characters_in_comments_are_left_alone():
    [d] = parse_text("D:xDim=1:yDim=1:zDim=1   # a\u200bb \x1b[31m\nC:name=a:layout=0 0 0\n~D")
    assert d.pieces[0].name == "a"
