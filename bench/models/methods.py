"""The redundancy filter's methods by name (:func:`~bench.models.symmetry.redundancy_for_shape`).

A module of its own, without numpy, so that the command line's parser
offers them without loading the models.
"""

REDUNDANCY_METHODS = ("orientation", "orbit")
