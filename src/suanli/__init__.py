"""suanli (算力): which accelerator to rent for an AI job, how many, how long, at what cost and risk."""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
