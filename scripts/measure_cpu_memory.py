#!/usr/bin/env python
"""Measure the exact peak tensor memory of small transformer runs on the CPU -> validation cases (YAML).

    .venv/bin/python scripts/measure_cpu_memory.py --out src/suanli/data/validation/cpu_measured.yaml
    .venv/bin/python scripts/measure_cpu_memory.py --only llama-h512-train-fp32   # one case, YAML to stdout

What is measured: the peak, over the whole run, of the bytes of all live tensor storages (each untyped storage
counted once, whatever the number of views), tracked by a `TorchDispatchMode` that sees every ATen op's
inputs and outputs (forward, backward and optimizer) and frees a storage when its Python object is finalized
(PyTorch keeps one Python object per live storage). Model weights, buffers and inputs are registered before
the run. This equals what `torch.cuda.max_memory_allocated()` reports on a GPU minus the caching allocator's
512-byte rounding; it excludes scratch buffers a kernel allocates internally and never returns (oneDNN/cuBLAS
workspaces), the CUDA/CANN context and allocator fragmentation.

At each local maximum the live storages are snapshotted and attributed: weights (parameters and buffers),
weight_copies (dtype casts of weights, e.g. autocast's bf16 copies), grads (``.grad`` of parameters),
optimizer (optimizer state), kv_cache (tensors held by the transformers cache), logits (any tensor whose last
dimension is the vocabulary size: logits, their fp32 upcast in the loss, log-softmax, their gradients) and
activations (everything else: saved activations and temporaries). The parts sum exactly to the peak.

Models are built from the config JSON files in src/suanli/data/validation/configs/ with random weights
(transformers' ``AutoModelForCausalLM.from_config``). Seeded, single process, 2 threads: the byte counts are
deterministic for a given torch/transformers/peft version.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import sys
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
import transformers
import yaml
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "src" / "suanli" / "data" / "validation" / "configs"
CONFIG_REL = "src/suanli/data/validation/configs"
SOURCE_ID = "val-cpu-measured"

CATEGORIES = ("weights", "weight_copies", "grads", "optimizer", "kv_cache", "logits", "activations")


# ---------------------------------------------------------------------------------------------- tracker
class StorageTracker(TorchDispatchMode):
    """Live CPU tensor-storage bytes; exact peak; attribution snapshot at every local maximum."""

    def __init__(self, vocab_size: int) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        # id(storage) -> [nbytes, tag, weakref]; the storage object lives exactly as long as the storage.
        self.live: dict[int, list[Any]] = {}
        self.total = 0
        self.peak = 0
        self._dirty = False  # a new peak was reached and not yet snapshotted
        # (nbytes at the peak, the live entry itself, so that later tags still reach it)
        self.snapshot: list[tuple[int, list[Any]]] = []

    # -- bookkeeping
    def _take_snapshot(self) -> None:
        self.snapshot = [(e[0], e) for e in self.live.values()]
        self._dirty = False

    def _on_free(self, key: int) -> None:
        entry = self.live.get(key)
        if entry is None:
            return
        if self._dirty:
            self._take_snapshot()
        self.total -= entry[0]
        del self.live[key]

    def track(self, t: torch.Tensor, tag: str | None = None) -> None:
        if not isinstance(t, torch.Tensor) or t.device.type != "cpu" or t.is_meta:
            return
        st = t.untyped_storage()
        n = st.nbytes()
        key = id(st)
        entry = self.live.get(key)
        if entry is None:
            if n == 0:
                return
            if tag is None and self.vocab_size and t.dim() >= 1 and t.shape[-1] == self.vocab_size:
                tag = "logits"
            ref = weakref.ref(st, lambda _r, k=key: self._on_free(k))
            self.live[key] = [n, tag, ref]
            self._grow(n)
        else:
            if n != entry[0]:  # resized in place (out= ops)
                if n < entry[0] and self._dirty:
                    self._take_snapshot()
                self._grow(n - entry[0])
                entry[0] = n
            if tag is not None:
                entry[1] = tag

    def _grow(self, n: int) -> None:
        self.total += n
        if self.total > self.peak:
            self.peak = self.total
            self._dirty = True

    def tag(self, t: torch.Tensor | None, tag: str) -> None:
        if t is not None:
            self.track(t, tag)

    def tag_of(self, t: torch.Tensor) -> str | None:
        entry = self.live.get(id(t.untyped_storage()))
        return entry[1] if entry else None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        kwargs = kwargs or {}
        in_tensors = [a for a in tree_flatten((args, kwargs))[0] if isinstance(a, torch.Tensor)]
        for a in in_tensors:
            self.track(a)
        out = func(*args, **kwargs)
        out_tag = None
        if func in (torch.ops.aten._to_copy.default, torch.ops.aten.to.dtype) and in_tensors:
            if self.tag_of(in_tensors[0]) in ("weights", "weight_copies"):
                out_tag = "weight_copies"
        for o in tree_flatten(out)[0]:
            if isinstance(o, torch.Tensor):
                self.track(o, out_tag if out_tag and self._is_new(o) else None)
        return out

    def _is_new(self, t: torch.Tensor) -> bool:
        return id(t.untyped_storage()) not in self.live

    # -- results
    def breakdown(self) -> dict[str, int]:
        """The peak split by category; tags given after the snapshot (grads, optimizer state) count."""
        if self._dirty:
            self._take_snapshot()
        parts = dict.fromkeys(CATEGORIES, 0)
        for n, entry in self.snapshot:
            parts[entry[1] or "activations"] += n
        assert sum(parts.values()) == self.peak, (sum(parts.values()), self.peak)
        return {k: v for k, v in parts.items() if v}


@contextmanager
def tracking(vocab_size: int) -> Iterator[StorageTracker]:
    gc.collect()
    tr = StorageTracker(vocab_size)
    with tr:
        yield tr
    gc.collect()


# ---------------------------------------------------------------------------------------------- models
def load_config(name: str, attn: str) -> transformers.PretrainedConfig:
    d = json.loads((CONFIG_DIR / name).read_text())
    d = {k: v for k, v in d.items() if not k.startswith("_")}
    cfg = transformers.AutoConfig.for_model(**d)
    cfg._attn_implementation = attn
    return cfg


def build(cfg: transformers.PretrainedConfig, dtype: torch.dtype) -> torch.nn.Module:
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    return model.to(dtype)


def n_params(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def cache_tagger(tr: StorageTracker) -> Callable[[], None]:
    """Patch transformers' dynamic cache layers so their stored keys/values are tagged kv_cache."""
    from transformers import cache_utils

    originals = {}
    for cls in (cache_utils.DynamicLayer, cache_utils.DynamicSlidingWindowLayer):
        orig = cls.__dict__["update"]
        originals[cls] = orig

        def update(self, *a, __orig=orig, **k):  # type: ignore[no-untyped-def]
            out = __orig(self, *a, **k)
            tr.tag(self.keys, "kv_cache")
            tr.tag(self.values, "kv_cache")
            return out

        cls.update = update

    def restore() -> None:
        for cls, orig in originals.items():
            cls.update = orig

    return restore


