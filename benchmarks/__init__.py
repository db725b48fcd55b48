"""Benchmarks that write their figures under ``results/`` (run them as ``python -m benchmarks.NAME``)."""

import os


def user_environment(**extra: str) -> dict[str, str]:
    """The environment of a timed ``bench`` process: this one's and ``extra``, writing bytecode as a user's Python does.

    ``PYTHONDONTWRITEBYTECODE`` (set on some development machines) would
    make every timed process compile the package's sources afresh, a tenth
    of a second that no installed ``bench`` pays.
    """
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra)
    return env
