"""The fuzz and abuse campaign: mutated definitions, count-preserving rewrites and the command line abused.

Three kinds of cases, drawn from a seeded generator so a figure can be
reproduced (``python tests/support/abuse.py CASES [SEED]`` prints them):

* **mutations** of the definitions in ``defs/`` and ``tests/data/``: lines
  deleted, duplicated or swapped, tokens inserted or replaced, characters
  deleted, comment lines and byte-order marks inserted, CRLF line ends, the
  file cut short, invisible characters (zero-width, control, combining)
  inserted.  Each is parsed, built, checked against the memory limit,
  encoded, diagnosed and searched (DLX, a few thousand nodes): the only
  exception allowed is a :class:`~bench.errors.BenchError`.
* **rewrites** of puzzles with known counts that must not change them:
  comment lines anywhere (inside drawings too), blank lines between
  directives, trailing comments, the pieces in another order, every piece
  as a ``C`` directive instead of a drawing, CRLF line ends and a
  byte-order mark, a piece renamed ``Å`` spelled composed in some cells
  and decomposed (``A`` and a combining ring) in others.  Each is solved
  and its unique and total counts compared with the original's.
* **the command line** (:data:`CLASSES`), each case in a folder of its
  own: special files (FIFOs, device links, a directory, a file over the
  input bound) named ``*.txt`` beside definitions; an output (result file,
  report, journal) named like the command's input; two puzzles of one file
  name in a run and in ``--draw``; result files edited by hand (fields
  deleted or retyped, counts changed, rows duplicated, deep nesting,
  truncation); ``--cluster`` endpoints that are no Dask scheduler; and, in
  processes of their own, concurrent runs in one folder and a split run
  whose worker is stopped (SIGSTOP).  A command that answers wrongly (an
  input replaced, rows that disagree reported with exit 0, a key shared)
  is counted with the changed counts.

A case fails on a traceback (any other exception), a hang (over
:data:`HANG_SECONDS`, a command's over :data:`COMMAND_SECONDS` or
:data:`HEAVY_SECONDS`, stopped by an alarm), memory over :data:`MAX_BYTES`
(traced in this process) or a changed count.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.cli import main  # noqa: E402
from bench.engines import Limits, get_engine  # noqa: E402
from bench.errors import BenchError  # noqa: E402
from bench.system.files import MAX_INPUT_BYTES  # noqa: E402
from bench.models.definition import parse_text  # noqa: E402
from bench.models.diagnose import unsolvable_reasons  # noqa: E402
from bench.models.puzzle import Puzzle  # noqa: E402
from bench.toolchain import warmup  # noqa: E402
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
INVISIBLE = ["\u200b", "\u2060", "\u00ad", "\ufeff", "\u202e", "\u0301", "\u030a", "\x1b", "\x1b[2J", "\x07",
             "\x00", "\x7f", "A\u030a", "\u00c5", "\u00a0", "\u3000"]
"""Characters nobody sees drawn (format, control, combining), and forms that normalise alike or are white space."""


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
                           "replace token", "comment line", "byte-order mark", "crlf", "cut short",
                           "invisible character"])
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
            token = rng.choice(INVISIBLE if kind == "invisible character" else TOKENS)
            if kind in ("insert token", "invisible character"):
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
                       "crlf and byte-order mark", "unnormalised names"])
    if kind == "comment lines":
        lines = text.split("\n")
        for _ in range(rng.randint(1, 6)):
            lines.insert(rng.randint(1, len(lines)), rng.choice(["#", "# remark", "    # indented remark", "#~L"]))
        return "\n".join(lines), kind
    blocks = _blocks(text)
    if kind == "unnormalised names":
        return _unnormalised(blocks, rng), kind
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


def _unnormalised(blocks, rng: random.Random) -> str:
    """One piece renamed Å, written composed or as A and a combining ring, cell by cell (or line by line) at random."""
    drawn = {ch for kind, lines in blocks if kind == "L" for line in lines[1:-1]
             for ch in line.split("#", 1)[0] if not ch.isspace() and ch not in ".,"}
    listed = {re.search(r"name=([^:#\s]+)", lines[0]).group(1) for kind, lines in blocks if kind == "C"}
    old = rng.choice(sorted(drawn | listed))

    def spelled() -> str:
        return rng.choice(["\u00c5", "A\u030a"])

    out = []
    for kind, lines in blocks:
        if kind == "L":
            head = re.sub(rf"(?<=[=\s]){re.escape(old)}(?=\s|$)", "\u00c5", lines[0])
            body = []
            for line in lines[1:-1]:
                drawing, comment = line.split("#", 1) if "#" in line else (line, None)
                body.append("".join(spelled() if ch == old else ch for ch in drawing)
                            + ("" if comment is None else "#" + comment))
            lines = [head] + body + [lines[-1]]
        elif kind == "C":
            lines = [re.sub(rf"name={re.escape(old)}(?=[:#\s]|$)", "name=" + spelled(), lines[0])]
        out.append((kind, lines))
    return _join(out)


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


def run_case(figures: Figures, kind: str, label: str, action, seconds: float = HANG_SECONDS) -> None:
    """Run one case under the alarm (``seconds``) and the memory tracer, filing its outcome or failure."""
    figures.kinds[kind] += 1
    tracemalloc.reset_peak()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
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
    # every kernel a case may reach is built before the first alarm: a cold build (the constrained search's library
    # takes about 17 s of CPU) under a case's alarm on a loaded machine reads as a hang
    engine.warm_up()
    warmup.ensure(["sets+constraints", "filters"])
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


# -- the command line under abuse ---------------------------------------------------------------


class Wrong(Exception):
    """A command that answered, but wrongly: a file lost, a verdict of agreement on rows that disagree."""


def command(*argv) -> tuple[int, str, str]:
    """``bench ARGV`` in this process: its exit status, standard output and standard error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def special_files(rng: random.Random, work: Path) -> str:
    """Definitions beside a FIFO, device links, a directory and a file too large, all named ``*.txt``."""
    folder = work / "defs"
    folder.mkdir()
    regular = rng.sample(REWRITTEN, 2)
    for k, name in enumerate(regular):
        shutil.copy(ROOT / name, folder / f"p{k}.txt")
    specials = rng.sample(["fifo", "zero", "urandom", "directory", "large", "null"], rng.randint(1, 4))
    for kind in specials:
        path = folder / f"{kind}.txt"
        if kind == "fifo":
            os.mkfifo(path)
        elif kind in ("zero", "urandom", "null"):
            path.symlink_to(f"/dev/{kind}")
        elif kind == "directory":
            path.mkdir()
        else:
            with open(path, "wb") as f:
                f.truncate(MAX_INPUT_BYTES + 1)
    status, out, err = command("check", folder)
    if status != 2:
        raise Wrong(f"bench check of {specials} exited {status}: {err.strip()[-200:]}")
    if out.count("ok ") + out.count("unsolvable ") < 2:
        raise Wrong(f"the regular definitions beside {specials} were not all checked: {out[-300:]}")
    return "refused the specials, checked the rest"


