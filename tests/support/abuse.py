"""The fuzz and abuse campaign: mutated definitions and count-preserving rewrites, run in-process.

Two kinds of cases, drawn from a seeded generator so a figure can be
reproduced (``python tests/support/abuse.py CASES [SEED]`` prints them):

* **mutations** of the definitions in ``defs/`` and ``tests/data/``: lines
  deleted, duplicated or swapped, tokens inserted or replaced, characters
  deleted, comment lines and byte-order marks inserted, CRLF line ends, the
  file cut short.  Each is parsed, built, checked against the memory limit,
  encoded, diagnosed and searched (DLX, a few thousand nodes): the only
  exception allowed is a :class:`~bench.errors.BenchError`.
* **rewrites** of puzzles with known counts that must not change them:
  comment lines anywhere (inside drawings too), blank lines between
  directives, trailing comments, the pieces in another order, every piece
  as a ``C`` directive instead of a drawing, CRLF line ends and a
  byte-order mark.  Each is solved and its unique and total counts
  compared with the original's.

A case fails on a traceback (any other exception), a hang (over
:data:`HANG_SECONDS`, stopped by an alarm), memory over :data:`MAX_BYTES`
(traced) or a changed count.
"""

from __future__ import annotations

import random
import signal
import sys
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.engines import Limits, get_engine  # noqa: E402
from bench.errors import BenchError  # noqa: E402
from bench.models.definition import parse_text  # noqa: E402
from bench.models.diagnose import unsolvable_reasons  # noqa: E402
from bench.models.puzzle import Puzzle  # noqa: E402
from bench.session.prepare import Request, prepare  # noqa: E402

HANG_SECONDS = 10.0
MAX_BYTES = 1 << 30
FUZZ_MEMORY = 256 << 20
"""The ``--max-memory`` of a fuzzed puzzle: anything larger is refused, which is a clean outcome."""
NODES = 5_000

SOURCES = sorted((ROOT / "defs").glob("*.txt")) + sorted((ROOT / "tests" / "data").glob("*.txt"))
REWRITTEN = ["defs/dominoes_4x4.txt", "defs/dominoes_6x6.txt", "defs/tetrahexes_4x7.txt", "defs/pentominoes_20x3.txt",
             "defs/pentominoes_8x8_scott.txt", "tests/data/fcc_pyramid_3.txt", "tests/data/hex_hexagon_side3.txt",
             "tests/data/hexprism_hexagon_2_layers.txt", "tests/data/onesided_tetrominoes_6x4.txt",
             "tests/data/spare_3x3.txt", "tests/data/stationary_5x5.txt", "tests/data/triangle_side4.txt"]
"""Puzzles with known counts that DLX solves in a few hundredths of a second."""
TOKENS = list("DCL~:=,.# \n0123456789-SMxyzXYZabc") + [
    "xDim=", "oneSide", "stationary=", "type=S", "layout=", "~L", "~D", ":lattice=hex", ":lattice=triangle",
    ":lattice=hexprism", ":lattice=fcc", "lattice=", "\ufeff", "\t", "\r", "99999", "-1", "# note"]


class Hang(Exception):
    """Raised by the alarm when a case runs past :data:`HANG_SECONDS`."""


@dataclass
class Figures:
    """What a campaign found: cases per kind, and the failures by class."""

    kinds: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)
    tracebacks: list = field(default_factory=list)
    hangs: list = field(default_factory=list)
    memory: list = field(default_factory=list)
    changed: list = field(default_factory=list)
    peak: int = 0
    seconds: float = 0.0

    @property
    def cases(self) -> int:
        return sum(self.kinds.values())

    @property
    def failures(self) -> list:
        return self.tracebacks + self.hangs + self.memory + self.changed

    def summary(self) -> str:
        """One paragraph for the report."""
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.kinds.items()))
        outcomes = ", ".join(f"{k} {n}" for k, n in sorted(self.outcomes.items()))
        return (f"{self.cases} cases in {self.seconds:.1f} s ({kinds}); outcomes: {outcomes}; "
                f"{len(self.tracebacks)} tracebacks, {len(self.hangs)} hangs, {len(self.memory)} over "
                f"{MAX_BYTES >> 20} MiB, {len(self.changed)} changed counts; peak traced memory of a case "
                f"{self.peak / (1 << 20):.1f} MiB")


