"""The package's own modules as bytes, read once per process: what the kernel caches and the cover cache key on.

The package's two digests (:func:`code_version`, :func:`kernel_digest`) are
remembered in the user's cache under the modules' paths, sizes and
modification times (:func:`stamp`), as Python remembers a module's bytecode
under its size and time: a run reads one small file instead of reading and
hashing 0.8 MB of sources (15 ms of every run's 0.2 s), and an edited module
has another time, so another entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from functools import lru_cache
from pathlib import Path

import platformdirs

from bench.about import DISTRIBUTION, VERSION
from bench.errors import BenchError
from bench.system.files import write_atomic

ROOT = Path(__file__).resolve().parent.parent
"""The package's own folder (this module lives in its toolchain)."""


def read_sources(root: Path) -> dict[Path, bytes]:
    """Every module under ``root``, sorted by path: path -> contents."""
    return {path: path.read_bytes() for path in sorted(root.rglob("*.py"))}


@lru_cache(maxsize=None)
def package_sources() -> dict[Path, bytes]:
    """:func:`read_sources` of the package itself, once: the sources a process has imported do not change under it."""
    return read_sources(ROOT)


def stamp(root: Path = ROOT) -> str:
    """A digest of the path, size, modification time and inode of every module under ``root``."""
    entries = []
    # os.scandir, not Path.rglob: a fifth of its time over the package's 130 modules
    folders = [str(root)]
    while folders:
        with os.scandir(folders.pop()) as found:
            for entry in found:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                elif entry.name.endswith(".py"):
                    st = entry.stat()
                    name = os.path.relpath(entry.path, root)
                    entries.append(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0")
    return hashlib.sha256("".join([VERSION + "\0", *sorted(entries)]).encode()).hexdigest()


@lru_cache(maxsize=None)
def _remembered() -> dict[str, str]:
    """The package's digests: read from the user's cache under :func:`stamp`, else computed and kept there."""
    path = platformdirs.user_cache_path(DISTRIBUTION) / "sources" / f"{stamp()}.json"
    try:
        got = json.loads(path.read_text())
        if isinstance(got, dict) and set(got) == {"code_version", "kernel_digest"}:
            return got
    except (OSError, ValueError):
        pass
    got = {"code_version": _code_version(), "kernel_digest": _kernel_digest(ROOT)}
    try:
        write_atomic(path, json.dumps(got), "digest of the package's sources")
    except BenchError:
        # a cache that cannot be written (write_atomic says why as a UsageError): computed again next run
        pass
    return got


def code_version() -> str:
    """This code's version: the package's version and a SHA-256 of every module's path and contents.

    What the cover cache, a split run's journal and a Dask worker's
    handshake compare: an edited checkout is another code, whatever its
    version number says.
    """
    return _remembered()["code_version"]


def _code_version() -> str:
    digest = hashlib.sha256(VERSION.encode() + b"\0")
    for path, text in package_sources().items():
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + text + b"\0")
    return f"{VERSION}+{digest.hexdigest()}"


def sources(root: Path) -> dict[Path, bytes]:
    """The modules under ``root``: the package's read once (:func:`package_sources`), any other tree afresh."""
    return package_sources() if root == ROOT else read_sources(root)


# [ \t]*, not \s*: at every line start \s* ran on over the blank lines below it (3 ms per digest)
_COMPILED = re.compile(rb"^[ \t]*(from numba|import numba|from bench\.toolchain\.registry import [^\n]*\bnjit\b)", re.M)
_IMPORT = re.compile(rb"^[ \t]*(?:from|import) bench((?:\.\w+)+)", re.M)


def kernel_sources(root: Path = ROOT) -> list[Path]:
    """The modules under ``root`` that use numba, with the package modules they import, sorted."""
    modules = sources(root)
    # a substring test first: the pattern alone scanned the package's 0.8 MB in 7 ms of every native run
    found = {path for path, text in modules.items() if (b"numba" in text or b"njit" in text) and _COMPILED.search(text)}
    for path in list(found):
        for match in _IMPORT.finditer(modules[path]):
            parts = match.group(1).decode().strip(".").split(".")
            for candidate in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
                if candidate in modules:
                    found.add(candidate)
    return sorted(found)


def kernel_digest(root: Path = ROOT) -> str:
    """A digest of the contents of :func:`kernel_sources`; the package's computed once per process (numba's cache
    and the kernel libraries both key on it, and the sources a process has imported do not change under it) and
    remembered across runs (see the module docstring)."""
    return _remembered()["kernel_digest"] if root == ROOT else _kernel_digest(root)


def _kernel_digest(root: Path) -> str:
    digest = hashlib.sha256()
    modules = sources(root)
    for path in kernel_sources(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + modules[path] + b"\0")
    return digest.hexdigest()
