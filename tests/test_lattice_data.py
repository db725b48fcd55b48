"""Lattices as data: the built-in lattices read from their descriptions, new lattices, malformed descriptions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

import bench
from bench import Cover
from bench.engines import get_engine
from bench.models.expected import expected_for
from bench.models.lattice import LATTICES
from support import DATA, DEFS, ROOT, available_engines, lattice_reference
from support.strategies import tiled_puzzles

# the native engines and the solver encodings; model counting (ganak) has its own tests and is slow here
ENGINES = sorted({"dlx", "fila", "cpsat", "sat"} & set(available_engines()))

PINS = json.loads((ROOT / "tests" / "lattice_pins.json").read_text())
"""Per puzzle of every bundled and test definition, with and without ``--mirror``: the cover hashes without and with
the redundancy filter, the group order, each shape's orientation count, the image count and the lattice's motion
count, as the hand-written lattice classes computed them (4c79b7a), before the lattices became data."""


@pytest.mark.parametrize("name", sorted({key.split("#")[0] for key in PINS}))
def test_every_definition_keeps_its_covers_groups_and_orientations(name):
    for mirror in (False, True):
        for i, p in enumerate(bench.load(ROOT / name, mirror=mirror), 1):
            key = f"{name}#{i}" + (" mirror" if mirror else "")
            got = {"plain": Cover.from_puzzle(p).hash, "filtered": Cover.from_puzzle(p, redundancy=True).hash,
                   "group": p.group.order, "orientations": [len(s.orientations) for s in p.shapes],
                   "images": len(p.images), "motions": len(p.lattice.motions)}
            assert got == PINS[key], key


# -- new lattices: free polyforms grown from one cell against the published counts ------------------------------

FREE_COUNTS = {
    # OEIS A197465, free tetrakis polyaboloes, holes allowed (polyaboloes, A006074: 1, 3, 4, 14, 30, 107, are not all
    # sets of tetrakis cells: of the 3 diaboloes the parallelogram is not, of the 4 triaboloes 2 are not)
    "tetrakis": [1, 2, 2, 6, 8, 22],
    # OEIS A343909, polyforms of the tetrahedral-octahedral honeycomb up to rigid motions and reflections, a(1..6)
    "tetraocta": [2, 1, 4, 9, 44, 195],
}


def free_polyforms(lattice, n_max: int) -> list[int]:
    """How many connected sets of n cells there are up to every motion of the lattice, n = 1 .. n_max."""
    every = range(len(lattice.motions))

    def key(cells):
        return min(lattice.normalize(lattice.apply(m, cells)).tobytes() for m in every)

    level = {key(np.array([rep])): np.array([rep]) for rep in lattice._reps}
    counts = [len(level)]
    for _ in range(n_max - 1):
        grown = {}
        for cells in level.values():
            around = lattice.neighbours(cells).reshape(-1, 3)
            around = around[lattice.valid(around)]
            have = {tuple(c) for c in cells.tolist()}
            for cell in {tuple(c) for c in around.tolist()} - have:
                bigger = np.vstack([cells, [cell]])
                grown.setdefault(key(bigger), bigger)
        level = grown
        counts.append(len(level))
    return counts


@pytest.mark.parametrize("name", sorted(FREE_COUNTS))
def test_new_lattices_grow_their_published_free_polyform_counts(name):
    assert free_polyforms(LATTICES[name], 6) == FREE_COUNTS[name]


@pytest.mark.parametrize("name, counts", [("cubic", [1, 1, 2, 7]), ("hex", [1, 1, 3, 7]),
                                           ("triangle", [1, 1, 1, 3])])
def test_the_growth_counter_finds_the_known_sequences_of_the_bundled_lattices(name, counts):
    # free polycubes A038119 (mirror images identified: cubic's 48 motions), polyhexes A000228, polyiamonds A000577
    assert free_polyforms(LATTICES[name], 4) == counts


# -- new lattices: puzzles against the independent brute force (tests/support/lattice_reference.py) --------------


@pytest.mark.parametrize("path", [DATA / "tetrakis_4x2.txt", DEFS / "tetraocta_octahedron_2.txt",
                                  pytest.param(DEFS / "tetraboloes_pentaboloes_4x4.txt", marks=pytest.mark.slow)],
                         ids=lambda p: p.name)
def test_new_lattice_puzzles_agree_with_the_brute_force_on_every_engine(path):
    [puzzle] = bench.load(path)
    expected = expected_for(puzzle)
    oracle = lattice_reference.count(str(path))
    assert (oracle["unique"], oracle["total"], oracle["group"]) == (expected.unique, expected.total, puzzle.group.order)
    assert puzzle.group.order == expected.group
    for redundancy in (None, True):
        cover = Cover.from_puzzle(puzzle, redundancy=redundancy)
        for engine in ENGINES:
            result = get_engine(engine).solve(cover)
            assert (result.unique, result.total) == (expected.unique, expected.total), (engine, redundancy)


@pytest.mark.parametrize("lattice", ["tetrakis", "tetraocta"])
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_random_tilings_of_the_new_lattices_agree_with_the_brute_force(lattice, data, tmp_path_factory):
    text = data.draw(tiled_puzzles(lattice))
    path = tmp_path_factory.mktemp("tiling") / "t.txt"
    path.write_text(text)
    [puzzle] = bench.load(path)
    oracle = lattice_reference.count(str(path))
    assert puzzle.group.order == oracle["group"]
    cover = Cover.from_puzzle(puzzle, redundancy=data.draw(st.sampled_from([None, True])))
    for engine in ENGINES:
        result = get_engine(engine).solve(cover)
        assert (result.unique, result.total) == (oracle["unique"], oracle["total"]), engine
