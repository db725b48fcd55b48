"""Reader for polycube 2.0 puzzle definition files.

A file holds one or more puzzles, each a ``D`` directive::

    D:xDim=10:yDim=6:zDim=1[:oneSide[=1]][:lattice=NAME]
    C:name=V:[type=M|S:]layout=0 0 0, 1 0 0, 2 0 0, 2 1 0, 2 2 0
    L[:stationary=S1 S2 ...]
    . Z Z
    . Z .
    Z Z .
    ~L
    ~D

``#`` starts a comment, blank lines between directives are ignored, and a
UTF-8 byte-order mark at the start of the file is skipped.  Every line is
read in Unicode normal form C, so ``Å`` typed as one character or as ``A``
and a combining ring is one piece name; a control, format (zero-width) or
combining character left over is an error naming its line, as it would
draw a piece nobody can see.  A puzzle's drawings and layouts may hold at
most :data:`MAX_BOX_CELLS` cells, as its box.  Inside a layout
every non-blank character is one cell (``.`` is empty), horizontal white
space is ignored, the first drawing line has y = yDim - 1, and 3-D slices are
separated by commas, bottom slice (z = 0) first.  A blank line inside a layout
is an empty drawing row (as in polycube), but a line holding only a comment
is no row at all, and blank lines just before ``~L`` are dropped (they hold
no cell and shift none).  Only stationary pieces are placed where they are
drawn, so a drawing that holds one must show the whole box: exactly yDim
rows, each of zDim slices (a missing row would silently move every row
above it); mobile pieces may be drawn anywhere.

**Lattices.**  ``lattice=`` names the cells (:mod:`bench.models.lattice`):
``cubic`` (the default: every file without the key means what it always
meant), ``hex``, ``triangle``, ``hexprism`` or ``fcc``.  ``hex`` and
``triangle`` need ``zDim=1``; ``oneSide`` needs a flat puzzle (a flat lattice
or ``zDim=1``).  ``C`` layouts give cells in the lattice's coordinates, and a
cell off the lattice is an error.  ``L`` drawings, per lattice (the first line
is always the top row, y or r = yDim - 1):

``hex``: cells ``q r 0``; the k-th non-blank character of a row is q = k.
Leading spaces are ignored, so rows may be indented to show the hexagons::

    D:xDim=3:yDim=2:zDim=1:lattice=hex
    C:name=a:layout=0 0 0, 1 0 0, 0 1 0
    L
     . b b
    . . b
    ~L
    ~D

``triangle``: cells ``x y t`` (t = 0 the up triangle of rhombus (x, y), t = 1
the down one); the k-th character of a row is x = k // 2, t = k % 2, so a row
reads up, down, up, down::

    D:xDim=2:yDim=1:zDim=1:lattice=triangle
    L
    a a b b
    ~L
    ~D

``hexprism``: cells ``q r z``; hex rows as above, layers separated by commas
as cubic slices::

    D:xDim=2:yDim=1:zDim=2:lattice=hexprism
    L
    a b, a b
    ~L
    ~D

``fcc``: cells ``x y z`` with x + y + z even; layers separated by commas, and
a row y of layer z shows only the lattice points: the k-th character is
x = 2k + (y + z) % 2 (odd rows are drawn one space in)::

    D:xDim=3:yDim=2:zDim=2:lattice=fcc
    L
     a , b b
    a a,  b
    ~L
    ~D

Every malformed input raises :class:`~bench.errors.DefinitionError` carrying
the file, the line and what was expected.  This module checks syntax only; the
geometric checks (stationary pieces inside the box and disjoint, enough piece
volume) happen when a :class:`~bench.models.puzzle.Puzzle` is built.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.errors import DefinitionError, UsageError
from bench.system.files import read_input
from bench.models.graph import BoardGraph, parse_graph
from bench.models.lattice import CUBIC, Lattice, get_lattice

RESERVED_NAMES = frozenset({".", "#"})
MAX_BOX_CELLS = 1_000_000
MAX_COORDINATE = 1_000_000
STDIN_NAME = "<stdin>"
BYTE_ORDER_MARK = "\ufeff"

_POSITIVE_INT = re.compile(r"^[0-9]+$")
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")
"""ASCII control characters that are no white space (``str.isspace`` counts tab, VT, FF and \\x1c-\\x1f)."""
_SIGNED_INT = re.compile(r"^[+-]?[0-9]+$")


MOTIONS = ("all", "turns", "upright", "fixed")
"""What a piece may do (``motions=``): every motion the puzzle allows, turns only (never turned over), never on its
side (the z axis stays vertical, in 3-D), nothing but translations."""
UNCOLOURED = "."


@dataclass(frozen=True)
class PieceDefinition:
    """One piece as written in the file.

    ``cells`` are the coordinates as drawn or listed (mobile pieces are
    normalized later); ``line`` is where the piece was defined.  A mobile
    piece may carry ``copies`` (``(lo, hi)``, hi None for ``*``: as many as
    fit), ``motions`` (one of :data:`MOTIONS`) and ``colours`` (one name per
    cell, :data:`UNCOLOURED` for none); ``optional`` marks board cells that
    may stay empty (``type=O``, or ``L:optional=``), which are no piece.
    """

    name: str
    cells: tuple[tuple[int, int, int], ...]
    stationary: bool
    line: int
    copies: tuple[int, int | None] | None = None
    motions: str | None = None
    colours: tuple[str, ...] | None = None
    optional: bool = False

    @property
    def plain(self) -> bool:
        """A piece as polycube has them: no colours, the puzzle's motions (copies aside)."""
        return self.colours is None and self.motions in (None, "all")


