"""What the tests share: the repository's paths and the engines installed here.

The oracles, generators and stand-ins live beside it: :mod:`support.reference`
(the brute-force solver), :mod:`support.lattice_reference` (geometry from first
principles), :mod:`support.strategies` (hypothesis generators),
:mod:`support.fake_engines` (engines that crash, hang or miscount),
:mod:`support.xcc_counter` (a tiny exact-cover counter for Knuth's format,
the external command of the ``cmd:NAME`` tests) and :mod:`support.abuse`
(hostile inputs).
"""

from __future__ import annotations

from pathlib import Path

from bench.engines import engine_names, get_engine

ROOT = Path(__file__).resolve().parent.parent.parent
"""The repository's root."""
DEFS = ROOT / "defs"
"""The bundled definitions."""
DATA = ROOT / "tests" / "data"
"""The tests' own definitions."""


def available_engines() -> list[str]:
    """Registered engines whose libraries are installed."""
    return [name for name in engine_names() if get_engine(name).available()]
