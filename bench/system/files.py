"""Reading the user's files with a bound, and writing results, reports, journals and pictures without damage.

Every file ``bench`` writes goes through this module, which holds to these rules:

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
  location fails in the first second, not after the run;
* no file the command reads as input (a definition, a result file, an
  ``expected.toml``) is ever written: :func:`check_output` refuses an
  output named like one of its inputs, and every file :func:`read_input`
  has read is refused by the writer;
* a new file that must not meet another run's (a result file named by the
  second) is created exclusively (:func:`create_new`); in a folder of
  outputs (``--draw``'s pictures) a symlink is replaced, never followed.

Input files are read by :func:`read_input`: regular files only (a FIFO,
a device or a directory is refused before it is opened for reading, so
nothing hangs or streams without end), at most :data:`MAX_INPUT_BYTES`
(standard input too), refused whole beyond that before anything is parsed.

A default location that may be unwritable (the journal folder of an
automatic split) is probed with :func:`writable_directory`, and the caller
falls back or goes without.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from bench.errors import BenchError, UsageError

MAX_INPUT_BYTES = 16 << 20
"""The largest definition, result or configuration file read (16 MiB): a box of the supported million cells
drawn with spaces takes 2 MB, and anything larger is refused before it is parsed."""
PROBE_BYTES = 4096
"""What the folder probe writes and syncs: an empty file can be created on a full disk, a block of data cannot."""

_inputs: set[tuple[int, int]] = set()
"""(device, inode) of every file :func:`read_input` has read: the writer refuses them."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _target(path: Path) -> Path:
    """Where writing ``path`` lands: a symlink's final target (the link itself is kept)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def refuse_special(path: Path, what: str, follow: bool = True) -> None:
    """Raise unless ``path`` is missing, (through any symlinks, with ``follow``; else a link itself passes) a
    regular file, and no input of the command: what the writer may replace."""
    try:
        st = os.stat(path, follow_symlinks=follow)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write: {exc.strerror or exc}") from None
    if not follow and stat.S_ISLNK(st.st_mode):
        return
    if not stat.S_ISREG(st.st_mode):
        link = f" (a symlink to {os.path.realpath(path)})" if path.is_symlink() else ""
        raise UsageError(f"{what} {path}: is {_kind(st.st_mode)}{link}; expected a regular file or a new file name")
    if (st.st_dev, st.st_ino) in _inputs:
        raise UsageError(f"{what} {path}: is also an input of this command; writing it would lose the input, "
                         "so give another file name")


def _same_file(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name one file (an existing one, or the same new path)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


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
    name = None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".bench-probe-", dir=directory)
        try:
            os.write(fd, b"\0" * PROBE_BYTES)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        return exc.strerror or str(exc)
    finally:
        if name is not None:
            try:
                os.unlink(name)
            except OSError:
                pass
        # deepest first; one that another process has filled meanwhile stays
        for folder in made:
            try:
                folder.rmdir()
            except OSError:
                pass
    return None


def check_output(path: str | Path, what: str = "output", inputs=()) -> Path:
    """Check, before any work, that ``path`` can be written as a regular file; returns it as a Path.

    ``what`` names the option in the message (``-o``, ``--journal``);
    ``inputs`` are the command's input paths, which the output must not be.
    The folder is probed with a temporary file holding data (made for the
    probe if missing, and removed again: :func:`write_atomic` makes it when
    it writes).

    Raises
    ------
    UsageError
        For an empty name, an input of the command, a device, FIFO, socket
        or directory (or a symlink to one), or a folder where no file can be
        created.

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
    for given in inputs:
        if given != "-" and _same_file(path, Path(given)):
            raise UsageError(f"{what} {path}: is also an input of this command ({given}); writing it would lose "
                             "the input, so give another file name")
    refuse_special(path, what)
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


def write_atomic(path: str | Path, data: str | bytes, what: str = "output", follow: bool = True) -> None:
    """Replace (or create) the regular file ``path`` with ``data``, atomically and durably.

    ``follow=False`` (a folder of outputs, as ``--draw``'s) replaces a
    symlink at ``path`` itself instead of the file it points to.

    Raises
    ------
    UsageError
        When ``path`` is not a regular file, is an input, or cannot be written (see :func:`check_output`).
    """
    path = Path(path)
    refuse_special(path, what, follow)
    target = _target(path) if follow else path
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write in {target.parent}: {exc.strerror or exc}") from None
    try:
        _write_durably(fd, raw)
        if os.path.isfile(target) and (follow or not target.is_symlink()):
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


def _write_durably(fd: int, raw: bytes) -> None:
    """Write ``raw`` to the new file open as ``fd`` and make it durable; ``fd`` is closed."""
    with os.fdopen(fd, "wb") as f:
        f.write(raw)
        f.flush()
        os.fsync(f.fileno())


