"""Per-process memory of what is derived from a matrix alone.

A split run solves hundreds of sub-problems of one cover in each worker
process; the sorts and tables that depend only on the matrix and the
settings are computed once per process, not once per sub-problem.
"""

from __future__ import annotations

from collections import OrderedDict


class CoverMemo:
    """``fn(cover, *args)`` remembered by ``(cover.hash, *args)`` for the last ``size`` keys.

    ``fn`` must be pure and its result must not be mutated by callers
    (copy what a search writes to).
    """

    def __init__(self, fn, size: int = 4):
        self.fn = fn
        self.size = size
        self.table: OrderedDict = OrderedDict()

    def __call__(self, cover, *args):
        key = (cover.hash, *args)
        if key in self.table:
            self.table.move_to_end(key)
            return self.table[key]
        value = self.fn(cover, *args)
        self.table[key] = value
        if len(self.table) > self.size:
            self.table.popitem(last=False)
        return value
