"""numba's side of :mod:`bench.kernels.bitfield`: the vocabulary's overloads for both word types, and the intrinsics.

Imported when numba first compiles a kernel (through the placeholders
:mod:`bench.kernels.bitfield` names, which :func:`bench.toolchain.registry.materialize`
resolves), never by a run whose kernels all come from an ahead-of-time
library.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from bench.toolchain.registry import njit
from bench.kernels.bitfield import (_portable_pext, both, count_and, drop_lowest, empty_like, fewest_open, gather, hits,
                                   holes, is_empty, isolated, load, lowest, merge, store, test, with_bit)


def _bit_count(name: str, doc: str, emit):
    """An intrinsic ``int64 name(x)``: one LLVM bit-counting instruction, ``emit(builder, value)``, on x as a uint64."""

    def typer(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return emit(builder, context.cast(builder, args[0], signature.args[0], types.uint64))

        return types.int64(x), codegen

    typer.__name__ = typer.__qualname__ = name
    typer.__doc__ = doc
    return intrinsic(typer)


_IMPLEMENTATION = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
"""numba's options for the overloads' implementations: only kernels call them, so neither wrapper is made."""

_NONZERO = ir.Constant(ir.IntType(1), 1)
_ctz = _bit_count("_ctz", "Count trailing zero bits of a non-zero uint64 (one instruction on x86-64).",
                  lambda builder, value: builder.cttz(value, _NONZERO))
_clz = _bit_count("_clz", "Count leading zero bits of a non-zero uint64.",
                  lambda builder, value: builder.ctlz(value, _NONZERO))
_popcount = _bit_count("_popcount", "Number of set bits of a uint64.", lambda builder, value: builder.ctpop(value))


def _fast_pext() -> bool:
    """True when the host has BMI2's PEXT and runs it in a few cycles (not AMD before Zen 3, where it is microcode)."""
    # lazy: llvmlite loads with numba, when a kernel is compiled
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features()
    return bool(features.get("bmi2", False)) and not llvm.get_host_cpu_name().startswith(("znver1", "znver2", "bdver"))


FAST_PEXT = _fast_pext()


