"""The comparison of engines: isolated solves, interleaved rounds, cross-validation, result files and reports."""