def create_new(path: Path, data: str | bytes, what: str = "output", siblings: tuple[str, ...] = ()) -> Path:
    """Create ``path`` with ``data`` where no file of that name is (``NAME-2.EXT``, ``NAME-3.EXT``, ... otherwise).

    The name is taken exclusively (``O_EXCL``), so two processes asking for
    one name in the same instant get two files; a name whose ``siblings``
    (other suffixes, as the HTML report beside a result file) exist is
    passed over too.  Returns the path created.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write in {path.parent}: {exc.strerror or exc}") from None
    for n in range(1, 10_000):
        name = path if n == 1 else path.with_name(f"{path.stem}-{n}{path.suffix}")
        if any(os.path.lexists(name.with_suffix(s)) for s in siblings):
            continue
        try:
            fd = os.open(name, flags, 0o666)
        except FileExistsError:
            continue
        except OSError as exc:
            raise UsageError(f"{what} {name}: cannot write: {exc.strerror or exc}") from None
        try:
            _write_durably(fd, raw)
        except OSError as exc:
            name.unlink(missing_ok=True)
            raise UsageError(f"{what} {name}: cannot write: {exc.strerror or exc}") from None
        return name
    raise UsageError(f"{what} {path}: every name up to {path.stem}-9999{path.suffix} is taken")


def read_input(path: str | Path, what: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the input file ``path`` (``-``: standard input), at most ``limit`` of them.

    Only a regular file is read: it is opened without blocking (a FIFO's
    open would wait for a writer) and checked before a byte is read.  A
    file read here is an input of the command, which the writer refuses to
    replace.  ``what`` names the kind of file in the messages.

    Raises
    ------
    BenchError
        ``PATH: is a FIFO; expected a regular file (WHAT)``, ``PATH: larger
        than N bytes``, or ``PATH: cannot read: REASON``.
    """
    if str(path) == "-":
        data = sys.stdin.buffer.read(limit + 1)
        name = "<stdin>"
    else:
        name = str(path)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        except OSError as exc:
            raise BenchError(f"{name}: cannot read: {exc.strerror or exc}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise BenchError(f"{name}: is {_kind(st.st_mode)}; expected a regular file ({what})")
            if st.st_size > limit:
                raise BenchError(f"{name}: larger than {_size(limit)} ({st.st_size:,} bytes); expected a {what} of "
                                 "at most that size")
            _inputs.add((st.st_dev, st.st_ino))
            chunks, size = [], 0
            while size <= limit:
                chunk = os.read(fd, min(1 << 20, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            data = b"".join(chunks)
        except OSError as exc:
            raise BenchError(f"{name}: cannot read: {exc.strerror or exc}") from None
        finally:
            os.close(fd)
    if len(data) > limit:
        raise BenchError(f"{name}: larger than {_size(limit)}; expected a {what} of at most that size")
    return data


def forget_inputs() -> None:
    """Start a new command: the files earlier commands of this process read are no longer its inputs."""
    _inputs.clear()


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n and n % (1 << 20) == 0 else f"{n:,} bytes"


def open_append(path: str | Path, what: str = "output"):
    """Open the regular file ``path`` for appending (binary); refuses anything else, as :func:`check_output` does."""
    path = Path(path)
    refuse_special(path, what)
    try:
        _target(path).parent.mkdir(parents=True, exist_ok=True)
        return open(path, "ab")
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write: {exc.strerror or exc}") from None


def open_locked(path: str | Path, what: str = "output"):
    """Open the regular file ``path`` for reading and writing (made if missing, never truncated), locked for good.

    The lock (an exclusive ``flock``, held until the file is closed) keeps
    a second process from writing the same file at once, as two split
    runs on one journal would; where the platform has no ``flock`` the
    file is opened without it.

    Raises
    ------
    UsageError
        When another process holds the lock (``PATH: another bench process
        is using this ...``), or the file is refused (:func:`check_output`)
        or cannot be opened.
    """
    path = Path(path)
    refuse_special(path, what)
    try:
        _target(path).parent.mkdir(parents=True, exist_ok=True)
        handle = os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT, 0o666), "r+b")
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write: {exc.strerror or exc}") from None
    try:
        import fcntl
    except ImportError:
        return handle
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        kind = what.lstrip("-").split("-")[-1]
        raise UsageError(f"{what} {path}: another bench process is using this {kind}; wait for it to end, or give "
                         f"another {what}") from None
    return handle


def is_locked(path: str | Path) -> bool:
    """True while another process holds :func:`open_locked`'s lock on ``path``."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


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