@intrinsic
def _pext(typingctx, x, m):
    """The bits of ``x`` at the set positions of ``m``, packed to the low end (x86 BMI2 PEXT)."""
    if not (isinstance(x, types.Integer) and isinstance(m, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = builder.module.declare_intrinsic("llvm.x86.bmi.pext.64", fnty=ir.FunctionType(i64, [i64, i64]))
        a = context.cast(builder, args[0], signature.args[0], types.uint64)
        b = context.cast(builder, args[1], signature.args[1], types.uint64)
        return builder.call(fn, [a, b])

    return types.uint64(x, m), codegen


def _two(v):
    return isinstance(v, types.UniTuple)


# -- numba overloads --------------------------------------------------------------------------


@overload(load, jit_options=_IMPLEMENTATION)
def _load(a, i):
    if a.ndim == 2:
        return lambda a, i: (a[i, 0], a[i, 1])
    return lambda a, i: a[i]


@overload(store, jit_options=_IMPLEMENTATION)
def _store(a, i, v):
    if _two(v):
        def impl(a, i, v):
            a[i, 0] = v[0]
            a[i, 1] = v[1]
        return impl

    def impl1(a, i, v):
        a[i] = v
    return impl1


@overload(hits, jit_options=_IMPLEMENTATION)
def _hits(a, i, v):
    if _two(v):
        return lambda a, i, v: ((a[i, 0] & v[0]) | (a[i, 1] & v[1])) != 0
    return lambda a, i, v: (a[i] & v) != 0


@overload(both, jit_options=_IMPLEMENTATION)
def _both(a, i, v):
    if _two(v):
        return lambda a, i, v: (a[i, 0] & v[0], a[i, 1] & v[1])
    return lambda a, i, v: a[i] & v


@overload(merge, jit_options=_IMPLEMENTATION)
def _merge(a, i, v):
    if _two(v):
        return lambda a, i, v: (a[i, 0] | v[0], a[i, 1] | v[1])
    return lambda a, i, v: a[i] | v


@overload(holes, jit_options=_IMPLEMENTATION)
def _holes(v, full):
    if _two(v):
        return lambda v, full: (full[0] & ~v[0], full[1] & ~v[1])
    return lambda v, full: full & ~v


@overload(is_empty, jit_options=_IMPLEMENTATION)
def _is_empty(h):
    if _two(h):
        return lambda h: (h[0] | h[1]) == 0
    return lambda h: h == 0


@overload(lowest, jit_options=_IMPLEMENTATION)
def _lowest(h):
    if _two(h):
        def impl(h):
            if h[0] != 0:
                return _ctz(h[0])
            return _ctz(h[1]) + np.int64(64)
        return impl
    return lambda h: _ctz(h)


@overload(drop_lowest, jit_options=_IMPLEMENTATION)
def _drop_lowest(h):
    if _two(h):
        def impl(h):
            if h[0] != 0:
                return (h[0] & (h[0] - np.uint64(1)), h[1])
            return (h[0], h[1] & (h[1] - np.uint64(1)))
        return impl
    return lambda h: h & (h - np.uint64(1))


@overload(test, jit_options=_IMPLEMENTATION)
def _test(v, b):
    if _two(v):
        def impl(v, b):
            w = v[0] if b < 64 else v[1]
            return (w >> np.uint64(b & 63)) & np.uint64(1) != 0
        return impl
    return lambda v, b: (v >> np.uint64(b)) & np.uint64(1) != 0


@overload(count_and, jit_options=_IMPLEMENTATION)
def _count_and(a, i, h):
    if _two(h):
        return lambda a, i, h: _popcount(a[i, 0] & h[0]) + _popcount(a[i, 1] & h[1])
    return lambda a, i, h: _popcount(a[i] & h)


@overload(empty_like, jit_options=_IMPLEMENTATION)
def _empty_like(v):
    if _two(v):
        return lambda v: (np.uint64(0), np.uint64(0))
    return lambda v: np.uint64(0)


@overload(with_bit, jit_options=_IMPLEMENTATION)
def _with_bit(v, b):
    if _two(v):
        def impl(v, b):
            bit = np.uint64(1) << np.uint64(b & 63)
            return (v[0] | bit, v[1]) if b < 64 else (v[0], v[1] | bit)
        return impl
    return lambda v, b: v | (np.uint64(1) << np.uint64(b))


@njit(inline="always")
def _least(h, b0, b1, b2, b3):
    # the counts are 4-bit numbers sliced over b3 b2 b1 b0: keep the bits with a 0
    # in the highest plane where some bit of h has one, plane by plane
    m = h
    t = m & ~b3
    if t != 0:
        m = t
    t = m & ~b2
    if t != 0:
        m = t
    t = m & ~b1
    if t != 0:
        m = t
    t = m & ~b0
    if t != 0:
        m = t
    return m


@njit(inline="always")
def _shift2(lo, hi, r, l):
    # (hi:lo) >> r << l for a 128-bit value, with r, l < 128 and one of them 0
    if r >= 64:
        lo, hi = hi >> (r - np.uint64(64)), np.uint64(0)
    elif r > 0:
        lo, hi = (lo >> r) | (hi << (np.uint64(64) - r)), hi >> r
    if l >= 64:
        lo, hi = np.uint64(0), lo << (l - np.uint64(64))
    elif l > 0:
        lo, hi = lo << l, (hi << l) | (lo >> (np.uint64(64) - l))
    return lo, hi


@overload(fewest_open, inline="always", prefer_literal=True, jit_options=_IMPLEMENTATION)
def _fewest_open(h, right, left, masks, wide):
    if not isinstance(wide, types.BooleanLiteral):
        return None
    # a constant, so the fourth plane's steps are compiled out where they are not wanted
    four = wide.literal_value

    @njit(inline="always")
    def add(b0, b1, b2, b3, x):
        # add the bits of x to the counts sliced over b3 b2 b1 b0 (without a fourth plane b2 saturates: 4 or more)
        t = b0 & x
        b0 ^= x
        if four:
            u = b1 & t
            b1 ^= t
            b3 |= b2 & u
            b2 ^= u
        else:
            b2 |= b1 & t
            b1 ^= t
        return b0, b1, b2, b3

    if _two(h):
        def impl(h, right, left, masks, wide):
            z = np.uint64(0)
            a0 = a1 = a2 = a3 = c0 = c1 = c2 = c3 = z
            for i in range(right.shape[0]):
                lo, hi = _shift2(h[0], h[1], np.uint64(right[i]), np.uint64(left[i]))
                a0, a1, a2, a3 = add(a0, a1, a2, a3, lo & masks[i, 0])
                c0, c1, c2, c3 = add(c0, c1, c2, c3, hi & masks[i, 1])
            # the least count over both words decides, so the planes span both
            m0, m1 = h[0], h[1]
            t0, t1 = m0 & ~a3, m1 & ~c3
            if (t0 | t1) != 0:
                m0, m1 = t0, t1
            t0, t1 = m0 & ~a2, m1 & ~c2
            if (t0 | t1) != 0:
                m0, m1 = t0, t1
            t0, t1 = m0 & ~a1, m1 & ~c1
            if (t0 | t1) != 0:
                m0, m1 = t0, t1
            t0, t1 = m0 & ~a0, m1 & ~c0
            if (t0 | t1) != 0:
                m0, m1 = t0, t1
            return (m0, m1)
        return impl

    def impl1(h, right, left, masks, wide):
        z = np.uint64(0)
        b0 = b1 = b2 = b3 = z
        for i in range(right.shape[0]):
            b0, b1, b2, b3 = add(b0, b1, b2, b3, ((h >> np.uint64(right[i])) << np.uint64(left[i])) & masks[i])
        return _least(h, b0, b1, b2, b3)
    return impl1


@overload(isolated, jit_options=_IMPLEMENTATION)
def _isolated(h, right, left, masks):
    if _two(h):
        def impl(h, right, left, masks):
            a0 = a1 = np.uint64(0)
            for i in range(right.shape[0]):
                lo, hi = _shift2(h[0], h[1], np.uint64(right[i]), np.uint64(left[i]))
                a0 |= lo & masks[i, 0]
                a1 |= hi & masks[i, 1]
            return ((h[0] & ~a0) | (h[1] & ~a1)) != 0
        return impl

    def impl1(h, right, left, masks):
        a = np.uint64(0)
        for i in range(right.shape[0]):
            a |= ((h >> np.uint64(right[i])) << np.uint64(left[i])) & masks[i]
        return (h & ~a) != 0
    return impl1


@overload(gather, jit_options=_IMPLEMENTATION)
def _gather(v, m):
    word = _pext if FAST_PEXT else _portable_pext
    if _two(v):
        def impl(v, m):
            return word(v[0], m[0]) | (word(v[1], m[1]) << np.uint64(_popcount(m[0])))
        return impl
    return lambda v, m: word(v, m)
