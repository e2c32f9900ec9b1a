#!/usr/bin/env python
"""The 2024 ms-swift LoRA loss path on the CPU: its exact tensor peak, and what PyTorch's CUDA caching allocator
reserves for it when the sequence length changes from step to step.

    .venv/bin/python scripts/measure_swift_loss_memory.py          # both parts, as a table
    .venv/bin/python scripts/measure_swift_loss_memory.py --json   # the same figures as JSON

Why: ms-swift's benchmark (`cmem-swift-benchmark`, docs/source_en/LLM/Benchmark.md at 4692215) records
`torch.cuda.max_memory_reserved` of `swift sft` LoRA runs, and its Qwen 1 rows lie 2.4 to 18 GiB above suanli's tensor
need, the same at one token count for Qwen-1.8B, 7B and 14B (one 151,936-entry vocabulary): a vocabulary-wide term.

Part 1, measured. The step's vocabulary-wide tensors, as that stack runs them, batch 1: Qwen 1's remote
`QWenLMHeadModel.forward` (modeling_qwen.py, stored copy mapengAdam/qianwen-72B@3334bfe: `lm_logits =
self.lm_head(hidden_states)`, `shift_logits = lm_logits[..., :-1, :].contiguous()`, `CrossEntropyLoss()`), under CUDA
autocast, whose fp32 policy casts cross_entropy's input to fp32 for the op's duration (replayed here as an explicit
`.float()`: CPU autocast's op lists differ); accelerate's `convert_outputs_to_fp32` around the autocast forward
(Accelerator.prepare_model under native AMP: the returned logits get an fp32 copy); swift's
`Seq2SeqTrainer.compute_loss` (`outputs.logits.argmax(dim=2)` for token accuracy, then `outputs` is dropped); HF
Trainer's `accelerator.backward(loss)`. Counted exactly with scripts/measure_cpu_memory.py's StorageTracker (every live
tensor storage, as `torch.cuda.max_memory_allocated` counts it without rounding). With batch 1 the shift slice is the
leading rows of a contiguous tensor, so `.contiguous()` copies nothing.

Part 2, replayed. The order of the vocabulary-wide allocations and frees recorded in part 1, scaled to `--vocab`
entries and a number of tokens per step, through the rules of the caching allocator's large pool as its source states
them (pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp, its header comment and constants, read in a stored copy later
than v2.1; they are older than v2.1, but the v2.1.1 tag itself was not re-read: sizes rounded to 512 bytes; a request takes the smallest cached free block that fits and splits it when
more than 1 MiB (kSmallSize) would remain; with none, a new segment of cudaMalloc: 20 MiB (kLargeBuffer) for requests
of 1-10 MiB, else the request rounded up to 2 MiB (kRoundLarge); a freed block merges with free neighbours of its own
segment only; segments are returned to CUDA only when cudaMalloc fails or on empty_cache, so reserved memory never
falls during a run; max_split_size unlimited by default). Only the loss path's tensors are replayed: the layers'
activations, which interleave with them on a GPU, are left out. This is a replay of stated length sequences, not a
measurement of any benchmark run: the order of sequence lengths in a real run is not known, and the result depends on
it (the Note [Expandable Segments] in the same file describes the mechanism: allocations slightly larger than any
cached block force new segments while the slivers left in older ones stay reserved).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import random
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# c10/cuda/CUDACachingAllocator.cpp
MIN_BLOCK_BYTES = 512  # kMinBlockSize: all sizes are rounded to at least 512 bytes
SMALL_SIZE_BYTES = 1 << 20  # kSmallSize: largest "small" allocation is 1 MiB
SMALL_BUFFER_BYTES = 2 << 20  # kSmallBuffer: "small" allocations are packed in 2 MiB blocks
MIN_LARGE_ALLOC_BYTES = 10 << 20  # kMinLargeAlloc: allocations between 1 and 10 MiB may use kLargeBuffer
LARGE_BUFFER_BYTES = 20 << 20  # kLargeBuffer: "large" allocations may be packed in 20 MiB blocks
ROUND_LARGE_BYTES = 2 << 20  # kRoundLarge: round up large allocations to 2 MiB

QWEN1_VOCAB = 151936  # Qwen/Qwen-1_8B, Qwen-7B config.json vocab_size


def _round_up(n: int, to: int) -> int:
    return -(-n // to) * to


@dataclass
class _Block:
    offset: int
    size: int
    used: bool = False


@dataclass
class CachingAllocatorModel:
    """The block rules of torch's CUDA caching allocator, one stream, no out-of-memory path (module docstring)."""

    segments: list[tuple[bool, list[_Block]]] = field(default_factory=list)  # (small pool, blocks by offset)
    reserved_bytes: int = 0
    allocated_bytes: int = 0
    peak_reserved_bytes: int = 0
    peak_allocated_bytes: int = 0
    _where: dict[Any, tuple[int, int]] = field(default_factory=dict)  # key -> (segment index, block offset)

    def malloc(self, key: Any, nbytes: int) -> None:
        size = _round_up(max(nbytes, 1), MIN_BLOCK_BYTES)
        small = size <= SMALL_SIZE_BYTES
        best: tuple[int, int, int] | None = None  # (size, segment, block index): smallest fit, then lowest address
        for si, (seg_small, blocks) in enumerate(self.segments):
            if seg_small != small:
                continue
            for bi, b in enumerate(blocks):
                if not b.used and b.size >= size and (best is None or b.size < best[0]):
                    best = (b.size, si, bi)
        if best is None:  # cudaMalloc a new segment (get_allocation_size)
            if small:
                seg_bytes = SMALL_BUFFER_BYTES
            elif size < MIN_LARGE_ALLOC_BYTES:
                seg_bytes = LARGE_BUFFER_BYTES
            else:
                seg_bytes = _round_up(size, ROUND_LARGE_BYTES)
            self.segments.append((small, [_Block(0, seg_bytes)]))
            self.reserved_bytes += seg_bytes
            best = (seg_bytes, len(self.segments) - 1, 0)
        _, si, bi = best
        blocks = self.segments[si][1]
        block = blocks[bi]
        remaining = block.size - size
        # should_split: the small pool splits whenever a minimal block remains, the large pool above kSmallSize
        if remaining >= MIN_BLOCK_BYTES if small else remaining > SMALL_SIZE_BYTES:
            blocks.insert(bi + 1, _Block(block.offset + size, remaining))
            block.size = size
        block.used = True
        self._where[key] = (si, block.offset)
        self.allocated_bytes += block.size
        self.peak_reserved_bytes = max(self.peak_reserved_bytes, self.reserved_bytes)
        self.peak_allocated_bytes = max(self.peak_allocated_bytes, self.allocated_bytes)

    def free(self, key: Any) -> None:
        si, offset = self._where.pop(key)
        blocks = self.segments[si][1]
        bi = next(i for i, b in enumerate(blocks) if b.offset == offset)
        blocks[bi].used = False
        self.allocated_bytes -= blocks[bi].size
        # try_merge_blocks: with the next and the previous free block of the same segment
        if bi + 1 < len(blocks) and not blocks[bi + 1].used:
            blocks[bi].size += blocks[bi + 1].size
            del blocks[bi + 1]
        if bi > 0 and not blocks[bi - 1].used:
            blocks[bi - 1].size += blocks[bi].size
            del blocks[bi]


