"""A picture as a list of plain shapes in pixel coordinates (y down), for the SVG and PNG writers.

Shapes carry a ``role`` (``cell``, ``border``, ``label``, ``face``, ``ball``,
...) that the SVG writer turns into a class, so tests and style sheets can
find, say, every cell of a drawing.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
