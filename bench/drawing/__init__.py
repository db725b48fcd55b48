"""Pictures of solutions: every lattice drawn as coloured cells, layer by layer, with a 3-D view.

A solution (:class:`~bench.drawing.solution.Solution`: the lattice, the box
and each piece's cells) becomes a :class:`~bench.drawing.scene.Scene` of
plain shapes, which is written as SVG (:mod:`bench.drawing.svg`) or PNG
(:mod:`bench.drawing.raster`, through matplotlib, imported only there):

- :mod:`~bench.drawing.geometry`: the 2-D shape of one cell in its layer
  (square, hexagon, triangle, ball) and its place in space, per lattice;
- :mod:`~bench.drawing.colours`: one colour per piece name, stable across
  solutions and distinct in lightness so greyscale prints stay readable;
- :mod:`~bench.drawing.layers`: the layers side by side, thick borders
  between pieces, one label per piece and layer;
- :mod:`~bench.drawing.isometric`: the shaded 3-D view of a 3-D puzzle;
- :mod:`~bench.drawing.picture`: both together, the picture of a solution;
- :mod:`~bench.drawing.gallery`: ``bench solve --draw``'s files and its HTML
  gallery page.
"""
