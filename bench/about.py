"""What the distribution is called and its version: the one place both are written."""

DISTRIBUTION = "polyform-bench"
"""The name on PyPI (``bench`` there is another project); the command and the import stay ``bench``."""

VERSION = "0.1.0"
