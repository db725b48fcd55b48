"""Any solver as an engine: ``cmd:NAME`` runs a command configured in a TOML file on the exported matrix.

The file is the first of: ``--engines-file FILE`` (which sets
``BENCH_ENGINES_FILE``), ``$BENCH_ENGINES_FILE``, ``bench-engines.toml`` in
the working directory, ``engines.toml`` in the user's configuration
directory (e.g. ``~/.config/polyform-bench/`` on Linux).  Each table is
one engine::

    [clasp]
    command = "clasp --models 0 --quiet=2 {input}"   # or a list of words; {input} is the matrix's file
    format = "dimacs"                                  # xcc, dimacs or json (bench.formats)
    count = '^c Models\\s*:\\s*(\\d+)\\s*$'             # its first group is the count (the last match wins)
    exit_codes = [10, 20, 30]                          # optional: the statuses of a finished count
    stdin = false                                      # optional: feed the file on standard input instead
    description = "clasp 3 enumerating models"         # optional

The matrix is written as ``bench export`` writes it (header included) into
a temporary directory, the command runs in a session of its own that dies
with ``bench``, and its standard output and error are searched for the
pattern (multi-line: ``^`` and ``$`` match at each line).  A count that is
not found, an exit status not listed or a crash is an ``error`` with the
last line the command printed; a time limit or Ctrl-C kills the command
and its children at once.  The engine only counts (``counts_only``): unique
and total follow where the count alone decides them, as for the model
counter (:func:`~bench.engines.collect.counts_from_covers`).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from bench.about import DISTRIBUTION
from bench.engines.collect import counts_from_covers
from bench.engines.protocol import Engine, Limits, Result, Settings, Status
from bench.errors import UsageError

ENV = "BENCH_ENGINES_FILE"
LOCAL = "bench-engines.toml"
KEYS = {"command": (str, list), "format": (str,), "count": (str,), "exit_codes": (list,), "stdin": (bool,),
        "description": (str,)}
SUFFIX = {"xcc": ".xcc", "dimacs": ".cnf", "json": ".json"}
POLL_SECONDS = 0.05


@dataclass(frozen=True)
class Command:
    """One configured engine: the words of its command, the format it reads, the pattern of its count."""

    name: str
    words: tuple[str, ...]
    format: str
    count: re.Pattern
    exit_codes: tuple[int, ...] | None
    stdin: bool
    description: str
    source: str


def engines_file() -> Path | None:
    """The engines file in use (see the module docstring), or None when there is none."""
    given = os.environ.get(ENV)
    if given:
        return Path(given)
    if Path(LOCAL).is_file():
        return Path(LOCAL)
    import platformdirs

    user = platformdirs.user_config_path(DISTRIBUTION) / "engines.toml"
    return user if user.is_file() else None


def read_commands(path: Path) -> dict[str, Command]:
    """Every engine of an engines file, checked.

    Raises
    ------
    UsageError
        For a file that cannot be read or an entry that is not complete and
        well formed, naming the file and the entry.
    """
    from bench.formats import get_format

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the engines file: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: not a TOML engines file: {exc}") from None
    out = {}
    for name, entry in data.items():
        where = f"{path}: [{name}]"
        if not isinstance(entry, dict):
            raise UsageError(f"{where} must be a table: command, format and count")
        for key, value in entry.items():
            if key not in KEYS:
                raise UsageError(f"{where}: unknown key '{key}'; expected {', '.join(KEYS)}")
            if not isinstance(value, KEYS[key]):
                raise UsageError(f"{where}: {key} must be {' or '.join(t.__name__ for t in KEYS[key])}")
        for key in ("command", "format", "count"):
            if key not in entry:
                raise UsageError(f"{where}: missing key '{key}'")
        words = shlex.split(entry["command"]) if isinstance(entry["command"], str) else entry["command"]
        if not words or not all(isinstance(w, str) for w in words):
            raise UsageError(f"{where}: command must name a program and its arguments")
        stdin = entry.get("stdin", False)
        if not stdin and not any("{input}" in w for w in words):
            raise UsageError(f"{where}: the command never names {{input}}, the matrix's file (or set stdin = true)")
        fmt = entry["format"].lower()
        try:
            get_format(fmt)
        except UsageError as exc:
            raise UsageError(f"{where}: {exc}") from None
        try:
            pattern = re.compile(entry["count"], re.MULTILINE)
        except re.error as exc:
            raise UsageError(f"{where}: count is not a regular expression: {exc}") from None
        if pattern.groups < 1:
            raise UsageError(f"{where}: count needs a group around the number, e.g. 'solutions: (\\d+)'")
        codes = entry.get("exit_codes")
        if codes is not None and not all(isinstance(c, int) and not isinstance(c, bool) for c in codes):
            raise UsageError(f"{where}: exit_codes must be a list of integers")
        out[name] = Command(name, tuple(words), fmt, pattern, None if codes is None else tuple(codes), stdin,
                            entry.get("description", ""), str(path))
    return out


class CommandEngine(Engine):
    """An external command counting the covers of the exported matrix (see the module docstring)."""

    name = "cmd"
    supported = frozenset({"time_limit"})
    counts_only = True

    def __init__(self, variant: str = ""):
        self.tuning = {}
        if not variant:
            raise UsageError("cmd needs the name of a configured command: cmd:NAME (see bench-engines.toml)")
        path = engines_file()
        if path is None:
            raise UsageError(f"cmd:{variant}: no engines file; write {LOCAL} in the working directory, give "
                             f"--engines-file FILE or set {ENV}")
        commands = read_commands(path)
        if variant not in commands:
            known = ", ".join(f"cmd:{n}" for n in commands) or "none"
            raise UsageError(f"cmd:{variant} is not configured in {path}; it configures: {known}")
        self.command = commands[variant]

    @property
    def variant(self) -> str:
        return self.command.name

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(), on_solutions=None,
              on_trace=None) -> Result:
        """Write the matrix, run the command on it and read its count."""
        from bench.formats import get_format

        self.check(settings, limits)
        if limits.keep_solutions or on_solutions is not None:
            raise UsageError(f"cmd:{self.command.name} counts covers without producing them (use -q)")
        start = time.perf_counter()
        writer = get_format(self.command.format)
        with tempfile.TemporaryDirectory(prefix="bench-cmd-") as folder:
            path = Path(folder) / f"matrix{SUFFIX.get(writer.NAME, '.txt')}"
            path.write_text(writer.write(cover, {"": f"written by bench for cmd:{self.command.name}",
                                                  "cover hash": cover.hash}), encoding="utf-8")
            argv = [word.replace("{input}", str(path)) for word in self.command.words]
            setup = time.perf_counter() - start
            begin = time.perf_counter()
            status, code, out = self._run(argv, path, limits.time_limit)
            seconds = time.perf_counter() - begin
        timings = {"setup": setup, "solve": seconds, "compile": 0.0}
        base = dict(engine=self.name, variant=self.variant, cover_hash=cover.hash, timings=timings)
        if status is not None:
            return Result(status=status, message=f"{status.value}: killed after {seconds:.1f} s", **base)
        last = next((line for line in reversed(out.splitlines()) if line.strip()), "(no output)")
        if self.command.exit_codes is not None and code not in self.command.exit_codes:
            return Result(status=Status.ERROR, message=f"exit status {code}: {last[-200:]}", **base)
        found = self.command.count.findall(out)
        if not found:
            return Result(status=Status.ERROR, message=f"no count in the output (exit status {code}): {last[-200:]}",
                          **base)
        match = found[-1] if isinstance(found[-1], str) else found[-1][0]
        try:
            covers = int(match.replace(",", "").replace("_", ""))
        except ValueError:
            return Result(status=Status.ERROR, message=f"the count '{match}' is not a whole number", **base)
        unique, total = counts_from_covers(cover, covers)
        return Result(status=Status.SOLVED, covers=covers, unique=unique, total=total, **base)

    def _run(self, argv: list[str], path: Path, time_limit: float | None) -> tuple[Status | None, int, str]:
        """Run the command to its end: ``(None, exit status, output)``, or ``(TIMEOUT or INTERRUPTED, -1, "")``."""
        from bench.system.processes import die_with_parent

        parent = os.getpid()
        source = open(path, "rb") if self.command.stdin else subprocess.DEVNULL
        try:
            try:
                proc = subprocess.Popen(argv, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        start_new_session=True, preexec_fn=lambda: die_with_parent(parent))
            except OSError as exc:
                raise UsageError(f"cmd:{self.command.name}: cannot run {argv[0]}: {exc.strerror or exc}") from None
            deadline = None if time_limit is None else time.perf_counter() + time_limit
            try:
                while True:
                    try:
                        out, _ = proc.communicate(timeout=POLL_SECONDS)
                        return None, proc.returncode, out.decode("utf-8", "replace")
                    except subprocess.TimeoutExpired:
                        if deadline is not None and time.perf_counter() >= deadline:
                            return Status.TIMEOUT, -1, ""
            except KeyboardInterrupt:
                return Status.INTERRUPTED, -1, ""
            finally:
                # the whole session: whatever the command started dies with it
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                proc.wait()
        finally:
            if self.command.stdin:
                source.close()
