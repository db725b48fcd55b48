"""The numba engines: DLX and its ordering heuristics (FILA joins them)."""
