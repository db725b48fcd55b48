"""Lattices as data: the built-in lattices read from their descriptions, new lattices, malformed descriptions."""

from __future__ import annotations

import json

import pytest

import bench
from bench import Cover
from support import ROOT

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
