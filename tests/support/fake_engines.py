"""Engines that misbehave on purpose, to show that bench run survives them."""

from __future__ import annotations

import os
import time

from bench.engines import Engine, Result, Status


class _Fake(Engine):
    supported = frozenset({"max_solutions", "time_limit"})


class CrashEngine(_Fake):
    """Dies the way a segfaulting C extension does."""

    name = "crash"

    def solve(self, cover, settings=None, limits=None, on_solutions=None, on_trace=None):
        os.abort()


class RaiseEngine(_Fake):
    """Fails inside its library with an exception that is no user error."""

    name = "raise"
    supported = frozenset({"max_solutions", "time_limit", "node_limit"})

    def solve(self, cover, settings=None, limits=None, on_solutions=None, on_trace=None):
        raise RuntimeError("the library broke")


class HangEngine(_Fake):
    """Never returns and ignores its time limit."""

    name = "hang"

    def solve(self, cover, settings=None, limits=None, on_solutions=None, on_trace=None):
        while True:
            time.sleep(1)


class WrongEngine(_Fake):
    """Finishes with a count that is off by one."""

    name = "wrong"

    def solve(self, cover, settings=None, limits=None, on_solutions=None, on_trace=None):
        return Result(engine=self.name, status=Status.SOLVED, covers=37, unique=9, total=37, timings={"solve": 0.01})
