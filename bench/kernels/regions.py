"""Regions of open cells and the volumes pieces can fill: the numba helpers of the volume constraint.

Shared by the one-shot volume filter (:mod:`bench.models.filters`) and the
volume trigger and in-search filter (:mod:`bench.kernels.constraints`).
"""

from __future__ import annotations

from bench.toolchain.registry import njit


@njit(cache=True)
def flood(start, gen, nb_ptr, nb, mark, stack, region, label):
    """Visit the cells reachable from ``start``; returns how many.

    A cell may be entered while ``mark`` is below ``gen``; a visit sets it to
    ``gen`` (and ``region`` to ``label`` when ``label >= 0``), so callers block
    cells by marking them ``gen`` or higher beforehand.
    """
    mark[start] = gen
    if label >= 0:
        region[start] = label
    top = 1
    stack[0] = start
    v = 0
    while top > 0:
        top -= 1
        x = stack[top]
        v += 1
        for k in range(nb_ptr[x], nb_ptr[x + 1]):
            d = nb[k]
            if mark[d] < gen:
                mark[d] = gen
                if label >= 0:
                    region[d] = label
                stack[top] = d
                top += 1
    return v


@njit(cache=True)
def subset_sums(sizes, counts, skip, limit, out):
    """``out[v] = 1`` when some sub-multiset of the pieces has volume v (``v <= limit``).

    Shape j has ``counts[j]`` pieces of ``sizes[j]`` cells; one piece of
    shape ``skip`` is left out (-1: none).  O(pieces x limit) steps, memory
    linear in the volume, however many piece sizes there are.
    """
    # loops rather than slice assignments throughout the kernels: numba lowers a slice assignment into
    # broadcasting code that costs far more to compile (the sampler's three took 2 of its 4.9 s)
    for v in range(1, limit + 1):
        out[v] = 0
    out[0] = 1
    for j in range(sizes.shape[0]):
        n = counts[j] - (1 if j == skip else 0)
        size = sizes[j]
        if size <= 0 or size > limit:
            continue
        for _ in range(n):
            for v in range(limit, size - 1, -1):
                if out[v - size]:
                    out[v] = 1
