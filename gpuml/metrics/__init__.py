"""Metrics computed where the data lives (GPU for device inputs, CPU for host)."""

from gpuml.metrics._regression import r2_score

__all__ = ["r2_score"]
