"""The puzzle definitions shipped inside the package (``defs/`` in the repository is a link to them).

``bench run`` with no path runs the quick ones (every puzzle that
``expected.toml`` does not mark slow), from any directory.
"""

from pathlib import Path

DEFS = Path(__file__).resolve().parent / "defs"
"""The bundled definitions and their ``expected.toml``."""
