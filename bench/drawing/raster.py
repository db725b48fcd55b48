"""A :class:`~bench.drawing.scene.Scene` as a PNG, drawn by matplotlib (imported here only)."""

from __future__ import annotations

import io

from bench.drawing.colours import halo, shade
from bench.drawing.scene import Circle, Line, Polygon, Scene, Text

DPI = 96


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
