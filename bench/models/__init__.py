"""Puzzle-side data: definitions, lattices, puzzles, symmetry and the exact-cover matrix."""
