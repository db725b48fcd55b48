"""Fuzzing the reader: arbitrary and mutated input never escapes as anything but a BenchError."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bench import BenchError, Cover, parse_text
from bench.cli import main
from bench.models.puzzle import Puzzle
from support import DATA, DEFS

VALID = [p.read_text() for p in sorted(DEFS.glob("*.txt")) if p.stat().st_size < 2000]
VALID += [p.read_text() for p in sorted(DATA.glob("*.txt"))]
SIGNIFICANT = st.sampled_from(list("DCL~:=,.# \n0123456789-SMxyzXYZabc") + ["xDim=", "oneSide", "stationary=", "type=S", "layout=", "~L", "~D",
                                                                    ":lattice=hex", ":lattice=triangle", ":lattice=hexprism", ":lattice=fcc", "lattice="])


def build(text: str) -> None:
    """Parse, build and encode; anything but a BenchError propagates and fails the test."""
    try:
        for definition in parse_text(text, "fuzz.txt"):
            cover = Cover.from_puzzle(Puzzle.from_definition(definition), redundancy=True)
            cover.validate()
    except BenchError:
        pass


@st.composite
def mutated(draw):
    lines = draw(st.sampled_from(VALID)).split("\n")
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete line", "duplicate line", "swap lines", "insert", "delete char", "replace"]))
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        if kind == "delete line" and len(lines) > 1:
            del lines[i]
        elif kind == "duplicate line":
            lines.insert(i, line)
        elif kind == "swap lines":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            k = draw(st.integers(0, len(line)))
            token = draw(SIGNIFICANT)
            if kind == "insert":
                lines[i] = line[:k] + token + line[k:]
            elif kind == "delete char":
                lines[i] = line[:k] + line[k + 1:]
            else:
                lines[i] = line[:k] + token + line[k + len(token):]
    return "\n".join(lines)


@settings(max_examples=300)
@given(st.text(max_size=300))
def test_arbitrary_text(text):
    build(text)


@settings(max_examples=300)
@given(st.lists(SIGNIFICANT, max_size=80).map("".join))
def test_arbitrary_directive_soup(text):
    build(text)


@settings(max_examples=300)
@given(mutated())
def test_mutated_valid_files(text):
    build(text)


@settings(max_examples=60)
@given(mutated())
def test_cli_reports_path_line_and_exits_2(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "puzzle.txt"
    path.write_text(text)
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["info", str(path)])
    assert status in (0, 2)
    if status == 2:
        messages = err.getvalue().strip().splitlines()
        assert messages
        for message in messages:
            assert re.match(rf"^{re.escape(str(path))}(#\d+)?:(\d+:)? ", message), message
    else:
        assert "PUZZLE_FILE=" in out.getvalue()
