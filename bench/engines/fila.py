"""The DLX -> FILA pipeline: the FILA engine, and the hand-off of a DLX branch to FILA.

Source: M. Busche, *FILA* (``shared/reference/fila-article.txt``): solveFila,
selectFila, getImageListSet, POF and NOF.  The kernel is
:mod:`bench.kernels.fila`; the image list sets it searches and the plan
of a solve are built by :mod:`bench.kernels.fila_lists`.

**Pipeline.**  Every solve starts in DLX (:mod:`bench.engines.search`).  When
``fila`` or fewer pieces remain, no DLX item is forced (0 or 1 options), at
most 128 cells are open and at most 64 shapes have pieces left, DLX hands
the branch over: the open cells become
the bits of an occupancy bitfield (one word up to 64 cells, two up to 128,
see :mod:`bench.kernels.bitfield`), the options still in play become FILA's
images, and DLX resumes by backing up once FILA has exhausted the branch.

**Lists.**  Where the pieces above the hand-off fill few cells, every
hand-off searches the whole puzzle's image lists, built once before the
search (:func:`~bench.kernels.fila_lists.shares_lists`); elsewhere each
builds its own, or narrows them from the plan's atlas.  The search and
every counter are the same either way.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import replace

import numpy as np

from bench.engines.autoconfig import choose
from bench.engines.constraints import constrained
from bench.engines.protocol import Cut, Filtered, Limits, Result, Settings, Status, apply_tuning
from bench.engines.search import CompiledEngine, Search, search_result, search_specialization
from bench.engines.variants import CONSTRAINTS, constraint_variant, parse_tuning
from bench.errors import Unsupported, UsageError
from bench.models.tiny import dominoes
from bench.models.tuning import filtered_handoff
from bench.toolchain import warmup
from bench.kernels.codes import (DONE, PAUSED, S_COVERS, S_DEAD, S_LEVEL, S_NODES, S_PROBES, S_TOTAL, S_UNIQUE, S_UPDATES,
                                TRACE)
from bench.kernels.constraints import C_ISOLATED_BT, C_PARITY_BT, C_VOLUME_BT
from bench.kernels.fila import (F_AVAIL, F_CHILD, F_LEVEL, F_PATH, F_PHASE, F_SHARE_J, F_SHARE_N, F_STOP, F_TRACE_KIND,
                                F_TRACE_LEN, F_BASE, F_TODO, FIRST, FORWARD, L_ENTRY, N_FSTATE, NEXT_SHAPE, PATH_END,
                                RESTORE, SIZE, FilaLists, FilaOrder, FilaStack, TriggerArgs, fila_search)
from bench.kernels.fila_lists import (Atlas, Families, Handoff, InPlay, Plan, SharedLists, build_atlas, build_handoff,
                                     build_shared, families, image_halos, make_plan, plan_atlas, plan_shared, rooted,
                                     shared_handoff, words)
from bench.kernels.heuristics import parse_order

MAX_CELLS = 128
MAX_SHAPES = 64


def auto_isolated(order: str) -> int:
    """The isolated-cell trigger of an untuned run under schedule ``order``: at every FILA level under the scan, off
    where ``e`` or ``s`` chooses the hole.

    Under the scan the trigger prunes what the scan meets only when the
    cell comes first (the Meteor puzzle's tree 1.27 M nodes to 0.69 M, as
    the Meteor programs' check of isolated cells does); ``e`` takes a cell
    without open neighbours first and finds no image for it, one node
    later, so there the check at every placement only costs (the planar
    pentacubes in 2x5x6 6 % slower).
    """
    return 0 if any(h.name in ("e", "s") for h in parse_order(order)) else 1


# -- one hand-off -------------------------------------------------------------------------------

REST_SHARES = 2
"""The shares a budget's hand-back cuts the children still to come at a level in (:meth:`FilaRun.hand_back`)."""

# the search's state slots that count (the others say where it is)
COUNTED_SLOTS = np.array([S_NODES, S_UPDATES, S_DEAD, S_COVERS, S_UNIQUE, S_TOTAL, S_PROBES])
def counted(search: Search) -> list[np.ndarray]:
    """Copies of everything ``search`` counts: the counting state slots, attempts, fits, updates and the constraints'."""
    return [search.state[COUNTED_SLOTS], search.attempts.copy(), search.fits.copy(), search.updates_by.copy(),
            search.constraints.counters.copy()]


def handoff_lists(search: Search, plan: Plan, fams: Families, atlas: Atlas | None) -> Handoff:
    """FILA's sub-puzzle of the branch ``search`` is at, for the plan's families ``fams`` uses: its lists narrowed
    from ``atlas``'s where there is one (the same lists, not built again), else built."""
    cover = search.cover
    rows = atlas.rows[fams.used] if atlas is not None else None
    if rows is not None and np.any(rows < 0):
        atlas = rows = None
    in_play = InPlay(cover.n_cells, search.count, search.size, search.sets, search.set_start, search.node_opt,
                     cover.opt_ptr, cover.opt_items)
    return build_handoff(in_play, search.lo, search.hi, plan.geometry, fams.rank, fams.ordered,
                         int(search.constraints.cfg[C_ISOLATED_BT]), atlas, rows)


def shared_families(plan: Plan, shared: SharedLists, p0: int, rooted: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each level's family as ``shared`` lists number them, for hand-offs with ``p0`` pieces left (-1 at DLX's levels
    above, and at the root where the hand-off there is ``rooted``), and the rows of the families used, made once and
    kept in the plan."""
    key = ("shared families", p0, rooted)
    got = plan.built.get(key)
    if got is None:
        below = p0 - 1 if rooted else p0
        fam = shared.atlas.rows[plan.fam]
        # levels above the hand-off are DLX's: no family, so ORDER starts its scan afresh
        fam[below + 1 :] = -1
        got = plan.built[key] = fam, shared.atlas.rows[families(plan, below).used]
    return got


def rooted_kinds(plan: Plan) -> np.ndarray:
    """The plan's selection kinds for FILA at the root: its root level's a scan's, as it branches on a list set given
    (``FilaLists.root``) and keeps no candidates in the fit buffer; made once and kept in the plan."""
    got = plan.built.get("rooted kinds")
    if got is None:
        got = plan.built["rooted kinds"] = plan.kind.copy()
        got[len(got) - 2] = FIRST
    return got


NO_TRIGGER_ARRAYS = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int32),
                     np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.uint8))
"""The shapes' sizes and the volume trigger's scratch space where it is off (as :meth:`FilaRun.constraint_args`
sizes them for no cells), shared by every hand-off: nothing writes them.  The first doubles as the images' parity
where the parity trigger is off."""

NO_HALO = {1: np.zeros(0, dtype=np.uint64), 2: np.zeros((0, 2), dtype=np.uint64)}
"""The halos FILA's kernel takes where its isolated-cell trigger acts by shifts or not at all, by words (shared by
every hand-off: the kernel only reads them)."""


class FilaRun:
    """FILA on the branch a DLX search hands over: the sub-puzzle, its lists and its kernel state.

    **Pieces.**  With a cut (:attr:`Settings.cut`, for the hand-off at the
    end of the search's prefix) the kernel walks the cut's path, placing
    only its options (:func:`~bench.kernels.fila.fila_search`), and counts
    from where the piece starts: the node the path leads to, or for a cut
    with ``after`` the children after that option (the kernel stops at its
    placement, which is taken back before anything below it is counted).
    Everything the search counted until then is dropped when the piece
    ends, the images tried at the node of a cut with ``after`` too unless it
    counts them (``lists``), so the pieces add up.

    **Budget.**  With :attr:`Settings.budget`, once the search has counted
    that many nodes it stops at the next node and hands back the rest of
    this tree (:meth:`hand_back`).
    """

    def __init__(self, search: Search, plan: Plan, totals: dict, shared: SharedLists | None = None, root: int = -1):
        start = time.perf_counter()
        cover = search.cover
        self.search = search
        self.start_nodes = int(search.state[S_NODES])
        level = int(search.state[S_LEVEL])
        self.p0 = search.n_pieces - level
        settings = search.settings
        self.cut = settings.cut if level == search.base else None
        if settings.cut is not None and self.cut is None:
            raise UsageError(f"a cut of FILA's tree needs FILA to take over at the end of its prefix (level "
                             f"{search.base}); it took over at level {level}")
        self.stop = self.cut.stop if self.cut is not None else 0
        self.final = self.cut is not None
        self.handed_back = False
        # where the counting of a cut starts (None: from the hand-off on, as a whole search counts)
        self.before = None
        self.walking = self.cut is not None
        # FILA's kernel function for this hand-off's argument types, once its first slice has looked it up
        self._fila = None
        self.shared = shared is not None
        if shared is not None:
            fam, fam_rows = shared_families(plan, shared, self.p0, root >= 0)
            h, self.avail, n_images, n_entries = shared_handoff(shared, search.count, search.lo, search.hi, fam_rows)
            # the word arrays come 1-D
            lay, nbr, full, vmask, dmask = h.lay, h.nbr, h.full, h.vmask, h.masks
        else:
            # only the list families used from here on
            fams = families(plan, self.p0)
            fam = fams.fam
            # the hand-offs still to come at least: the branches left at DLX's levels above
            end, cur = search.end[:level], search.cur[:level]
            atlas = plan_atlas(cover, plan, lambda: 1 + int((end.astype(np.int64) - cur).sum()))
            h = handoff_lists(search, plan, fams, atlas)
            # every shape of a hand-off's own lists has pieces left
            self.avail = np.uint64((1 << len(h.left)) - 1).view(np.int64)
            lay, nbr, full, vmask, dmask = words(h.lay), words(h.nbr), words(h.full), words(h.vmask), words(h.masks)
            n_images, n_entries = len(h.options), len(h.entry_img)
        n_open, n_local, n_words = h.n_open, h.n_local, h.n_words
        self.n_open, self.n_words = n_open, n_words
        self.img_opt, self.left, self.entry_img = h.options, h.left, h.entry_img
        # the pieces left per shape at the hand-off, for the next piece of this tree (restart)
        self.initial_left = h.left.copy()
        self.n_shapes = len(h.left)
        depth = self.p0 + 1
        self.fstate = np.zeros(N_FSTATE, dtype=np.int64)
        self.fstate[F_PHASE] = FORWARD
        self.fstate[F_AVAIL] = self.avail
        if root >= 0:
            # the root's node, counted and branched here: the kernel starts at its shapes, on the root's list set
            search.state[S_NODES] += 1
            self.fstate[F_PHASE] = NEXT_SHAPE
            self.fstate[F_TODO] = (h.nonempty[root] & np.int64(self.avail).view(np.uint64)).view(np.int64)
            self.fstate[F_BASE] = root * len(h.left)
        # bits that are not open cells start filled
        self.occ_stack = np.zeros((depth + 1,) if n_words == 1 else (depth + 1, n_words), dtype=np.uint64)
        self.occ_stack[0] = ~full[0]
        self.stk = np.zeros((depth, 6), dtype=np.uint64)
        self.fbuf, self.fcount, self.flen = self.fit_buffers(depth, h.fit_cap)
        self.pos_stack = np.zeros(depth, dtype=np.uint64)
        self.prefix = search.chosen[:level].copy()
        self.chosen = np.zeros(level + depth, dtype=np.int32)
        self.path = np.zeros(depth, dtype=np.int32)
        if self.cut is not None:
            self.start_cut(self.cut)
        self.fcons = self.constraint_args(search, level, depth, n_local, h.nb_ptr, h.nb)
        # shifts check a field in one OR per direction; a numbering without few directions, or two words (twice the
        # work per shift, and carries: one-sided 18x5 a third slower), checks the image's few neighbours instead
        shifts = n_words == 1 and len(h.right) > 0
        isolated = isolated_from(search, shifts, h)
        if not isolated or shifts:
            halo = NO_HALO[n_words]
        else:
            halo = shared.halo if shared is not None else words(image_halos(h))
        # the kernel's argument bundles, made once per hand-off
        self.lists = FilaLists(lay, self.entry_img, h.lp, h.ls_base, vmask, nbr, h.right, h.shift_left, dmask, full,
                               h.nonempty, self.img_opt, self.prefix, h.slack, h.spare, self.p0,
                               np.uint64(self.n_shapes), isolated, halo,
                               # with no cell filled above it, every entry is in play: the kernel counts whole lists
                               self.shared and (root >= 0 or n_open < len(shared.atlas.bit_of)), root)
        self.order = FilaOrder(rooted_kinds(plan) if root >= 0 else plan.kind, fam, h.order_cells)
        self.stack = FilaStack(self.fstate, self.occ_stack, self.stk, self.pos_stack, self.fbuf, self.fcount,
                               self.flen, self.left, self.chosen, self.path)
        specialization = fila_specialization(n_words)
        if not warmup.ready(specialization):
            compiled = warmup.spent()
            warmup.ensure([specialization])
            start += warmup.spent() - compiled
        self.totals = totals
        if self.cut is None:
            # a cut's hand-off is its sub-problem's, counted there
            totals["handoffs"] += 1
            # what the hand-off's own lists hold, shared or not: alike however the search was cut
            totals["images"] += n_images
            totals["list_entries"] += n_entries
            totals["geometric"] += n_local == plan.n_box
        totals["max_cells"] = max(totals["max_cells"], n_open)
        totals["words"] = max(totals["words"], n_words)
        totals["setup_seconds"] += time.perf_counter() - start

    def restart(self, cut: Cut) -> None:
        """Search another piece of this tree: from the hand-off's node, down ``cut``'s path."""
        self.fstate[:] = 0
        self.fstate[F_PHASE] = FORWARD
        self.fstate[F_AVAIL] = self.avail
        self.left[:] = self.initial_left
        self.cut = cut
        self.stop = cut.stop
        self.before = None
        self.walking = True
        self.handed_back = False
        self.start_cut(cut)

    def start_cut(self, cut: Cut) -> None:
        """Set the kernel on its way down ``cut``'s path (and, with ``after``, to that option, taken back there)."""
        path = cut.path + ((cut.after,) if cut.after >= 0 else ())
        if len(path) > self.p0 or not path or cut.stop > len(cut.path):
            raise UsageError(f"a cut of FILA's tree below {self.p0} pieces with a path of {len(cut.path)} options "
                             f"(after {cut.after}) and stop {cut.stop} is not one of its pieces")
        self.path[: len(path)] = path
        self.fstate[F_PATH] = len(path)
        self.fstate[F_STOP] = cut.stop

    def fit_buffers(self, depth: int, cap: int) -> tuple:
        """Where the levels keep the fitting images: two halves per level, each of ``cap`` entries (the longest list
        set's)."""
        # the buffer is written before it is read: empty, not zeroed (shared lists' longest set is long)
        return (np.empty(2 * depth * cap, dtype=np.uint64), np.zeros(2 * depth * self.n_shapes, dtype=np.uint64),
                np.zeros(2 * depth * self.n_shapes, dtype=np.uint64))

    def constraint_args(self, search: Search, level: int, depth: int, n_local: int, nb_ptr, nb) -> TriggerArgs:
        """The triggers' arrays for this sub-puzzle: per image parity, per level state, local geometry."""
        cons = search.constraints
        cells = n_local if cons.cfg[C_VOLUME_BT] else 0
        # the region's parity and the monitor state per level, from the hand-off's
        fpar = np.zeros((depth + 1, 2), dtype=np.int64)
        fpar[0] = cons.par_d[level], cons.par_s[level]
        if cons.cfg[C_PARITY_BT]:
            # shared lists' images are the options themselves, in order: no copy
            img_par, img_pstep = ((cons.opt_par, cons.opt_pstep) if self.shared
                                  else (cons.opt_par[self.img_opt], cons.opt_pstep[self.img_opt]))
        else:
            img_par = img_pstep = NO_TRIGGER_ARRAYS[0]
        if cells:
            n_cells = search.cover.n_cells
            # the shapes as the lists number them: every shape in shared lists, those with pieces left in own ones
            size = cons.shape_size if self.shared else cons.shape_size[
                np.flatnonzero(search.hi[n_cells:] > search.count[n_cells:])]
        else:
            # only the volume trigger reads the shapes' sizes, and writes its scratch space
            return TriggerArgs(cons.cfg, cons.par_ok, img_par, img_pstep, fpar, cons.counters, nb_ptr, nb,
                               *NO_TRIGGER_ARRAYS)
        return TriggerArgs(cons.cfg, cons.par_ok, img_par, img_pstep, fpar, cons.counters, nb_ptr, nb,
                           size, np.zeros(cells, dtype=np.int32),
                           np.zeros(cells + 1, dtype=np.int32), np.zeros(cells, dtype=np.int64),
                           np.zeros(max(cells, 1), dtype=np.int32), np.zeros(cells + 1, dtype=np.uint8))

    def slice(self, budget: int) -> int:
        """Run FILA for at most ``budget`` nodes; DONE once the branch (or the piece) is done or handed back."""
        search = self.search
        state = search.state
        if self.walking:
            code = self._kernel(budget, 0)
            if code == TRACE and self.fstate[F_TRACE_KIND] == PATH_END:
                self.begin_piece()
                return PAUSED
            if code == DONE:
                raise UsageError(f"the path {list(self.cut.path)} (after {self.cut.after}) of a cut is not in this "
                                 "tree")
            return code
        trace = 0 if self.cut is not None else search.trace
        end = search.budget_end
        if not end:
            code = self._kernel(budget, trace)
        else:
            # one node at least: the kernel then pauses below the level the piece stops at, where hand_back cuts
            code = self._kernel(max(min(budget, end - int(state[S_NODES])), 1), trace)
            if code == PAUSED and int(state[S_NODES]) >= end:
                self.hand_back()
                code = DONE
        if code == DONE and self.before is not None:
            self.end_piece()
        return code

    def begin_piece(self) -> None:
        """The cut's path is placed: from here on the kernel counts for the piece."""
        self.walking = False
        cut = self.cut
        if cut.after >= 0:
            # the placement of ``after`` is taken back: the node goes on with its next child
            self.fstate[F_LEVEL] = len(cut.path)
            self.fstate[F_PHASE] = RESTORE
            self.fstate[F_PATH] = len(cut.path)
            self.fstate[F_SHARE_J], self.fstate[F_SHARE_N] = cut.share
            self.fstate[F_CHILD] = 0
        else:
            self.fstate[F_PATH] = 0
        self.before = counted(self.search)

    def end_piece(self) -> None:
        """Make what the piece counted the search's counts, and only that."""
        delta = [b - a for a, b in zip(self.before, counted(self.search))]
        if not self.cut.lists:
            delta[1][self.p0 - len(self.cut.path)] = 0
        state, attempts, fits, updates, constraints = delta
        search = self.search
        search.state[COUNTED_SLOTS] = state
        search.attempts[:] = attempts
        search.fits[:] = fits
        search.updates_by[:] = updates
        search.constraints.counters[:] = constraints
        self.before = None

    def hand_back(self) -> None:
        """Stop at the node the kernel paused at and hand back the rest of the tree as three pieces.

        The rest is that node's subtree and the children still to come at
        each level between it and level ``s`` (this run's stop): one
        continuation, down to the node and back up to level ``s + 1``;
        and the children of the level-``s`` node after the one on the
        path, in two shares (of the share this run had of them).  The
        paused node is not counted yet: the continuation counts it.
        """
        fstate = self.fstate
        level = int(fstate[F_LEVEL])
        s = self.stop
        options = tuple(int(self.img_opt[self.entry_img[self.stk[lv, L_ENTRY]]]) for lv in range(level))
        prefix = self.search.path()
        cut = self.cut
        n = cut.share[1] if cut is not None and cut.after >= 0 else 1
        lists = cut.lists if cut is not None else True
        self.handed_back = True
        rest = self.search.rest
        rest.append((prefix, Cut(options, s + 1)))
        # the children after the one on the path that are this run's: every n-th from the (n-1)-th on
        first = n - 1
        for r in range(REST_SHARES):
            rest.append((prefix, Cut(options[:s], s, options[s], (first + n * r, n * REST_SHARES),
                                     lists and r == 0)))

    def cut_here(self) -> Cut:
        """The piece of this tree that is the node the kernel just recorded (a goal's partial cover) and its subtree."""
        level = int(self.fstate[F_LEVEL])
        start = len(self.prefix)
        return Cut(tuple(int(o) for o in self.chosen[start : start + level]), level)

    def _kernel(self, budget: int, trace: int) -> int:
        s = self.search
        args = (self.lists, self.order, self.stack, s.counters, s.matrix, s.symmetry, s.sink, self.fcons, trace, budget)
        # the same types on every slice of a hand-off: its kernel is looked up once
        if self._fila is None:
            self._fila = fila_search.resolve(*args)
        return self._fila(*args)

    def trace_event(self) -> tuple[str, np.ndarray]:
        """The trace event the last slice stopped at: ``place`` or ``remove``, and the options on the board."""
        kind = "place" if self.fstate[F_TRACE_KIND] == 1 else "remove"
        return kind, self.chosen[: self.fstate[F_TRACE_LEN]].copy()


# -- the engine ---------------------------------------------------------------------------------


def fila_specialization(words: int) -> str:
    """The FILA kernel's specialization for bitfields of ``words`` words (:mod:`bench.toolchain.warmup`)."""
    return f"fila{words}"


def default_order(cover, handoff_at: int) -> str:
    """The schedule FILA uses when none is given.

    DLX's ``s`` places the pieces above the hand-off.  In a plain rectangle
    FILA fills left to right (``f``, test case P5); elsewhere (3-D boxes,
    hexagons and triangles, irregular regions) ``e`` picks the tightest hole
    down to the last piece.  The article's tables hand the last three pieces
    to ``f`` (TC4, PT5), but this kernel's ``e`` finds the hole that cannot
    be filled there too, and loses less to it than it saves: the Tetris
    Cube's tree is 48 M nodes and 4.06 s with ``e=11`` against 79 M and
    4.52 s with ``e=11:f=3``, the planar pentacubes' in 3x4x5 2.00 s
    against 2.31 s, the Meteor puzzle's 0.10 s against 0.12 s (the 13x13
    diamond alike within the noise).
    """
    if cover.puzzle.rectangle or handoff_at <= 3:
        return f"{scan_heuristic(cover.puzzle)}={handoff_at}"
    return f"e={handoff_at}"


def default_schedules(cover, handoff_at: int) -> list[str]:
    """The schedules an untuned run chooses among: :func:`default_order` first, then the scan alone where that differs.

    ``e`` costs more per node than the scan, and its list sets hold every
    image at each of its cells where the scan's hold it at its first cell
    only (the 30-ball pyramid: 313,014 entries against 6,332 over its 3
    hand-offs, 3.3 ms of set-up in a search of 4 ms): on small trees and
    where ``e`` barely shrinks the tree the scan is faster
    (:func:`bench.engines.autoconfig.choose` measures which).
    """
    rule = default_order(cover, handoff_at)
    scan = f"{scan_heuristic(cover.puzzle)}={handoff_at}"
    return [rule] if rule == scan else [rule, scan]


def scan_heuristic(puzzle) -> str:
    """The first-open-cell scan FILA's defaults use, the same whichever way the box is drawn.

    ``f`` scans with x slowest and z fastest.  A filling that runs along the
    box's shortest side (a 10x6 rectangle scanned column by column) searches
    a tree ten times smaller than one along its longest side (the same
    rectangle drawn 6x10), so the scan follows :attr:`Puzzle.scan_axes`
    (``f@a,b,c``), as ``f`` would in the box turned that way.
    """
    axes = puzzle.scan_axes
    return "f" if axes == (0, 1, 2) else "f@" + ",".join(map(str, axes))


def with_defaults(cover, settings: Settings) -> Settings:
    """``settings`` with FILA's defaults filled in: hand-off after the first piece, NOF on, :func:`default_order`."""
    n = cover.piece_count
    handoff_at = settings.fila if settings.fila is not None else max(n - 1, 1)
    if not 1 <= handoff_at <= max(n, 1):
        raise UsageError(f"--fila must be between 1 and the number of pieces ({n}), got {handoff_at}")
    order = settings.order if settings.order is not None else default_order(cover, handoff_at)
    if (settings.cut is not None or settings.budget) and (settings.goal or settings.trace):
        raise UsageError("a piece of a search (Settings.cut, Settings.budget) counts whole covers and cannot trace")
    cut = settings.cut
    if cut is not None:
        j, shares = cut.share
        if not (0 <= j < shares and 0 <= cut.stop <= len(cut.path) and (cut.after >= 0 or (cut.path and shares == 1))):
            raise UsageError(f"{cut}: not a piece of FILA's tree (expected 0 <= share < shares, stop <= the path's "
                             "length, and a path or an option to start after)")
    if settings.budget < 0:
        raise UsageError(f"a budget of {settings.budget} nodes: expected 0 (none) or more")
    return replace(settings, fila=handoff_at, nof=True if settings.nof is None else settings.nof, order=order)


def check_cover(cover) -> None:
    """FILA needs cells with coordinates and one piece item per option."""
    if cover.puzzle is None:
        raise Unsupported("fila needs a cover built from a puzzle (cell coordinates); this one has none")
    ptr, items = cover.opt_ptr, cover.opt_items
    last = items[ptr[1:] - 1]
    cells_before = np.ones(len(items), dtype=bool)
    cells_before[ptr[1:] - 1] = False
    if np.any(last < cover.n_cells) or np.any(items[cells_before] >= cover.n_cells):
        raise Unsupported("fila needs options made of cells and exactly one piece item")
    if np.any(cover.item_lo[: cover.n_cells] == 0):
        raise Unsupported("fila fills every open cell, and this puzzle has cells that may stay empty (optional "
                          "cells); its image lists have no way to leave one")


def handoff_words(cover, handoff_at: int) -> set[int]:
    """The bitfield word counts of the hand-offs with ``handoff_at`` pieces left (FILA's kernel specializations).

    The open cells then are the cells of the pieces left, so between the
    ``handoff_at`` smallest and largest pieces' cells (at most that, with
    spare pieces).  A hand-off deeper down (a forced item at the hand-off
    level) may have fewer: its specialization is compiled when it comes.
    """
    key = (cover.hash, handoff_at)
    if key not in _WORDS:
        _WORDS[key] = _handoff_words(cover, handoff_at)
    return set(_WORDS[key])


# handoff_words by cover and hand-off (a split's every piece warms the kernels up again)
_WORDS: dict = {}


def _handoff_words(cover, handoff_at: int) -> set[int]:
    sizes = np.repeat([shape.size for shape in cover.puzzle.shapes], cover.item_hi[cover.n_cells:])
    sizes.sort()
    upper = min(int(sizes[len(sizes) - handoff_at:].sum()), cover.n_cells)
    exact = np.array_equal(cover.item_lo[cover.n_cells:], cover.item_hi[cover.n_cells:])
    lower = int(sizes[:handoff_at].sum()) if exact else 0
    words = {1} if lower <= 64 else set()
    if upper > 64 and lower <= MAX_CELLS:
        words.add(2)
    return words


class FilaEngine(CompiledEngine):
    """The native DLX -> FILA pipeline (see the module docstring)."""

    name = "fila"
    supported = frozenset({"order", "goal", "first_item", "trace", "fila", "nof", "prefix", "bulk_orbits", "cut", "budget", "max_solutions",
                           "node_limit", "time_limit", "auto", "isolated_backtrack"}) | CONSTRAINTS
    PLAIN = frozenset({"sets", "fila1"})
    """The specializations of a plain search (no cover given): up to 64 cells, without in-search constraints."""

    def __init__(self, variant: str = ""):
        self.tuning = parse_tuning(self.name, variant, frozenset({"fila", "nof", "order", "isolated_backtrack"})
                                   | CONSTRAINTS)

    def specializations(self, cover, settings: Settings) -> set[str]:
        """The kernel specializations a solve of ``cover`` under settled ``settings`` runs (:mod:`bench.toolchain.warmup`)."""
        words = handoff_words(cover, settings.fila)
        return {search_specialization(constrained(settings))} | {fila_specialization(w) for w in words}

    @property
    def chooses_configuration(self) -> bool:
        """True unless the variant tunes the engine: an untuned run chooses from estimates (:meth:`configure`)."""
        return not self.tuning

    def configure(self, puzzle, request):
        """With no tuning option at all, the configuration chosen from estimates of each candidate's search.

        The redundancy filter on the piece whose tree the random-path
        estimates price cheapest (:func:`~bench.engines.autoconfig.choose`),
        the hand-off they price cheaper (after the first piece, or the
        second), the schedule a race of the real searches finds faster
        (:func:`default_schedules`) and the one-shot volume filter in 2-D;
        :meth:`settle` then makes the region-dependent choices.  The
        request keeps the :class:`~bench.engines.autoconfig.Choice` for
        ``--info``.
        """
        if request.tuned or puzzle.has_optional_cells:
            # with optional cells, resolve() says FILA cannot run: nothing to choose for it
            return request
        # on a cold cache the estimates build the sampler's library here; meanwhile children build FILA's kernels,
        # which the race of schedules runs next, and DLX's, which the solve's first levels and the split decision run
        warmup.prefetch(["fila1", "sets"])

        # the smallest image of each orbit does not depend on how the piece is drawn, and the Tetris
        # Cube's tree is 8 % smaller with it (with e then f: 478 M attempts against 521 M with L held as drawn)
        method = request.redundancy_method or "orbit"
        choice = choose(puzzle, PIPELINE, method)
        return replace(request, redundancy=choice.piece, redundancy_method=method,
                       volume=request.volume or choice.volume,
                       settings=replace(request.settings, auto=True, fila=choice.handoff, order=choice.order,
                                        isolated_backtrack=auto_isolated(choice.order)),
                       choice=choice)

    def _settle(self, cover, settings: Settings, filtered: Filtered | None) -> Settings:
        """FILA's settings for ``cover``: the variant's tuning, then :func:`with_defaults`.

        An automatic configuration in a region the one-shot volume filter
        shows prone to partition lets DLX filter by volume at every node for
        the first pieces (:func:`~bench.models.tuning.filtered_handoff`).
        """
        check_cover(cover)
        settings = apply_tuning(settings, self.tuning)
        removed = filtered.counters.get("VOLUME_FILTER_ONE_SHOT") if filtered is not None else None
        if settings.auto and removed is not None:
            handoff = filtered_handoff(cover.puzzle, cover.piece_count, filtered.options_before, removed)
            if handoff is not None:
                settings = replace(settings, fila=handoff, volume_filter=handoff)
        return with_defaults(cover, settings)

    def solve(self, cover, settings: Settings = Settings(), limits: Limits = Limits(), on_solutions=None,
              on_trace=None) -> Result:
        """Count (and optionally return) the exact covers of ``cover`` with DLX, then FILA.

        Examples
        --------
        >>> import bench
        >>> [p] = bench.load("defs/pentominoes_20x3.txt")
        >>> r = FilaEngine().solve(bench.Cover.from_puzzle(p, redundancy=True))
        >>> r.status.value, r.covers, r.unique, r.total, r.variant
        ('solved', 2, 2, 8, 'f11/of=11/n1')
        """
        self.check(settings, limits)
        settings = self.settle(cover, settings)
        compile_seconds = warmup.ensure(self.specializations(cover, settings))
        if settings.cut is not None and limits == Limits() and on_solutions is None and on_trace is None:
            t0 = time.perf_counter()
            search = PIECES.solve(cover, settings)
            totals = search.totals
            setup_seconds = time.perf_counter() - t0 - search.solve_seconds - search.late_compile_seconds
        else:
            search, totals, setup_seconds = run_pipeline(cover, settings, limits, on_solutions, on_trace)
        variant = f"f{settings.fila}/o{settings.order}/n{int(settings.nof)}" + constraint_variant(settings)
        return search_result(self.name, variant, search, search.status, search.stats(),
                             {"compile": compile_seconds, "setup": setup_seconds,
                              "fila_setup": totals["setup_seconds"]})

    @staticmethod
    def search(cover, settings: Settings, limits: Limits = Limits(), on_solutions=None, batch: int | None = None):
        """The pipeline's search under resolved ``settings``, ready to run (the splitter runs it to a goal)."""
        return PipelineSearch(cover, settings, limits, on_solutions, batch=batch)


def isolated_from(search: Search, shifts: bool, h: Handoff) -> int:
    """From how many pieces left FILA's isolated-cell trigger acts below hand-off ``h`` (0: off).

    Off where a piece left has a single cell (``h.min_size``), or an image a
    cell without a neighbour in it (``h.hold_together``),
    either of which fills a cell without open neighbours; in an untuned
    run, off too where the hand-off's numbering does not check it by
    ``shifts`` (a word and few directions):
    there each placement's check cost more than the nodes it saved (the
    hexagonal prisms' triangle, numbered without its geometry, 10 % slower
    for a third fewer nodes).
    """
    at = int(search.constraints.cfg[C_ISOLATED_BT])
    if at and search.settings.auto and not shifts:
        return 0
    if at and (h.min_size < 2 or not h.hold_together):
        return 0
    return at


LARGE_TREES = "large trees"
"""The key of :attr:`Plan.built` that says a hand-off on the plan's shared lists searched more than
:data:`LARGE_TREE_NODES` nodes per option of the puzzle: from then on its hand-offs build their own lists."""

LARGE_TREE_NODES = 32
"""Nodes per option of a hand-off's tree past which its own lists pay.

Shared lists save each hand-off the building of its own, about 0.1 ms on
the Soma cube's 688 options, as long as some 20,000 nodes of FILA; they
cost every node the tests of the images over cells filled above the
hand-off (the Tetris Cube's search, a few M nodes a hand-off, 9 % slower).
The tree of the hand-off before, in nodes, tells which weighs more, alike
on every machine, and the counters are the same either way.
"""


ROOT_CELLS = 32
"""The most cells of a puzzle whose FILA takes over at the root where DLX would place one piece first
(:func:`root_branch`): there the whole search runs on shared lists, which pays on small trees only."""


def root_branch(cover, settings: Settings, plan: Plan) -> np.ndarray | None:
    """The options DLX's first level would branch on, where FILA takes over at the root instead; None where it does
    not.

    With the hand-off after one piece, DLX places that piece and hands
    each branch over: the Soma cube's three hand-offs, each its DLX slice,
    its kernel calls and its set-up, a fifth of a search of a millisecond
    and a half.  On a puzzle of at most :data:`ROOT_CELLS` cells FILA takes
    over at the root and branches first on the options DLX's ``s`` would
    choose, those of the first item with the fewest (a single piece's or a
    cell's, :func:`~bench.kernels.fila_lists.rooted`), where DLX would hand
    every branch over (no item forced or dead after it, :func:`_hands_over`)
    and no trigger acts at the hand-off's node: the tree is then the same,
    but for DLX's updates at its level, which FILA does not count.  Not for
    a piece of a split, a forced first item, goals, traces, spare pieces or
    a first item whose branches place identical pieces.
    """
    n = cover.piece_count
    lo, hi = cover.item_lo, cover.item_hi
    if (settings.fila != n - 1 or cover.n_cells > ROOT_CELLS or plan.kind[n] != SIZE or settings.prefix
            or settings.cut is not None or settings.budget or settings.first_item is not None or settings.goal
            or settings.trace or settings.parity_backtrack or settings.volume_backtrack or np.any(lo != hi)):
        return None
    primary = np.flatnonzero(lo > 0)
    size = np.bincount(cover.opt_items, minlength=cover.n_items)
    # DLX's choice: the first item (in item order) of the fewest branches
    item = primary[np.argmin(size[primary] - lo[primary] + 1)]
    if hi[item] != 1:
        return None
    option_of = np.repeat(np.arange(cover.n_options, dtype=np.int32), np.diff(cover.opt_ptr))
    branch = option_of[cover.opt_items == item]
    if not all(_hands_over(cover, option_of, o, settings.isolated_backtrack > 0) for o in branch):
        return None
    return branch


def _hands_over(cover, option_of: np.ndarray, o: int, isolated: bool) -> bool:
    """Whether DLX, having placed option ``o`` first, hands the branch over (every item left with two options or
    more), and, with the isolated-cell trigger, no open cell is left without an open neighbour (FILA checks the
    placement; DLX does not)."""
    items = cover.opt_items[cover.opt_ptr[o] : cover.opt_ptr[o + 1]]
    count = np.zeros(cover.n_items, dtype=np.int64)
    count[items] += 1
    full = count >= cover.item_hi
    out = np.zeros(cover.n_options, dtype=bool)
    out[option_of[full[cover.opt_items]]] = True
    size = np.bincount(cover.opt_items[~out[option_of]], minlength=cover.n_items)
    listed = count < cover.item_hi
    if np.any(size[listed] - (cover.item_lo[listed] - count[listed]) + 1 < 2):
        return False
    if isolated:
        nb_ptr, nb = cover.puzzle.cell_neighbours
        is_open = count[: cover.n_cells] == 0
        open_around = np.add.reduceat(np.append(is_open[nb], False), nb_ptr[:-1]) if len(nb) else np.zeros(0)
        if np.any(is_open & (open_around == 0)):
            return False
    return True


def handoff_totals() -> dict:
    """FILA's totals over a pipeline's hand-offs, all zero (:class:`FilaRun` adds to them)."""
    return {"handoffs": 0, "geometric": 0, "images": 0, "list_entries": 0, "max_cells": 0, "words": 0,
            "setup_seconds": 0.0}


class PipelineSearch(Search):
    """A DLX search whose branches FILA takes over (see the module docstring); its statistics include FILA's.

    ``totals`` are FILA's totals over the hand-offs (:func:`handoff_totals`).
    """

    def __init__(self, cover, settings: Settings, limits: Limits = Limits(), on_solutions=None, on_trace=None,
                 batch: int | None = None, share_lists: bool = True):
        self.plan = make_plan(cover, settings.order, cover.piece_count, settings.fila, settings.nof)
        # the lists every hand-off shares are built here, before the search, where they are shared; not where DLX's
        # filters take options out above a hand-off, which the shared lists would hold (they hold every image over
        # open cells)
        filters = settings.parity_filter or settings.volume_filter or settings.fit_filter
        share_lists = share_lists and not filters
        # from the puzzle and the settings alone, as it changes what is counted where (DLX's updates at its level)
        branch = root_branch(cover, settings, self.plan) if share_lists else None
        compiled = warmup.spent()
        self.shared = (plan_shared(cover, self.plan)
                       if share_lists and (branch is not None or not self.plan.built.get(LARGE_TREES)) else None)
        self.root, self.rooted = -1, None
        if branch is not None and self.shared is not None:
            self.rooted, self.root = rooted(self.shared, branch)
        # a kernel first met building them (a specialization nobody foresaw) compiles here: compile time, not set-up
        self.setup_compile_seconds = warmup.spent() - compiled
        self.totals = handoff_totals()
        self.fila = None
        handoff_at = cover.piece_count if self.root >= 0 else settings.fila
        super().__init__(cover, settings, limits, on_solutions, on_trace, handoff=self.take_over,
                         handoff_at=handoff_at, handoff_cells=MAX_CELLS, handoff_shapes=MAX_SHAPES, batch=batch)

    def run(self) -> Status:
        """:meth:`Search.run`, with the compiling of the set-up counted as the search's late compiling (once)."""
        status = super().run()
        self.late_compile_seconds += self.setup_compile_seconds
        self.setup_compile_seconds = 0.0
        return status

    def take_over(self, search: Search):
        """FILA for the branch at hand (with the budget spent, it searches the branch's node and hands back the rest:
        handing the branch back whole would count the DLX filters at its node twice, here and in its piece)."""
        if self.root >= 0 and int(search.state[S_LEVEL]) == 0:
            self.fila = FilaRun(search, self.plan, self.totals, self.rooted, self.root)
            return self.fila
        last, built = self.fila, self.plan.built
        if last is not None and last.shared and (int(search.state[S_NODES]) - last.start_nodes
                                                 > LARGE_TREE_NODES * len(last.img_opt)):
            built[LARGE_TREES] = True
        self.fila = FilaRun(search, self.plan, self.totals, None if built.get(LARGE_TREES) else self.shared)
        return self.fila

    def restart(self, settings: Settings) -> None:
        """Make this search, which solved a piece, one of the piece ``settings.cut`` of the same branch.

        Nothing is counted yet, and FILA goes on from the branch's node.
        """
        self.settings = settings
        self.state[COUNTED_SLOTS] = 0
        for counts in (self.attempts, self.fits, self.updates_by, self.constraints.counters):
            counts[:] = 0
        fila = self.fila
        self.totals.update(handoff_totals(), max_cells=fila.n_open, words=fila.n_words)
        self.rest = []
        self.budget_end = settings.budget
        self.finishing, self.finished_once = 0, False
        fila.restart(settings.cut)
        self.sub = fila

    def stats(self) -> dict:
        """:meth:`Search.stats` with no-fits, and FILA's totals and probes."""
        stats = super().stats()
        stats["no_fits"] = stats["attempts"] - stats["fits"]
        stats["fila"] = {k: v for k, v in self.totals.items() if k != "setup_seconds"}
        stats["fila"]["probes"] = int(self.state[S_PROBES])
        return stats


class _Pieces:
    """The last pipelines that solved a piece (:attr:`Settings.cut`), by cover and settings but the cut and budget.

    The pieces of one sub-problem hand the same branch over: a worker that
    solves several of them goes on from where the last one stopped (the
    branch handed to FILA, its lists built), restarting FILA only, which
    saves the search's set-up, the prefix's replay and the lists (2 to 5 ms
    on the 10x6, tens on larger boards, where a piece is a few ms).
    """

    def __init__(self, size: int):
        self.size = size
        self.searches: OrderedDict = OrderedDict()

    def solve(self, cover, settings: Settings) -> "PipelineSearch":
        """A search of the piece ``settings.cut`` of ``cover``, run."""
        key = (cover.hash, repr(replace(settings, cut=None, budget=0)))
        search = self.searches.pop(key, None)
        if search is None:
            search = PipelineSearch(cover, settings)
        else:
            search.restart(settings)
        search.status = search.run()
        if search.status == Status.SOLVED:
            self.searches[key] = search
            if len(self.searches) > self.size:
                self.searches.popitem(last=False)
        return search


PIECES = _Pieces(32)


def start_pipeline(cover, settings: Settings, limits: Limits = Limits(), on_solutions=None, on_trace=None,
                   share_lists: bool = True):
    """DLX with hand-offs to FILA under settled ``settings``, ready to run; returns the search and FILA's totals.

    ``share_lists=False``: every hand-off builds its own lists, as the race
    of schedules prices them (:func:`~bench.engines.autoconfig.race_cost`).
    """
    search = PipelineSearch(cover, settings, limits, on_solutions, on_trace, share_lists=share_lists)
    return search, search.totals


def run_pipeline(cover, settings: Settings, limits: Limits, on_solutions=None, on_trace=None):
    """Run DLX with hand-offs to FILA under settled ``settings``; returns the search, FILA totals and set-up seconds."""
    t0 = time.perf_counter()
    search, totals = start_pipeline(cover, settings, limits, on_solutions, on_trace)
    setup_seconds = time.perf_counter() - t0 - search.setup_compile_seconds
    search.status = search.run()
    return search, totals, setup_seconds


class _Pipeline:
    """FILA's pipeline as the automatic configuration races it (:class:`bench.engines.autoconfig.Pipeline`)."""

    @staticmethod
    def schedules(cover, handoff: int) -> list[str]:
        """:func:`default_schedules`."""
        return default_schedules(cover, handoff)

    @staticmethod
    def start(cover, order: str, handoff: int):
        """An untuned pipeline search of ``cover`` with schedule ``order``, its totals and its selection kinds."""
        engine = FilaEngine()
        settings = engine.settle(cover, Settings(fila=handoff, order=order, nof=True,
                                                 isolated_backtrack=auto_isolated(order)))
        engine.warm_up(cover, settings)
        # priced as its cost model was fitted: by the lists each hand-off builds, which shared lists would hide
        search, totals = start_pipeline(cover, settings, share_lists=False)
        return search, totals, make_plan(cover, settings.order, cover.piece_count, handoff, settings.nof).kind


PIPELINE = _Pipeline()
"""What :func:`~bench.engines.autoconfig.choose` races."""

FILA_DOMINOES = {1: 4, 2: 33}
"""The dominoes each FILA specialization's tiny search places: 8 open cells fit one bitfield word, 66 need two."""


def _tiny_fila(x: int) -> None:
    # FILA from the root, its hand-off built from the search's first state: no DLX level runs, so this
    # specialization compiles (or loads) FILA's kernels alone and can be compiled beside ``sets``
    if 2 * x > MAX_CELLS or x > MAX_SHAPES:
        raise ValueError(f"{x} dominoes: more than a hand-off may hold")
    cover = dominoes(x)
    settings = with_defaults(cover, Settings(order="e", fila=x - 1))
    plan = make_plan(cover, settings.order, x, x, settings.nof)
    search = Search(cover, settings, Limits(max_solutions=1), warm=False)
    FilaRun(search, plan, handoff_totals()).slice(1 << 20)
    # the later hand-offs of a real search narrow the plan's atlas: its kernel too
    handoff_lists(search, plan, families(plan, x), build_atlas(cover, plan))
    # and a search whose hand-offs share the whole puzzle's lists
    FilaRun(Search(cover, settings, Limits(max_solutions=1), warm=False), plan, handoff_totals(),
            build_shared(cover, plan)).slice(1 << 20)


for _words, _cost in ((1, 11.3), (2, 12.5)):
    warmup.register(fila_specialization(_words), lambda x=FILA_DOMINOES[_words]: _tiny_fila(x), _cost)
