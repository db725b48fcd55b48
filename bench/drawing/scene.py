"""A picture as a list of plain shapes in pixel coordinates (y down), and its writers: SVG and PNG.

Shapes carry a ``role`` (``cell``, ``border``, ``label``, ``face``, ``ball``,
...) that the SVG writer turns into a class, so tests and style sheets can
find, say, every cell of a drawing.  :func:`to_svg` writes through
:mod:`xml.etree.ElementTree`, so names and titles from definition files are
escaped and every file is well-formed XML; shaded balls use one radial
gradient per colour, defined once.  :func:`to_png` draws through
matplotlib, imported there only; both return what to write, and the
package's writer (:mod:`bench.system.files`) writes it.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from bench.drawing.colours import halo, shade

SVG_NS = "http://www.w3.org/2000/svg"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
DPI = 96


@dataclass(frozen=True)
class Polygon:
    """A filled polygon; ``title`` becomes a tooltip (the piece name)."""

    points: tuple[tuple[float, float], ...]
    fill: str
    stroke: str = "none"
    width: float = 0.0
    role: str = "cell"
    title: str = ""


@dataclass(frozen=True)
class Circle:
    """A filled circle; ``shaded`` draws it as a lit ball."""

    x: float
    y: float
    r: float
    fill: str
    stroke: str = "#333333"
    width: float = 1.0
    shaded: bool = False
    role: str = "cell"
    title: str = ""


@dataclass(frozen=True)
class Line:
    """A straight stroke, round-capped so thick borders meet cleanly."""

    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str
    width: float
    role: str = "border"


@dataclass(frozen=True)
class Text:
    """Text centred vertically on ``(x, y)``; ``anchor`` is ``middle`` (centred there) or ``start`` (starting there)."""

    x: float
    y: float
    text: str
    size: float
    fill: str = "#000000"
    role: str = "label"
    bold: bool = False
    anchor: str = "middle"


@dataclass
class Scene:
    """Shapes in drawing order (later ones on top) on a ``width`` x ``height`` pixel canvas."""

    width: float = 0.0
    height: float = 0.0
    items: list = field(default_factory=list)
    title: str = ""

    def add(self, item) -> None:
        """Append a shape (drawn above the earlier ones)."""
        self.items.append(item)

    def place(self, other: "Scene", dx: float, dy: float) -> None:
        """Copy ``other``'s shapes here, moved by ``(dx, dy)``; the canvas grows to hold them."""
        for item in other.items:
            self.items.append(_moved(item, dx, dy))
        self.width = max(self.width, dx + other.width)
        self.height = max(self.height, dy + other.height)


def _moved(item, dx: float, dy: float):
    if isinstance(item, Polygon):
        return Polygon(tuple((x + dx, y + dy) for x, y in item.points), item.fill, item.stroke, item.width, item.role,
                       item.title)
    if isinstance(item, Circle):
        return Circle(item.x + dx, item.y + dy, item.r, item.fill, item.stroke, item.width, item.shaded, item.role,
                      item.title)
    if isinstance(item, Line):
        return Line(item.x1 + dx, item.y1 + dy, item.x2 + dx, item.y2 + dy, item.stroke, item.width, item.role)
    return Text(item.x + dx, item.y + dy, item.text, item.size, item.fill, item.role, item.bold, item.anchor)


