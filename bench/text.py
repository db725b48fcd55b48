"""Text from users' files made safe to show: one line on a terminal, a cell a spreadsheet takes as text.

File names, piece names and messages that quote them reach the terminal,
the Markdown report and the CSV.  :func:`escape` writes control characters
(an escape sequence that would recolour or clear the terminal, a newline
that would start a line of its own in ``KEY=value`` output) as Python
escapes; :func:`csv_cell` keeps a spreadsheet from reading a cell as a
formula.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula (OWASP's list for CSV injection)."""


def escape(value) -> str:
    """``value`` as text on one line: backslashes and control characters escaped (``\\n``, ``\\x1b``).

    A file or piece name with a newline in it must not start a line of its
    own in ``KEY=value`` output, where it could pass for another key, nor
    an escape sequence reach the terminal.

    >>> escape("a\\nSOLUTIONS=0")
    'a\\\\nSOLUTIONS=0'
    >>> escape("\\x1b[2Jname")
    '\\\\x1b[2Jname'
    """
    text = str(value)
    if text.isprintable() and "\\" not in text:
        return text
    return text.encode("unicode_escape").decode("ascii")


def csv_cell(value):
    """``value`` for a CSV cell: text a spreadsheet would take as a formula gets a ``'`` in front; the rest as is.

    >>> csv_cell("=HYPERLINK(\\"x\\")"), csv_cell("-3"), csv_cell(-3), csv_cell("dlx")
    ('\\'=HYPERLINK("x")', "'-3", -3, 'dlx')
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
