"""The fuzz and abuse campaign of :mod:`abuse` in CI: no traceback, no hang, no memory blow-up, no changed count."""

from __future__ import annotations

import pytest

from support.abuse import campaign, rewrite


def check(figures, rewrites: int) -> None:
    assert not figures.failures, "\n".join(figures.failures[:20])
    assert figures.outcomes["same counts"] == rewrites
    # every kind of rewrite ran and some mutations got as far as the search, so the campaign checked something
    assert len([k for k in figures.kinds if k.startswith("rewrite:")]) == 6
    assert figures.outcomes["searched"] > 0 and figures.outcomes["refused by the reader"] > 0


def test_a_few_hundred_cases():
    check(campaign(mutations=160, rewrites=48, seed=19), 48)


@pytest.mark.slow
def test_thousands_of_cases():
    check(campaign(mutations=3000, rewrites=1000, seed=2026), 1000)


def test_a_comment_line_inside_a_drawing_is_a_rewrite_that_keeps_the_count():
    import random

    from support.abuse import counts
    from support import DEFS

    text = (DEFS / "pentominoes_8x8_scott.txt").read_text()
    commented = text.replace(". . . O O . . .\n", ". . . O O . . .\n# the hole\n", 1)
    assert commented != text and counts(commented) == counts(text) == [("solved", 65, 520)]
    rng = random.Random(5)
    assert {rewrite(text, rng)[1] for _ in range(60)} == {"comment lines", "blank lines", "trailing comments",
                                                          "reordered pieces", "C instead of L",
                                                          "crlf and byte-order mark"}