# ---------------------------------------------------------------------------------------------- cases
@dataclasses.dataclass
class Case:
    id: str
    config: str
    kind: str  # inference | full | lora
    precision: str  # fp32 | bf16
    batch: int
    seq: int = 0  # training sequence length
    input: int = 0  # inference prompt length
    output: int = 0  # inference generated tokens
    attn: str = "sdpa"
    recompute: str = "none"
    optimizer: str = "adamw"
    lora_rank: int = 0
    note: str = ""


CASES: list[Case] = [
    # --- inference: prefill `input` tokens then greedy-generate `output` tokens with the dynamic KV cache
    Case("llama-h512-infer-fp32-b1", "llama-h512-l4-mha-v32k.json", "inference", "fp32", 1, input=512, output=64),
    Case("llama-h512-infer-fp32-b8", "llama-h512-l4-mha-v32k.json", "inference", "fp32", 8, input=512, output=64),
    Case("llama-h512-infer-bf16-b1", "llama-h512-l4-mha-v32k.json", "inference", "bf16", 1, input=512, output=32),
    Case("llama-h512-infer-bf16-b8", "llama-h512-l4-mha-v32k.json", "inference", "bf16", 8, input=256, output=32),
    Case("llama-h512-infer-fp32-b1-long", "llama-h512-l4-mha-v32k.json", "inference", "fp32", 1,
         input=2048, output=32),
    Case("llama-h512-infer-fp32-b8-eager", "llama-h512-l4-mha-v32k.json", "inference", "fp32", 8,
         input=512, output=32, attn="eager",
         note="eager attention materializes the batch x heads x input x input score matrix during prefill"),
    Case("llama-h1024-gqa-infer-fp32-b1", "llama-h1024-l4-gqa4-v32k.json", "inference", "fp32", 1,
         input=256, output=64),
    Case("llama-h1024-gqa-infer-fp32-b8", "llama-h1024-l4-gqa4-v32k.json", "inference", "fp32", 8,
         input=256, output=32),
    Case("llama-h1024-gqa-infer-bf16-b1", "llama-h1024-l4-gqa4-v32k.json", "inference", "bf16", 1,
         input=256, output=16),
    Case("llama-h1024-gqa-infer-bf16-b8", "llama-h1024-l4-gqa4-v32k.json", "inference", "bf16", 8,
         input=128, output=16),
    Case("qwen2-v152k-infer-fp32-b1", "qwen2-h512-l2-gqa4-v152k.json", "inference", "fp32", 1,
         input=512, output=64),
    Case("qwen2-v152k-infer-fp32-b8", "qwen2-h512-l2-gqa4-v152k.json", "inference", "fp32", 8,
         input=256, output=32),
    Case("qwen2-v152k-infer-bf16-b1", "qwen2-h512-l2-gqa4-v152k.json", "inference", "bf16", 1,
         input=512, output=16),
    Case("qwen2-v152k-infer-bf16-b8", "qwen2-h512-l2-gqa4-v152k.json", "inference", "bf16", 8,
         input=128, output=16),
    Case("mistral-sw256-infer-fp32-b8", "mistral-h512-l4-gqa4-sw256-v32k.json", "inference", "fp32", 8,
         input=512, output=32,
         note="sliding window 256: transformers' DynamicSlidingWindowLayer keeps the last 255 tokens after "
              "each step, but the prefill's full-length keys/values are alive until the first decode step"),
    # --- full training: 2 optimizer steps on random tokens (labels = inputs), peak over both
    Case("llama-h512-train-fp32", "llama-h512-l4-mha-v32k.json", "full", "fp32", 4, seq=256),
    Case("llama-h512-train-fp32-b2", "llama-h512-l4-mha-v32k.json", "full", "fp32", 2, seq=256),
    Case("llama-h512-train-fp32-ckpt", "llama-h512-l4-mha-v32k.json", "full", "fp32", 4, seq=256,
         recompute="full"),
    Case("llama-h512-train-bf16", "llama-h512-l4-mha-v32k.json", "full", "bf16", 2, seq=256),
    Case("llama-h512-train-bf16-ckpt", "llama-h512-l4-mha-v32k.json", "full", "bf16", 2, seq=256,
         recompute="full"),
    Case("llama-h512-train-fp32-eager", "llama-h512-l4-mha-v32k.json", "full", "fp32", 4, seq=512,
         attn="eager"),
    Case("llama-h512-train-fp32-seq512", "llama-h512-l4-mha-v32k.json", "full", "fp32", 4, seq=512),
    Case("llama-h512-train-fp32-sgd", "llama-h512-l4-mha-v32k.json", "full", "fp32", 4, seq=256,
         optimizer="sgd"),
    Case("llama-h512-train-fp32-adafactor", "llama-h512-l4-mha-v32k.json", "full", "fp32", 4, seq=256,
         optimizer="adafactor"),
    Case("qwen2-v152k-train-fp32", "qwen2-h512-l2-gqa4-v152k.json", "full", "fp32", 2, seq=256),
    Case("qwen2-v152k-train-bf16-ckpt", "qwen2-h512-l2-gqa4-v152k.json", "full", "bf16", 2, seq=128,
         recompute="full"),
    # --- LoRA (peft), all linear layers of the decoder blocks, adapters fp32
    Case("llama-h512-lora-r8-fp32", "llama-h512-l4-mha-v32k.json", "lora", "fp32", 4, seq=256, lora_rank=8),
    Case("llama-h512-lora-r8-bf16", "llama-h512-l4-mha-v32k.json", "lora", "bf16", 2, seq=256, lora_rank=8),
    Case("llama-h512-lora-r64-bf16", "llama-h512-l4-mha-v32k.json", "lora", "bf16", 2, seq=256, lora_rank=64),
    Case("llama-h512-lora-r8-bf16-ckpt", "llama-h512-l4-mha-v32k.json", "lora", "bf16", 2, seq=256,
         lora_rank=8, recompute="full"),
    Case("qwen2-v152k-lora-r16-bf16", "qwen2-h512-l2-gqa4-v152k.json", "lora", "bf16", 2, seq=128,
         lora_rank=16),
]

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def run_inference(case: Case, cfg: transformers.PretrainedConfig) -> tuple[StorageTracker, int, dict[str, int]]:
    model = build(cfg, DTYPES[case.precision]).eval()
    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(0, cfg.vocab_size, (case.batch, case.input), generator=gen)
    mask = torch.ones_like(ids)
    gc.collect()
    with tracking(cfg.vocab_size) as tr:
        for p in model.parameters():
            tr.tag(p, "weights")
        for b in model.buffers():
            tr.tag(b, "weights")
        tr.track(ids)
        tr.track(mask)
        restore = cache_tagger(tr)
        try:
            with torch.no_grad():
                out = model.generate(
                    input_ids=ids, attention_mask=mask, max_new_tokens=case.output,
                    min_new_tokens=case.output, do_sample=False, pad_token_id=0, eos_token_id=None,
                    use_cache=True,
                )
        finally:
            restore()
        assert out.shape == (case.batch, case.input + case.output), out.shape
        parts = tr.breakdown()
    return tr, n_params(model), parts


