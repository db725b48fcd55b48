"""Writing result files, reports and journals without ever damaging what is there.

Every file ``bench`` writes goes through this module, which holds to three rules:

* only a regular file is ever written or replaced (or a new one created):
  a device node, a FIFO, a socket or a directory, or a symlink to one, is
  refused with one line naming the option it came from (renaming a
  temporary file over ``/dev/full`` replaces the device);
* a file is replaced atomically (a temporary file beside it, fsynced, then
  renamed), so an interrupted run leaves the old file or the new one, never
  half of one; a symlink to a regular file stays a symlink and its target
  is replaced;
* a command checks its output locations with :func:`check_output` and
  :func:`check_directory` before any work starts, so an unwritable
  location fails in the first second, not after the run.

A default location that may be unwritable (the journal folder of an
automatic split) is probed with :func:`writable_directory`, and the caller
falls back or goes without.
"""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

from bench.errors import UsageError


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _target(path: Path) -> Path:
    """Where writing ``path`` lands: a symlink's final target (the link itself is kept)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _refuse_special(path: Path, what: str) -> None:
    """Raise unless ``path`` is missing or (through any symlinks) a regular file."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        link = f" (a symlink to {os.path.realpath(path)})" if path.is_symlink() else ""
        raise UsageError(f"{what} {path}: is {_kind(mode)}{link}; expected a regular file or a new file name")


def _probe(directory: Path) -> str | None:
    """Why no file can be created in ``directory``, or None when one can.

    Folders it has to make to find out are removed again: a command that
    stops on bad input leaves nothing behind, and the writer makes them.
    """
    made = []
    for folder in (directory, *directory.parents):
        if os.path.lexists(folder):
            break
        made.append(folder)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".bench-probe-", dir=directory)
        os.close(fd)
        os.unlink(name)
    except OSError as exc:
        return exc.strerror or str(exc)
    finally:
        # deepest first; one that another process has filled meanwhile stays
        for folder in made:
            try:
                folder.rmdir()
            except OSError:
                pass
    return None


def check_output(path: str | Path, what: str = "output") -> Path:
    """Check, before any work, that ``path`` can be written as a regular file; returns it as a Path.

    ``what`` names the option in the message (``-o``, ``--journal``).  The
    folder is probed with a temporary file (made for the probe if missing,
    and removed again: :func:`write_atomic` makes it when it writes).

    Raises
    ------
    UsageError
        For an empty name, a device, FIFO, socket or directory (or a symlink
        to one), or a folder where no file can be created.

    Examples
    --------
    >>> check_output("/dev/null", "-o")
    Traceback (most recent call last):
    ...
    bench.errors.UsageError: -o /dev/null: is a character device; expected a regular file or a new file name
    """
    if str(path) == "":
        raise UsageError(f"{what}: empty file name")
    path = Path(path)
    _refuse_special(path, what)
    target = _target(path)
    reason = _probe(target.parent)
    if reason is not None:
        raise UsageError(f"{what} {path}: cannot write in {target.parent}: {reason}")
    return path


def check_directory(directory: str | Path, what: str, hint: str = "") -> Path:
    """Check, before any work, that files can be created in ``directory`` (made when written, if missing).

    ``hint`` is appended to the message (e.g. what option avoids the folder).

    Raises
    ------
    UsageError
        Naming ``what`` (e.g. ``results folder``) and the reason.
    """
    directory = Path(directory)
    reason = _probe(directory)
    if reason is not None:
        raise UsageError(f"{what} {directory}: cannot write there: {reason}" + (f"; {hint}" if hint else ""))
    return directory


def writable_directory(directory: str | Path) -> bool:
    """True when files can be created in ``directory`` (made when written, if missing): for defaults that may fall back."""
    return _probe(Path(directory)) is None


def write_atomic(path: str | Path, data: str | bytes, what: str = "output") -> None:
    """Replace (or create) the regular file ``path`` with ``data``, atomically and durably.

    Raises
    ------
    UsageError
        When ``path`` is not a regular file or cannot be written (see :func:`check_output`).
    """
    path = Path(path)
    _refuse_special(path, what)
    target = _target(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write in {target.parent}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        if target.exists():
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"{what} {path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def open_append(path: str | Path, what: str = "output"):
    """Open the regular file ``path`` for appending (binary); refuses anything else, as :func:`check_output` does."""
    path = Path(path)
    _refuse_special(path, what)
    try:
        _target(path).parent.mkdir(parents=True, exist_ok=True)
        return open(path, "ab")
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write: {exc.strerror or exc}") from None


@contextmanager
def exclusive_lock(path: str | Path):
    """Hold an exclusive ``flock`` on the file ``path`` (made if missing) for the block.

    For caches that several processes fill at once.  Where the platform has
    no ``fcntl`` or the file cannot be opened, the block runs without the
    lock: the writes inside say what is wrong, or the cache goes without.
    """
    try:
        import fcntl  # here: a platform without it (Windows) runs the block unlocked
    except ImportError:
        yield
        return
    try:
        handle = open(path, "ab")
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