def output_equals_input(rng: random.Random, work: Path) -> str:
    """A result file, report or journal named like one of the command's inputs."""
    name = rng.choice(REWRITTEN)
    definition = work / "puzzle.txt"
    shutil.copy(ROOT / name, definition)
    spelled = rng.choice([str(definition), str(work / "." / "puzzle.txt"), os.path.relpath(definition)])
    kind = rng.choice(["run", "report", "journal"])
    if kind == "report":
        result = work / "r.json"
        if command("run", "-e", "dlx", "--no-html", "--output-file", result, definition)[0] != 0:
            raise Wrong("the run before the report failed")
        definition, spelled = result, rng.choice([str(result), str(work / "." / "r.json")])
        argv = ["report", result, "--output-file", spelled] + rng.choice([[], ["--html"], ["--csv"]])
    elif kind == "run":
        argv = ["run", "-e", "dlx", "--output-file", spelled, definition]
    else:
        argv = ["solve", "-q", "-w", "2", "--journal", spelled, definition]
    before = definition.read_bytes()
    status, _, err = command(*argv)
    if definition.read_bytes() != before:
        raise Wrong(f"{' '.join(map(str, argv))} replaced its input")
    if status != 2 or "is also an input of this command" not in err:
        raise Wrong(f"{' '.join(map(str, argv))} exited {status}: {err.strip()[-200:]}")
    return "refused"


