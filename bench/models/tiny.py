"""The tiny covers the kernels' warm-ups search: the smallest that pass a real search's argument types."""

from __future__ import annotations

from bench.models.cover import Cover
from bench.models.definition import parse_text
from bench.models.puzzle import Puzzle


def tiny_cover() -> Cover:
    """Three items, four options: a cover without a puzzle."""
    return Cover.from_options([[0, 1], [1, 2], [2], [0]], [1, 1, 1])


def dominoes(x: int) -> Cover:
    """A cover from a puzzle: x dominoes in an x by 2 box (x cells per bitfield word plus the ones beyond)."""
    pieces = "".join(f"C:name=d{k}:layout=0 0 0, 1 0 0\n" for k in range(x))
    return Cover.from_puzzle(Puzzle.from_definition(parse_text(f"D:xDim={x}:yDim=2:zDim=1\n{pieces}~D\n")[0]))