def make_optimizer(name: str, params: list[torch.nn.Parameter]) -> torch.optim.Optimizer:
    if name == "adamw":
        # fused: what HF Trainer uses by default with torch>=2.8 (optim="adamw_torch_fused"); no param-sized
        # temporaries (the foreach implementation, torch's own CUDA default, adds one fp32 copy of the params)
        return torch.optim.AdamW(params, lr=1e-4, fused=True)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9, foreach=True)
    if name == "adafactor":
        return torch.optim.Adafactor(params, lr=1e-3, foreach=True)
    raise ValueError(name)


def run_training(case: Case, cfg: transformers.PretrainedConfig) -> tuple[StorageTracker, int, dict[str, int]]:
    if case.kind == "lora":
        # LoRA setup as LLaMA-Factory does it: base weights in the compute dtype, trainable adapters in fp32
        model = build(cfg, DTYPES[case.precision])
        from peft import LoraConfig, get_peft_model

        lcfg = LoraConfig(
            r=case.lora_rank, lora_alpha=2 * case.lora_rank, lora_dropout=0.0, bias="none",
            target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
            task_type="CAUSAL_LM",
        )
        model = get_peft_model(model, lcfg)
        for p in model.parameters():
            if p.requires_grad:
                p.data = p.data.float()
    else:
        # full training keeps fp32 master weights; bf16 = autocast (mixed precision), as HF Trainer --bf16
        model = build(cfg, torch.float32)
    if case.recompute == "full":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if case.kind == "lora":
            model.enable_input_require_grads()
    model.config.use_cache = False
    model.train()
    trainable = [p for p in model.parameters() if p.requires_grad]
    gen = torch.Generator().manual_seed(1)
    # step 1 on a tiny batch only creates the optimizer state (its peak is the optimizer-step peak, which
    # step 2 repeats); step 2 on the real batch is the steady-state step that sets the peak
    batches = [torch.randint(0, cfg.vocab_size, shape, generator=gen) for shape in ((1, 16), (case.batch, case.seq))]
    autocast = case.precision == "bf16"
    gc.collect()
    with tracking(cfg.vocab_size) as tr:
        for p in model.parameters():
            tr.tag(p, "weights")
        for b in model.buffers():
            tr.tag(b, "weights")
        for ids in batches:
            tr.track(ids)
        hooks = [p.register_post_accumulate_grad_hook(lambda p: tr.tag(p.grad, "grads")) for p in trainable]
        opt = make_optimizer(case.optimizer, trainable)
        for ids in batches:
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            del loss
            opt.step()
            for state in opt.state.values():
                for v in state.values():
                    if isinstance(v, torch.Tensor):
                        tr.tag(v, "optimizer")
        for h in hooks:
            h.remove()
        parts = tr.breakdown()
    return tr, n_params(model), parts


