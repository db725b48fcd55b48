"""The checkpoint journal: one JSON line per finished sub-problem, flushed as it is written and soon fsynced.

The first line is the header: the run's key (cover hash, engine, settings,
split), the sub-problems in split order and the splitter's counters.  Each
later line is one finished sub-problem's counts and counters, with the
pieces it handed back when it spent its budget, which become sub-problems
of the run too (``7/0``, ``7/1``, ...).  A record is written when its
sub-problem is done, flushed at least every :data:`FLUSH_SECONDS` and
fsynced at least every :data:`FSYNC_SECONDS` and at the end, so a run killed
at any moment loses at most the sub-problems in flight and those done in
the last moment, and a machine that loses power those of the last half
second (solved again on resuming).

Every line carries what it takes to be trusted on its own: the header and
each record hold a checksum over their other fields, and each record names
its run (the key, the cover hash and the settings) and its sub-problem (the
id, the prefix it replays and its piece of FILA's tree).  On resuming, a record that is damaged
(not JSON, a wrong checksum, a field of the wrong kind), foreign (another
run, a sub-problem the split does not have) or a second record of a
sub-problem is refused with its line number and that sub-problem is solved
again; the records that check out are kept.  A torn last line (killed
mid-write) is dropped.  A header that does not check out refuses the whole
journal: without it the split itself is unknown.

A journal has one writer: the run holds a lock on it from before its split
to its end (:func:`bench.system.files.open_locked`), so a second run on the same
journal is refused at once.  The run's key holds the code's version
(:func:`bench.toolchain.sources.code_version`), so a journal never resumes under
other code.  The default folder's journals are pruned (:func:`prune`):
those untouched for :data:`KEEP_DAYS` days, and the oldest beyond
:data:`KEEP_JOURNALS`.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from bench.engines.protocol import Status
from bench.errors import UsageError
from bench.system.files import is_locked, open_locked
from bench.parallel.split import SubProblem

FORMAT = 3
CHECKSUM = "checksum"
RECORD_FIELDS = {"id": str, "status": str, "variant": str, "covers": int, "unique": (int, type(None)),
                 "total": (int, type(None)), "stats": dict, "seconds": (int, float), "rest": list, "budget": int}
"""What a record's counts are made of, and their JSON kinds."""
FLUSH_SECONDS = 0.05
"""The longest a written record waits in the process's buffer: once flushed it survives a kill of the process."""
FSYNC_SECONDS = 0.5
"""The longest a written record waits for its fsync: once fsynced it survives a power cut."""
KEEP_DAYS = 30
KEEP_JOURNALS = 100
"""The default journal folder keeps journals touched in the last :data:`KEEP_DAYS` days, at most
:data:`KEEP_JOURNALS` of them (the newest): every automatic split leaves one there."""


def checksum(fields: dict) -> str:
    """The checksum of a journal line: SHA-256 over its fields except the checksum, in canonical JSON."""
    return _digest(_canonical({k: v for k, v in fields.items() if k != CHECKSUM}))


def _canonical(body: dict) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _line(fields: dict) -> bytes:
    """The line of ``fields`` (without a checksum): their canonical JSON with the checksum over it last."""
    text = _canonical(fields)
    return f'{text[:-1]},"{CHECKSUM}":"{_digest(text)}"}}\n'.encode()