@dataclass(frozen=True)
class PuzzleDefinition:
    """One ``D`` directive: the box, the piece list and where it came from."""

    path: str
    line: int
    end_line: int
    index: int
    dims: tuple[int, int, int]
    one_side: bool
    pieces: tuple[PieceDefinition, ...]
    lattice: Lattice = CUBIC
    board_colours: tuple[tuple[tuple[int, int, int], str, int], ...] = ()
    """``(cell, colour, line)`` for every coloured cell of the board (``K`` directives)."""
    wrap: str = ""
    """The axes along which the board wraps round (``x``: a cylinder, ``xy``: a torus): ``D:...:wrap=xy``."""
    graph: BoardGraph | None = None
    """The board as an explicit graph of cells and labelled edges (a ``G`` block), or None for the box."""

    @property
    def label(self) -> str:
        """``path`` for a single-puzzle file position 1, else ``path#index``."""
        return self.path if self.index == 1 else f"{self.path}#{self.index}"


def read_text(path: str | Path) -> tuple[str, str]:
    """Read a definition file (``-`` is standard input) as text: a regular file, of bounded size (:func:`~bench.system.files.read_input`).

    Returns
    -------
    (display_name, text)
    """
    path = str(path)
    name = STDIN_NAME if path == "-" else path
    data = read_input(path, "definition file")
    try:
        return name, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DefinitionError(name, line, "the file is not UTF-8 text") from None


def parse_file(path: str | Path) -> list[PuzzleDefinition]:
    """Parse every puzzle of one definition file (``-`` reads standard input)."""
    name, text = read_text(path)
    return parse_text(text, name)


def parse_text(text: str, path: str = "<string>") -> list[PuzzleDefinition]:
    """Parse definition text; ``path`` is used in error messages only.

    Examples
    --------
    >>> defs = parse_text('''
    ... D:xDim=2:yDim=1:zDim=1
    ... C:name=d:layout=0 0 0, 1 0 0
    ... ~D''')
    >>> defs[0].dims, defs[0].pieces[0].name
    ((2, 1, 1), 'd')
    """
    return _Parser(path).parse(text.removeprefix(BYTE_ORDER_MARK))


def _strip_comment(line: str) -> str:
    cut = line.find("#")
    if cut >= 0:
        line = line[:cut]
    return line.strip()


