"""Measurement: the only package of suanli that imports torch, torch_npu or ray.

Every heavy import happens lazily inside a function, so `import suanli.bench` works on a machine without
the torch extra; calling into it there raises a one-line `InputError` that says what to install.

Modules:
- `backends`  device registry (cpu, cuda, npu, fake) behind a small interface
- `models`    load a local Hugging Face directory or build a preset (`tiny-llama`) with random weights
- `testset`   the shipped prompts and perplexity text
- `run`       throughput (prefill, decode, TTFT, peak memory) and microbenchmarks (matmul, bandwidth)
- `accuracy`  perplexity and max logit difference against a stored reference run
- `results`   pydantic result model, JSON export, the file store
- `fleet`     one benchmark task per accelerator of a Ray cluster
- `calibrate` pure: efficiency factors fitted from stored results
"""

from __future__ import annotations

__all__ = ["RAY_HINT", "TORCH_HINT"]

TORCH_HINT = "install the torch extra: pip install 'suanli[torch]'"
RAY_HINT = "install the ray extra: pip install 'suanli[ray]'"
