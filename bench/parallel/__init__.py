"""Scaling a solve out: sub-problems, local workers, a Dask cluster, the checkpoint journal and progress."""
