"""A :class:`~bench.drawing.scene.Scene` as a standalone SVG document.

Written through :mod:`xml.etree.ElementTree`, so names and titles from
definition files are escaped, and every file is well-formed XML.  Shaded
balls use one radial gradient per colour, defined once.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from bench.drawing.colours import halo, shade
from bench.drawing.scene import Circle, Line, Polygon, Scene, Text

SVG_NS = "http://www.w3.org/2000/svg"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


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
