"""Lattices: the cells a puzzle is built from, their neighbours and motions, read from descriptions.

A lattice is data (the lattice-tiling thesis in ``shared/reference``: the
grid is a graph whose edges carry labels in opposite pairs, and a motion
maps labels to labels): a small TOML file, ``bench/lattices/NAME.toml`` for
the bundled ones, gives the cells of one unit cell and their types, the
translation vectors, each type's neighbours as labelled offsets with the
opposite pairs of labels, the motions as generators (affine maps written as
formulas, per type where types move differently) and how a cell is drawn.
:class:`Lattice` derives the rest: which integer triples are cells, the
neighbours of any cell, the group by closure modulo translations, which
motions are proper, normalisation, and a two-colouring where one exists.
The file format is documented in ``docs/lattices.md``; every mistake in a
description (a label pairing that is not an involution, a generator that
sends a cell off the lattice or breaks a neighbour relation) is reported
as ``path:line:``.

A cell is an integer triple.  Its *type* is found by reducing it modulo
the translations (a Hermite basis, :meth:`Lattice.reduce`): the residue is
one of the unit cell's cells, or the triple is not a cell.  A motion is
``c -> M c + b[type(c)]`` (:class:`Motion`); the per-type shift lets a
motion permute types that no single affine map can (the four triangles of
a tetrakis square).

The bundled lattices (a public interface: definition files and output
depend on their coordinates): ``cubic`` (the default; with ``zDim=1`` the
cells are squares), ``hex`` (axial ``q r 0``), ``triangle`` (``x y t``,
up and down triangles of the axial grid), ``hexprism`` (axial hexagons in
layers ``z``), ``fcc`` (spheres ``x y z`` with x + y + z even).

Two-dimensional puzzles (a ``flat`` lattice, or any lattice with
``zDim=1``) allow turns and flips, only turns when one-sided;
three-dimensional ones the proper motions.

Examples
--------
>>> HEX, TRIANGLE = get_lattice("hex"), get_lattice("triangle")
>>> [HEX.describe(g) for g in HEX.motions if g.proper]
['(q,r)', '(-q-r,q)', '(-q,-r)', '(-r,q+r)', '(r,-q-r)', '(q+r,-q)']
>>> HEX.apply(3, [[1, 0, 0], [0, 1, 0]]).tolist()
[[0, 1, 0], [-1, 1, 0]]
>>> len(TRIANGLE.motions), len(TRIANGLE.allowed_motions((3, 3, 1), one_side=True))
(12, 6)
>>> get_lattice("fcc").neighbours([[0, 0, 0]]).shape
(1, 12, 3)
"""

from __future__ import annotations

import hashlib
import itertools
import re
import tomllib
from collections.abc import MutableMapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from bench.errors import DefinitionError, UsageError

# the box whose cells every generated motion must keep on the lattice
_SAMPLE_DIMS = (4, 4, 4)
# a point group larger than this is no group of a lattice (48 for the cube): a generator of infinite order
_MAX_MOTIONS = 96
# where a missing neighbour of a type with fewer neighbours points: outside every box
_NOWHERE = -(1 << 40)
BUNDLED = Path(__file__).resolve().parent.parent / "lattices"
"""The folder of the bundled lattice descriptions."""
PICTURES = ("square", "hexagon", "triangle", "balls", "polygons")
"""How a lattice's cells may be drawn (:mod:`bench.drawing.geometry`)."""


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _as_coords(coords) -> np.ndarray:
    return np.asarray(coords, dtype=np.int64).reshape(-1, 3)


@dataclass(frozen=True, eq=False)
class Motion:
    """One motion of a lattice: ``c -> matrix @ c + shifts[type(c)]`` on cell triples.

    Attributes
    ----------
    matrix : int64[3, 3]
    shift : int64[3]
        The shift of the first type's cells, reduced modulo the lattice's translations.
    proper : bool
        Orientation-preserving in the lattice's own dimension (a turn, not a
        mirror image).
    name : str
        The map written out in the lattice's coordinate names, e.g. ``(-y,x,z)``.
    shifts : int64[types, 3]
        The shift of each type's cells (all equal where one affine map moves every cell).
    """

    matrix: np.ndarray
    shift: np.ndarray
    proper: bool
    name: str
    shifts: np.ndarray


# -- reading descriptions ------------------------------------------------------------------------------------------


