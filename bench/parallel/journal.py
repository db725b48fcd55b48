"""The checkpoint journal: one JSON line per finished sub-problem, made durable as it is written.

The first line is the header: the run's key (cover hash, engine, settings,
split), the sub-problems in split order and the splitter's counters.  Each
later line is one finished sub-problem's counts and counters, flushed and
fsynced before the run goes on, so a run killed at any moment loses at most
the sub-problems in flight.  A torn last line (killed mid-write) is dropped
on reading; a sub-problem recorded twice counts once.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from bench.errors import UsageError
from bench.parallel.split import SubProblem

FORMAT = 1


class Journal:
    """An open journal file: what it already holds, and :meth:`record` to append."""

    def __init__(self, path: Path, header: dict, done: dict[str, dict]):
        self.path = path
        self.header = header
        self.done = done
        self._file = None

    @property
    def subproblems(self) -> list[SubProblem]:
        """The split the journal was started with."""
        return [SubProblem.from_json(s) for s in self.header["subproblems"]]

    @classmethod
    def create(cls, path: Path, header: dict) -> "Journal":
        """Start a new journal at ``path`` (replacing an old one) with ``header``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        header = {"journal": FORMAT, **header}
        tmp = path.with_suffix(path.suffix + ".tmp")
        with open(tmp, "w") as f:
            f.write(json.dumps(header, separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        return cls(path, header, {})

    @classmethod
    def resume(cls, path: Path, key: str) -> "Journal":
        """Reopen ``path``; refuses a journal of another run (other cover, engine, settings or split)."""
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"--resume: cannot read the journal {path}: {exc.strerror}") from None
        end = raw.rfind(b"\n") + 1
        lines = raw[:end].decode("utf-8", "replace").splitlines()
        try:
            header = json.loads(lines[0])
        except (IndexError, ValueError):
            raise UsageError(f"--resume: {path}:1: not a bench journal (expected a JSON header line)") from None
        if header.get("journal") != FORMAT or header.get("key") != key:
            raise UsageError(f"--resume: {path} belongs to another run (other puzzle, engine, settings or split); "
                             "start afresh without --resume")
        done: dict[str, dict] = {}
        for number, line in enumerate(lines[1:], start=2):
            try:
                record = json.loads(line)
            except ValueError:
                raise UsageError(f"--resume: {path}:{number}: damaged record (expected one JSON object per line)") from None
            done.setdefault(record["id"], record)
        if end < len(raw):
            # a record torn by a kill: drop it, it is solved again
            with open(path, "r+b") as f:
                f.truncate(end)
        return cls(path, header, done)

    def record(self, record: dict) -> None:
        """Append one finished sub-problem durably."""
        if self._file is None:
            self._file = open(self.path, "a")
        self._file.write(json.dumps(record, separators=(",", ":")) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self.done.setdefault(record["id"], record)

    def close(self) -> None:
        """Close the file (records are already on disk)."""
        if self._file is not None:
            self._file.close()
            self._file = None
