"""Engines that solve the cover through a general-purpose solver: CP-SAT, SAT and model counting."""
