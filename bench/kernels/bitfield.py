"""Occupancy bitfields of one or two 64-bit words, for the FILA kernel.

FILA keeps the puzzle's occupancy in a bitfield and tests an image with one
AND.  A sub-puzzle of up to 64 open cells uses a plain ``uint64``; up to 128
cells, a pair of words (a ``UniTuple(uint64, 2)``).  The kernel is written
once against the small vocabulary below; numba compiles one specialization
per word type, picked by the types of the arrays the caller passes: layouts
and stacks are ``uint64[:]`` for one word and ``uint64[:, 2]`` for two.  So
there is no compile-time switch for users and no copied kernel: the 64-cell
case pays nothing for the 128-cell one.

Each function here is plain Python (usable in tests) with a numba overload
for both word types (:mod:`bench.kernels.bitfield_overloads`, which numba
imports when it first compiles: this module imports no numba).  Bit ``b``
of a two-word field lives in word ``b >> 6``.
"""

from __future__ import annotations

import numpy as np

from bench.toolchain.registry import lazy, njit

MASK64 = (1 << 64) - 1

# one instruction each where compiled; they exist only inside kernels (bench.toolchain.registry binds them in)
_ctz = lazy("bench.kernels.bitfield_overloads", "_ctz")
_clz = lazy("bench.kernels.bitfield_overloads", "_clz")
_popcount = lazy("bench.kernels.bitfield_overloads", "_popcount")


def _gather_word(x, m):
    """Portable PEXT: one step per set bit of ``m``."""
    out = np.uint64(0)
    bit = np.uint64(1)
    while m != np.uint64(0):
        if x & m & (~m + np.uint64(1)):
            out |= bit
        bit <<= np.uint64(1)
        m &= m - np.uint64(1)
    return out


_portable_pext = njit(_gather_word)


@njit(cache=True)
def gather_rows(x, m):
    """:func:`gather` of bitfields given as rows of words, for code that knows the word count only at run time."""
    out = np.uint64(0)
    shift = np.uint64(0)
    for w in range(m.shape[0]):
        out |= _portable_pext(x[w], m[w]) << shift
        shift += np.uint64(_popcount(m[w]))
    return out


def _words(v):
    return v if isinstance(v, tuple) else (v,)


def _join(words):
    return words if len(words) > 1 else words[0]


# -- the vocabulary, in plain Python --------------------------------------------------------


def load(a, i):
    """Entry ``i`` of a layout array or stack, as a bitfield."""
    return _join(tuple(int(w) for w in a[i])) if getattr(a, "ndim", 1) == 2 else int(a[i])


def store(a, i, v):
    """Write bitfield ``v`` into entry ``i``."""
    if getattr(a, "ndim", 1) == 2:
        a[i, :] = _words(v)
    else:
        a[i] = v


def hits(a, i, v):
    """True when layout ``a[i]`` shares a bit with ``v`` (the image does not fit)."""
    return any(int(x) & y for x, y in zip(_words(load(a, i)), _words(v)))


def both(a, i, v):
    """The bits of layout ``a[i]`` also set in ``v``."""
    return _join(tuple(int(x) & y for x, y in zip(_words(load(a, i)), _words(v))))


def merge(a, i, v):
    """``v`` with the bits of layout ``a[i]`` added."""
    return _join(tuple(int(x) | y for x, y in zip(_words(load(a, i)), _words(v))))


def holes(v, full):
    """The bits of ``full`` not set in ``v``."""
    return _join(tuple(f & ~x & MASK64 for x, f in zip(_words(v), _words(full))))


def is_empty(h):
    """True when no bit is set."""
    return all(w == 0 for w in _words(h))


def lowest(h):
    """Index of the lowest set bit of a non-empty bitfield."""
    for k, w in enumerate(_words(h)):
        if w:
            return 64 * k + ((w & -w).bit_length() - 1)
    raise ValueError("empty bitfield")


def drop_lowest(h):
    """``h`` without its lowest set bit."""
    words = list(_words(h))
    for k, w in enumerate(words):
        if w:
            words[k] = w & (w - 1)
            break
    return _join(tuple(words))


def test(v, b):
    """True when bit ``b`` is set."""
    return bool((_words(v)[b >> 6] >> (b & 63)) & 1)


def count_and(a, i, h):
    """Number of bits set both in ``a[i]`` and in ``h``."""
    return sum(bin(int(x) & y).count("1") for x, y in zip(_words(load(a, i)), _words(h)))


def empty_like(v):
    """A bitfield of ``v``'s word type with no bit set."""
    return _join(tuple(0 for _ in _words(v)))


def with_bit(v, b):
    """``v`` with bit ``b`` set."""
    words = list(_words(v))
    words[b >> 6] |= 1 << (b & 63)
    return _join(tuple(words))


def fewest_open(h, right, left, masks, wide):
    """The bits of ``h`` with the fewest neighbours in ``h``, for neighbours given as shifts.

    Direction ``i`` pairs bit ``c`` with bit ``c + right[i] - left[i]``
    wherever bit ``c`` of ``masks[i]`` is set (one of the two shifts is 0).
    On a geometric bit layout a box has as many directions as its lattice
    (6 for cubes and hexagons, 8 for hexagonal prisms, 12 for spheres), so
    the neighbour counts of all bits are a bit-sliced sum of shifted copies
    of ``h``: no loop over the bits.  Three bit planes count up to 7
    directions; ``wide`` (a constant where compiled) adds a fourth for up to
    15, which costs the cubes' ``e`` 4 % on the Tetris Cube, so it is used
    only where a lattice needs it.
    """
    counts = {}
    width = 64 * len(_words(h))
    hv = sum(w << (64 * k) for k, w in enumerate(_words(h)))
    for c in range(width):
        if (hv >> c) & 1:
            counts[c] = sum(1 for i in range(len(right))
                            if test(load(masks, i), c) and (hv >> (c + int(right[i]) - int(left[i]))) & 1)
    least = min(counts.values(), default=0)
    out = empty_like(h)
    for c, n in counts.items():
        if n == least:
            out = with_bit(out, c)
    return out


def isolated(h, right, left, masks):
    """True when some bit of ``h`` has no neighbour in ``h``, neighbours given as shifts (as in :func:`fewest_open`).

    Every direction's shifted copy of ``h`` marks the bits with an open
    neighbour that way: one OR per direction, no loop over the bits.
    """
    width = 64 * len(_words(h))
    hv = sum(w << (64 * k) for k, w in enumerate(_words(h)))
    for c in range(width):
        if (hv >> c) & 1 and not any(test(load(masks, i), c) and (hv >> (c + int(right[i]) - int(left[i]))) & 1
                                     for i in range(len(right))):
            return True
    return False


def gather(v, m):
    """The bits of ``v`` at the set positions of mask ``m``, packed to the low end of one word (PEXT).

    ``m`` must have fewer than 64 bits set in all.
    """
    out, shift = 0, 0
    for x, w in zip(_words(v), _words(m)):
        for b in range(64):
            if (w >> b) & 1:
                out |= ((x >> b) & 1) << shift
                shift += 1
    return out