class _Source:
    """A description's text, to find the line a key was written on (``tomllib`` keeps no lines)."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.lines = text.splitlines()

    def line(self, *keys: str, section: str | None = None, occurrence: int = 0) -> int:
        """The 1-based line of the first of ``keys`` assigned in ``section`` (its ``occurrence``-th copy), else 1."""
        start, end = 0, len(self.lines)
        if section is not None:
            header = re.compile(r"^\s*\[\[?\s*" + re.escape(section) + r"\s*\]\]?\s*(#.*)?$")
            found = [i for i, text in enumerate(self.lines) if header.match(text)]
            if occurrence < len(found):
                start = found[occurrence]
                end = next((i for i in range(start + 1, len(self.lines)) if re.match(r"^\s*\[", self.lines[i])),
                           len(self.lines))
                if not keys:
                    return start + 1
        for key in keys:
            pattern = re.compile(r"^\s*\"?" + re.escape(key) + r"\"?\s*=")
            for i in range(start, end):
                if pattern.match(self.lines[i]):
                    return i + 1
        return start + 1 if section is not None else 1

    def error(self, line: int, message: str) -> DefinitionError:
        return DefinitionError(self.path, line, message)


_TERM = re.compile(r"\s*([+-]?)\s*(\d*)\s*([A-Za-z]?)\s*")


def parse_affine(text: str, axes: str) -> tuple[np.ndarray, np.ndarray]:
    """The matrix and shift of a map written as ``(-y-1, x+y+t, 1-t)`` in the coordinate names ``axes``.

    Raises
    ------
    ValueError
        With what is wrong, for a formula that is not three affine expressions.
    """
    body = text.strip()
    if not (body.startswith("(") and body.endswith(")")):
        raise ValueError(f"map '{text}' is not in parentheses; expected three expressions like ({axes[0]}, -{axes[1]}, {axes[2]}+1)")
    parts = body[1:-1].split(",")
    if len(parts) != 3:
        raise ValueError(f"map '{text}' has {len(parts)} coordinates; expected 3")
    matrix = np.zeros((3, 3), dtype=np.int64)
    shift = np.zeros(3, dtype=np.int64)
    for row, part in enumerate(parts):
        pos, part = 0, part.strip()
        if not part:
            raise ValueError(f"map '{text}' has an empty coordinate")
        while pos < len(part):
            m = _TERM.match(part, pos)
            sign, digits, axis = m.groups()
            if m.end() == pos or not (digits or axis) or (pos and not sign):
                raise ValueError(f"map '{text}': cannot read '{part[pos:]}'; expected terms like 2{axes[0]}, -{axes[1]}, +1 "
                                 f"in the coordinates {', '.join(axes)}")
            value = (-1 if sign == "-" else 1) * (int(digits) if digits else 1)
            if axis:
                if axis not in axes:
                    raise ValueError(f"map '{text}' uses '{axis}'; expected the coordinates {', '.join(axes)}")
                matrix[row, axes.index(axis)] += value
            else:
                shift[row] += value
            pos = m.end()
    return matrix, shift


def _triple(value) -> tuple[int, int, int] | None:
    if isinstance(value, list) and len(value) == 3 and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return tuple(value)
    return None


def _hermite(vectors: list[tuple[int, int, int]]) -> list[np.ndarray | None]:
    """Per axis a, a translation with entry d > 0 at a and 0 past a (None where no translation moves along a).

    Reducing a triple along axes 2, 1, 0 by these (:meth:`Lattice.reduce`)
    gives a representative modulo the translations that is the same for all
    triples of one class.
    """
    rows = [np.array(v, dtype=np.int64) for v in vectors if any(v)]
    basis: list[np.ndarray | None] = [None, None, None]
    for axis in (2, 1, 0):
        # Euclid on the entries at this axis, the rows being zero past it already
        while sum(1 for r in rows if r[axis]) > 1:
            rows.sort(key=lambda r: (r[axis] == 0, abs(r[axis])))
            pivot = rows[0]
            for k in range(1, len(rows)):
                if rows[k][axis]:
                    rows[k] = rows[k] - (rows[k][axis] // pivot[axis]) * pivot
        live = [r for r in rows if r[axis]]
        if live:
            pivot = live[0] if live[0][axis] > 0 else -live[0]
            basis[axis] = pivot
            rows = [r for r in rows if not r[axis]]
    return basis


class Lattice:
    """One kind of cell, derived from a description (:func:`load_lattice`, or a bundled name via :func:`get_lattice`).

    Attributes
    ----------
    name, summary, axes : str
        The lattice's name, a line about it, and its coordinate names.
    flat : bool
        A lattice of the plane: the third coordinate names the cell's type, boxes have ``zDim=1``.
    types : tuple of str
        The type names of the unit cell's cells, in the description's order.
    labels : tuple of tuple of str
        Per type, its neighbour labels in order.
    opposite : dict
        The opposite of each label.
    translation_axes : int64[3]
        1 on the axes along which cells translate.
    two_colourable : bool
        Whether neighbours can be coloured alike-never (derived).
    off_lattice_rule, drawing_hint : str
        What an error about a cell off the lattice expects, and what a ragged drawing row is told.
    picture : str
        How cells are drawn (one of :data:`PICTURES`); ``polygons`` uses :attr:`corners`.
    path : str
        The description the lattice was read from.
    """

    def __init__(self, source: _Source, data: dict):
        self.path = source.path
        self._source = source
        err = source.error
        for key in ("name", "axes", "translations", "cells", "neighbours", "labels", "motion", "drawing"):
            if key not in data:
                raise err(1, f"missing '{key}'; expected name, axes, translations, [cells], [neighbours.TYPE], "
                             "[labels], [[motion]] and [drawing] (docs/lattices.md)")
        self.name = str(data["name"])
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", self.name):
            raise err(source.line("name"), f"name '{self.name}'; expected letters, digits, - and _")
        self.summary = str(data.get("summary", self.name))
        axes = data["axes"]
        if not (isinstance(axes, str) and len(axes) == 3 and len(set(axes)) == 3 and axes.isalpha()):
            raise err(source.line("axes"), f"axes = {axes!r}; expected three distinct letters naming a cell's coordinates")
        self.axes = axes
        self.flat = bool(data.get("flat", False))
        self._read_translations(source, data["translations"])
        self._read_cells(source, data["cells"])
        self._read_neighbours(source, data["neighbours"], data["labels"])
        self.off_lattice_rule = str(data.get("rule", ""))
        if not self.off_lattice_rule and self._restricted:
            raise err(1, "missing 'rule'; expected a line saying which triples are cells (not every triple is)")
        self.drawing_hint = f" (only the lattice points are drawn: {self.off_lattice_rule})" if self._gapped else ""
        self._read_drawing(source, data["drawing"])
        self.generators = self._read_motions(source, data["motion"])
        self._colouring = self._find_colouring()
        self.two_colourable = self._colouring is not None

    # -- reading ---------------------------------------------------------------

    def _read_translations(self, source, vectors):
        line = source.line("translations")
        triples = [_triple(v) for v in vectors] if isinstance(vectors, list) else [None]
        if not triples or None in triples:
            raise source.error(line, "translations; expected a list of integer triples [x, y, z]")
        self._basis = _hermite(triples)
        self.translation_axes = _readonly(np.array([b is not None for b in self._basis], dtype=np.int64))
        moving = [a for a in range(3) if self._basis[a] is not None]
        if moving != ([0, 1] if self.flat else [0, 1, 2]):
            want = "the first two axes (a flat lattice's third coordinate is the type)" if self.flat else "all three axes"
            raise source.error(line, f"the translations move along {''.join(self.axes[a] for a in moving) or 'no axis'}; "
                                     f"expected them to span {want}")
        self._index = int(np.prod([self._basis[a][a] for a in moving]))
        self._basis_lists = [None if b is None else [int(a) for a in b] for b in self._basis]

    def reduce(self, coords) -> np.ndarray:
        """``int64[n, 3]``: each triple's representative modulo the translations (equal exactly for translates)."""
        v = _as_coords(coords).copy()
        for axis in (2, 1, 0):
            b = self._basis[axis]
            if b is not None:
                v -= np.floor_divide(v[:, axis], b[axis])[:, None] * b[None, :]
        return v

    def _read_cells(self, source, cells):
        line = source.line(section="cells")
        if not isinstance(cells, dict) or not cells:
            raise source.error(line, "[cells]; expected one line TYPE = [x, y, z] per cell of the unit cell")
        reps = {}
        for name, value in cells.items():
            cell = _triple(value)
            if cell is None:
                raise source.error(source.line(name, section="cells"), f"cell '{name}' = {value!r}; expected [x, y, z]")
            reps[name] = cell
        self.types = tuple(reps)
        self._reps = np.array(list(reps.values()), dtype=np.int64)
        residues = self.reduce(self._reps)
        lo = residues.min(axis=0)
        sizes = []
        for axis in range(3):
            if self._basis[axis] is not None:
                lo[axis] = 0
                sizes.append(int(self._basis[axis][axis]))
            else:
                sizes.append(int(residues[:, axis].max() - lo[axis] + 1))
        self._lo, self._sizes = _readonly(lo), tuple(sizes)
        table = np.full(int(np.prod(sizes)), -1, dtype=np.int64)
        for k, r in enumerate(residues):
            slot = self._slot(r[None, :])[0]
            if table[slot] >= 0:
                raise source.error(source.line(self.types[k], section="cells"),
                                   f"cell '{self.types[k]}' is a translate of cell '{self.types[table[slot]]}'; "
                                   "expected one cell per type, none a translate of another")
            table[slot] = k
        self._type_table = _readonly(table)
        self._restricted = self.flat or len(table) > len(self.types)
        # a flat lattice of one type shows no third coordinate in the names of motions
        self.shown_axes = 2 if self.flat and sizes[2] == 1 else 3
        # cells along a row of the x axis are not every slot (fcc: every other point)
        self._gapped = int(self._basis[0][0]) > 1

    def _slot(self, residues: np.ndarray) -> np.ndarray:
        r = residues - self._lo
        return (r[:, 0] * self._sizes[1] + r[:, 1]) * self._sizes[2] + r[:, 2]

    def type_of(self, coords) -> np.ndarray:
        """``int64[n]``: each cell's type number (index into :attr:`types`), -1 off the lattice."""
        r = self.reduce(coords) - self._lo
        inside = np.all((r >= 0) & (r < np.array(self._sizes)), axis=1)
        slot = np.where(inside, (r[:, 0] * self._sizes[1] + r[:, 1]) * self._sizes[2] + r[:, 2], 0)
        return np.where(inside, self._type_table[slot], -1)

    def _read_neighbours(self, source, neighbours, labels):
        if not isinstance(neighbours, dict) or set(neighbours) != set(self.types):
            raise source.error(source.line(section=f"neighbours.{self.types[0]}"),
                               f"neighbours for types {sorted(neighbours) if isinstance(neighbours, dict) else '?'}; "
                               f"expected a table [neighbours.TYPE] for each of {', '.join(self.types)}")
        offsets, names = [], []
        for t in self.types:
            table = neighbours[t]
            rows = []
            for label, value in table.items():
                cell = _triple(value)
                if cell is None:
                    raise source.error(source.line(label, section=f"neighbours.{t}"),
                                       f"neighbour {label} = {value!r}; expected an offset [x, y, z]")
                rows.append(cell)
            offsets.append(rows)
            names.append(tuple(table))
        self.labels = tuple(names)
        width = max(len(r) for r in offsets)
        self._offsets = _readonly(np.array([r + [(0, 0, 0)] * (width - len(r)) for r in offsets], dtype=np.int64))
        self._degree = tuple(len(r) for r in offsets)
        self._missing = _readonly(np.arange(width)[None, :] >= np.array(self._degree)[:, None])
        line = source.line("opposite", section="labels")
        pairs = labels.get("opposite") if isinstance(labels, dict) else None
        if not isinstance(pairs, list) or not all(isinstance(p, str) and len(p.split()) == 2 for p in pairs):
            raise source.error(line, "opposite; expected a list of label pairs like \"N S\"")
        opposite: dict[str, str] = {}
        for pair in pairs:
            a, b = pair.split()
            for x, y in ((a, b), (b, a)):
                if x in opposite and opposite[x] != y:
                    raise source.error(line, f"label {x} is paired with {opposite[x]} and with {y}; expected each label "
                                             "in one pair (the pairing must be an involution)")
                opposite[x] = y
        used = {label for ls in self.labels for label in ls}
        if used - set(opposite):
            raise source.error(line, f"labels without an opposite: {' '.join(sorted(used - set(opposite)))}; expected "
                                     "every neighbour label in a pair")
        self.opposite = opposite
        # every step has its way back: from the neighbour, the opposite label leads home
        ends = self.type_of(np.array([np.array(o) + self._reps[t] for t, rows in enumerate(offsets) for o in rows]))
        self._steps = []
        for t, (ls, rows) in enumerate(zip(self.labels, offsets)):
            here = self._reps[t]
            for label, offset in zip(ls, rows):
                there = here + np.array(offset)
                u = int(ends[len(self._steps)])
                self._steps.append((t, tuple(offset), u))
                def where():
                    return source.line(label, section=f"neighbours.{self.types[t]}")
                if u < 0:
                    raise source.error(where(), f"neighbour {label} of a {self.types[t]} cell, {tuple(there.tolist())}, "
                                              f"is not a cell; expected an offset to a cell of the unit cell's types")
                back = opposite[label]
                if back not in self.labels[u] or tuple(offsets[u][self.labels[u].index(back)]) != tuple(-np.array(offset)):
                    raise source.error(where(), f"label {label} leads from a {self.types[t]} cell to a {self.types[u]} cell, "
                                              f"whose label {back} does not lead back (expected {back} = "
                                              f"{[-int(v) for v in offset]} in [neighbours.{self.types[u]}])")

    def _read_drawing(self, source, drawing):
        line = source.line(section="drawing")
        column = drawing.get("column") if isinstance(drawing, dict) else None
        if _triple(column) is None:
            raise source.error(source.line("column", section="drawing"),
                               "column; expected [a, b, c]: a cell's place across a text row, in half characters, "
                               "is a x + b y + c z")
        self._column = _readonly(np.array(column, dtype=np.int64))
        self.picture = drawing.get("picture", "polygons")
        if self.picture not in PICTURES:
            raise source.error(source.line("picture", section="drawing"),
                               f"picture = {self.picture!r}; expected one of {', '.join(PICTURES)}")
        self.corners: dict[str, np.ndarray] = {}
        self.plane = np.array(drawing.get("plane", [[1.0, 0.0], [0.0, 1.0]]), dtype=float)
        self.layer_height = float(drawing.get("height", 1.0))
        if self.picture == "polygons":
            corners = drawing.get("corners", {})
            for t in self.types:
                if t not in corners:
                    raise source.error(line, f"a polygon picture needs corners.{t}; expected corners.TYPE = "
                                             "[[x, y], ...] for every type")
                self.corners[t] = np.array(corners[t], dtype=float)

    def _read_motions(self, source, motions):
        if not isinstance(motions, list) or not motions:
            raise source.error(1, "no [[motion]]; expected at least one generator of the lattice's motions")
        generators = []
        sample = self.box_coords(_SAMPLE_DIMS)
        for k, motion in enumerate(motions):
            line = source.line("map", "labels", section="motion", occurrence=k)
            what = f"motion '{motion.get('name', k + 1)}'"
            try:
                if "labels" in motion:
                    matrix, shift = self._label_motion(motion["labels"])
                else:
                    matrix, shift = parse_affine(str(motion.get("map", "")), self.axes)
                shifts = np.repeat(shift[None, :], len(self.types), axis=0)
                for t, formula in (motion.get("types") or {}).items():
                    if t not in self.types:
                        raise ValueError(f"types.{t}: no such type; expected one of {', '.join(self.types)}")
                    m, b = parse_affine(str(formula), self.axes)
                    if not np.array_equal(m, matrix):
                        raise ValueError(f"types.{t} = '{formula}' moves the coordinates otherwise than map; expected "
                                         "the same terms in x, y, z and only other constants")
                    shifts[self.types.index(t)] = b
            except ValueError as exc:
                raise source.error(line, f"{what}: {exc}") from None
            steps = np.array([b for b in self._basis if b is not None])
            bad = np.flatnonzero(self.reduce(steps @ matrix.T).any(axis=1))
            if len(bad):
                step = steps[bad[0]]
                raise source.error(line, f"{what} does not map translations to translations (it sends "
                                         f"{tuple(step.tolist())} to {tuple((matrix @ step).tolist())}); "
                                         "expected a motion of the lattice")
            moved = sample @ matrix.T + shifts[self.type_of(sample)]
            off = np.flatnonzero(self.type_of(moved) < 0)
            if len(off):
                raise source.error(line, f"{what} sends the cell {tuple(sample[off[0]].tolist())} to "
                                         f"{tuple(moved[off[0]].tolist())}, which is not a cell; expected a map of "
                                         f"cells to cells ({self.off_lattice_rule or 'every triple'})")
            types = self.type_of(sample)
            for t in range(len(self.types)):
                c = sample[types == t][:1]
                if not len(c):
                    continue
                g_c = c @ matrix.T + shifts[t]
                around = self.neighbours(c)[0][: self._degree[t]]
                moved_around = around @ matrix.T + shifts[self.type_of(around)]
                want = {tuple(v) for v in self.neighbours(g_c)[0][: self._degree[int(self.type_of(g_c)[0])]].tolist()}
                lost = [tuple(v) for v in moved_around.tolist() if tuple(v) not in want]
                if lost or len(want) != len(around):
                    raise source.error(line, f"{what} does not preserve neighbours: it sends the {self.types[t]} cell "
                                             f"{tuple(c[0].tolist())} to {tuple(g_c[0].tolist())} and a neighbour to "
                                             f"{lost[0] if lost else 'a cell'}, no neighbour there; expected a motion "
                                             "that maps touching cells to touching cells")
            generators.append((matrix, shifts))
        return tuple(generators)

    def _label_motion(self, labels) -> tuple[np.ndarray, np.ndarray]:
        """The affine map of a motion written as the thesis writes it: a permutation of labels, ``{E = "N", ...}``.

        The map fixes the unit cell's cell and sends each label's step to its
        image's step; labels not listed stay.  Only a lattice of one type:
        where types move among themselves a label permutation does not say
        which way.

        Raises
        ------
        ValueError
            For a table that is no permutation of the labels, or one no linear
            map of the steps gives (it does not preserve neighbours).
        """
        if len(self.types) > 1:
            raise ValueError(f"labels = ... needs a lattice of one type (this one has {len(self.types)}); expected map = "
                             "\"(...)\" with per-type constants")
        names = self.labels[0]
        if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
            raise ValueError('labels; expected a table of labels to labels, like { E = "N", N = "W" }')
        unknown = [a for a in list(labels) + list(labels.values()) if a not in names]
        if unknown:
            raise ValueError(f"labels: no label {unknown[0]}; expected labels of {', '.join(names)}")
        image = [labels.get(a, a) for a in names]
        if len(set(image)) != len(image):
            raise ValueError(f"labels sends two labels to {next(a for a in image if image.count(a) > 1)}; expected a "
                             "permutation of the labels")
        steps = self._offsets[0][: self._degree[0]].astype(float)
        want = self._offsets[0][[names.index(a) for a in image]].astype(float)
        solved, *_ = np.linalg.lstsq(steps, want, rcond=None)
        matrix = np.rint(solved.T).astype(np.int64)
        if self.flat:
            # the third coordinate is the type, which stays
            matrix[2] = matrix[:, 2] = 0
            matrix[2, 2] = 1
        moved = self._offsets[0][: self._degree[0]] @ matrix.T
        bad = [k for k in range(len(names)) if not np.array_equal(moved[k], want[k])]
        if bad:
            k = bad[0]
            raise ValueError(f"labels does not preserve neighbours: no linear map of the steps sends each label's step "
                             f"to its image's (it would send {names[k]} to {image[k]}, and the others as written); "
                             "expected the label permutation of a motion")
        rep = self._reps[0]
        return matrix, rep - matrix @ rep

    def _find_colouring(self):
        """``(w, f)`` with colour ``(-1) ** (w . c + f[type])`` differing across every neighbour pair, or None."""
        for w in itertools.product((0, 1), repeat=3):
            for rest in itertools.product((0, 1), repeat=len(self.types) - 1):
                f = (0,) + rest
                if all((w[0] * o[0] + w[1] * o[1] + w[2] * o[2] + f[u] - f[t]) % 2 == 1 for t, o, u in self._steps):
                    return np.array(w, dtype=np.int64), np.array(f, dtype=np.int64)
        return None

    @property
    def index(self) -> int:
        """How many unit-cell positions one translation class spans (1 where every step along x and y is a translation)."""
        return self._index

    @property
    def type_offsets(self) -> tuple[np.ndarray, ...]:
        """Per type, its neighbour offsets in label order (``int64[degree, 3]``)."""
        return tuple(self._offsets[t][: d] for t, d in enumerate(self._degree))

    def period(self, axis: int) -> int | None:
        """The fewest steps along ``axis`` that make a translation (1 for cubic; 2 along fcc's x), None if none does.

        A board that wraps round along the axis must be a multiple of it
        long, or gluing its sides would join cells of different types.
        """
        if self._basis[axis] is None:
            return None
        steps = np.zeros((self._index, 3), dtype=np.int64)
        steps[:, axis] = np.arange(1, self._index + 1)
        # the index bounds the order of every vector in the quotient by the translations
        return int(np.flatnonzero(self.is_translation(steps))[0]) + 1

    @cached_property
    def digest(self) -> str:
        """A short hash of the description's text: two lattices of one name read from different text differ."""
        return hashlib.sha256("\n".join(self._source.lines).encode()).hexdigest()[:16]

    # -- cells -------------------------------------------------------------------

    @property
    def offsets(self) -> tuple:
        """The neighbour offsets of the first type's cells (all cells' where there is one type)."""
        return tuple(tuple(int(v) for v in o) for o in self._offsets[0][: self._degree[0]])

    def valid(self, coords) -> np.ndarray:
        """``bool[n]``: which rows of ``coords`` are cells of this lattice."""
        if not self._restricted:
            return np.ones(len(_as_coords(coords)), dtype=bool)
        return self.type_of(coords) >= 0

    def neighbours(self, coords) -> np.ndarray:
        """``int64[n, k, 3]``: the cells sharing a face (or touching, for spheres) with each cell, in label order.

        Where types have different numbers of neighbours the rows are padded
        with a point outside every box and off the lattice.
        """
        coords = _as_coords(coords)
        if len(self.types) == 1:
            return coords[:, None, :] + self._offsets[0][None, :, :]
        types = np.maximum(self.type_of(coords), 0)
        out = coords[:, None, :] + self._offsets[types]
        if self._missing.any():
            out[self._missing[types]] = self._nowhere
        return out

    @cached_property
    def _nowhere(self) -> np.ndarray:
        """The point a missing neighbour is: far outside every box, and off the lattice where any point is."""
        far = np.array([_NOWHERE] * 3, dtype=np.int64)
        for step in itertools.product(range(4), repeat=3):
            if self.type_of((far + step)[None, :])[0] < 0:
                return far + step
        return far

    def colour(self, coords) -> np.ndarray | None:
        """``int64[n]`` of +-1, a colouring in which neighbours differ, or None where there is none."""
        if self._colouring is None:
            return None
        w, f = self._colouring
        coords = _as_coords(coords)
        bits = coords @ w
        if f.any():
            bits = bits + f[self.type_of(coords)]
        return np.where(bits % 2 == 0, 1, -1).astype(np.int64)

    def grid_shape(self, dims) -> tuple[int, int, int]:
        """The shape of the index grid of an ``xDim x yDim x zDim`` box (a flat lattice's third axis: the types)."""
        if self.flat:
            return (int(dims[0]), int(dims[1]), int(self._lo[2] + self._sizes[2]))
        return tuple(int(d) for d in dims)

    def box_coords(self, dims) -> np.ndarray:
        """``int64[n, 3]``: the cells of a box, in (x, y, z) priority order."""
        grid = np.indices(self.grid_shape(dims)).reshape(3, -1).T.astype(np.int64)
        return grid[self.valid(grid)]

    # -- translations ------------------------------------------------------------

    def is_translation(self, vectors) -> np.ndarray:
        """``bool[n]``: which integer vectors (zero on fixed axes) are translations of the lattice."""
        if self._index == 1:
            return np.ones(len(_as_coords(vectors)), dtype=bool)
        return ~self.reduce(vectors).any(axis=1)

    def reduce_shift(self, shift: np.ndarray) -> np.ndarray:
        """The representative of ``shift`` modulo the lattice's translations."""
        # one vector, in Python's integers: the closure of the group reduces thousands
        v = [int(a) for a in shift]
        for axis in (2, 1, 0):
            b = self._basis_lists[axis]
            if b is not None:
                q = v[axis] // b[axis]
                v = [a - q * c for a, c in zip(v, b)]
        return np.array(v, dtype=np.int64)

    def canonical_shift(self, coords) -> np.ndarray:
        """The translation :meth:`normalize` subtracts: the per-axis minimum, less its residue where that is no translation."""
        low = _as_coords(coords).min(axis=0) * self.translation_axes
        if self._index == 1:
            return low
        return low - self.reduce(low[None, :])[0]

    def normalize(self, coords) -> np.ndarray:
        """The canonical translate of a set of cells, rows in lexicographic order.

        Two sets of cells are translates of each other (by a translation of
        the lattice) exactly when their normalized forms are equal.
        """
        coords = _as_coords(coords)
        if len(coords) == 0:
            return coords
        shifted = coords - self.canonical_shift(coords)
        return shifted[np.lexsort(shifted.T[::-1])]

    # -- motions -------------------------------------------------------------------

    def is_proper(self, matrix: np.ndarray) -> bool:
        """Whether a motion with this matrix keeps orientation (its determinant on the translation axes)."""
        axes = np.flatnonzero(self.translation_axes)
        return round(np.linalg.det(matrix[np.ix_(axes, axes)])) > 0

    def _reduce_shifts(self, shifts: np.ndarray) -> np.ndarray:
        # one translation for all types: the one that reduces the first type's shift
        return shifts - (shifts[0] - self.reduce_shift(shifts[0]))[None, :]

    @cached_property
    def motions(self) -> tuple[Motion, ...]:
        """The group, generated by closure: identity first, then proper motions, each part in matrix order."""
        n_types = len(self.types)
        # the type each motion sends each type's cells to
        ident = (np.eye(3, dtype=np.int64), np.zeros((n_types, 3), dtype=np.int64))
        gens = [(m, self._reduce_shifts(b)) for m, b in self.generators]

        def key(pair):
            return pair[0].tobytes() + pair[1].tobytes()

        found = {key(ident): ident}
        frontier = [ident]
        while frontier:
            fresh = []
            for m, b in frontier:
                # where this motion takes each type: then g's shift is that type's
                image_types = self.type_of(self._reps @ m.T + b) if n_types > 1 else np.zeros(1, dtype=np.int64)
                for g, c in gens:
                    pair = (g @ m, self._reduce_shifts(b @ g.T + c[image_types]))
                    if key(pair) not in found:
                        found[key(pair)] = pair
                        fresh.append(pair)
            frontier = fresh
            if len(found) > _MAX_MOTIONS:
                raise DefinitionError(self.path, self._source.line("map", section="motion"),
                                      f"the motions generate more than {_MAX_MOTIONS} maps (modulo translations); "
                                      "expected generators of a finite group of motions")
        ordered = sorted(found.values(), key=lambda p: (not np.array_equal(p[0], ident[0]) or p[1].any(),
                                                        not self.is_proper(p[0]), tuple(p[0].ravel()), tuple(p[1].ravel())))
        return tuple(Motion(_readonly(m), _readonly(b[0].copy()), self.is_proper(m), self._formula(m, b[0]), _readonly(b))
                     for m, b in ordered)

    def apply(self, motion: int, coords) -> np.ndarray:
        """The images of the rows of ``coords`` under motion number ``motion``."""
        g = self.motions[motion]
        coords = _as_coords(coords)
        if len(self.types) == 1:
            return coords @ g.matrix.T + g.shift
        return coords @ g.matrix.T + g.shifts[self.type_of(coords)]

    def allowed_motions(self, dims, one_side: bool) -> np.ndarray:
        """Indices into :attr:`motions` that a piece may undergo in a box of ``dims``.

        A flat lattice allows all its motions (the turns when one-sided).
        A 3-D lattice allows its proper motions; with one layer only those
        that keep the layer (turns, and flips that turn a piece over), and
        one-sided only the turns.
        """
        keep = []
        for i, g in enumerate(self.motions):
            if self.flat:
                ok = g.proper or not one_side
            else:
                ok = g.proper
                if dims[2] == 1:
                    ok = ok and abs(g.matrix[2, 2]) == 1 and not g.matrix[2, :2].any()
                    ok = ok and not (one_side and g.matrix[2, 2] != 1)
            if ok:
                keep.append(i)
        return np.array(keep, dtype=np.int64)

    def orientations(self, cells, dims, one_side: bool) -> list[np.ndarray]:
        """Distinct normalized orientations of a piece in a box of ``dims``, in motion order.

        A piece turns in three dimensions in every puzzle, as polycube turns
        it: in one layer of a 3-D lattice (``zDim=1``) it takes every proper
        motion and keeps the orientations that lie in the layer, so a piece
        drawn in another plane (along z, say) gets the same images as one
        drawn in the layer, and a flip is a half turn that turns it over.
        One-sided, the piece is first laid in the layer by :meth:`lay`
        (the side it faces stays up) and then only turns in the layer.  A
        piece that cannot lie in the layer keeps its orientations under the
        proper motions (it fits nowhere).  Flat lattices and 3-D boxes use
        :meth:`allowed_motions`.
        """
        cells = _as_coords(cells)
        if self.flat or dims[2] > 1:
            return self._distinct(cells, self.allowed_motions(dims, one_side))
        if one_side:
            laid = self.lay(cells)
            if laid is not None:
                return self._distinct(laid, self.allowed_motions(dims, True))
        proper = [i for i, g in enumerate(self.motions) if g.proper]
        every = self._distinct(cells, proper)
        in_layer = [o for o in every if not np.ptp(o[:, 2])]
        return in_layer or every

    def lay(self, cells) -> np.ndarray | None:
        """The cells of a flat piece turned into a layer z = constant, or None if the piece is not flat.

        A piece lying across axis a (all its cells have the same coordinate
        a) is read in the two other axes in cyclic order, x y for z, y z for
        x, z x for y: the proper rotation that takes them to x y takes the
        +a side up, which is the side a one-sided piece shows.  A straight
        piece lies across several axes; it is laid across the first of z, x,
        y (a straight piece is its own mirror image, so the choice changes
        nothing).
        """
        cells = _as_coords(cells)
        for axis, matrix in _LAYINGS:
            if not np.ptp(cells[:, axis]):
                for k, g in enumerate(self.motions):
                    if g.proper and np.array_equal(g.matrix, matrix):
                        return self.apply(k, cells)
        return None

    def _distinct(self, cells, motions) -> list[np.ndarray]:
        # every motion at once (what apply and normalize do to one): a piece's 24 or 48 images one by one cost a
        # small solve a tenth of its process
        motions = np.asarray(motions, dtype=np.int64)
        if len(cells) == 0 or len(motions) == 0:
            return [self.normalize(self.apply(int(m), cells)) for m in motions[:1]]
        matrices, shifts = self._motion_arrays
        kinds = np.zeros(len(cells), dtype=np.int64) if len(self.types) == 1 else self.type_of(cells)
        images = np.einsum("kij,nj->kni", matrices[motions], cells) + shifts[motions][:, kinds]
        low = images.min(axis=1) * self.translation_axes
        if self._index != 1:
            low = low - self.reduce(low)
        images -= low[:, None, :]
        # each image's rows in lexicographic order: one key per cell, the coordinates' ranges side by side
        base = images.min(axis=(0, 1))
        span = images.max(axis=(0, 1)) - base + 1
        keys = ((images[..., 0] - base[0]) * span[1] + images[..., 1] - base[1]) * span[2] + images[..., 2] - base[2]
        images = np.take_along_axis(images, np.argsort(keys, axis=1)[:, :, None], axis=1)
        seen: dict[bytes, np.ndarray] = {}
        for o in images:
            seen.setdefault(o.tobytes(), o)
        return list(seen.values())

    @cached_property
    def _motion_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Every motion's matrix (``int64[k, 3, 3]``) and its shift of each type (``int64[k, types, 3]``)."""
        return (np.array([g.matrix for g in self.motions], dtype=np.int64).reshape(-1, 3, 3),
                np.array([g.shifts for g in self.motions], dtype=np.int64).reshape(len(self.motions), -1, 3))

    def describe(self, motion: Motion) -> str:
        """A short readable name of a motion."""
        return motion.name

    def _formula(self, matrix: np.ndarray, shift: np.ndarray) -> str:
        parts = []
        for row, const in zip(matrix[: self.shown_axes], shift[: self.shown_axes]):
            text = ""
            for coef, axis in zip(row, self.axes):
                if coef:
                    sign = "-" if coef < 0 else ("+" if text else "")
                    text += sign + ("" if abs(coef) == 1 else str(abs(coef))) + axis
            if const > 0 and text.startswith("-"):
                text = f"{const}{text}"
            elif const or not text:
                text += f"{const:+d}" if text else str(const)
            parts.append(text)
        return "(" + ",".join(parts) + ")"

    # -- text drawings ---------------------------------------------------------------
    # A drawn row is the cells of one y (and one z in a 3-D lattice) in order of x, then type: character k of
    # the row is its k-th cell.  The pattern repeats every ``period`` steps of x.

    @cached_property
    def _period(self) -> int:
        return int(self._basis[0][0])

    def _second(self, layer: int) -> list[int]:
        """The values of a row's third coordinate: the layer's z, or a flat lattice's types."""
        if self.flat:
            return list(range(int(self._lo[2]), int(self._lo[2] + self._sizes[2])))
        return [layer]

    @lru_cache(maxsize=256)
    def _row(self, y: int, layer: int) -> tuple[tuple[int, int], ...]:
        """The cells ``(dx, third coordinate)`` of row ``y`` (in ``layer``) with 0 <= x < period, in drawing order."""
        cand = np.array([(dx, y, c) for dx in range(self._period) for c in self._second(layer)], dtype=np.int64)
        ok = self.valid(cand)
        return tuple((int(c[0]), int(c[2])) for c in cand[ok])

    def drawn_cell(self, y: int, layer: int, k: int) -> tuple[int, int, int]:
        """The cell drawn as the ``k``-th character of row ``y`` in comma-separated layer ``layer``."""
        row = self._row(y, layer)
        dx, c = row[k % len(row)]
        return (self._period * (k // len(row)) + dx, y, c)

    def drawing_slot(self, coords) -> tuple[np.ndarray, np.ndarray]:
        """``(layer, k)`` of each cell in a drawing: the inverse of :meth:`drawn_cell`."""
        coords = _as_coords(coords)
        layer = np.zeros(len(coords), dtype=np.int64) if self.flat else coords[:, 2].copy()
        k = np.empty(len(coords), dtype=np.int64)
        for i, (x, y, c) in enumerate(coords.tolist()):
            row = self._row(y, 0 if self.flat else c)
            k[i] = len(row) * (x // self._period) + row.index((x % self._period, c))
        return layer, k

    def drawing_column(self, coords) -> np.ndarray:
        """Where each cell goes across a drawn layer, in half character slots (so rows can be offset)."""
        return _as_coords(coords) @ self._column

    def row_extents(self, y: int, layer: int, n: int) -> tuple[int, ...]:
        """The widths of box a drawn row of ``n`` characters can belong to (rows of one drawing must agree).

        A width counts slots: x values times the number of types a flat lattice's x holds.
        """
        per_x = len(self._second(layer))
        row = self._row(y, layer)
        if not row:
            return (n,)
        out = []
        for slots in range(max(0, (n // len(row) - 1) * self._period * per_x), (n // len(row) + 2) * self._period * per_x + 1):
            x_full, rest = divmod(slots, per_x)
            count = len(row) * (x_full // self._period) + sum(
                1 for dx, c in row if dx < x_full % self._period or (dx == x_full % self._period and self._rank(c, layer) < rest))
            if count == n:
                out.append(slots)
        return tuple(out)

    def _rank(self, c: int, layer: int) -> int:
        return self._second(layer).index(c)


# proper rotations taking a piece lying across axis a into a layer z = constant, its +a side up
_LAYINGS = (
    (2, _readonly(np.eye(3, dtype=np.int64))),
    (0, _readonly(np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=np.int64))),   # (y, z, x)
    (1, _readonly(np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=np.int64))),   # (z, x, y)
)


def load_lattice(path, text: str | None = None) -> Lattice:
    """Read a lattice description (a TOML file, docs/lattices.md).

    Raises
    ------
    DefinitionError
        ``path:line:`` and what is wrong, for a file that cannot be read or a description that is no lattice.
    """
    path = str(path)
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise DefinitionError(path, 1, f"cannot read the lattice description: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise DefinitionError(path, int(m.group(1)) if m else 1, f"not TOML: {exc}") from None
    return Lattice(_Source(path, text), data)


class _Registry(MutableMapping):
    """The lattices known by name: the bundled ones (each read on first use), then each description a definition named.

    A bundled description is read when its lattice is first asked for, not at
    import: reading all seven took 15 ms of every process (7 % of a cached
    solve of the Meteor), which needs one or two of them.
    """

    def __init__(self, bundled: dict[str, Path]):
        self._bundled = bundled
        self._read: dict[str, Lattice] = {}

    def __getitem__(self, name: str) -> Lattice:
        lattice = self._read.get(name)
        if lattice is None:
            lattice = load_lattice(self._bundled[name])
            if lattice.name != name:
                raise DefinitionError(str(self._bundled[name]), lattice._source.line("name"),
                                      f"a bundled lattice description must be called '{name}', as its file")
            self._read[name] = lattice
        return lattice

    def __setitem__(self, name: str, lattice: Lattice) -> None:
        self._read[name] = lattice

    def __delitem__(self, name: str) -> None:
        if name in self._bundled:
            raise KeyError(f"the bundled lattice '{name}' stays")
        del self._read[name]

    def __contains__(self, name) -> bool:
        return name in self._bundled or name in self._read

    def __iter__(self):
        yield from self._bundled
        yield from (name for name in self._read if name not in self._bundled)

    def __len__(self) -> int:
        return len(self._bundled) + sum(name not in self._bundled for name in self._read)


LATTICES: MutableMapping[str, Lattice] = _Registry({path.stem: path for path in sorted(BUNDLED.glob("*.toml"))})
"""The lattices known by name: the bundled ones, then each description a definition file named."""
BUNDLED_NAMES = tuple(LATTICES)
"""The bundled lattices' names."""

CUBIC = LATTICES["cubic"]
_CONSTANTS = {"HEX": "hex", "TRIANGLE": "triangle", "HEXPRISM": "hexprism", "FCC": "fcc"}


def __getattr__(name: str) -> Lattice:
    # HEX, TRIANGLE, HEXPRISM and FCC, read when first imported (CUBIC, every definition's default, at once)
    try:
        return LATTICES[_CONSTANTS[name]]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def get_lattice(name: str, base: str | Path | None = None) -> Lattice:
    """The lattice called ``name``, or read from the description ``name`` ending in ``.toml``.

    A description's path is relative to the folder ``base`` (the definition
    file's); it is registered under its own name, which must not be taken
    by another description.

    Raises
    ------
    UsageError
        For an unknown name; the message lists the known ones.
    DefinitionError
        For a malformed description, or a second description of one name.
    """
    if name.endswith(".toml"):
        path = Path(name) if base is None else Path(base) / name
        lattice = load_lattice(path)
        known = LATTICES.get(lattice.name)
        if known is not None and known.digest != lattice.digest:
            raise DefinitionError(str(path), lattice._source.line("name"),
                                  f"a lattice called '{lattice.name}' is already described by {known.path}; "
                                  "expected another name")
        return LATTICES.setdefault(lattice.name, lattice)
    try:
        return LATTICES[name]
    except KeyError:
        raise UsageError(f"unknown lattice '{name}'; expected one of: {', '.join(BUNDLED_NAMES)}, "
                         "or a description FILE.toml") from None
