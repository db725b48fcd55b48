"""What ``bench run`` is doing, on standard error: a bar over the engine runs (tqdm), which puzzle and engine now.

The bar shows on a terminal once the run has lasted two seconds; the lines
each engine run reports are written above it (``say``) and, without a
terminal, are all there is.
"""

from __future__ import annotations

import sys

from tqdm import tqdm


def say(line: str) -> None:
    """Print a line on standard error without tearing the bar."""
    tqdm.write(line, file=sys.stderr)
    sys.stderr.flush()


class RunProgress:
    """Engine runs done out of those planned; ``runs_per_puzzle`` engines x rounds for each puzzle."""

    def __init__(self, puzzles: int, runs_per_puzzle: int, enabled: bool | None = None, delay: float = 2.0):
        self.runs_per_puzzle = runs_per_puzzle
        self.puzzle_name = ""
        self.bar = tqdm(total=puzzles * runs_per_puzzle, file=sys.stderr, delay=delay, ascii=" #", mininterval=0.5,
                        disable=not (sys.stderr.isatty() if enabled is None else enabled),
                        bar_format="[{bar:20}] {n_fmt}/{total_fmt} engine runs  {desc}  {elapsed} elapsed")

    def more_puzzles(self, count: int) -> None:
        """A file held ``count`` puzzles more than the one planned for it."""
        self.bar.total += count * self.runs_per_puzzle
        self.bar.refresh()

    def puzzle(self, name: str) -> None:
        """Now solving ``name``."""
        self.puzzle_name = name
        self.bar.set_description_str(name)

    def engine(self, spec: str, round_no: int) -> None:
        """``spec`` starts its round ``round_no`` (from 0) on the current puzzle."""
        self.bar.set_description_str(f"{self.puzzle_name}: {spec} (round {round_no + 1})")

    def done(self, runs: int = 1) -> None:
        """``runs`` engine runs finished (or were skipped)."""
        self.bar.update(runs)

    def close(self) -> None:
        """Take the bar off the terminal."""
        self.bar.close()
