"""The package's own modules as bytes, read once per process: what the kernel cache and the cover cache key on."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def read_sources(root: Path) -> dict[Path, bytes]:
    """Every module under ``root``, sorted by path: path -> contents."""
    return {path: path.read_bytes() for path in sorted(root.rglob("*.py"))}


@lru_cache(maxsize=None)
def package_sources() -> dict[Path, bytes]:
    """:func:`read_sources` of the package itself, once: the sources a process has imported do not change under it."""
    return read_sources(ROOT)


def sources(root: Path) -> dict[Path, bytes]:
    """The modules under ``root``: the package's read once (:func:`package_sources`), any other tree afresh."""
    return package_sources() if root == ROOT else read_sources(root)
