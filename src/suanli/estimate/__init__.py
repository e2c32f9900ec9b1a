"""Estimators: parameters, memory, FLOPs and time, computed from a catalog `ModelArch` (pure arithmetic)."""