def same_stem(rng: random.Random, work: Path) -> str:
    """Two puzzles of one file name in one run: their keys, counts and pictures stay apart."""
    first, second = rng.sample(REWRITTEN, 2)
    stem = rng.choice(["puz", "a b", "x#1", "=sum"])
    paths = []
    for folder, name in (("a", first), ("b", second)):
        (work / folder).mkdir()
        shutil.copy(ROOT / name, work / folder / f"{stem}.txt")
        paths.append(work / folder / f"{stem}.txt")
    result = work / "run.json"
    status, _, err = command("run", "-e", "dlx", "--no-html", "--output-file", result, *paths)
    if status != 0:
        raise Wrong(f"the run exited {status}: {err.strip()[-200:]}")
    document = json.loads(result.read_text())
    keys = [p["key"] for p in document["puzzles"]]
    if len(set(keys)) != 2:
        raise Wrong(f"two files of one name share a key: {keys}")
    for key, name in zip(keys, (first, second)):
        got = [(r["status"], r["unique"], r["total"]) for r in document["rows"] if r["puzzle"] == key]
        if got != [_counts_of(name)[0]]:
            raise Wrong(f"{key} has the rows {got}, expected {_counts_of(name)}")
    pictures = work / "pictures"
    status, _, err = command("solve", "-q", "--max-solutions", "2", "--draw", pictures, *paths)
    drawn = sorted(p.name for p in pictures.glob("*.svg"))
    if status != 0 or len(drawn) != 4 or len({p.rsplit("-", 1)[0] for p in drawn}) != 2:
        raise Wrong(f"--draw of two {stem}.txt exited {status} with {drawn}: {err.strip()[-200:]}")
    return "kept apart"


def _counts_of(name: str) -> list[tuple]:
    if name not in _counts:
        _counts[name] = counts((ROOT / name).read_text())
    return _counts[name]


_RESULT: dict = {}


def _result_document(work: Path) -> dict:
    """A real result file of two puzzles and two engines (made once per process), written to ``work/base.json``."""
    path = work / "base.json"
    if not _RESULT:
        status, _, err = command("run", "-e", "dlx,sat", "--no-html", "--output-file", path,
                                 ROOT / "defs" / "dominoes_4x4.txt", ROOT / "tests" / "data" / "spare_3x3.txt")
        assert status == 0, err
        _RESULT.update(json.loads(path.read_text()))
        assert all(r["status"] == "solved" for r in _RESULT["rows"])
    path.write_text(json.dumps(_RESULT))
    return json.loads(json.dumps(_RESULT))


JUNK = [None, True, -1, -0.5, 0, 10**30, "x", "", "=1+1", "\x1b[2J", [], [1, None], {}, {"a": []}, float("nan"),
        float("inf"), [[[[[]]]]]]


def hand_edited(rng: random.Random, work: Path) -> str:
    """A result file edited by hand: a field deleted, retyped or duplicated, a count changed, deep nesting."""
    document = _result_document(work)
    edit = rng.choice(["junk", "junk", "junk", "delete", "count", "duplicate row", "deep", "truncate"])
    must_disagree = False
    if edit == "deep":
        text = '{"schema": 1, "rows": ' + "[" * rng.choice([1000, 100_000]) + "]" * 10 + "}"
    elif edit == "truncate":
        text = json.dumps(document)
        text = text[: rng.randrange(len(text))]
    else:
        if edit in ("junk", "delete"):
            parent, key = _random_place(document, rng)
            if edit == "delete" and isinstance(parent, dict):
                del parent[key]
            else:
                parent[key] = rng.choice(JUNK)
        elif edit == "count":
            row = rng.choice([r for r in document["rows"] if r["status"] == "solved"])
            field = rng.choice(["covers", "unique", "total"] if row["unique"] is not None else ["covers"])
            row[field] += rng.choice([1, -1, 1000])
            # every row here has another engine's solved row, or expected counts, to disagree with
            must_disagree = row[field] >= 0
        else:
            row = dict(rng.choice(document["rows"]))
            if row["covers"] is not None:
                row["covers"] += 1
                must_disagree = True
            document["rows"].append(row)
        text = json.dumps(document)
    path = work / "edited.json"
    path.write_text(text)
    form = rng.choice([[], ["--html"], ["--csv"], "compare"])
    argv = ["compare", work / "base.json", path] if form == "compare" else ["report", path, *form]
    status, _, err = command(*argv)
    if status not in (0, 1, 2) or (status == 2 and err.count("\n") != 1):
        raise Wrong(f"{edit}: exit {status}: {err.strip()[-300:]}")
    if must_disagree and status == 0:
        raise Wrong(f"{edit}: rows that disagree were reported with exit 0")
    return {0: "accepted", 1: "MISMATCH", 2: "refused in one line"}[status]