# ---------------------------------------------------------------------------------------------- part 1
def _storage_tracker() -> Any:
    """scripts/measure_cpu_memory.py's StorageTracker (one way of counting live tensors for both scripts)."""
    name = "measure_cpu_memory"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "measure_cpu_memory.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name].StorageTracker


@dataclass(frozen=True)
class LossPathRun:
    tokens: int
    vocab: int
    peak_vocab_bytes: int  # the largest sum of live vocabulary-wide tensors at one time
    events: tuple[tuple[str, int, int], ...]  # ("alloc", key, bytes) / ("free", key, 0), vocabulary-wide tensors only

    @property
    def peak_bytes_per_token_vocab(self) -> float:
        return self.peak_vocab_bytes / (self.tokens * self.vocab)


def measure_loss_path(tokens: int = 512, vocab: int = 4096, hidden: int = 256) -> LossPathRun:
    """Run the loss path of one batch-1 training step (module docstring, part 1) and record its vocabulary-wide
    tensors: the exact peak of their live bytes and the order in which they are allocated and freed."""
    import torch
    import torch.nn.functional as F

    base = _storage_tracker()

    class _Recorder(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__(vocab)
            self.events: list[tuple[str, int, int]] = []
            self.vocab_keys: set[int] = set()
            self.vocab_live = 0
            self.vocab_peak = 0
            self.recording = False

        def track(self, t: Any, tag: str | None = None) -> None:
            new = (isinstance(t, torch.Tensor) and t.device.type == "cpu" and not t.is_meta
                   and id(t.untyped_storage()) not in self.live)
            super().track(t, tag)
            if (new and self.recording and t.dim() >= 1 and t.shape[-1] == vocab
                    and id(t.untyped_storage()) in self.live):
                key, nbytes = id(t.untyped_storage()), t.untyped_storage().nbytes()
                self.vocab_keys.add(key)
                self.events.append(("alloc", key, nbytes))
                self.vocab_live += nbytes
                self.vocab_peak = max(self.vocab_peak, self.vocab_live)

        def _on_free(self, key: int) -> None:
            if key in self.vocab_keys:
                self.vocab_keys.discard(key)
                self.events.append(("free", key, 0))
                self.vocab_live -= self.live[key][0]
            super()._on_free(key)

    torch.manual_seed(0)
    lm_head = torch.nn.Linear(hidden, vocab, bias=False).to(torch.bfloat16).requires_grad_(False)
    hidden_states = torch.randn(1, tokens, hidden, dtype=torch.bfloat16)
    labels = torch.randint(0, vocab, (1, tokens))
    gc.collect()
    rec = _Recorder()
    with rec:
        rec.tag(lm_head.weight, "weights")
        rec.track(hidden_states)
        rec.track(labels)
        h = hidden_states.clone().requires_grad_(True)  # the last layer's output: it needs a gradient (LoRA below)
        rec.recording = True
        # QWenLMHeadModel.forward
        lm_logits = lm_head(h)
        shift_logits = lm_logits[..., :-1, :].contiguous()
        shift_labels = labels[..., 1:].contiguous()
        # CrossEntropyLoss under CUDA autocast: its input cast to fp32 for the op
        loss = F.cross_entropy(shift_logits.view(-1, vocab).float(), shift_labels.view(-1))
        del shift_logits, shift_labels
        # accelerate convert_outputs_to_fp32 on the model's output; the 16-bit output object is dropped
        logits = lm_logits.float()
        del lm_logits
        # swift Seq2SeqTrainer.compute_loss: token accuracy from the logits, then `outputs` goes out of scope
        preds = logits.argmax(dim=2)[..., :-1]
        del logits, preds
        loss.backward()
        del loss, h
        gc.collect()
        rec.recording = False
    return LossPathRun(tokens=tokens, vocab=vocab, peak_vocab_bytes=rec.vocab_peak, events=tuple(rec.events))


# ---------------------------------------------------------------------------------------------- part 2
def replay(run: LossPathRun, lengths: Sequence[int], vocab: int = QWEN1_VOCAB) -> CachingAllocatorModel:
    """One loss path per entry of `lengths` (tokens of that step), in order, through one allocator: each recorded
    size scaled by tokens x vocab over the run's."""
    alloc = CachingAllocatorModel()
    for step, n in enumerate(lengths):
        scale = n * vocab / (run.tokens * run.vocab)
        for kind, key, nbytes in run.events:
            if kind == "alloc":
                alloc.malloc((step, key), round(nbytes * scale))
            else:
                alloc.free((step, key))
    return alloc


def scenarios(run: LossPathRun, tokens: int, vocab: int, seeds: int = 5, steps: int = 300) -> list[dict[str, Any]]:
    """Reserved and allocated bytes per token per vocabulary entry, over the longest step's tokens, for three kinds of
    length sequence: `fixed` (4 steps of `tokens`), `rising` (tokens/4, /2, 3/4, all: each step longer than the last)
    and `random-k` (`steps` - 1 lengths uniform in [tokens/8, tokens] from random.Random(k), then `tokens`).
    Illustrations of the mechanism: not the order of any measured run."""
    fixed = [tokens] * 4
    rising = [tokens * k // 4 for k in (1, 2, 3, 4)]
    rows = [("fixed", fixed), ("rising", rising)]
    for seed in range(seeds):
        rng = random.Random(seed)
        rows.append((f"random-{seed}", [rng.randint(tokens // 8, tokens) for _ in range(steps - 1)] + [tokens]))
    out = []
    for name, lengths in rows:
        a = replay(run, lengths, vocab)
        out.append({
            "lengths": name,
            "steps": len(lengths),
            "reserved_bytes_per_token_vocab": a.peak_reserved_bytes / (tokens * vocab),
            "allocated_bytes_per_token_vocab": a.peak_allocated_bytes / (tokens * vocab),
        })
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=2048, help="part 2: tokens of the longest step")
    ap.add_argument("--vocab", type=int, default=QWEN1_VOCAB, help="part 2: vocabulary size")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(2)
    run = measure_loss_path()
    rows = scenarios(run, args.tokens, args.vocab)
    random_rows = [r["reserved_bytes_per_token_vocab"] for r in rows if r["lengths"].startswith("random")]
    sequence = [f"{k} {n / (run.tokens * run.vocab):.2f}" if k == "alloc" else k for k, _, n in run.events]
    m: dict[str, Any] = {"tokens": run.tokens, "vocab": run.vocab,
                         "peak_bytes_per_token_vocab": run.peak_bytes_per_token_vocab, "sequence": sequence}
    result: dict[str, Any] = {
        "versions": f"torch {torch.__version__}",
        "measured": m,
        "replayed": {"tokens": args.tokens, "vocab": args.vocab, "rows": rows,
                     "random_median": statistics.median(random_rows)},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"part 1 (measured, {result['versions']}): {m['tokens']} tokens x {m['vocab']} vocabulary, "
          f"peak of live vocabulary-wide tensors {m['peak_bytes_per_token_vocab']:.2f} bytes per token per entry")
    print("  order (bytes per token per entry):", ", ".join(m["sequence"]))
    print(f"part 2 (replayed through the caching allocator's block rules, loss path only, {args.tokens} tokens x "
          f"{args.vocab}):")
    print(f"  {'lengths':12s} {'steps':>5s} {'allocated':>9s} {'reserved':>9s}  (bytes per token per entry)")
    for r in rows:
        print(f"  {r['lengths']:12s} {r['steps']:5d} {r['allocated_bytes_per_token_vocab']:9.2f} "
              f"{r['reserved_bytes_per_token_vocab']:9.2f}")
    print("  (fixed: one length; rising: each step longer than the last; random-k: lengths uniform in [1/8, 1] of the "
          "longest, seed k; illustrations, not any measured run's order)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
