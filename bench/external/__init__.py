"""Exact-cover libraries from PyPI, wrapped as engines so they solve the very same matrix.

They are the yardsticks of the native engines' speed; none of them knows item
multiplicities, so covers with identical pieces are refused.
"""