# -- mutations ----------------------------------------------------------------------------------


def mutate(text: str, rng: random.Random) -> tuple[str, str]:
    """One to four random edits of ``text``; returns the result and the kind of the first edit."""
    lines = text.split("\n")
    first = None
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(["delete line", "duplicate line", "swap lines", "insert token", "delete char",
                           "replace token", "comment line", "byte-order mark", "crlf", "cut short"])
        first = first or kind
        i = rng.randrange(len(lines))
        line = lines[i]
        if kind == "delete line" and len(lines) > 1:
            del lines[i]
        elif kind == "duplicate line":
            lines.insert(i, line)
        elif kind == "swap lines":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "comment line":
            lines.insert(i, rng.choice(["#", "# a remark", "   # indented", "#~L", "# ~D"]))
        elif kind == "byte-order mark":
            lines[0] = "\ufeff" + lines[0]
        elif kind == "crlf":
            lines = [ln + "\r" for ln in lines]
        elif kind == "cut short":
            lines = lines[: max(1, i)]
        else:
            k = rng.randint(0, len(line))
            token = rng.choice(TOKENS)
            if kind == "insert token":
                lines[i] = line[:k] + token + line[k:]
            elif kind == "delete char":
                lines[i] = line[:k] + line[k + 1:]
            else:
                lines[i] = line[:k] + token + line[k + len(token):]
    return "\n".join(lines), first


def build_and_search(text: str) -> str:
    """Everything a command does with a definition, bounded; returns the outcome's name."""
    engine = get_engine("dlx")
    try:
        definitions = parse_text(text, "fuzz.txt")
    except BenchError:
        return "refused by the reader"
    outcome = "searched"
    for definition in definitions:
        try:
            puzzle = Puzzle.from_definition(definition)
            prepared = prepare(puzzle, Request(redundancy=True, max_memory=FUZZ_MEMORY), engine)
            prepared.cover.validate()
            unsolvable_reasons(prepared.cover)
            engine.solve(prepared.cover, prepared.settings, Limits(node_limit=NODES, time_limit=2.0))
        except BenchError:
            outcome = "refused by a check"
    return outcome