def _random_place(document: dict, rng: random.Random):
    """A random (container, key) inside ``document``, a few levels down."""
    parent, key = document, rng.choice(list(document))
    for _ in range(rng.randint(0, 3)):
        value = parent[key]
        if isinstance(value, dict) and value:
            parent, key = value, rng.choice(list(value))
        elif isinstance(value, list) and value:
            parent, key = value, rng.randrange(len(value))
        else:
            break
    return parent, key


class Endpoint:
    """A loopback TCP server that is no Dask scheduler, in one of :data:`ENDPOINTS` ways."""

    def __init__(self, behaviour: str, rng: random.Random):
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.behaviour = behaviour
        self.payload = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        self.held = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        import struct

        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            try:
                if self.behaviour == "http 400":
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                elif self.behaviour == "garbage":
                    conn.sendall(self.payload)
                elif self.behaviour == "huge length":
                    conn.sendall(struct.pack("<Q", 1 << 62) + self.payload)
                elif self.behaviour == "short length then junk":
                    conn.sendall(struct.pack("<Q", len(self.payload)) + self.payload)
                elif self.behaviour == "closes":
                    conn.close()
                elif self.behaviour == "drip":
                    conn.sendall(b"\x10")
            except OSError:
                pass

    def close(self):
        self.sock.close()
        for conn in self.held:
            conn.close()


ENDPOINTS = ["silent", "http 400", "garbage", "huge length", "short length then junk", "closes", "drip", "nobody"]


def foreign_endpoint(rng: random.Random, work: Path) -> str:
    """``--cluster`` at a port where no Dask scheduler answers: refused in seconds, in one line."""
    from bench.errors import UsageError
    from bench.parallel.executors import probe_scheduler

    behaviour = rng.choice(ENDPOINTS)
    if behaviour == "nobody":
        address = "tcp://127.0.0.1:1"
        endpoint = None
    else:
        endpoint = Endpoint(behaviour, rng)
        address = endpoint.address
    try:
        probe_scheduler(address, seconds=0.5)
    except UsageError as exc:
        if f"--cluster {address}: " not in str(exc) or "\n" in str(exc):
            raise Wrong(f"{behaviour}: {exc}") from None
        return "refused"
    finally:
        if endpoint is not None:
            endpoint.close()
    raise Wrong(f"{behaviour}: taken for a Dask scheduler")