# ---------------------------------------------------------------------------------------------- output
def command(case: Case) -> str:
    return f".venv/bin/python scripts/measure_cpu_memory.py --only {case.id}"


def record(case: Case, tr: StorageTracker, params: int, parts: dict[str, int], versions: str) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": f"cpu-{case.id}",
        "group": "inference-memory" if case.kind == "inference" else "training-memory",
        "source": SOURCE_ID,
        "where": command(case),
        "config": f"{CONFIG_REL}/{case.config}",
        "device": "cpu",
        "gpus": 1,
        "task": case.kind,
        "precision": case.precision,
        "batch": case.batch,
    }
    if case.kind == "inference":
        rec["input"] = case.input
        rec["output"] = case.output
    else:
        rec["seq"] = case.seq
        rec["recompute"] = case.recompute
        rec["optimizer"] = case.optimizer
    if case.kind == "lora":
        rec["lora_rank"] = case.lora_rank
        rec["lora_targets"] = "all-linear"
    rec["engine"] = "hf"
    rec["flash_attention"] = case.attn == "sdpa"
    rec["measured"] = {"memory_bytes": tr.peak}
    rec["measured_breakdown"] = parts
    what = {
        "inference": f"model.generate greedy, {case.input} prompt + {case.output} new tokens, dynamic KV cache, "
                     "logits only for the last prompt position (logits_to_keep=1)",
        "full": "2 training steps (the 1st on 1x16 tokens to create the optimizer state), labels = inputs "
                "(HF loss upcasts logits to fp32); "
                + ("bf16 = torch.autocast(bf16) over fp32 master weights" if case.precision == "bf16"
                   else "pure fp32"),
        "lora": f"peft LoRA r={case.lora_rank} alpha={2 * case.lora_rank} on q,k,v,o,gate,up,down; base weights "
                f"{case.precision}, adapters fp32; AdamW over adapters; 2 steps (the 1st on 1x16 tokens)"
                + ("; autocast bf16" if case.precision == "bf16" else ""),
    }[case.kind]
    extra = []
    if case.kind != "inference":
        impl = "fused=True" if case.optimizer == "adamw" else "foreach=True"
        extra.append(f"optimizer {case.optimizer} (torch.optim, {impl})")
        if case.recompute == "full":
            extra.append("HF gradient checkpointing per decoder layer (non-reentrant) = full recompute")
    extra.append(f"attention {'sdpa (CPU flash kernel)' if case.attn == 'sdpa' else 'eager'}")
    rec["note"] = "; ".join(
        [f"peak live tensor-storage bytes on CPU (exact, no allocator rounding); {params} parameters", what,
         *extra, *( [case.note] if case.note else []), versions]
    )
    return rec


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write YAML here (default: stdout)")
    ap.add_argument("--only", action="append", help="case id (repeatable)")
    ap.add_argument("--list", action="store_true", help="list case ids")
    args = ap.parse_args(argv)
    if args.list:
        print("\n".join(c.id for c in CASES))
        return 0
    torch.set_num_threads(2)
    cases = [c for c in CASES if not args.only or c.id in args.only]
    if args.only and len(cases) != len(args.only):
        ap.error(f"unknown case id in {args.only}")
    try:
        import peft

        peft_v = peft.__version__
    except ImportError:
        peft_v = None
    versions = f"torch {torch.__version__}, transformers {transformers.__version__}" + (
        f", peft {peft_v}" if peft_v else "")
    out_cases = []
    t0 = time.time()
    for case in cases:
        if case.kind == "lora" and peft_v is None:
            print(f"skip {case.id}: peft not installed", file=sys.stderr)
            continue
        t = time.time()
        cfg = load_config(case.config, case.attn)
        runner = run_inference if case.kind == "inference" else run_training
        tr, params, parts = runner(case, cfg)
        out_cases.append(record(case, tr, params, parts, versions))
        print(f"{case.id:38s} peak {tr.peak / 2**20:9.1f} MiB  {time.time() - t:5.1f}s", file=sys.stderr)
        gc.collect()
    print(f"total {time.time() - t0:.1f}s", file=sys.stderr)
    doc = {
        "sources": [{
            "id": SOURCE_ID,
            "title": ".venv/bin/python scripts/measure_cpu_memory.py --out src/suanli/data/validation/cpu_measured.yaml",
            "kind": "measurement",
            "url": "scripts/measure_cpu_memory.py",
            "date": time.strftime("%Y-%m-%d"),
            "note": "suanli's own CPU runs: exact peak of live tensor storages tracked by a TorchDispatchMode "
                    f"({versions}); random-weight models built from configs/*.json",
        }],
        "cases": out_cases,
    }
    text = "# Generated by scripts/measure_cpu_memory.py; do not edit by hand.\n" + yaml.safe_dump(
        doc, sort_keys=False, width=120, allow_unicode=True)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