# -- rewrites -----------------------------------------------------------------------------------


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """The lines of a file grouped: ('other', [line]), ('C', [line]), ('L', [L ... ~L]), ('D', [D]), ('~D', [~D])."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        head = lines[i].split("#", 1)[0].strip()
        if head.startswith("L"):
            j = i
            while lines[j].split("#", 1)[0].strip() != "~L":
                j += 1
            out.append(("L", lines[i: j + 1]))
            i = j + 1
            continue
        kind = "C" if head.startswith("C:") else "D" if head.startswith("D:") else "~D" if head == "~D" else "other"
        out.append((kind, [lines[i]]))
        i += 1
    return out


def _join(blocks) -> str:
    return "\n".join(line for _, lines in blocks for line in lines)


def rewrite(text: str, rng: random.Random) -> tuple[str, str]:
    """A random rewrite of ``text`` that must leave every count as it is; returns it and its kind."""
    kind = rng.choice(["comment lines", "blank lines", "trailing comments", "reordered pieces", "C instead of L",
                       "crlf and byte-order mark"])
    if kind == "comment lines":
        lines = text.split("\n")
        for _ in range(rng.randint(1, 6)):
            lines.insert(rng.randint(1, len(lines)), rng.choice(["#", "# remark", "    # indented remark", "#~L"]))
        return "\n".join(lines), kind
    blocks = _blocks(text)
    if kind == "blank lines":
        out = []
        for block in blocks:
            out.append(block)
            if rng.random() < 0.5:
                out.append(("other", ["", "   "][: rng.randint(1, 2)]))
        return _join(out), kind
    if kind == "trailing comments":
        out = [(k, [line + "   # note" if line.strip() and k != "L" else line for line in lines]) for k, lines in blocks]
        return _join(out), kind
    if kind == "reordered pieces":
        out, pieces = [], []
        for block in blocks + [("end", [])]:
            if block[0] in ("C", "L"):
                pieces.append(block)
                continue
            rng.shuffle(pieces)
            out += pieces + ([block] if block[0] != "end" else [])
            pieces = []
        return _join(out), kind
    if kind == "C instead of L":
        out = []
        for definition in parse_text(text):
            X, Y, Z = definition.dims
            header = f"D:xDim={X}:yDim={Y}:zDim={Z}" + (":oneSide" if definition.one_side else "")
            if definition.lattice.name != "cubic":
                header += f":lattice={definition.lattice.name}"
            out.append(header)
            for p in definition.pieces:
                cells = ", ".join(" ".join(map(str, c)) for c in p.cells)
                out.append(f"C:name={p.name}:type={'S' if p.stationary else 'M'}:layout={cells}")
            out.append("~D")
        return "\n".join(out) + "\n", kind
    return "\ufeff" + text.replace("\n", "\r\n"), kind


_counts: dict[str, tuple] = {}


def counts(text: str) -> list[tuple]:
    """Unique and total of every puzzle of ``text`` (DLX, redundancy filter on)."""
    engine = get_engine("dlx")
    out = []
    for definition in parse_text(text):
        prepared = prepare(Puzzle.from_definition(definition), Request(redundancy=True), engine)
        result = engine.solve(prepared.cover, prepared.settings)
        out.append((result.status.value, result.unique, result.total))
    return out


# -- the campaign -------------------------------------------------------------------------------


def _alarm(signum, frame):
    raise Hang()


def run_case(figures: Figures, kind: str, label: str, action) -> None:
    """Run one case under the alarm and the memory tracer, filing its outcome or failure."""
    figures.kinds[kind] += 1
    tracemalloc.reset_peak()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS)
    try:
        figures.outcomes[action()] += 1
    except Hang:
        figures.hangs.append(label)
    except Exception as exc:  # anything but a BenchError escaping is a traceback a user would see
        figures.tracebacks.append(f"{label}: {type(exc).__name__}: {exc}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    peak = tracemalloc.get_traced_memory()[1]
    figures.peak = max(figures.peak, peak)
    if peak > MAX_BYTES:
        figures.memory.append(f"{label}: {peak >> 20} MiB")


def campaign(mutations: int, rewrites: int, seed: int = 1) -> Figures:
    """``mutations`` mutated definitions and ``rewrites`` rewritten ones, drawn from ``seed``."""
    rng = random.Random(seed)
    sources = [(p, p.read_text()) for p in SOURCES if p.stat().st_size < 4000]
    figures = Figures()
    engine = get_engine("dlx")
    engine.warm_up()
    start = time.perf_counter()
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    try:
        for n in range(mutations):
            path, text = rng.choice(sources)
            mutated, kind = mutate(text, rng)
            run_case(figures, f"mutation: {kind}", f"mutation {n} of {path.name} ({kind})",
                     lambda: build_and_search(mutated))
        for n in range(rewrites):
            name = rng.choice(REWRITTEN)
            text = (ROOT / name).read_text()
            if name not in _counts:
                _counts[name] = counts(text)
            rewritten, kind = rewrite(text, rng)
            label = f"rewrite {n} of {name} ({kind})"

            def compare(rewritten=rewritten, name=name, label=label):
                got = counts(rewritten)
                if got != _counts[name]:
                    figures.changed.append(f"{label}: {got} instead of {_counts[name]}")
                    return "changed"
                return "same counts"

            run_case(figures, f"rewrite: {kind}", label, compare)
    finally:
        if not tracing:
            tracemalloc.stop()
    figures.seconds = time.perf_counter() - start
    return figures


if __name__ == "__main__":
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    result = campaign(cases * 3 // 4, cases - cases * 3 // 4, seed)
    print(result.summary())
    for failure in result.failures:
        print(failure)
    sys.exit(1 if result.failures else 0)
