"""The project's exception hierarchy.

A :class:`BenchError` is a user error: bad input, an unknown name, a request
that cannot be honoured.  The command line turns it into one line on stderr and
a non-zero exit status.  Every other exception is a bug and keeps its traceback.
"""

from __future__ import annotations


class BenchError(Exception):
    """Base class of every error caused by the user's input or request."""

    exit_status = 2


class DefinitionError(BenchError):
    """A malformed puzzle definition file.

    Parameters
    ----------
    path : str
        The file name as the user gave it (``<stdin>`` for standard input).
    line : int
        The 1-based line the problem was found on.
    message : str
        What was wrong and what was expected.
    """

    def __init__(self, path: str, line: int, message: str):
        self.path = path
        self.line = line
        self.message = message
        super().__init__(f"{path}:{line}: {message}")


class CoverError(BenchError):
    """An exact-cover matrix that breaks the structural rules of a Cover."""


class UsageError(BenchError):
    """A command-line request that cannot be carried out as given."""


class Unsupported(UsageError):
    """An engine cannot represent this cover or honour this request."""
