"""Boards as explicit graphs: cells and labelled edges, as the lattice-tiling thesis represents a grid.

A ``G`` block inside a puzzle lists the board's cells (lattice cells, which
give each its type and where it is drawn) and its edges, ``CELL LABEL
CELL``; the opposite edge is implied (from the second cell the opposite
label leads back).  ``G:links=lattice`` also joins every two listed cells
that touch on the lattice, so only the seams need writing::

    D:xDim=4:yDim=2:zDim=1
    G:links=lattice
    0 0 0, 1 0 0, 2 0 0, 3 0 0
    0 1 0, 1 1 0, 2 1 0, 3 1 0
    3 0 0 E 0 1 0     # the seam of a twisted cylinder: leaving row 0 east, arrive in row 1
    3 1 0 E 0 0 0
    ~G
    ...
    ~D

Pieces are placed by matching their labelled edges (:func:`embeddings`):
a placement sends a piece's cell to a board cell of its type, and every
edge of the piece (in one of its orientations) to a board edge of the same
label.  The board's group is every label-respecting automorphism: a
bijection of the cells and a motion of the lattice whose label permutation
takes each edge to an edge (:func:`automorphisms`).  A seam joins cells
whose labels keep one frame: a twist (a Möbius strip's, turning a piece
over as it crosses) cannot be written, as a label on a fixed edge cannot
change the frame of the next step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from bench.errors import DefinitionError

_TRIPLE = re.compile(r"^[+-]?\d+\s+[+-]?\d+\s+[+-]?\d+$")
_INT = re.compile(r"^[+-]?\d+$")


@dataclass(frozen=True)
class BoardGraph:
    """A board given as a graph.

    Attributes
    ----------
    cells : tuple of (x, y, z)
        The board's cells, as listed.
    neighbours : tuple of tuple of int
        Per cell, per label of its type (the lattice's order), the index of
        the cell that label leads to, or -1.
    line : int
        Where the ``G`` block begins.
    """

    cells: tuple[tuple[int, int, int], ...]
    neighbours: tuple[tuple[int, ...], ...]
    line: int


def parse_graph(path: str, rows: list[tuple[int, str]], lineno: int, links: bool, dims, lattice) -> BoardGraph:
    """A ``G`` block's lines (``(line, content)``, comments stripped) read into a :class:`BoardGraph`.

    Raises
    ------
    DefinitionError
        ``path:line:`` for a cell listed twice, off the lattice or outside the
        box, an edge to an unknown cell or with a label its cell has not, an
        edge whose opposite leads elsewhere (the pairing is no involution), a
        cell joined to itself, or a board that is not connected.
    """
    def error(line, message):
        return DefinitionError(path, line, message)

    index: dict[tuple[int, int, int], int] = {}
    listed_on: list[int] = []
    edges: list[tuple[int, tuple, str, tuple]] = []
    for line, content in rows:
        tokens = content.split()
        if "," not in content and len(tokens) > 3 and not _INT.match(tokens[3]):
            if len(tokens) != 7 or not (_TRIPLE.match(" ".join(tokens[:3])) and _TRIPLE.match(" ".join(tokens[4:]))):
                raise error(line, f"'{content}'; expected an edge 'x y z LABEL x y z'")
            edges.append((line, tuple(int(v) for v in tokens[:3]), tokens[3], tuple(int(v) for v in tokens[4:])))
            continue
        for part in content.split(","):
            part = part.strip()
            if not _TRIPLE.match(part):
                raise error(line, f"'{part}' is neither a cell 'x y z' (cells separated by commas) nor an edge "
                                  "'x y z LABEL x y z'")
            cell = tuple(int(v) for v in part.split())
            if cell in index:
                raise error(line, f"cell ({part}) is listed twice (first on line {listed_on[index[cell]]}); expected each "
                                  "cell of the board once")
            if not lattice.valid(np.array([cell]))[0]:
                raise error(line, f"cell ({part}) is not on the {lattice.name} lattice; expected {lattice.off_lattice_rule}")
            grid = lattice.grid_shape(dims)
            if any(not 0 <= c < n for c, n in zip(cell, grid)):
                raise error(line, f"cell ({part}) is outside the {dims[0]}x{dims[1]}x{dims[2]} box; expected the "
                                  "cells where they are drawn, inside the box")
            index[cell] = len(index)
            listed_on.append(line)
    if not index:
        raise error(lineno, "the graph lists no cell; expected lines of cells 'x y z, x y z, ...' and edges "
                            "'x y z LABEL x y z'")
    cells = list(index)
    coords = np.array(cells, dtype=np.int64)
    types = lattice.type_of(coords)
    labels = lattice.labels
    width = max(len(ls) for ls in labels)
    table = np.full((len(cells), width), -1, dtype=np.int64)
    # where an edge came from, for the message about a clash: the line, or 0 for a lattice link
    origin = np.zeros((len(cells), width), dtype=np.int64)
    if links:
        around = lattice.neighbours(coords)
        for k in range(width):
            for i, cell in enumerate(map(tuple, around[:, k].tolist())):
                if k < len(labels[types[i]]) and cell in index:
                    table[i, k] = index[cell]

    def join(line, i, k, j):
        a_name = " ".join(map(str, cells[i]))
        label = labels[types[i]][k]
        if table[i, k] >= 0 and table[i, k] != j:
            where = f"line {origin[i, k]}" if origin[i, k] else "the lattice (links=lattice)"
            raise error(line, f"label {label} of cell ({a_name}) leads to ({' '.join(map(str, cells[table[i, k]]))}) "
                              f"already (from {where}); expected one cell per label (the pairing must be an involution)")
        table[i, k] = j
        origin[i, k] = line

    for line, a, label, b in edges:
        for cell in (a, b):
            if cell not in index:
                raise error(line, f"edge to or from the unknown cell ({' '.join(map(str, cell))}); expected cells the "
                                  "graph lists")
        i, j = index[a], index[b]
        if i == j:
            raise error(line, f"cell ({' '.join(map(str, a))}) is joined to itself; expected an edge between two cells")
        t, u = int(types[i]), int(types[j])
        if label not in labels[t]:
            raise error(line, f"label {label} on a {lattice.types[t]} cell; expected one of {' '.join(labels[t])}")
        k = labels[t].index(label)
        back = lattice.opposite[label]
        # the label leads from a t cell to a cell of one type on the lattice; the edge must agree
        want = int(lattice.type_of(coords[i:i + 1] + lattice.type_offsets[t][k][None, :])[0])
        if want != u or back not in labels[u]:
            raise error(line, f"label {label} leads from a {lattice.types[t]} cell to a {lattice.types[want]} cell, "
                              f"but ({' '.join(map(str, b))}) is a {lattice.types[u]} cell; expected an edge the "
                              "lattice has")
        join(line, i, k, j)
        join(line, j, labels[u].index(back), i)
    if not connected(table):
        raise error(lineno, "the graph is not connected; expected one board in one piece (cut holes with stationary "
                            "pieces)")
    return BoardGraph(tuple(cells), tuple(tuple(int(v) for v in row) for row in table), lineno)


def connected(table: np.ndarray) -> bool:
    """True when every row of a neighbour table (``int[cells, labels]``, -1: no edge) is reached from row 0 along edges."""
    if not len(table):
        return True
    seen = np.zeros(len(table), dtype=bool)
    seen[0] = True
    frontier = np.array([0])
    while len(frontier):
        nxt = table[frontier].ravel()
        nxt = np.unique(nxt[nxt >= 0])
        nxt = nxt[~seen[nxt]]
        seen[nxt] = True
        frontier = nxt
    return bool(seen.all())


def piece_edges(lattice, cells: np.ndarray) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
    """A piece's labelled graph: a spanning tree from its first cell and every edge, each ``(cell, label, cell)``.

    Labels are indices into the label list of the first cell's type.
    """
    key = {tuple(c): i for i, c in enumerate(cells.tolist())}
    around = lattice.neighbours(cells)
    types = lattice.type_of(cells)
    edges = [(i, k, key[tuple(c)]) for i in range(len(cells)) for k, c in enumerate(around[i].tolist())
             if k < len(lattice.labels[types[i]]) and tuple(c) in key]
    tree, seen, order = [], {0}, [0]
    for i in order:
        for a, k, b in edges:
            if a == i and b not in seen:
                seen.add(b)
                order.append(b)
                tree.append((a, k, b))
    return tree, edges


def embeddings(lattice, table: np.ndarray, board_types: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """``int64[n, len(cells)]``: every placement of a piece (one orientation) on the board, by its labelled edges.

    Row r sends the piece's cell i to board cell ``out[r, i]``; every edge of
    the piece lies on a board edge of the same label, and the cells are distinct.
    """
    tree, edges = piece_edges(lattice, cells)
    root_type = int(lattice.type_of(cells[:1])[0])
    pos = np.full((int(np.sum(board_types == root_type)), len(cells)), -1, dtype=np.int64)
    pos[:, 0] = np.flatnonzero(board_types == root_type)
    for a, k, b in tree:
        pos[:, b] = np.where(pos[:, a] >= 0, table[np.maximum(pos[:, a], 0), k], -1)
    ok = np.all(pos >= 0, axis=1)
    for a, k, b in edges:
        ok &= table[np.maximum(pos[:, a], 0), k] == pos[:, b]
    pos = pos[ok]
    if len(pos) and len(cells) > 1:
        ordered = np.sort(pos, axis=1)
        pos = pos[np.all(np.diff(ordered, axis=1) > 0, axis=1)]
    return pos


def label_maps(lattice) -> tuple[np.ndarray, np.ndarray]:
    """Per motion, where it takes each type (``int64[motions, types]``) and each label (``int64[motions, types, labels]``).

    Motion g takes the label k of a type t cell to the label of ``g(t)``
    whose step is g's image of k's step: the thesis's function from labels
    to labels.
    """
    reps = lattice._reps
    width = max(len(ls) for ls in lattice.labels)
    to_type = np.zeros((len(lattice.motions), len(reps)), dtype=np.int64)
    to_label = np.full((len(lattice.motions), len(reps), width), -1, dtype=np.int64)
    for m in range(len(lattice.motions)):
        home = lattice.apply(m, reps)
        to_type[m] = lattice.type_of(home)
        for t, offsets in enumerate(lattice.type_offsets):
            steps = lattice.apply(m, reps[t] + offsets) - home[t]
            image = lattice.type_offsets[to_type[m, t]]
            for k, step in enumerate(steps):
                to_label[m, t, k] = int(np.flatnonzero(np.all(image == step, axis=1))[0])
    return to_type, to_label


def automorphisms(table: np.ndarray, board_types: np.ndarray, to_type: np.ndarray, to_label: np.ndarray):
    """Every cell map that, with one motion's maps of types and labels (``to_type[t]``, ``to_label[t, k]``), takes
    the board's labelled edges onto themselves.

    Yields ``int64[n]`` arrays (cell c goes to ``perm[c]``).  The board is
    connected, so the image of cell 0 decides the rest: each edge's end goes
    to the end of the image edge.
    """
    n, width = table.shape
    rows = np.arange(n)
    labels = to_label[board_types]
    for target in np.flatnonzero(board_types == to_type[board_types[0]]):
        perm = np.full(n, -1, dtype=np.int64)
        perm[0] = target
        changed, ok = True, True
        while changed and ok:
            changed = False
            for k in range(width):
                src = rows[(perm >= 0) & (table[:, k] >= 0)]
                dst = table[perm[src], labels[src, k]]
                ends = table[src, k]
                if np.any(dst < 0) or np.any((perm[ends] >= 0) & (perm[ends] != dst)):
                    ok = False
                    break
                fresh = perm[ends] < 0
                if fresh.any():
                    perm[ends[fresh]] = dst[fresh]
                    changed = True
        if ok and respects(table, board_types, perm, to_type, to_label):
            yield perm


def respects(table: np.ndarray, board_types: np.ndarray, perm: np.ndarray, to_type: np.ndarray,
             to_label: np.ndarray) -> bool:
    """Whether ``perm`` (a map of the cells) with one motion's type and label maps is a label-respecting automorphism:
    a bijection that takes each cell to one of the motion's type, each edge onto the edge of the image label, and each
    missing edge onto a missing one."""
    n = len(perm)
    if np.any(perm < 0) or len(np.unique(perm)) < n or np.any(board_types[perm] != to_type[board_types]):
        return False
    labels = to_label[board_types]
    have = labels >= 0
    mapped = np.full_like(table, -1)
    mapped[have] = table[np.broadcast_to(perm[:, None], table.shape)[have], labels[have]]
    expect = np.where(table >= 0, perm[np.maximum(table, 0)], -1)
    return bool(np.array_equal(mapped, expect))


def seams(graph: BoardGraph, lattice) -> tuple[tuple[tuple, tuple, tuple], ...]:
    """The edges of ``graph`` that the plane does not draw: ``(a, ghost, b)`` where the step from cell ``a`` leads to
    cell ``b`` on the board but to ``ghost`` in the plane (the lattice's neighbour of ``a`` by that label).

    A picture marks the side ``a`` shares with ``ghost``: what a seam of a box that wraps round is, for any graph.
    """
    coords = np.array(graph.cells, dtype=np.int64)
    around = lattice.neighbours(coords)
    out = []
    for i, row in enumerate(graph.neighbours):
        for k, j in enumerate(row):
            ghost = tuple(int(v) for v in around[i, k])
            if j >= 0 and ghost != graph.cells[j]:
                out.append((graph.cells[i], ghost, graph.cells[j]))
    return tuple(out)
