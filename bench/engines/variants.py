"""Engine variants in polycube's tuning letters, so one ``bench run`` compares configurations.

``fila:f11/of=11/n0`` is FILA handing off with 11 pieces left, ordering
``f`` from there, NOF off; ``dlx:V13`` is DLX filtering by volume at every
node while 13 pieces remain.
"""

from __future__ import annotations

from bench.engines.protocol import Settings
from bench.errors import UsageError
from bench.kernels.heuristics import parse_order

TUNING_LETTERS = {"f": "fila", "n": "nof", "o": "order", "p": "parity_backtrack", "v": "volume_backtrack",
                  "c": "isolated_backtrack", "P": "parity_filter", "V": "volume_filter", "F": "fit_filter",
                  "R": "fit_rounds"}
COUNTED = frozenset({"fila", "parity_backtrack", "volume_backtrack", "isolated_backtrack", "parity_filter",
                     "volume_filter", "fit_filter", "fit_rounds"})
CONSTRAINTS = frozenset({"parity_backtrack", "volume_backtrack", "parity_filter", "volume_filter", "fit_filter",
                         "fit_rounds"})
"""The in-search triggers and filters, as settings names."""


def parse_tuning(engine_name: str, variant: str, allowed: frozenset[str]) -> dict:
    """Settings carried by an engine variant, in polycube's letters separated by ``/``.

    ``fN`` hands off to FILA with N pieces left, ``n`` / ``n0`` turns NOF
    on / off, ``oSPEC`` sets the ordering heuristics, ``pN``, ``vN``,
    ``PN``, ``VN``, ``FN`` turn on the parity and volume triggers and the
    parity, volume and fit filters while N pieces remain (``p`` alone: 1),
    ``cN`` FILA's isolated-cell trigger (``c`` alone: 1),
    ``RN`` sets the fit filter's passes, so one ``bench run`` can compare
    configurations: ``fila:f11/of=11/n0,fila:f11/of=11/n,dlx:V13``.

    Examples
    --------
    >>> parse_tuning("fila", "f11/oe=11:f=3/n", frozenset({"fila", "nof", "order"}))
    {'fila': 11, 'order': 'e=11:f=3', 'nof': True}
    """

    letters = [k for k, name in TUNING_LETTERS.items() if name in allowed]
    expected = f"'/'-separated {', '.join(k + ('N' if TUNING_LETTERS[k] in COUNTED else 'SPEC' if k == 'o' else '[0]') for k in letters)}"
    out: dict = {}
    for token in filter(None, variant.split("/")):
        key, value = token[0], token[1:]
        name = TUNING_LETTERS.get(key)
        if name not in allowed:
            raise UsageError(f"{engine_name}: unknown variant '{token}'; expected {expected}")
        if name in ("parity_backtrack", "isolated_backtrack") and value == "":
            out[name] = 1
        elif name in COUNTED:
            if not value.isdigit():
                raise UsageError(f"{engine_name}: '{token}' needs a number, e.g. {key}11")
            out[name] = int(value)
        elif name == "nof":
            if value not in ("", "0", "1"):
                raise UsageError(f"{engine_name}: '{token}': n or n1 turns NOF on, n0 off")
            out[name] = value != "0"
        else:
            parse_order(value)
            out[name] = value
    return out


def constraint_variant(settings: Settings) -> str:
    """The in-search triggers and filters of ``settings`` in variant letters, e.g. ``/p1/V13`` ("" when none)."""
    letters = {name: key for key, name in TUNING_LETTERS.items()}
    parts = [f"{letters[name]}{getattr(settings, name)}" for name in
             ("parity_backtrack", "volume_backtrack", "isolated_backtrack", "parity_filter", "volume_filter",
              "fit_filter")
             if getattr(settings, name)]
    if settings.fit_filter and settings.fit_rounds != 1:
        parts.append(f"R{settings.fit_rounds}")
    return "".join("/" + p for p in parts)

