"""The compiled kernels: numba functions over flat arrays (DLX on sparse sets and on bitsets, FILA, the
bitfield helpers, the constraints, the heuristics, the pipeline sampler, the canonical check).

Nothing here imports the puzzle model or the engines; the engines drive these kernels.
"""
