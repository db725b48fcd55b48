"""The toolchain: the kernel registry, the on-disk caches, the ahead-of-time libraries, the warm-up.

It knows kernels, never engines: each engine registers the tiny search that warms its kernels.
"""