def concurrent_runs(rng: random.Random, work: Path) -> str:
    """Several ``bench run`` started together in one folder: each keeps a result file of its own."""
    n = rng.randint(2, 4)
    argv = [sys.executable, "-m", "bench", "run", "-e", "dlx", "--no-html", str(ROOT / rng.choice(REWRITTEN))]
    children = [subprocess.Popen(argv, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                for _ in range(n)]
    errors = [child.communicate(timeout=HEAVY_SECONDS)[1] for child in children]
    files = sorted((work / "results").glob("run-*.json"))
    if [c.returncode for c in children] != [0] * n or len(files) != n:
        raise Wrong(f"{n} runs: exits {[c.returncode for c in children]}, files {[f.name for f in files]}: {errors}")
    return "one file each"


STOPPED = """
import multiprocessing, os, signal, sys, threading, time
import bench
from bench.engines import Settings, get_engine
from bench.parallel.progress import Progress
from bench.parallel.runner import ParallelOptions, solve_parallel
[puzzle] = bench.load(sys.argv[1])
cover = bench.Cover.from_puzzle(puzzle, redundancy=True)
def stop_one():
    time.sleep(float(sys.argv[2]))
    os.kill(multiprocessing.active_children()[0].pid, signal.SIGSTOP)
# the delay counts from the fifth sub-problem answered, when both workers are searching: from the first worker's
# start, a stop could come before it took a sub-problem, or after the last answer (10x6 splits in 0.3 s)
answered = []
advance = Progress.advance
def counted(self, *args):
    answered.append(args[0])
    if len(answered) == 5:
        threading.Thread(target=stop_one, daemon=True).start()
    return advance(self, *args)
Progress.advance = counted
r = solve_parallel(cover, get_engine("dlx"), Settings(), ParallelOptions(workers=2, depth=2, stall_seconds=2))
print(r.status.value, r.unique, r.total)
"""


def stopped_worker(rng: random.Random, work: Path) -> str:
    """A split run whose worker is stopped (SIGSTOP) at a random moment: it finishes with the exact counts."""
    child = subprocess.run([sys.executable, "-c", STOPPED, str(ROOT / "defs" / "pentominoes_10x6.txt"),
                            f"{rng.uniform(0, 0.6):.2f}"], cwd=ROOT, capture_output=True, text=True,
                           timeout=HEAVY_SECONDS)
    if child.stdout.split() != ["solved", "2339", "9356"]:
        raise Wrong(f"exit {child.returncode}: {child.stdout.strip()} {child.stderr.strip()[-300:]}")
    return "exact counts"


CLASSES = {"special files under a directory": special_files, "output equals input": output_equals_input,
           "same-stem inputs": same_stem, "hand-edited result file": hand_edited,
           "foreign cluster endpoint": foreign_endpoint, "concurrent runs": concurrent_runs,
           "stopped worker": stopped_worker}
HEAVY = ("concurrent runs", "stopped worker")
"""Classes that start processes of their own: a few cases each."""
COMMAND_SECONDS = 60.0
HEAVY_SECONDS = 120.0
"""A command's case is a hang past these (an HTML report's plots alone take seconds on a loaded machine)."""


def command_line(cases: int, heavy: int, seed: int = 1, figures: Figures | None = None) -> Figures:
    """``cases`` cases of the light classes of :data:`CLASSES` and ``heavy`` of each heavy one, drawn from ``seed``."""
    rng = random.Random(seed)
    figures = figures or Figures()
    light = [name for name in CLASSES if name not in HEAVY]
    # every light class once, then drawn at random
    plan = (light + [rng.choice(light) for _ in range(cases - len(light))])[:cases]
    plan += [name for name in HEAVY for _ in range(heavy)]
    start = time.perf_counter()
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    old = os.getcwd()
    try:
        for n, name in enumerate(plan):
            with tempfile.TemporaryDirectory(prefix="bench-abuse-") as folder:
                os.chdir(folder)
                case_rng = random.Random(rng.random())

                def action(name=name, case_rng=case_rng, folder=folder, label=f"{name} {n}"):
                    try:
                        return CLASSES[name](case_rng, Path(folder))
                    except Wrong as exc:
                        figures.changed.append(f"{label}: {exc}")
                        return "wrong"

                run_case(figures, f"command line: {name}", f"{name} {n}", action,
                         HEAVY_SECONDS if name in HEAVY else COMMAND_SECONDS)
                os.chdir(old)
    finally:
        os.chdir(old)
        if not tracing:
            tracemalloc.stop()
    figures.seconds += time.perf_counter() - start
    return figures


if __name__ == "__main__":
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    result = campaign(cases * 7 // 10, cases // 4, seed)
    result = command_line(cases - cases * 7 // 10 - cases // 4, max(cases // 1000, 1), seed, result)
    print(result.summary())
    for failure in result.failures:
        print(failure)
    sys.exit(1 if result.failures else 0)
