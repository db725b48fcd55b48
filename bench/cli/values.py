"""The values options take, checked as the command line is read: one clear line for a bad one, never a traceback.

Each function here is an argparse ``type``: it returns the value or raises
:class:`argparse.ArgumentTypeError` saying what was expected, which the
parser turns into ``bench CMD: error: argument --opt: ...`` and exit
status 2.  Numbers must be finite and in range (``nan``, ``inf`` and
``1e400`` are refused); names must not be empty.
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

MAX_WORKERS = 1024
"""More worker processes than this is a typo, not a machine."""

CLUSTER_ADDRESS = re.compile(r"^(tcp|tls|ucx|ws|wss)://[^\s:/]+:(\d{1,5})/?$")


def integer(minimum: int | None = None, maximum: int | None = None, what: str = "an integer"):
    """An integer type within ``[minimum, maximum]``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'") from None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            bounds = (f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}" if minimum is not None
                      else f"<= {maximum}")
            raise argparse.ArgumentTypeError(f"expected {what} {bounds}, got {value}")
        return value

    return parse


def seconds(text: str) -> float:
    """A finite, positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text}'") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds > 0, got '{text}'")
    return value


def fraction(text: str) -> float:
    """A finite number >= 0 (a relative change)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got '{text}'")
    return value


def word(what: str):
    """A non-empty word without blanks (an ordering spec, a format, an engine list)."""

    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"expected {what}, got an empty value")
        return text.strip()

    return parse


def cluster(text: str) -> str:
    """A Dask scheduler address, ``tcp://HOST:PORT``."""
    match = CLUSTER_ADDRESS.match(text.strip())
    if match is None or not 1 <= int(match.group(2)) <= 65535:
        raise argparse.ArgumentTypeError(f"expected a scheduler address such as tcp://HOST:8786, got '{text}'")
    return text.strip()


def existing_file(text: str) -> str:
    """A path to a regular file that exists (or ``-`` for standard input)."""
    if text == "-":
        return text
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got an empty one")
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"not a regular file: {text}")
    return text


def definition_path(text: str) -> str:
    """A definition file, a directory of them, or ``-`` for standard input."""
    if text == "-":
        return text
    if not text:
        raise argparse.ArgumentTypeError("expected a definition file or directory, got an empty name")
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such file or directory: {text}")
    if not (path.is_file() or path.is_dir()):
        raise argparse.ArgumentTypeError(f"not a regular file or directory: {text}")
    return text


def output_file(text: str) -> str:
    """A file to write: not empty, not a directory."""
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got an empty one")
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"is a directory, expected a file: {text}")
    return text
