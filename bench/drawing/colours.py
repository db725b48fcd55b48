"""One colour per piece name: stable across solutions, distinct in hue and in grey.

A puzzle's piece names, sorted, take the first slots of a palette that
steps through hues by the golden angle (so the first few slots are as far
apart in hue as can be) and cycles three levels of luminance (the grey a
greyscale print makes of a colour): with the piece labels and the thick
borders, a greyscale print still tells the pieces apart.  Since colours
come from the names of all the puzzle's pieces, placed or not, every
solution of a puzzle shows a piece in the same colour.  When a puzzle's
designer named every piece after its colour (``Red``, ``LightGreen``...),
the pieces take those colours instead.
"""

from __future__ import annotations

import colorsys

STATIONARY = "#dedede"
GREYS = (0.38, 0.56, 0.75)
SATURATION = 0.72


def _hex(red: float, green: float, blue: float) -> str:
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"


def palette(n: int) -> list[str]:
    """``n`` colours as ``#rrggbb``: golden-angle hues, luminance cycling through :data:`GREYS`."""
    out = []
    for i in range(n):
        hue, target = (i * 0.381966) % 1.0, GREYS[i % len(GREYS)]
        low, high = 0.0, 1.0
        for _ in range(30):
            # luminance grows with HLS lightness at a fixed hue: bisect for the target grey
            mid = (low + high) / 2
            if luminance(_hex(*colorsys.hls_to_rgb(hue, mid, SATURATION))) < target:
                low = mid
            else:
                high = mid
        out.append(_hex(*colorsys.hls_to_rgb(hue, (low + high) / 2, SATURATION)))
    return out


NAMED = {"red": "#e03131", "blue": "#1c7ed6", "green": "#2f9e44", "lightgreen": "#8ce99a", "darkgreen": "#1b5e20",
         "cyan": "#22b8cf", "orange": "#f08c00", "purple": "#7048e8", "violet": "#ae3ec9", "pink": "#f783ac",
         "magenta": "#d6336c", "yellow": "#fcc419", "white": "#f8f9fa", "black": "#343a40", "brown": "#8d5524",
         "grey": "#868e96", "gray": "#868e96", "lightblue": "#74c0fc", "darkblue": "#1a3a8a"}
"""Colours for pieces named after them, adjusted to show on a white page (white is a very light grey)."""


def piece_colours(names, stationary=()) -> dict[str, str]:
    """A colour for each name; the same set of names always gives the same colours.

    When every piece not in ``stationary`` is named after a colour of
    :data:`NAMED`, each takes its own.

    Examples
    --------
    >>> a = piece_colours(["F", "I", "L"])
    >>> a == piece_colours(["L", "F", "I"]) and len(set(a.values())) == 3
    True
    >>> piece_colours(["Red", "LightGreen", "outside"], stationary=["outside"])["Red"]
    '#e03131'
    """
    names = sorted(set(names))
    out = dict(zip(names, palette(len(names))))
    mobile = [n for n in names if n not in set(stationary)]
    if mobile and all(n.lower() in NAMED for n in mobile):
        out.update({n: NAMED[n.lower()] for n in mobile})
    return out


def luminance(colour: str) -> float:
    """Relative luminance (0 black, 1 white) of ``#rrggbb``, as a greyscale print renders it."""
    red, green, blue = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def text_colour(fill: str) -> str:
    """Black or white, whichever reads better on ``fill``."""
    return "#000000" if luminance(fill) > 0.45 else "#ffffff"


def shade(colour: str, factor: float) -> str:
    """``colour`` darkened (factor < 1) or lightened (factor > 1, towards white)."""
    channels = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    if factor <= 1:
        channels = [round(c * factor) for c in channels]
    else:
        channels = [round(c + (255 - c) * min(factor - 1, 1)) for c in channels]
    return "#" + "".join(f"{c:02x}" for c in channels)


def halo(text: str) -> str:
    """The outline drawn behind text of colour ``text`` so it stays readable over any fill: its opposite."""
    return "#ffffff" if luminance(text) < 0.5 else "#000000"
