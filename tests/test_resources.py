"""Bounded resources: a puzzle that would need too much memory is refused before anything large is built."""

from __future__ import annotations

import time
import tracemalloc

import pytest

import bench
from bench.cli import main
from bench.errors import DefinitionError
from bench.models.resources import DEFAULT_MAX_MEMORY, check_memory, estimate, parse_size
from support import DATA, DEFS

CUBE = ", ".join(f"{x} {y} {z}" for x in range(20) for y in range(20) for z in range(20))
ABUSE = {
    # 27 cubes of side 20 in a 60x60x60 box: 68,921 images of 8,000 cells (12 GiB while building them)
    "cubes": "D:xDim=60:yDim=60:zDim=60\n" + "".join(f"C:name=c{k}:layout={CUBE}\n" for k in range(27)) + "~D\n",
    # 64,000 monominoes in a 40x40x40 box: a level stack of 64,000 x 64,001 counts (a 30.5 GiB array)
    "monominoes": "D:xDim=40:yDim=40:zDim=40\n" + "".join(f"C:name=m{k}:layout=0 0 0\n" for k in range(64000)) + "~D\n",
    # 20,000 spare monominoes in a 150x130 rectangle
    "spare": "D:xDim=150:yDim=130:zDim=1\n" + "".join(f"C:name=m{k}:layout=0 0 0\n" for k in range(20000)) + "~D\n",
}


def measured(argv: list[str], memory: bool) -> tuple[int, float, int | None]:
    """``main(argv)``: its status, CPU seconds and, when asked (tracemalloc slows it 2-3 times), peak traced bytes.

    CPU seconds, not wall: "refused fast" means little work, and a run beside other jobs stretches the wall time
    five-fold (a refusal of 1.9 s of CPU took 10.3 s at a load of 11)."""
    if memory:
        tracemalloc.start()
    start = time.process_time()
    try:
        status = main(argv)
        peak = tracemalloc.get_traced_memory()[1] if memory else None
    finally:
        if memory:
            tracemalloc.stop()
    return status, time.process_time() - start, peak


MEMORY = [False, pytest.param(True, marks=pytest.mark.slow)]


@pytest.mark.parametrize("memory", MEMORY)
@pytest.mark.parametrize("name", sorted(ABUSE))
def test_huge_puzzles_are_refused_fast_with_small_memory(name, memory, tmp_path, capsys):
    path = tmp_path / f"{name}.txt"
    path.write_text(ABUSE[name])
    status, seconds, peak = measured(["check", str(path)], memory)
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert err.startswith(f"{path}:1: this puzzle needs about ") and "more than the 2 GiB allowed" in err
    assert "raise the limit with --max-memory SIZE" in err and len(err.splitlines()) == 1
    assert seconds < (30 if memory else 10)
    assert peak is None or peak < 200 << 20


@pytest.mark.parametrize("memory", MEMORY)
def test_spare_copies_cost_the_region_not_the_copies(memory, tmp_path, capsys):
    # 20,000 spare monominoes held 2.4 GB past 120 s in a volume table of pieces x volume^2
    path = tmp_path / "spare.txt"
    path.write_text("D:xDim=10:yDim=10:zDim=1\n" + "".join(f"C:name=m{k}:layout=0 0 0\n" for k in range(20000)) + "~D\n")
    status, seconds, peak = measured(["solve", "-q", "-i", str(path)], memory)
    out = capsys.readouterr().out
    assert status == 0 and "SOLUTIONS=1\n" in out and "TOTAL=1\n" in out
    assert seconds < (30 if memory else 10)
    assert peak is None or peak < 100 << 20


def test_the_limit_is_an_option(tmp_path, capsys):
    assert main(["check", "--max-memory", "1K", str(DEFS / "pentominoes_10x6.txt")]) == 2
    assert "more than the 1 KiB allowed" in capsys.readouterr().err
    assert main(["check", "--max-memory", "64M", str(DEFS / "pentominoes_10x6.txt")]) == 0


def test_every_bundled_puzzle_fits_the_default_limit():
    paths = sorted(DEFS.glob("*.txt")) + sorted(DATA.glob("*.txt"))
    for path in paths:
        for puzzle in bench.load(path):
            assert check_memory(puzzle, DEFAULT_MAX_MEMORY, fit_filter=True).total < DEFAULT_MAX_MEMORY // 8


def test_the_estimate_bounds_the_search_stacks_and_the_images():
    [puzzle] = bench.load(DEFS / "tetriscube.txt")
    cover = bench.Cover.from_puzzle(puzzle)
    parts = estimate(puzzle).parts
    images = puzzle.images
    assert parts["images"] >= images.cells.nbytes + images.ptr.nbytes
    assert parts["search stacks"] >= 2 * (cover.max_depth + 1) * cover.n_items * 4
    with pytest.raises(DefinitionError, match=r"tetriscube.txt:\d+: .*--max-memory"):
        check_memory(puzzle, 1000)


def test_the_search_depth_is_bounded_by_the_pieces():
    [puzzle] = bench.load(DEFS / "tetriscube.txt")
    assert bench.Cover.from_puzzle(puzzle).max_depth == 12


@pytest.mark.parametrize("text", ["0", "-1G", "lots", "1e400", "nan", "2X"])
def test_bad_sizes_are_refused(text):
    with pytest.raises(bench.BenchError, match="expected a size"):
        parse_size(text)