class Journal:
    """An open journal file: what it already holds, and :meth:`record` to append.

    ``refused`` lists, as ``path:line: why`` messages, the records a resume
    did not trust (their sub-problems are not in ``done``, so they are
    solved again).
    """

    def __init__(self, path: Path, header: dict, done: dict[str, dict], refused: list[str] | None = None,
                 handle=None):
        self.path = path
        self.header = header
        self.done = done
        self.refused = refused or []
        self._file = handle
        self._flushed = self._synced = 0.0
        # every sub-problem of the run so far, by id, in its JSON form: the split's, and the pieces handed back
        self._subs = {s["id"]: s for s in header["subproblems"]}

    @property
    def subproblems(self) -> list[SubProblem]:
        """The split the journal was started with, then the pieces its records handed back, in their order."""
        return [SubProblem.from_json(s) for s in self._subs.values()]

    def _adopt(self, record: dict) -> None:
        """Make the pieces ``record`` handed back sub-problems of the run."""
        for piece in SubProblem.from_json(record["sub"]).handed_back(record["rest"]):
            self._subs.setdefault(piece.ident, piece.to_json())

    @property
    def identity(self) -> dict:
        """The run fields every record repeats: the key, the cover hash and the settings."""
        return {"key": self.header["key"], "cover_hash": self.header["cover_hash"],
                "settings": self.header["settings"]}

    @classmethod
    def create(cls, path: Path, header: dict, handle=None) -> "Journal":
        """Start a new journal at ``path`` (replacing an old one) with ``header``.

        ``header`` holds ``key``, ``cover_hash``, ``engine``, ``settings``,
        ``depth``, ``subproblems`` (:meth:`SubProblem.to_json`), ``split_stats``
        and ``weights``.  ``handle`` is the file already opened and locked
        (:func:`bench.system.files.open_locked`); it is opened here otherwise.
        """
        header = {"journal": FORMAT, **header}
        journal = cls(path, header, {}, handle=handle if handle is not None else open_locked(path, "--journal"))
        journal._file.seek(0)
        journal._file.truncate()
        journal._append(_line(header))
        return journal

    @classmethod
    def resume(cls, path: Path, key: str, handle=None) -> "Journal":
        """Reopen ``path``: refuses a journal of another run, keeps the records that check out.

        ``handle`` is the file already opened and locked; it is opened here otherwise.
        """
        handle = handle if handle is not None else open_locked(path, "--journal")
        try:
            handle.seek(0)
            raw = handle.read()
        except OSError as exc:
            handle.close()
            raise UsageError(f"--resume: cannot read the journal {path}: {exc.strerror}") from None
        end = raw.rfind(b"\n") + 1
        lines = raw[:end].decode("utf-8", "replace").splitlines()
        header = _parse(lines[0] if lines else "")
        if header is None or header.get("journal") != FORMAT or header.get(CHECKSUM) != checksum(header):
            handle.close()
            raise UsageError(f"--resume: {path}:1: not a bench journal header of format {FORMAT}, or a damaged one "
                             "(its checksum does not match); start afresh without --resume")
        if header.get("key") != key:
            handle.close()
            raise UsageError(f"--resume: {path} belongs to another run (other puzzle, engine, settings, split or "
                             "code version); start afresh without --resume")
        journal = cls(path, header, {}, handle=handle)
        seen: dict[str, int] = {}
        conflicting: set[str] = set()
        for number, line in enumerate(lines[1:], start=2):
            record = _parse(line)
            reason = "not a JSON object" if record is None else journal.distrust(record)
            if reason is None and record["id"] in seen:
                first = seen[record["id"]]
                if record != journal.done.get(record["id"]):
                    conflicting.add(record["id"])
                reason = f"sub-problem {record['id']} already recorded on line {first}"
            if reason is not None:
                journal.refused.append(f"{path}:{number}: record refused: {reason}")
                continue
            seen[record["id"]] = number
            journal.done[record["id"]] = record
            journal._adopt(record)
        for ident in conflicting:
            # two records that both check out but differ: neither is trusted
            del journal.done[ident]
            journal.refused.append(f"{path}:{seen[ident]}: record refused: sub-problem {ident} is recorded again "
                                   "with other counts; it is solved again")
        # a record torn by a kill is dropped (it is solved again); records go after the last whole line
        handle.truncate(end)
        handle.seek(end)
        return journal

    def distrust(self, record: dict) -> str | None:
        """Why ``record`` cannot be trusted for this journal's run, or None when it checks out."""
        if record.get(CHECKSUM) != checksum(record):
            return "its checksum does not match its fields (edited or damaged)"
        for name, value in self.identity.items():
            if record.get(name) != value:
                return f"it belongs to another run (its {name} differs)"
        for name, kind in RECORD_FIELDS.items():
            value = record.get(name)
            if not isinstance(value, kind) or isinstance(value, bool) or (isinstance(value, int) and value < 0):
                return f"field '{name}' is missing, of the wrong kind or negative"
        if record["id"] not in self._subs:
            return f"sub-problem {record['id']} is not part of this run's split"
        if record.get("sub") != self._subs[record["id"]]:
            return f"its prefix or cut is not the one of sub-problem {record['id']}"
        if record["status"] not in {s.value for s in Status}:
            return f"unknown status '{record['status']}'"
        try:
            SubProblem.from_json(record["sub"]).handed_back(record["rest"])
        except (KeyError, TypeError, ValueError):
            return "its pieces handed back are not pieces of the search"
        return None

    def record(self, record: dict) -> None:
        """Append one finished sub-problem, with its run, its sub-problem and its checksum; adopt its pieces.

        Raises
        ------
        UsageError
            When the journal cannot be written (a full disk): ``--journal PATH: cannot write: ...``.
        """
        fields = {**self.identity, **record, "sub": self._subs[record["id"]]}
        now = time.monotonic()
        try:
            self._file.write(_line(fields))
            if now - self._flushed >= FLUSH_SECONDS:
                self._file.flush()
                self._flushed = now
            if now - self._synced >= FSYNC_SECONDS:
                self._file.flush()
                os.fsync(self._file.fileno())
                self._synced = now
        except OSError as exc:
            raise UsageError(f"--journal {self.path}: cannot write: {exc.strerror or exc}") from None
        self.done.setdefault(record["id"], fields)
        self._adopt(fields)

    def _append(self, line: bytes) -> None:
        """Write ``line`` at the end of the file and make it durable."""
        try:
            self._file.write(line)
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as exc:
            raise UsageError(f"--journal {self.path}: cannot write: {exc.strerror or exc}") from None

    def close(self) -> None:
        """Make the records durable, close the file and release its lock."""
        if self._file is not None:
            try:
                self._file.flush()
                os.fsync(self._file.fileno())
                self._file.close()
            except OSError:
                pass
            self._file = None


def prune(folder: Path, now: float | None = None) -> None:
    """Remove the journals (``*.jsonl``) of ``folder`` untouched for :data:`KEEP_DAYS` days, then the oldest beyond
    :data:`KEEP_JOURNALS`; one a run holds is kept.  For the default folder only, never a ``--journal`` file."""
    now = time.time() if now is None else now
    entries = []
    for path in Path(folder).glob("*.jsonl"):
        try:
            entries.append((path.stat().st_mtime, path))
        except OSError:
            continue
    entries.sort(reverse=True)
    for rank, (mtime, path) in enumerate(entries):
        if (rank >= KEEP_JOURNALS or now - mtime > KEEP_DAYS * 86400) and not is_locked(path):
            try:
                path.unlink()
            except OSError:
                pass


def _parse(line: str) -> dict | None:
    """A journal line as a dict, or None when it is not a JSON object."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
