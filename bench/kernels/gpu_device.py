"""The GPU engine's device kernel (numba-cuda): the search of :mod:`bench.kernels.gpu`, compiled for the device.

The search, its layout and the distribution of the work are described in
:mod:`bench.kernels.gpu`, whose functions run here as device functions.
This module imports ``numba.cuda``, so it is imported by a solve only; with
``NUMBA_ENABLE_CUDASIM=1`` numba-cuda's simulator runs it as Python, which
swaps the module's global ``cuda`` for its own while a kernel runs.
"""

from __future__ import annotations

import types as pytypes

import numpy as np
from numba import cuda, types

from bench.kernels.gpu import (BUDGET, C_ATTEMPTS, C_COVERS, C_CUT, C_MAX_NODES, C_MORE, C_NEXT, C_NODES, C_STORED,
                               C_TRIVIAL, COVER, MAX_DEPTH, MAX_SHAPES, N_BITS, N_STATE, T_ATTEMPTS, T_DEPTH, T_NODES,
                               Board, Walk, _advance, _enter, _place)


def _retarget(function, **names):
    """A copy of ``function`` that sees ``names`` instead of its module's globals of those names."""
    scope = dict(function.__globals__)
    scope.update(names)
    return pytypes.FunctionType(function.__code__, scope, function.__name__, function.__defaults__,
                                function.__closure__)


@cuda.jit(device=True, inline="always")
def device_ctz64(x):
    """Trailing zero bits of a non-zero uint64, from 32-bit ``ffs`` (the simulator's ``ffs`` reads 32 bits)."""
    low = np.uint32(x & np.uint64(0xFFFFFFFF))
    if low != np.uint32(0):
        return cuda.ffs(low) - 1
    return cuda.ffs(np.uint32(x >> np.uint64(32))) + 31


device_place = cuda.jit(device=True, inline="always")(_place)
device_enter = cuda.jit(device=True, inline="always")(_retarget(_enter, ctz64=device_ctz64, place=device_place))
device_advance = cuda.jit(device=True, inline="always")(_retarget(_advance, ctz64=device_ctz64, place=device_place))


@cuda.jit(cache=True)
def search_kernel(subs, starts, n_subs, pm0, pm1, pshape, pgmask, popt, gstart, gend, hi, slack, short0, avail0, full0,
                  full1, two, budget, store_all, counts, more, more_starts, sol_buf, sol_len, sol_sub):
    """Search sub-problems ``subs[:n_subs]`` (see the module docstring); counts go to ``counts``.

    A walk cut at the node budget leaves what it had not searched as rows
    of ``more`` (``more_starts`` as ``starts``), in search order: the node
    it stopped at, then the rest of each level from the deepest up.
    """
    st = cuda.local.array(N_STATE, types.int64)
    cur = cuda.local.array(MAX_DEPTH, types.int32)
    end = cuda.local.array(MAX_DEPTH, types.int32)
    # once per thread: the bundles only name the arrays and scalars, and the kernel's PTX is the same as with them loose
    walk = Walk(cuda.local.array(N_BITS, types.uint64), st, cur, end, cuda.local.array(MAX_SHAPES, types.int32))
    board = Board(pm0, pm1, pshape, gstart, gend, hi, slack, short0, avail0, full0, full1, two)
    one = np.uint64(1)
    cap = sol_buf.shape[0]
    room = more.shape[0]
    width = more.shape[1]
    covers = 0
    trivial = 0
    nodes = 0
    attempts = 0
    most = 0
    while True:
        i = cuda.atomic.add(counts, C_NEXT, 1)
        if i >= n_subs:
            break
        base = device_enter(subs, starts, i, walk, board)
        event = device_advance(walk, board, -1, budget)
        while event == COVER:
            d = st[T_DEPTH]
            mask = ~np.uint64(0)
            for t in range(base):
                mask &= pgmask[subs[i, t]]
            for t in range(d):
                mask &= pgmask[cur[t]]
            covers += 1
            if mask == one:
                trivial += 1
            if store_all or mask != one:
                slot = cuda.atomic.add(counts, C_STORED, 1)
                if slot < cap:
                    for t in range(base):
                        sol_buf[slot, t] = popt[subs[i, t]]
                    for t in range(d):
                        sol_buf[slot, base + t] = popt[cur[t]]
                    sol_len[slot] = base + d
                    sol_sub[slot] = i
            event = device_advance(walk, board, -1, budget)
        if event == BUDGET:
            d = st[T_DEPTH]
            n = 1
            for t in range(d):
                if cur[t] + 1 < end[t]:
                    n += 1
            slot = cuda.atomic.add(counts, C_MORE, n)
            if slot + n <= room:
                # the node it stopped at, then the rest of each level, deepest first: search order
                level = d
                while level >= 0:
                    if level == d or cur[level] + 1 < end[level]:
                        for t in range(base):
                            more[slot, t] = subs[i, t]
                        for t in range(level):
                            more[slot, base + t] = cur[t]
                        for t in range(base + level, width):
                            more[slot, t] = -1
                        more_starts[slot] = -1 if level == d else cur[level] + 1
                        slot += 1
                    level -= 1
            cuda.atomic.add(counts, C_CUT, 1)
        nodes += st[T_NODES]
        attempts += st[T_ATTEMPTS]
        most = max(most, st[T_NODES])
    cuda.atomic.add(counts, C_COVERS, covers)
    cuda.atomic.add(counts, C_TRIVIAL, trivial)
    cuda.atomic.add(counts, C_NODES, nodes)
    cuda.atomic.add(counts, C_ATTEMPTS, attempts)
    cuda.atomic.max(counts, C_MAX_NODES, most)
