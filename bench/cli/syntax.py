"""The words of a command line: polycube's option syntax on top of argparse, misspelt names.

polycube (boost::program_options) lets most options take a value or not:
``-r`` alone picks a redundancy piece, ``-rX`` or ``-r=X`` names one;
``-i``, ``-q``, ``-u``, ``-R`` and ``-n`` are on/off switches that take
``-n0``, ``-i=1`` or ``--info=1``.  argparse's optional values
(``nargs="?"``) take the next word whatever it is, so ``bench solve -r
defs/x.txt`` would name a piece ``defs/x.txt`` and find no file.

Here such options are declared with :class:`OptionalValue` or
:class:`Switch` (argparse sees an option with one required value), and
:func:`normalize` rewrites a command line before argparse reads it: an
adjacent value is kept (``-rX``, ``-r=X``, ``-n0``), the next word becomes
the value only when the option accepts it (an integer for ``-V``, a piece
name that is not a path for ``-r``), and a switch never takes the next
word; an option left without a value gets its implicit one, written as
``--name=VALUE`` so argparse has nothing left to guess.  ``--conf FILE``
reads options from a file (:func:`expand_conf`).

An option the command does not know is refused by :func:`normalize` with
the closest one it knows (``--timout`` -> ``did you mean --timeout?``),
before argparse could read its value as a file name, the name escaped
(:func:`bench.text.escape`) so it stays on one line of output.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Iterable

from bench.errors import BenchError, UsageError
from bench.system.files import read_input
from bench.text import escape


def suggestion(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean X?)`` for the choice closest to a misspelt ``word``, or nothing when none is close.

    >>> suggestion("--timout", ["--timeout", "--rounds"])
    ' (did you mean --timeout?)'
    >>> suggestion("zzz", ["solve", "run"])
    ''
    """
    # lazy: only a misspelt word needs difflib, and every command's start-up would pay its import
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off"}


def boolean(text: str) -> bool:
    """``1 0 true false yes no on off`` (any case) as a bool; argparse reports anything else."""
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise argparse.ArgumentTypeError(f"expected 1 or 0 (true/false, yes/no, on/off), got '{text}'")


def looks_like_path(word: str) -> bool:
    """True for a word the user most likely meant as a file or directory to solve, not as an option's value."""
    return word == "-" or "/" in word or os.sep in word or word.endswith(".txt") or Path(word).exists()


def integer_word(word: str) -> bool:
    """True for an integer literal such as ``13`` or ``-1``."""
    try:
        int(word)
    except ValueError:
        return False
    return True


def piece_word(word: str) -> bool:
    """True for ``#``, ``.`` or a piece name that cannot be a definition file."""
    return word in ("#", ".") or (not word.startswith("-") and not looks_like_path(word))


class OptionalValue(argparse.Action):
    """An option whose value may be left out (then ``implicit``); the next word is its value when ``accepts`` it.

    argparse sees one required value; :func:`normalize` supplies it.
    """

    def __init__(self, option_strings, dest, implicit, accepts=integer_word, **kwargs):
        super().__init__(option_strings, dest, **kwargs)
        self.implicit = implicit
        self.accepts = accepts

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)


class Switch(OptionalValue):
    """An on/off option: alone it is on, ``-n0``, ``-i=1`` or ``--info=0`` set it; it never takes the next word."""

    def __init__(self, option_strings, dest, default=False, **kwargs):
        kwargs.setdefault("metavar", "[=0|1]")
        super().__init__(option_strings, dest, implicit="1", accepts=lambda word: False, type=boolean,
                         default=default, **kwargs)


def _lookup(parser: argparse.ArgumentParser, text: str):
    """The action of an option string, allowing unambiguous prefixes of long options as argparse does."""
    actions = parser._option_string_actions
    if text in actions:
        return actions[text]
    if text.startswith("--") and parser.allow_abbrev:
        matches = {actions[s] for s in actions if s.startswith(text)}
        if len(matches) == 1:
            return matches.pop()
    return None


def _long_name(action) -> str:
    longs = [s for s in action.option_strings if s.startswith("--")]
    return longs[0] if longs else action.option_strings[0]


