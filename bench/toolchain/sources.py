"""The package's own modules as bytes, read once per process: what the kernel caches and the cover cache key on."""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

from bench.about import VERSION

ROOT = Path(__file__).resolve().parent.parent
"""The package's own folder (this module lives in its toolchain)."""


def read_sources(root: Path) -> dict[Path, bytes]:
    """Every module under ``root``, sorted by path: path -> contents."""
    return {path: path.read_bytes() for path in sorted(root.rglob("*.py"))}


@lru_cache(maxsize=None)
def package_sources() -> dict[Path, bytes]:
    """:func:`read_sources` of the package itself, once: the sources a process has imported do not change under it."""
    return read_sources(ROOT)


@lru_cache(maxsize=None)
def code_version() -> str:
    """This code's version: the package's version and a SHA-256 of every module's path and contents.

    What the cover cache, a split run's journal and a Dask worker's
    handshake compare: an edited checkout is another code, whatever its
    version number says.
    """
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
    and the kernel libraries both key on it, and the sources a process has imported do not change under it)."""
    return _package_kernel_digest() if root == ROOT else _kernel_digest(root)


@lru_cache(maxsize=None)
def _package_kernel_digest() -> str:
    return _kernel_digest(ROOT)


def _kernel_digest(root: Path) -> str:
    digest = hashlib.sha256()
    modules = sources(root)
    for path in kernel_sources(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + modules[path] + b"\0")
    return digest.hexdigest()