class _Parser:
    def __init__(self, path: str):
        self.path = path
        # a lattice description named by a definition file lies beside it (standard input: the working folder)
        self.folder = Path(path).parent if path not in ("-", "<stdin>") else Path(".")

    def error(self, line: int, message: str) -> DefinitionError:
        return DefinitionError(self.path, line, message)

    def visible(self, lineno: int, line: str) -> str:
        """``line`` in normal form C, its content (before any comment) checked for characters nobody can see."""
        if line.isascii():
            content = line.split("#", 1)[0]
            bad = _ASCII_CONTROL.search(content)
            if bad:
                raise self.error(lineno, _invisible(bad.group()))
            return line
        line = unicodedata.normalize("NFC", line)
        for ch in line.split("#", 1)[0]:
            if not ch.isascii() and not ch.isspace() and unicodedata.category(ch)[0] in "CM" and \
                    unicodedata.category(ch) not in ("Co", "Cn"):
                raise self.error(lineno, _invisible(ch))
        return line

    def count_cells(self, lineno: int, n: int) -> None:
        """Add ``n`` drawn or listed cells to the puzzle's; more than a box may hold is refused at this line."""
        self.cells += n
        if self.cells > MAX_BOX_CELLS:
            raise self.error(lineno, f"the puzzle's drawings and layouts hold more than the {MAX_BOX_CELLS:,} cells "
                                     "a box may have; expected a smaller puzzle")

    # -- top level -----------------------------------------------------------

    def parse(self, text: str) -> list[PuzzleDefinition]:
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if lines[-1] == "":
            lines.pop()
        lines = [self.visible(n, line) for n, line in enumerate(lines, start=1)]
        puzzles: list[PuzzleDefinition] = []
        i = 0
        while i < len(lines):
            lineno = i + 1
            content = _strip_comment(lines[i])
            i += 1
            if not content:
                continue
            directive = content.split(":", 1)[0].strip()
            if directive == "D":
                puzzle, i = self.parse_puzzle(lines, i, lineno, content, len(puzzles) + 1)
                puzzles.append(puzzle)
            elif directive in ("C", "L", "~D", "~L"):
                raise self.error(lineno, f"'{directive}' outside a puzzle; expected a 'D:xDim=..:yDim=..:zDim=..' line first")
            else:
                raise self.error(lineno, f"unknown directive '{_clip(directive)}'; expected 'D:xDim=..:yDim=..:zDim=..'")
        if not puzzles:
            raise self.error(max(1, len(lines)), "no puzzle found; expected at least one 'D:xDim=..:yDim=..:zDim=..' ... '~D' block")
        return puzzles

    # -- D directive ---------------------------------------------------------

    def parse_puzzle(self, lines, i, lineno, header, index):
        dims, one_side, lattice, wrap = self.parse_d_header(lineno, header)
        self.cells = 0
        pieces: list[PieceDefinition] = []
        names: dict[str, int] = {}
        properties: list[tuple[int, dict]] = []
        colours: list[tuple[tuple[int, int, int], str, int]] = []
        graph = None

        def add(piece: PieceDefinition) -> None:
            if piece.name in names:
                raise self.error(piece.line, f"duplicate piece name '{piece.name}' (first defined on line {names[piece.name]}); expected each piece to have its own name")
            names[piece.name] = piece.line
            pieces.append(piece)

        while i < len(lines):
            here = i + 1
            content = _strip_comment(lines[i])
            i += 1
            if not content:
                continue
            directive = content.split(":", 1)[0].strip()
            if content == "~D":
                pieces = self.apply_properties(pieces, properties, dims)
                return PuzzleDefinition(self.path, lineno, here, index, dims, one_side, tuple(pieces), lattice,
                                        tuple(colours), wrap, graph), i
            if directive == "C":
                add(self.parse_c(here, content, lattice))
            elif directive == "P":
                properties.append((here, self.parse_attributes(here, content, ("name", "copies", "motions"))))
            elif directive == "K":
                cells, i = self.parse_colours(lines, i, here, content, dims, lattice)
                colours.extend(cells)
            elif directive == "L":
                layout, i = self.parse_layout(lines, i, here, content, dims, lattice)
                for piece in layout:
                    add(piece)
            elif directive == "G":
                if graph is not None or wrap:
                    raise self.error(here, "a second board: the puzzle has a " + ("G block" if graph else f"wrap={wrap}")
                                           + " already; expected one G block, and no wrap= beside it")
                graph, i = self.parse_graph(lines, i, here, content, dims, lattice)
            elif directive == "D":
                raise self.error(here, f"missing '~D': the puzzle begun on line {lineno} is still open")
            elif directive in ("~L", "~K", "~G"):
                raise self.error(here, f"'{directive}' without a matching '{directive[1:]}' directive")
            elif directive.startswith("~"):
                raise self.error(here, f"unknown terminator '{_clip(content)}'; expected '~D' alone on its line")
            else:
                raise self.error(here, f"unknown directive '{_clip(directive)}'; expected 'C:', 'L', 'P:', 'K', 'G' or "
                                       "'~D' inside a puzzle")
        raise self.error(max(1, len(lines)), f"missing '~D': the puzzle begun on line {lineno} is never closed")

    def parse_attributes(self, lineno, header, allowed, flags=()):
        """Split ``N:a=1:b=2`` into a dict; ``flags`` may appear without a value."""
        attrs: dict[str, str] = {}
        for part in header.split(":")[1:]:
            part = part.strip()
            if not part:
                raise self.error(lineno, "empty attribute between ':' separators; expected name=value")
            key, eq, value = part.partition("=")
            key, value = key.strip(), value.strip()
            if key not in allowed:
                expected = ", ".join(allowed)
                raise self.error(lineno, f"unknown attribute '{_clip(key)}'; expected one of: {expected}")
            if key in attrs:
                raise self.error(lineno, f"attribute '{key}' given twice")
            if not eq:
                if key not in flags:
                    raise self.error(lineno, f"attribute '{key}' has no value; expected {key}=...")
                value = "1"
            attrs[key] = value
        return attrs

    def parse_d_header(self, lineno, header):
        attrs = self.parse_attributes(lineno, header, ("xDim", "yDim", "zDim", "oneSide", "lattice", "wrap"), flags=("oneSide",))
        try:
            lattice = get_lattice(attrs.get("lattice", CUBIC.name), self.folder)
        except UsageError as exc:
            raise self.error(lineno, str(exc)) from None
        dims = []
        for key in ("xDim", "yDim", "zDim"):
            if key not in attrs:
                raise self.error(lineno, f"missing attribute '{key}'; expected D:xDim=X:yDim=Y:zDim=Z with positive integers")
            value = attrs[key]
            if not _POSITIVE_INT.match(value) or int(value) <= 0:
                raise self.error(lineno, f"{key}={_clip(value)} is not a positive integer")
            dims.append(int(value))
        if lattice.flat and dims[2] != 1:
            raise self.error(lineno, f"the {lattice.name} lattice is two-dimensional, but zDim={dims[2]}; expected zDim=1")
        # Python's integers: numpy's product wraps past 2**63 (10**9 cubed came out small enough to pass)
        volume = math.prod(lattice.grid_shape(dims))
        if volume > MAX_BOX_CELLS:
            raise self.error(lineno, f"a {dims[0]}x{dims[1]}x{dims[2]} box has {volume:,} cells, more than the supported {MAX_BOX_CELLS:,}")
        one_side = False
        if "oneSide" in attrs:
            value = attrs["oneSide"]
            if value not in ("0", "1"):
                raise self.error(lineno, f"oneSide={_clip(value)}; expected oneSide, oneSide=1 or oneSide=0")
            one_side = value == "1"
        if one_side and dims[2] != 1:
            raise self.error(lineno, f"oneSide needs a 2-D puzzle (zDim=1), but zDim={dims[2]}")
        wrap = attrs.get("wrap", "")
        if wrap:
            if wrap not in ("x", "y", "xy"):
                raise self.error(lineno, f"wrap={_clip(wrap)}; expected wrap=x or wrap=y (a cylinder) or wrap=xy (a torus)")
            short = [f"{a}Dim={dims['xy'.index(a)]}" for a in wrap if dims["xy".index(a)] < 3]
            if short:
                raise self.error(lineno, f"wrap={wrap} round {', '.join(short)}; expected at least 3 cells round "
                                         "(with fewer a cell would touch itself or one cell twice)")
            self.check_wrap(lineno, lattice, dims, wrap)
        return tuple(dims), one_side, lattice, wrap

    def check_wrap(self, lineno, lattice, dims, wrap):
        """Refuse a wrap whose glued sides would join unlike cells, or make a cell touch itself or one cell twice."""
        for a in wrap:
            axis = "xy".index(a)
            period = lattice.period(axis)
            if dims[axis] % period:
                raise self.error(lineno, f"wrap={wrap} round {a}Dim={dims[axis]} on the {lattice.name} lattice: its cells "
                                         f"repeat along {lattice.axes[axis]} only every {period} steps, so the glued sides "
                                         f"would join unlike cells; expected {a}Dim a multiple of {period}")
        periods = np.array([dims[k] if "xyz"[k] in wrap else 0 for k in range(3)], dtype=np.int64)
        for t, (labels, offsets) in enumerate(zip(lattice.labels, lattice.type_offsets)):
            # a step that is a whole number of turns round, or two steps that differ by one: the cell touches itself,
            # or one cell twice
            rounded = np.where(periods > 0, np.mod(offsets, np.maximum(periods, 1)), offsets)
            keys = [tuple(r) for r in rounded.tolist()]
            for i, key in enumerate(keys):
                j = keys.index(key)
                if not any(key) or j < i:
                    what = "itself" if not any(key) else f"one cell twice (labels {labels[j]} and {labels[i]})"
                    raise self.error(lineno, f"wrap={wrap} round {'x'.join(str(d) for d in dims[:2])}: a "
                                             f"{lattice.types[t]} cell would touch {what}; expected a larger box round")

    # -- C directive ---------------------------------------------------------

    def parse_c(self, lineno, content, lattice):
        attrs = self.parse_attributes(lineno, content, ("name", "type", "copies", "motions", "colours", "layout"))
        if "name" not in attrs or not attrs["name"]:
            raise self.error(lineno, "missing piece name; expected C:name=N:[type=M|S|O:]layout=x y z, ...")
        name = attrs["name"]
        self.check_name(lineno, name)
        kind = attrs.get("type", "M")
        if kind not in ("M", "S", "O"):
            raise self.error(lineno, f"type={_clip(kind)}; expected type=M (mobile), type=S (stationary) or type=O "
                                     "(optional cells of the board)")
        if kind != "M":
            extra = [key for key in ("copies", "motions", "colours") if key in attrs]
            if extra:
                raise self.error(lineno, f"{extra[0]}= belongs to mobile pieces (type=M), not to type={kind}")
        if "layout" not in attrs:
            raise self.error(lineno, f"piece '{name}' has no layout; expected layout=x y z, x y z, ...")
        cells = []
        seen = set()
        text = attrs["layout"]
        if not text.strip():
            raise self.error(lineno, f"piece '{name}' is empty; expected at least one 'x y z' triple")
        triples = text.split(",")
        self.count_cells(lineno, len(triples))
        for triple in triples:
            parts = triple.split()
            if len(parts) != 3 or not all(_SIGNED_INT.match(p) for p in parts):
                raise self.error(lineno, f"'{_clip(triple.strip())}' in the layout of '{name}' is not a coordinate; expected three integers 'x y z' separated by spaces, triples separated by commas")
            cell = tuple(int(p) for p in parts)
            if any(abs(v) > MAX_COORDINATE for v in cell):
                raise self.error(lineno, f"coordinate {cell} of '{name}' is out of range; expected values within +-{MAX_COORDINATE:,}")
            if cell in seen:
                raise self.error(lineno, f"piece '{name}' lists cell {' '.join(map(str, cell))} twice")
            seen.add(cell)
            cells.append(cell)
        # one check for all cells: a piece may list thousands
        off = np.flatnonzero(~lattice.valid(np.array(cells, dtype=np.int64)))
        if len(off):
            cell = cells[int(off[0])]
            raise self.error(lineno, f"cell ({' '.join(map(str, cell))}) is not on the {lattice.name} lattice; expected {lattice.off_lattice_rule}")
        tints = None
        if "colours" in attrs:
            tints = tuple(attrs["colours"].split())
            if len(tints) != len(cells):
                raise self.error(lineno, f"piece '{name}' has {len(cells)} cells but {len(tints)} colours; expected "
                                         f"one colour per cell of the layout, in its order ({UNCOLOURED} for none)")
            if all(t == UNCOLOURED for t in tints):
                tints = None
        return PieceDefinition(name, tuple(cells), kind == "S", lineno, self.copies(lineno, attrs),
                               self.motions(lineno, attrs), tints, kind == "O")

    def copies(self, lineno, attrs):
        """``copies=K``, ``copies=A..B`` or ``copies=*`` as ``(lo, hi)`` (hi None for ``*``); None when not given."""
        if "copies" not in attrs:
            return None
        text = attrs["copies"]
        if text == "*":
            return (0, None)
        low, dots, high = text.partition("..")
        if not dots:
            low = high = text
        if not _POSITIVE_INT.match(low) or not (_POSITIVE_INT.match(high) or (dots and high == "*")):
            raise self.error(lineno, f"copies={_clip(text)}; expected a count (copies=2), a range (copies=0..3, "
                                     "copies=1..*) or copies=* (any number)")
        lo, hi = int(low), None if high == "*" else int(high)
        if hi is not None and (hi < lo or hi == 0):
            raise self.error(lineno, f"copies={text}; expected lo..hi with lo <= hi and hi >= 1")
        return (lo, hi)

    def motions(self, lineno, attrs):
        """``motions=`` checked; None when not given."""
        if "motions" not in attrs:
            return None
        if attrs["motions"] not in MOTIONS:
            raise self.error(lineno, f"motions={_clip(attrs['motions'])}; expected one of {', '.join(MOTIONS)}")
        return attrs["motions"]

    def apply_properties(self, pieces, properties, dims):
        """The pieces with their ``P:`` lines applied (copies and motions of drawn pieces)."""
        from dataclasses import replace

        by_name = {p.name: k for k, p in enumerate(pieces)}
        pieces = list(pieces)
        done: dict[str, int] = {}
        for lineno, attrs in properties:
            name = attrs.get("name")
            if not name:
                raise self.error(lineno, "missing piece name; expected P:name=N[:copies=..][:motions=..]")
            if name not in by_name or pieces[by_name[name]].stationary or pieces[by_name[name]].optional:
                raise self.error(lineno, f"P:name={_clip(name)}: no mobile piece of that name in this puzzle")
            if name in done:
                raise self.error(lineno, f"piece '{name}' already has a P: line (line {done[name]})")
            done[name] = lineno
            piece = pieces[by_name[name]]
            changes = {}
            for key in ("copies", "motions"):
                if key in attrs:
                    if getattr(piece, key) is not None:
                        raise self.error(lineno, f"piece '{name}' already gives {key}= on line {piece.line}")
                    changes[key] = getattr(self, key)(lineno, attrs)
            pieces[by_name[name]] = replace(piece, **changes)
        return pieces

    def parse_colours(self, lines, i, lineno, header, dims, lattice):
        """A ``K`` directive: board colours, listed (``K:colour=C:layout=x y z, ...``) or drawn (``K`` ... ``~K``)."""
        attrs = self.parse_attributes(lineno, header, ("colour", "layout"))
        if attrs:
            if "colour" not in attrs or "layout" not in attrs:
                raise self.error(lineno, "expected K:colour=C:layout=x y z, ... (or K alone, then a drawing and ~K)")
            colour = attrs["colour"]
            if not colour or colour == UNCOLOURED or any(ch.isspace() for ch in colour):
                raise self.error(lineno, f"colour={_clip(colour)}; expected a colour name without white space")
            listed = self.parse_c(lineno, f"C:name=K:type=S:layout={attrs['layout']}", lattice)
            return [(cell, colour, lineno) for cell in listed.cells], i
        rows, i = self.drawing_rows(lines, i, lineno, "~K", "colour drawing")
        while rows and not rows[-1][1]:
            rows.pop()
        self.check_whole_box(lineno, rows, dims, "colour drawing")
        cells = []
        for row_index, (ln, slices) in enumerate(rows):
            y = dims[1] - 1 - row_index
            for z, tokens in enumerate(slices):
                for k, ch in enumerate(tokens):
                    if ch != UNCOLOURED:
                        cells.append((lattice.drawn_cell(y, z, k), ch, ln))
        return cells, i

    def parse_graph(self, lines, i, lineno, header, dims, lattice):
        """A ``G`` block: the board as cells and labelled edges (:mod:`bench.models.graph`)."""
        attrs = self.parse_attributes(lineno, header, ("links",))
        links = attrs.get("links", "")
        if links not in ("", "lattice"):
            raise self.error(lineno, f"links={_clip(links)}; expected links=lattice (join listed cells that touch on "
                                     "the lattice) or no links=")
        rows = []
        while i < len(lines):
            here = i + 1
            content = _strip_comment(lines[i])
            i += 1
            if content == "~G":
                return parse_graph(self.path, rows, lineno, bool(links), dims, lattice), i
            if content in ("~D", "~L", "~K"):
                raise self.error(here, f"missing '~G': the graph begun on line {lineno} is still open at '{content}'")
            if content:
                self.count_cells(here, content.count(",") + 1)
                rows.append((here, content))
        raise self.error(max(1, len(lines)), f"missing '~G': the graph begun on line {lineno} is never closed")

    def drawing_rows(self, lines, i, lineno, end, what):
        """The rows of a drawing begun on line ``lineno``, up to ``end`` (``~L``, ``~K``): ``(rows, next line)``.

        A row is ``(line, slices)``, each slice its cells' characters; a
        line holding only a comment is no row, a blank line an empty one.
        """
        rows: list[tuple[int, list[list[str]]]] = []
        while i < len(lines):
            here = i + 1
            raw = lines[i]
            i += 1
            content = _strip_comment(raw)
            if not content and raw.strip():
                continue  # a comment line: not a drawing row
            if content == end:
                return rows, i
            if content in ("~D", "~L", "~K"):
                raise self.error(here, f"missing '{end}': the {what} begun on line {lineno} is still open at "
                                       f"'{content}'")
            slices = [[ch for ch in part if not ch.isspace()] for part in content.split(",")] if content else []
            self.count_cells(here, sum(map(len, slices)))
            rows.append((here, slices))
        raise self.error(max(1, len(lines)), f"missing '{end}': the {what} begun on line {lineno} is never closed")

    def check_name(self, lineno, name):
        if name in RESERVED_NAMES:
            raise self.error(lineno, f"the piece name '{name}' is reserved; choose another name")
        if any(ch.isspace() for ch in name) or "," in name:
            raise self.error(lineno, f"piece name '{_clip(name)}' contains white space or a comma; expected a name without them")

    # -- L directive ---------------------------------------------------------

    def parse_layout(self, lines, i, lineno, header, dims, lattice):
        attrs = self.parse_attributes(lineno, header, ("stationary", "optional"))
        stationary = attrs.get("stationary", "").split()
        optional = attrs.get("optional", "").split()
        for name in stationary + optional:
            if name in RESERVED_NAMES:
                raise self.error(lineno, f"the piece name '{name}' is reserved; choose another name")
        if len(set(stationary)) != len(stationary):
            raise self.error(lineno, "a stationary piece is listed twice")
        if len(set(optional)) != len(optional) or set(optional) & set(stationary):
            raise self.error(lineno, "a name is listed twice in stationary= and optional=")
        rows, i = self.drawing_rows(lines, i, lineno, "~L", "layout")
        return self.layout_pieces(lineno, rows, stationary, dims, lattice, optional), i

    def check_whole_box(self, lineno, rows, dims, what="drawing of stationary pieces"):
        """A drawing with stationary pieces places them by their rows and slices: it must show the whole box."""
        if len(rows) != dims[1]:
            raise self.error(lineno, f"the {what} has {len(rows)} rows but yDim={dims[1]}; "
                                     f"expected one row per y, the first y = {dims[1] - 1} (a comment line is no row)")
        for ln, slices in rows:
            if slices and len(slices) != dims[2]:
                raise self.error(ln, f"this row of a {what} has {len(slices)} slices but "
                                     f"zDim={dims[2]}; expected {dims[2]} comma-separated slices, bottom first")

    def layout_pieces(self, lineno, rows, stationary, dims, lattice, optional=()):
        while rows and not rows[-1][1]:
            rows.pop()
        if stationary or optional:
            self.check_whole_box(lineno, rows, dims, "drawing of stationary pieces" if stationary else
                                 "drawing of optional cells")
        common = None
        for row_index, (ln, slices) in enumerate(rows):
            if not slices:
                continue
            y = dims[1] - 1 - row_index
            widths = [len(s) for s in slices]
            if len(slices) > dims[2]:
                raise self.error(ln, f"the drawing has {len(slices)} slices but zDim={dims[2]}; expected at most {dims[2]} comma-separated slices")
            extents = [set(lattice.row_extents(y, z, n)) for z, n in enumerate(widths)]
            if common is None:
                first_line, shape, common = ln, widths, extents
            elif len(extents) != len(common) or not all(a & b for a, b in zip(extents, common)):
                raise self.error(ln, f"ragged drawing row: slice widths {widths} differ from {shape} on line {first_line}; expected every row to have the same slices of the same width{lattice.drawing_hint}")
            else:
                common = [a & b for a, b in zip(extents, common)]
        cells: dict[str, list[tuple[int, int, int]]] = {}
        first_seen: dict[str, int] = {}
        for row_index, (ln, slices) in enumerate(rows):
            y = dims[1] - 1 - row_index
            for z, tokens in enumerate(slices):
                for k, ch in enumerate(tokens):
                    if ch == ".":
                        continue
                    cells.setdefault(ch, []).append(lattice.drawn_cell(y, z, k))
                    first_seen.setdefault(ch, ln)
        for name in stationary + list(optional):
            if name not in cells:
                raise self.error(lineno, f"{'stationary piece' if name in stationary else 'optional cells'} "
                                         f"'{_clip(name)}' does not appear in the drawing; expected its cells in the layout")
        return [PieceDefinition(name, tuple(cells[name]), name in stationary, first_seen[name], optional=name in optional)
                for name in cells]


def _invisible(ch: str) -> str:
    """What is wrong with a character nobody sees drawn (:meth:`_Parser.visible`)."""
    kind = ("combining character" if unicodedata.category(ch)[0] == "M" else
            "invisible character" if unicodedata.category(ch) == "Cf" else "control character")
    name = unicodedata.name(ch, "")
    return (f"{kind} U+{ord(ch):04X}{f' ({name})' if name else ''}"
            + (" that combines with no character before it" if kind == "combining character" else "")
            + "; expected visible characters (piece names and cells are what is drawn)")


def _clip(text: str, width: int = 40) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 3] + "..."