def normalize(parser: argparse.ArgumentParser, args: list[str]) -> list[str]:
    """``args`` with every :class:`OptionalValue` and :class:`Switch` given its value explicitly (see the module)."""
    out: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            out.extend(args[i - 1:])
            break
        if not word.startswith("-") or word == "-" or integer_word(word):
            out.append(word)
            continue
        if word.startswith("--"):
            name, eq, attached = word.partition("=")
        else:
            name, attached = word[:2], word[2:]
            eq = attached[:1] == "="
            attached = attached[1:] if eq else attached
        action = _lookup(parser, name)
        if action is None:
            _refuse(parser, name)
        if not isinstance(action, OptionalValue):
            out.append(word)
            # an option with a required value: its value is the next word, whatever it looks like
            if action is not None and action.nargs is None and not attached and not eq and i < len(args):
                out.append(args[i])
                i += 1
            continue
        if attached or eq:
            if isinstance(action, Switch) and not eq and not _is_boolean(attached):
                # grouped switches, as -qi
                out.extend(_group(parser, name, attached))
                continue
            out.append(f"{_long_name(action)}={attached}")
        elif i < len(args) and action.accepts(args[i]):
            out.append(f"{_long_name(action)}={args[i]}")
            i += 1
        else:
            out.append(f"{_long_name(action)}={action.implicit}")
    return out


def _refuse(parser: argparse.ArgumentParser, name: str) -> None:
    """Raise the error of an option ``parser`` does not know, naming the closest one it does."""
    known = [s for s in parser._option_string_actions if s.startswith("--") == name.startswith("--")]
    ambiguous = [s for s in parser._option_string_actions if name.startswith("--") and s.startswith(name)]
    if len(ambiguous) > 1:
        what = f"ambiguous option {escape(name)}: it could be {', '.join(sorted(ambiguous))}"
    else:
        what = f"unknown option {escape(name)}{suggestion(name, known)}"
    raise UsageError(f"{parser.prog}: error: {what} (see {parser.prog} --help)")


def _is_boolean(text: str) -> bool:
    return text.lower() in TRUE_WORDS | FALSE_WORDS


def _group(parser, first: str, rest: str) -> list[str]:
    """``-qi`` as ``--quiet=1 --info=1`` when every letter is a switch; else left for argparse to report."""
    letters = [first] + [f"-{c}" for c in rest]
    actions = [_lookup(parser, letter) for letter in letters]
    if all(isinstance(a, Switch) for a in actions):
        return [f"{_long_name(a)}=1" for a in actions]
    return [first + rest]


def conf_arguments(parser: argparse.ArgumentParser, path: str) -> list[str]:
    """The options of a polycube configuration file (``--conf FILE``): one ``name=value`` (or ``name``) a line.

    Names are the long option names with or without their dashes
    (``fila=11``, ``volumeFilter=-1``, ``info=1``); a line starting with
    ``#``, or the rest of a line after a blank and ``#``, is a comment
    (``redundancyFilter=#`` keeps its value).

    Raises
    ------
    UsageError
        For a file that cannot be read, or a line that is not an option of this command, with its line number.
    """
    try:
        text = read_input(path, "--conf file").decode("utf-8-sig")
    except (BenchError, UnicodeDecodeError) as exc:
        reason = str(exc).removeprefix(f"{path}: ").removeprefix("cannot read: ")
        raise UsageError(f"--conf {path}: cannot read it: {reason}") from None
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        for mark in (" #", "\t#"):
            line = line.split(mark, 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        name, eq, value = line.partition("=")
        name = name.strip().lstrip("-")
        flag = f"-{name}" if len(name) == 1 else f"--{name}"
        if not name or any(c.isspace() for c in name):
            raise UsageError(f"{path}:{number}: expected NAME=VALUE (a long option name, e.g. fila=11), got '{line}'")
        if name == "conf" or _lookup(parser, flag) is None:
            raise UsageError(f"{path}:{number}: unknown option '{name}' for bench {parser.prog.split()[-1]}")
        out.append(f"{flag}={value.strip()}" if eq else flag)
    return out


def expand_conf(parser: argparse.ArgumentParser, args: list[str]) -> list[str]:
    """``args`` with each ``--conf FILE`` replaced by the file's options, placed first so the command line wins."""
    front, rest = [], []
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            rest.extend(args[i:])
            break
        if word == "--conf" or word.startswith("--conf="):
            if "=" in word:
                path = word.split("=", 1)[1]
            elif i + 1 < len(args):
                path = args[i + 1]
                i += 1
            else:
                raise UsageError("--conf needs a file name")
            front.extend(conf_arguments(parser, path))
        else:
            rest.append(word)
        i += 1
    return front + rest
