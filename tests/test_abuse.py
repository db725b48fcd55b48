"""The fuzz and abuse campaign of :mod:`abuse` in CI: no traceback, no hang, no memory blow-up, no changed count."""

from __future__ import annotations

import pytest

from support.abuse import CLASSES, campaign, command_line, rewrite


def check(figures, rewrites: int) -> None:
    assert not figures.failures, "\n".join(figures.failures[:20])
    assert figures.outcomes["same counts"] == rewrites
    # every kind of rewrite ran and some mutations got as far as the search, so the campaign checked something
    assert len([k for k in figures.kinds if k.startswith("rewrite:")]) == 7
    assert figures.outcomes["searched"] > 0 and figures.outcomes["refused by the reader"] > 0
    assert figures.kinds["mutation: invisible character"] > 0


def check_command_line(figures) -> None:
    assert not figures.failures, "\n".join(figures.failures[:20])
    assert {k.removeprefix("command line: ") for k in figures.kinds} == set(CLASSES)


def test_a_few_hundred_cases():
    check(campaign(mutations=160, rewrites=56, seed=19), 56)


def test_every_command_line_class_once():
    check_command_line(command_line(cases=len(CLASSES) - 2, heavy=1, seed=19))


@pytest.mark.slow
def test_thousands_of_cases():
    figures = command_line(cases=294, heavy=3, seed=2026, figures=campaign(mutations=2800, rewrites=900, seed=2026))
    check(figures, 900)
    assert figures.cases == 4000
    print(figures.summary())


def test_a_comment_line_inside_a_drawing_is_a_rewrite_that_keeps_the_count():
    import random

    from support.abuse import counts
    from support import DEFS

    text = (DEFS / "pentominoes_8x8_scott.txt").read_text()
    commented = text.replace(". . . O O . . .\n", ". . . O O . . .\n# the hole\n", 1)
    assert commented != text and counts(commented) == counts(text) == [("solved", 65, 520)]
    rng = random.Random(5)
    assert {rewrite(text, rng)[1] for _ in range(80)} == {"comment lines", "blank lines", "trailing comments",
                                                          "reordered pieces", "C instead of L",
                                                          "crlf and byte-order mark", "unnormalised names"}
