"""Lattices: the cells a puzzle is built from, their neighbours and rotations.

Everything geometric that the rest of the package needs goes through the small
:class:`Lattice` interface, so that other lattices (hexagonal prisms,
triangles, sphere packings) can be added without touching the puzzle model, the
exact-cover encoding or the engines.  A lattice names its cells by integer
coordinate triples and its rotations by integer 3x3 matrices acting on those
triples; this covers the cubic lattice and every lattice whose symmetries are
linear in a suitable integer basis.

Only the cubic lattice exists today.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from functools import cached_property

import numpy as np


class Lattice(ABC):
    """The geometry of one kind of cell."""

    name: str

    @property
    @abstractmethod
    def rotations(self) -> np.ndarray:
        """All proper rotations as an ``int64[n, 3, 3]`` array, identity first."""

    @abstractmethod
    def allowed_rotations(self, planar: bool, one_side: bool) -> np.ndarray:
        """Indices into :attr:`rotations` that a piece may undergo.

        Parameters
        ----------
        planar : bool
            The puzzle is two-dimensional: pieces must stay in their plane.
        one_side : bool
            Pieces may not be turned over (one-sided polyominoes).
        """

    @abstractmethod
    def neighbour_offsets(self) -> np.ndarray:
        """Offsets ``int64[k, 3]`` from a cell to the cells sharing a face with it."""

    @abstractmethod
    def colour(self, coords: np.ndarray) -> np.ndarray:
        """Checkerboard colour (+1 or -1) of each row of ``coords``."""

    @abstractmethod
    def describe(self, rotation: int) -> str:
        """A short human-readable name of one rotation."""

    def rotate(self, rotation: int, coords: np.ndarray) -> np.ndarray:
        """Apply rotation number ``rotation`` to the rows of ``coords``."""
        return np.asarray(coords, dtype=np.int64) @ self.rotations[rotation].T


def normalize(coords: np.ndarray) -> np.ndarray:
    """Translate cells so their minimum is 0 on every axis and sort them.

    The result is the canonical form of a set of cells up to translation:
    two sets are translates of each other exactly when their normalized forms
    are equal.
    """
    coords = np.asarray(coords, dtype=np.int64)
    if len(coords) == 0:
        return coords.reshape(0, 3)
    shifted = coords - coords.min(axis=0)
    order = np.lexsort(shifted.T[::-1])
    return shifted[order]


class CubicLattice(Lattice):
    """Unit cubes (and, with one layer, unit squares).

    The 24 proper rotations of 3-space are the signed permutation matrices of
    determinant +1.  A 2-D puzzle lives in the plane z = 0; the rotations that
    keep a piece in that plane are the 4 turns about the z axis and the 4
    half-turns about in-plane axes (which turn a polyomino over).
    """

    name = "cubic"

    @cached_property
    def rotations(self) -> np.ndarray:
        mats = []
        for perm in itertools.permutations(range(3)):
            for signs in itertools.product((1, -1), repeat=3):
                m = np.zeros((3, 3), dtype=np.int64)
                for row, (col, sign) in enumerate(zip(perm, signs)):
                    m[row, col] = sign
                if round(np.linalg.det(m)) == 1:
                    mats.append(m)
        # identity first, the rest in a fixed order so indices are stable
        mats.sort(key=lambda m: (not np.array_equal(m, np.eye(3, dtype=np.int64)), tuple(m.ravel())))
        out = np.array(mats, dtype=np.int64)
        out.flags.writeable = False
        return out

    def allowed_rotations(self, planar: bool, one_side: bool) -> np.ndarray:
        rots = self.rotations
        keep = []
        for i, m in enumerate(rots):
            if planar:
                if abs(m[2, 2]) != 1:
                    continue
                if one_side and m[2, 2] != 1:
                    continue
            keep.append(i)
        return np.array(keep, dtype=np.int64)

    def neighbour_offsets(self) -> np.ndarray:
        return np.array(
            [[-1, 0, 0], [0, -1, 0], [0, 0, -1], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
            dtype=np.int64,
        )

    def colour(self, coords: np.ndarray) -> np.ndarray:
        coords = np.asarray(coords, dtype=np.int64)
        return np.where(coords.sum(axis=1) % 2 == 0, 1, -1).astype(np.int64)

    def describe(self, rotation: int) -> str:
        m = self.rotations[rotation]
        parts = []
        for row in m:
            col = int(np.flatnonzero(row)[0])
            parts.append(("-" if row[col] < 0 else "") + "xyz"[col])
        return "(" + ",".join(parts) + ")"


CUBIC = CubicLattice()