def _num(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def to_svg(scene: Scene) -> str:
    """The SVG text of ``scene`` (no XML declaration, so it can be inlined in HTML as is)."""
    ET.register_namespace("", SVG_NS)
    root = ET.Element(f"{{{SVG_NS}}}svg", {"width": _num(scene.width), "height": _num(scene.height),
                                           "viewBox": f"0 0 {_num(scene.width)} {_num(scene.height)}",
                                           "font-family": FONT, "role": "img"})
    if scene.title:
        ET.SubElement(root, f"{{{SVG_NS}}}title").text = scene.title
    ET.SubElement(root, f"{{{SVG_NS}}}rect", {"width": "100%", "height": "100%", "fill": "#ffffff"})
    gradients: dict[str, str] = {}
    defs = ET.SubElement(root, f"{{{SVG_NS}}}defs")
    for item in scene.items:
        if isinstance(item, Polygon):
            el = ET.SubElement(root, f"{{{SVG_NS}}}polygon", {
                "class": item.role, "points": " ".join(f"{_num(x)},{_num(y)}" for x, y in item.points),
                "fill": item.fill, "stroke": item.stroke, "stroke-width": _num(item.width), "stroke-linejoin": "round"})
        elif isinstance(item, Circle):
            fill = item.fill
            if item.shaded:
                if item.fill not in gradients:
                    gradients[item.fill] = _gradient(defs, item.fill)
                fill = f"url(#{gradients[item.fill]})"
            el = ET.SubElement(root, f"{{{SVG_NS}}}circle", {
                "class": item.role, "cx": _num(item.x), "cy": _num(item.y), "r": _num(item.r), "fill": fill,
                "data-colour": item.fill, "stroke": item.stroke, "stroke-width": _num(item.width)})
        elif isinstance(item, Line):
            el = ET.SubElement(root, f"{{{SVG_NS}}}line", {
                "class": item.role, "x1": _num(item.x1), "y1": _num(item.y1), "x2": _num(item.x2), "y2": _num(item.y2),
                "stroke": item.stroke, "stroke-width": _num(item.width), "stroke-linecap": "round"})
        elif isinstance(item, Text):
            el = ET.SubElement(root, f"{{{SVG_NS}}}text", {
                "class": item.role, "x": _num(item.x), "y": _num(item.y), "font-size": _num(item.size),
                "fill": item.fill, "text-anchor": item.anchor, "dominant-baseline": "central",
                **({"font-weight": "bold"} if item.bold else {}),
                **({"stroke": halo(item.fill), "stroke-width": "2", "stroke-opacity": "0.6", "paint-order": "stroke"}
                   if item.role == "label" else {})})
            el.text = item.text
            continue
        else:
            raise TypeError(f"not a scene shape: {item!r}")
        if getattr(item, "title", ""):
            ET.SubElement(el, f"{{{SVG_NS}}}title").text = item.title
    if not len(defs):
        root.remove(defs)
    return ET.tostring(root, encoding="unicode")


def _gradient(defs, colour: str) -> str:
    # lit from the upper left: a highlight near the top, the base colour, a darker rim; named by the
    # colour, so the many drawings of a gallery or report page share equal definitions
    ident = f"ball-{colour.lstrip('#')}"
    g = ET.SubElement(defs, f"{{{SVG_NS}}}radialGradient", {"id": ident, "cx": "0.38", "cy": "0.35", "r": "0.7"})
    for offset, tone in (("0", shade(colour, 1.6)), ("0.55", colour), ("1", shade(colour, 0.55))):
        ET.SubElement(g, f"{{{SVG_NS}}}stop", {"offset": offset, "stop-color": tone})
    return ident


def to_png(scene: Scene, zoom: float = 2.0) -> bytes:
    """``scene`` as a PNG's bytes, ``zoom`` device pixels per scene pixel (written by :mod:`bench.system.files`' writer).

    Shapes are stacked in scene order (matplotlib would otherwise put lines above patches).
    """
    # lazy: plotting loads only for pictures and reports
    import matplotlib

    matplotlib.use("Agg")
    # lazy: plotting loads only for pictures and reports
    import matplotlib.pyplot as plt
    from matplotlib import patheffects
    from matplotlib.patches import Circle as CirclePatch
    from matplotlib.patches import Polygon as PolygonPatch

    fig = plt.figure(figsize=(scene.width / DPI, scene.height / DPI), dpi=DPI * zoom)
    try:
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, scene.width)
        ax.set_ylim(scene.height, 0)
        ax.set_axis_off()
        # scene sizes are pixels; matplotlib's line widths and fonts are points
        points = 72 / DPI
        for order, item in enumerate(scene.items):
            if isinstance(item, Polygon):
                ax.add_patch(PolygonPatch(item.points, closed=True, facecolor=item.fill,
                                          edgecolor=None if item.stroke == "none" else item.stroke,
                                          linewidth=item.width * points, joinstyle="round", zorder=order))
            elif isinstance(item, Circle):
                ax.add_patch(CirclePatch((item.x, item.y), item.r, facecolor=item.fill, edgecolor=item.stroke,
                                         linewidth=item.width * points, zorder=order))
                if item.shaded:
                    ax.add_patch(CirclePatch((item.x - 0.3 * item.r, item.y - 0.3 * item.r), 0.35 * item.r,
                                             facecolor=shade(item.fill, 1.6), edgecolor="none", zorder=order))
            elif isinstance(item, Line):
                ax.plot([item.x1, item.x2], [item.y1, item.y2], color=item.stroke, linewidth=item.width * points,
                        solid_capstyle="round", zorder=order)
            elif isinstance(item, Text):
                effects = ([patheffects.withStroke(linewidth=2 * points, foreground=halo(item.fill), alpha=0.6)]
                           if item.role == "label" else [])
                ax.text(item.x, item.y, item.text, fontsize=item.size * points, color=item.fill,
                        ha="center" if item.anchor == "middle" else "left", va="center",
                        fontweight="bold" if item.bold else "normal", zorder=order, path_effects=effects)
        buffer = io.BytesIO()
        fig.savefig(buffer, dpi=DPI * zoom, facecolor="white", format="png")
        return buffer.getvalue()
    finally:
        plt.close(fig)
