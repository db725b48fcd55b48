"""Regenerate ``bench/toolchain/signatures.py``: the argument types each kernel library is built for.

Every registered specialization's tiny search runs under numba's JIT with its
kernels' calls recorded (:func:`bench.toolchain.warmup.record`); the module's
text is printed.  A developer's tool, kept beside the benchmarks: it imports
every module that registers a specialization.

``python -m benchmarks.signatures > bench/toolchain/signatures.py``
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# the modules that register the specializations (imported for that)
import bench.engines.fila  # noqa: F401
import bench.models.filters  # noqa: F401
from bench.toolchain import signatures, warmup


def signatures_module(libraries: dict[str, tuple]) -> str:
    """The text of :mod:`bench.toolchain.signatures` for ``libraries``."""
    path = Path(signatures.__file__)
    head = path.read_text().split("LIBRARIES", 1)[0]
    lines = [head + "LIBRARIES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {"]
    for spec, entries in libraries.items():
        lines.append(f"    {spec!r}: (")
        for name, descriptions in entries:
            lines.append(f"        ({name!r}, (")
            lines.extend(f"            {d!r}," for d in descriptions)
            lines.append("        )),")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print the module afresh; returns 0."""
    os.environ["BENCH_AOT"] = "0"
    sys.stdout.write(signatures_module(warmup.record()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
