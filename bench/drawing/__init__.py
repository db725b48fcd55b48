"""Pictures of solutions: every lattice drawn as coloured cells, layer by layer, with a 3-D view.

A solution (:class:`~bench.drawing.solution.Solution`: the lattice, the box
and each piece's cells) becomes a :class:`~bench.drawing.scene.Scene` of
plain shapes, which is written as SVG or PNG:

- :mod:`~bench.drawing.solution`: a solution as a drawing needs it, and its
  stored form (result files keep one per puzzle);
- :mod:`~bench.drawing.geometry`: per lattice, the layer a cell lies in, its
  2-D shape there and its place in space (spheres by the layers a person
  stacks);
- :mod:`~bench.drawing.colours`: one colour per piece name, stable across
  solutions and distinct in lightness so greyscale prints stay readable;
- :mod:`~bench.drawing.picture`: the picture of a solution: the layers side
  by side with thick borders between pieces and one label per piece and
  layer, the shaded 3-D view of a 3-D puzzle, a legend where names are
  shortened;
- :mod:`~bench.drawing.scene`: the plain shapes, written as SVG or PNG;
- :mod:`~bench.drawing.gallery`: ``bench solve --draw``'s files and its HTML
  gallery page.
"""
