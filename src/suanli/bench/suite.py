"""The device proof suite (issue 15): one run that measures a device end to end, one JSON file per measurement.

What it measures, in this order (the order is the priority when the time budget runs out):

0. microbenchmarks: square matmul TFLOP/s in bf16 (and fp8 through `torch._scaled_mm` where the device supports
   it: CUDA compute capability >= 8.9), device-to-device copy bandwidth (`run.matmul_tflops`, `run.memory_bandwidth`);
1. accuracy: the tiny preset in bf16 on the device against the packaged CPU fp32 reference (`accuracy`);
2. inference of random-weight Llama shapes built from config (no downloads): decode at batch 1/16/64 and prefill
   at 512/2048 tokens with the harness's own prefill + greedy decode loop (`run.measure_throughput`), decode also
   through transformers' `generate`; last, decode through `generate` with a static KV cache (on CUDA transformers
   compiles the decode step with torch.compile, CUDA graphs included);
3. training steps, sequence 2048, micro-batch 1 and 4, with and without gradient checkpointing, AdamW (and
   bitsandbytes' 8-bit AdamW where it imports): full fine-tuning and LoRA of the ~1B shape, LoRA of the ~8B shape.
   Mixed precision as transformers' Trainer does it with `bf16=True`: full fine-tuning keeps fp32 weights (the
   master copy) and runs the model under `torch.autocast(bfloat16)`; LoRA keeps the frozen base in bf16 and the
   adapters in fp32 (peft's default), under the same autocast.
4. variable-length LoRA (`train-<shape>-lora-varlen-<lengths>-expseg-<off|on>`): what the caching allocator
   reserves when the sequence length changes from step to step, as in ms-swift's LoRA benchmark
   (`torch.cuda.max_memory_reserved`, samples truncated at max_length). The LoRA cases' settings (bf16 base, fp32
   adapters, rank 16, all linear layers, AdamW, micro-batch 1) with gradient checkpointing, for a fixed number of
   steps whose lengths are `fixed` (every step max_length = the case's seq) or `lognormal` (`varlen_lengths`: the
   benchmark dataset's stated mean and spread, most steps truncated at max_length, about 38 % shorter); each case
   builds its model afresh after the previous model and the allocator's cache are freed, and records peak
   allocated and peak reserved bytes over all its steps (per step too), the lengths, and the allocator's
   expandable_segments setting, off and on (on CUDA set at run time before the model is built; elsewhere the
   process's PYTORCH_NPU_ALLOC_CONF holds and the other setting is skipped, with the command for a second run).
   Expected on an H200 (assumed, not measured: ~0.1 s a 1B step, ~0.3 s an 8B step at 2048 tokens, a few seconds a
   build): ~6 s a 1B case, ~15 s an 8B case, ~85 s the eight (run before the static-cache decode cases);
   `--only 'train-*-varlen-*'` runs them alone.

Sizes: `full` is the issue's (`llama-1b-shape`, `llama-8b-shape`); `tiny` puts the tiny preset in place of both
shapes with short sequences, so the whole suite runs in seconds on a CPU (the default on the CPU).

Every case's file holds the exact command, the environment (torch, transformers, peft, driver, device name,
date), the case's workload (model config, batch, sequence, precision, task, LoRA rank and targets, recomputation,
optimizer) and the `suanli estimate` flags for the same case. A case the budget does not leave time for is
recorded as skipped with the reason; a case that fails (out of memory, say) is recorded as failed with the error.

Importing this module imports no torch; `run_suite` needs the torch extra (and peft for LoRA).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fnmatch
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from suanli import __version__
from suanli.bench.results import BenchResult, Microbench, new_id
from suanli.i18n import Message, render

__all__ = [
    "RUN_FORMAT",
    "SUITE_FORMAT",
    "CaseRecord",
    "Environment",
    "SuiteCase",
    "SuiteRun",
    "plan_cases",
    "read_records",
    "run_suite",
    "swift_lognormal",
    "swift_share_truncated",
    "varlen_lengths",
]

SUITE_FORMAT = "suanli.bench.suite/1"
RUN_FORMAT = "suanli.bench.suite-run/1"
Size = Literal["tiny", "full"]


class SuiteCase(BaseModel):
    """One measurement: what runs, on which model shape, with which workload."""

    id: str
    kind: Literal["matmul", "copy", "accuracy", "inference", "train"]
    phase: int = Field(description="priority group; lower runs first")
    shape: str | None = Field(default=None, description="'1b', '8b' or 'tiny' (the label in the id)")
    # a file name under the cases folder (`bench import` writes configs/<model>.json): no separators, no '..'
    model: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9._-]*$",
                              description="bench preset (suanli/data/bench/<name>.json)")
    precision: str = "bf16"
    measure: Literal["decode", "prefill"] | None = None
    mode: Literal["loop", "generate", "generate-static"] | None = Field(
        default=None, description="loop: the harness's prefill + decode loop; generate: transformers' generate; "
        "generate-static: generate with cache_implementation='static' (compiled with CUDA graphs on cuda)")
    batch: int = 1
    input_tokens: int | None = None
    output_tokens: int | None = None
    task: Literal["inference", "full", "lora"] = "inference"
    seq: int | None = None
    recompute: Literal["none", "full"] = "none"
    optimizer: Literal["adamw", "adamw8bit"] | None = None
    lora_rank: int | None = None
    lora_alpha: int | None = None
    lora_targets: Literal["all-linear"] | None = None
    lengths: Literal["fixed", "lognormal"] | None = Field(
        default=None, description="variable-length training: how each step's length is drawn (`varlen_lengths`; "
        "seq is the max_length, repeats the number of steps); None: every step runs seq tokens")
    length_seed: int | None = Field(default=None, description="the seed of the drawn lengths")
    expandable_segments: bool | None = Field(
        default=None, description="the caching allocator's expandable_segments setting the case runs with")
    warmup: int = 1
    repeats: int = 3
    n: int | None = Field(default=None, description="matmul: square matrices n x n")
    buffer_bytes: int | None = Field(default=None, description="copy: bytes copied per call")
    min_seconds: float = Field(default=5.0, description="assumed time the case needs; skipped when less is left")


class Environment(BaseModel):
    date: dt.datetime
    host: str
    python: str
    platform: str
    suanli_version: str
    git_commit: str | None = None
    torch: str | None = None
    transformers: str | None = None
    peft: str | None = None
    bitsandbytes: str | None = None
    cuda_runtime: str | None = None
    driver: str | None = None
    backend: str
    device: str
    device_name: str
    device_count: int = 1
    total_memory_bytes: int | None = None
    memory_kind: str


class CaseRecord(BaseModel):
    """One result file of the suite."""

    format: str = SUITE_FORMAT
    run_id: str
    case: SuiteCase
    status: Literal["ok", "skipped", "failed"]
    reason: str | None = None
    reason_i18n: dict[str, Any] | None = Field(
        default=None, description="the skip reason as a catalog message (`{id, params}`; `reason` is its English)")
    command: str
    environment: Environment
    accelerator: str | None = Field(default=None, description="catalog accelerator id the device is, if known")
    hf_config: dict[str, Any] | None = Field(default=None, description="the model's transformers config")
    metrics: dict[str, Any] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    estimate_args: dict[str, Any] | None = Field(default=None, description="`suanli estimate` flags for this case")
    estimate_command: str | None = None
    bench_result: BenchResult | None = Field(
        default=None, description="loop inference and accuracy cases: the harness's result, for calibration")
    elapsed_s: float = 0.0


class SuiteRun(BaseModel):
    """The run's manifest (`run.json`): when, where, which cases with which status."""

    format: str = RUN_FORMAT
    run_id: str
    command: str
    size: Size
    budget_s: float
    environment: Environment
    accelerator: str | None = None
    started_at: dt.datetime
    finished_at: dt.datetime | None = None
    cases: dict[str, str] = Field(default_factory=dict, description="case id -> status")


# ------------------------------------------------------------------------------------------ the plan

# Sizes (a choice, not a fact): `full` follows issue 15; `tiny` keeps the same structure at sizes that take
# milliseconds on a CPU.
_SIZES: dict[str, dict[str, Any]] = {
    "full": {
        "shapes": {"1b": "llama-1b-shape", "8b": "llama-8b-shape"},
        "decode_batches": (1, 16, 64), "decode_input": 128, "decode_output": 33,
        "prefill_tokens": (512, 2048), "seq": 2048, "micro_batches": (1, 4), "train_steps": 3, "varlen_steps": 32,
        "matmul_n": 8192, "copy_bytes": 2**30, "repeats": 3,
    },
    "tiny": {
        "shapes": {"tiny": "tiny-llama"},
        "decode_batches": (1, 16, 64), "decode_input": 32, "decode_output": 5,
        "prefill_tokens": (64, 256), "seq": 128, "micro_batches": (1, 4), "train_steps": 2, "varlen_steps": 6,
        "matmul_n": 256, "copy_bytes": 16 * 2**20, "repeats": 2,
    },
}
LORA_RANK = 16  # a common default (peft's LoraConfig r=8; many recipes use 16); assumed, recorded per case
LORA_ALPHA = 32

# ms-swift's LoRA benchmark dataset (cls-fudan-news-zh), modelscope/ms-swift docs/source_en/LLM/Benchmark.md at
# 4692215: "Token statistics of the corresponding test dataset (obtained by qwen's tokenizer): 3234.4±2547.5,
# min=91, max=19548"; its default max_length is 2048 (the page's default flags: --max_length 2048)
SWIFT_LENGTH_MEAN_TOKENS = 3234.4
SWIFT_LENGTH_SD_TOKENS = 2547.5
SWIFT_MAX_LENGTH_TOKENS = 2048


def swift_lognormal() -> tuple[float, float]:
    """(μ, σ) of the log-normal with the swift dataset's mean and standard deviation (moments matched:
    σ² = ln(1 + (sd/mean)²), μ = ln(mean) − σ²/2). The shape is assumed: the page states mean, sd, min and max only."""
    import math

    var_log = math.log1p((SWIFT_LENGTH_SD_TOKENS / SWIFT_LENGTH_MEAN_TOKENS) ** 2)
    return math.log(SWIFT_LENGTH_MEAN_TOKENS) - var_log / 2, math.sqrt(var_log)


def swift_share_truncated() -> float:
    """The share of `lognormal` steps truncated at max_length: P(X > 2048) under `swift_lognormal` (about 0.62)."""
    import math

    mu, sigma = swift_lognormal()
    return 1.0 - statistics.NormalDist(mu, sigma).cdf(math.log(SWIFT_MAX_LENGTH_TOKENS))


def varlen_lengths(lengths: str, max_length: int, steps: int, seed: int) -> list[int]:
    """Each step's sequence length. `fixed`: max_length every step. `lognormal`: a draw from `swift_lognormal`
    (random.Random(seed)), scaled by max_length / 2048 (at the full size's max_length 2048 the dataset's own
    lengths, as in swift's default-length rows; at other max_lengths the same share truncated), truncated at
    max_length as swift truncates its samples, at least 2 tokens (one predicted)."""
    import random

    if lengths == "fixed":
        return [max_length] * steps
    mu, sigma = swift_lognormal()
    rng = random.Random(seed)
    scale = max_length / SWIFT_MAX_LENGTH_TOKENS
    return [min(max_length, max(2, round(rng.lognormvariate(mu, sigma) * scale))) for _ in range(steps)]


def plan_cases(size: Size) -> list[SuiteCase]:
    """Every case of a suite of this size, in run order."""
    z = _SIZES[size]
    rep = int(z["repeats"])
    cases = [
        SuiteCase(id="matmul-bf16", kind="matmul", phase=0, precision="bf16", n=z["matmul_n"], warmup=3, repeats=10),
        SuiteCase(id="matmul-fp8", kind="matmul", phase=0, precision="fp8", n=z["matmul_n"], warmup=3, repeats=10),
        SuiteCase(id="copy", kind="copy", phase=0, precision="fp32", buffer_bytes=z["copy_bytes"], warmup=3,
                  repeats=10),
        SuiteCase(id="accuracy-tiny-bf16", kind="accuracy", phase=1, shape="tiny", model="tiny-llama",
                  precision="bf16", min_seconds=10),
    ]
    shapes: dict[str, str] = z["shapes"]
    big = {"8b": 2.5}  # the 8B shape takes longer per case (assumed factor, for the budget guard only)
    for i, (label, preset) in enumerate(shapes.items()):
        f = big.get(label, 1.0)
        for b in z["decode_batches"]:
            for mode in ("loop", "generate"):
                cases.append(SuiteCase(
                    id=f"decode-{label}-b{b}-{mode}", kind="inference", phase=2 + i, shape=label, model=preset,
                    measure="decode", mode=mode, batch=b, input_tokens=z["decode_input"],
                    output_tokens=z["decode_output"], repeats=rep, min_seconds=6 * f))
        for t in z["prefill_tokens"]:
            cases.append(SuiteCase(
                id=f"prefill-{label}-{t}-loop", kind="inference", phase=2 + i, shape=label, model=preset,
                measure="prefill", mode="loop", batch=1, input_tokens=t, output_tokens=2, repeats=rep,
                min_seconds=4 * f))
    for i, (label, preset) in enumerate(shapes.items()):
        tasks: tuple[str, ...] = ("lora",) if label == "8b" else ("full", "lora")
        f = big.get(label, 1.0)
        for task in tasks:
            for opt in ("adamw", "adamw8bit"):
                for mb in z["micro_batches"]:
                    for rc in ("none", "full"):
                        cases.append(SuiteCase(
                            id=f"train-{label}-{task}-mb{mb}-{'ckpt' if rc == 'full' else 'nockpt'}-{opt}",
                            kind="train", phase=4 + i, shape=label, model=preset, precision="bf16", task=task,  # type: ignore[arg-type]
                            batch=mb, seq=z["seq"], recompute=rc, optimizer=opt,  # type: ignore[arg-type]
                            lora_rank=LORA_RANK if task == "lora" else None,
                            lora_alpha=LORA_ALPHA if task == "lora" else None,
                            lora_targets="all-linear" if task == "lora" else None,
                            warmup=1, repeats=z["train_steps"], min_seconds=8 * f))
    for label, preset in shapes.items():
        f = big.get(label, 1.0)
        for expandable in (False, True):
            for lengths in ("fixed", "lognormal"):
                cases.append(SuiteCase(
                    id=f"train-{label}-lora-varlen-{lengths}-expseg-{'on' if expandable else 'off'}", kind="train",
                    phase=6, shape=label, model=preset, precision="bf16", task="lora", batch=1, seq=z["seq"],
                    recompute="full", optimizer="adamw", lora_rank=LORA_RANK, lora_alpha=LORA_ALPHA,
                    lora_targets="all-linear", lengths=lengths, length_seed=0 if lengths == "lognormal" else None,  # type: ignore[arg-type]
                    expandable_segments=expandable, warmup=0, repeats=z["varlen_steps"], min_seconds=8 * f))
    for i, (label, preset) in enumerate(shapes.items()):
        f = big.get(label, 1.0)
        for b in z["decode_batches"]:
            cases.append(SuiteCase(
                id=f"decode-{label}-b{b}-generate-static", kind="inference", phase=7 + i, shape=label, model=preset,
                measure="decode", mode="generate-static", batch=b, input_tokens=z["decode_input"],
                output_tokens=z["decode_output"], warmup=2, repeats=rep, min_seconds=40 * f))
    return sorted(cases, key=lambda c: c.phase)


# ----------------------------------------------------------------------------------------- running


def _version(mod: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(mod)
    except Exception:  # noqa: BLE001 - not installed or broken metadata: the environment just lacks it
        return None


def _run_text(cmd: list[str]) -> str | None:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out.splitlines()[0].strip() if out else None


def environment(backend: Any) -> Environment:
    info = backend.info()
    torch = sys.modules.get("torch")
    driver = None
    if info.backend == "cuda":
        driver = _run_text(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    repo = Path(__file__).resolve().parents[3]
    return Environment(
        date=dt.datetime.now(dt.UTC).replace(microsecond=0),
        host=platform.node(),
        python=platform.python_version(),
        platform=platform.platform(),
        suanli_version=__version__,
        git_commit=_run_text(["git", "-C", str(repo), "rev-parse", "HEAD"]) if (repo / ".git").exists() else None,
        torch=getattr(torch, "__version__", None),
        transformers=_version("transformers"),
        peft=_version("peft"),
        bitsandbytes=_version("bitsandbytes"),
        cuda_runtime=getattr(getattr(torch, "version", None), "cuda", None),
        driver=driver,
        backend=info.backend,
        device=info.device,
        device_name=info.device_name,
        device_count=info.device_count,
        total_memory_bytes=info.total_memory_bytes,
        memory_kind=info.memory_kind,
    )


def guess_accelerator(device_name: str) -> str | None:
    """The catalog id of a device from its name ('NVIDIA H200' -> 'h200'), or None when nothing matches."""
    from suanli.catalog import lookup
    from suanli.catalog.load import packaged_catalog
    from suanli.errors import SuanliError

    name = device_name.lower().replace("nvidia", "").strip()
    for cand in (name, name.replace(" ", "-"), name.split(" ")[0] if name else ""):
        if not cand:
            continue
        try:
            return lookup.accelerator(packaged_catalog(), cand).id
        except SuanliError:
            continue
    return None


def _hf_config(preset: str) -> dict[str, Any]:
    from suanli.bench.models import preset_spec

    spec = preset_spec(preset)
    return {"model_type": "llama", "architectures": [spec["architecture"]], **spec["config"]}


def _estimate_args(case: SuiteCase, accelerator: str | None) -> dict[str, Any] | None:
    if case.model is None or case.kind not in ("inference", "train"):
        return None
    args: dict[str, Any] = {"model": f"configs/{case.model}.json", "gpu": accelerator, "task": case.task,
                            "precision": case.precision, "batch": case.batch}
    if case.kind == "inference":
        args.update(input=case.input_tokens, output=case.output_tokens, engine="hf")
    else:
        args.update(seq=case.seq, recompute=case.recompute, optimizer=case.optimizer)
        if case.task == "lora":
            args.update(lora_rank=case.lora_rank, lora_targets=case.lora_targets)
    return args


def _estimate_command(args: dict[str, Any] | None) -> str | None:
    if args is None:
        return None
    parts = ["suanli estimate"]
    for k, v in args.items():
        if k == "gpu" and v is None:
            v = "GPU"  # no catalog id for this device (a host CPU): name one to compare with
        if v is None or k == "lora_targets":  # the CLI's LoRA targets are all-linear, the suite's too
            continue
        parts.append(f"--{k.replace('_', '-')} {v}")
    return " ".join(parts)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from transformers.utils import logging as hf_logging

            before = hf_logging.get_verbosity()
            hf_logging.set_verbosity_error()
        except ImportError:  # pragma: no cover
            yield
            return
        try:
            yield
        finally:
            hf_logging.set_verbosity(before)


def _free(backend: Any) -> None:
    """Collect what is no longer referenced, then empty the device allocator's cache (torch.cuda / torch.npu
    empty_cache: cached blocks go back to the device)."""
    gc.collect()
    empty = getattr(getattr(backend, "module", None), "empty_cache", None)
    if backend.is_accelerator and callable(empty):
        empty()


def build_model(preset: str, precision: str, backend: Any) -> Any:
    """A preset with random weights on the backend's device. On accelerators the model is built and initialised
    on the device (an 8B model in seconds); on the CPU it is the harness's deterministic CPU build."""
    from suanli.bench.models import LoadedModel, _info, _require_transformers, dtype_for, load_model, preset_spec

    if not backend.is_accelerator or backend.name == "fake":
        return load_model(preset, precision, backend.device)
    import torch

    transformers = _require_transformers()
    spec = preset_spec(preset)
    cfg = getattr(transformers, spec["architecture"].replace("ForCausalLM", "Config"))(**spec["config"])
    cfg.architectures = [spec["architecture"]]
    dtype = dtype_for(precision)
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(backend.device):
            model = getattr(transformers, spec["architecture"])(cfg)
    finally:
        torch.set_default_dtype(before)
    g = torch.Generator(device=backend.device).manual_seed(int(spec["init"]["seed"]))
    std = float(spec["init"]["std"])
    with torch.no_grad():
        for _, p in sorted(model.named_parameters(), key=lambda kv: kv[0]):
            if p.dim() >= 2:
                p.normal_(0.0, std, generator=g)
            else:
                p.fill_(1.0)
    model = model.eval()
    from suanli.bench.models import ByteTokenizer

    return LoadedModel(model, ByteTokenizer(), _info(model, preset, "preset", preset, precision, True), backend.device)


class _Clock:
    """The generate streamer's callback: a timestamp (after a device sync) each time tokens come out."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.times: list[float] = []

    def put(self, value: Any) -> None:
        self.backend.synchronize()
        self.times.append(time.perf_counter())

    def end(self) -> None:
        return None


def _measure_generate(lm: Any, backend: Any, case: SuiteCase) -> tuple[dict[str, Any], list[str]]:
    """Decode through transformers' generate: prefill = prompt put -> first token; decode = first -> last token."""
    import torch
    from transformers.generation.streamers import BaseStreamer

    from suanli.bench.testset import throughput_ids

    assert case.input_tokens is not None and case.output_tokens is not None
    ids = torch.tensor(throughput_ids(lm.tokenizer, case.batch, case.input_tokens), dtype=torch.long,
                       device=lm.device)
    mask = torch.ones_like(ids)
    extra: dict[str, Any] = {}
    notes = []
    if case.mode == "generate-static":
        extra["cache_implementation"] = "static"
        if backend.name == "cuda":
            notes.append("static KV cache; transformers compiles the decode step on CUDA "
                         f"(compile_config {getattr(lm.model.generation_config, 'compile_config', None)!r})")
        else:
            notes.append(f"static KV cache; no torch.compile on {backend.name} (transformers compiles on CUDA only)")

    class Streamer(_Clock, BaseStreamer):  # type: ignore[misc]
        pass

    def one() -> tuple[float, float, int]:
        st = Streamer(backend)
        backend.synchronize()
        t0 = time.perf_counter()
        lm.model.generate(ids, attention_mask=mask, max_new_tokens=case.output_tokens,
                          min_new_tokens=case.output_tokens, do_sample=False, pad_token_id=0, streamer=st, **extra)
        backend.synchronize()
        # times[0]: the prompt is put before prefill; times[1]: first token; times[-1]: last token
        return st.times[1] - t0, st.times[-1] - st.times[1], len(st.times) - 2

    with torch.inference_mode(), _quiet():
        for _ in range(case.warmup):
            one()
        backend.reset_peak()
        samples = [one() for _ in range(case.repeats)]
        peak = backend.peak_memory_bytes()
    steps = samples[0][2]
    decode_s = statistics.median(s[1] for s in samples)
    ttft_s = statistics.median(s[0] for s in samples)
    return {
        "decode_tokens_per_s": case.batch * steps / decode_s,
        "decode_step_latency_s": decode_s / steps,
        "decode_steps": steps,
        "ttft_s": ttft_s,
        "peak_memory_bytes": peak,
        "memory_kind": backend.memory_kind,
        "samples_decode_time_s": [s[1] for s in samples],
        "samples_ttft_s": [s[0] for s in samples],
    }, notes


def _measure_loop(lm: Any, backend: Any, case: SuiteCase, micro: Microbench | None, command: str,
                  accelerator: str | None) -> tuple[dict[str, Any], BenchResult]:
    from suanli.bench.results import RunConfig
    from suanli.bench.run import measure_throughput, precision_mode, tf32_setting

    assert case.input_tokens is not None and case.output_tokens is not None
    with precision_mode(case.precision, backend):
        tp = measure_throughput(lm, backend, case.batch, case.input_tokens, case.output_tokens, case.warmup,
                                case.repeats)
        tf32 = tf32_setting(backend)
    result = BenchResult(
        command=f"{command} --only {case.id}", accelerator=accelerator, backend=backend.info(), model=lm.info,
        config=RunConfig(device=backend.device if backend.name != "fake" else "fake", model=lm.info.name,
                         precision=case.precision, batch=case.batch, input_tokens=case.input_tokens,
                         output_tokens=case.output_tokens, warmup=case.warmup, repeats=case.repeats),
        throughput=tp, micro=micro, tf32=tf32,
    )
    metrics: dict[str, Any] = {
        "prefill_tokens_per_s": tp.prefill_tokens_per_s, "prefill_time_s": tp.prefill_time_s, "ttft_s": tp.ttft_s,
        "decode_tokens_per_s": tp.decode_tokens_per_s, "decode_step_latency_s": tp.decode_step_latency_s,
        "peak_memory_bytes": tp.peak_memory_bytes, "memory_kind": tp.memory_kind,
    }
    return metrics, result


def _train_model(case: SuiteCase, backend: Any) -> Any:
    """Full fine-tuning: fp32 weights (the master copy), autocast to bf16. LoRA: bf16 base, fp32 adapters."""
    assert case.model is not None
    if case.task == "full":
        return build_model(case.model, "fp32", backend)
    try:
        import peft
    except ImportError as e:
        from suanli.errors import InputError

        raise InputError("peft", Message("err.lora_cases_need_peft_pip_install")) from e
    lm = build_model(case.model, case.precision, backend)
    cfg = peft.LoraConfig(r=case.lora_rank or LORA_RANK, lora_alpha=case.lora_alpha or LORA_ALPHA,
                          target_modules="all-linear", lora_dropout=0.0, task_type="CAUSAL_LM")
    with _quiet():
        lm.model = peft.get_peft_model(lm.model, cfg)
    return lm


def _optimizer(case: SuiteCase, params: list[Any]) -> Any:
    import torch

    lr = 1e-5  # assumed: any small learning rate; speed and memory do not depend on it
    if case.optimizer == "adamw8bit":
        import bitsandbytes as bnb  # checked before the case runs

        return bnb.optim.AdamW8bit(params, lr=lr)
    return torch.optim.AdamW(params, lr=lr)


def _train_setup(lm: Any, case: SuiteCase) -> tuple[Any, list[Any], Any]:
    """The model in training mode with the case's recomputation, its trainable parameters, and their optimizer."""
    model = lm.model
    with _quiet():
        if case.recompute == "full":
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        elif getattr(model, "is_gradient_checkpointing", False):
            model.gradient_checkpointing_disable()
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    return model, params, _optimizer(case, params)


def _train_step(model: Any, opt: Any, backend: Any, x: Any) -> None:
    """One optimizer step on token ids `x` (labels = inputs; the model shifts them), forward and backward under
    bf16 autocast, as transformers' Trainer with bf16=True."""
    import torch

    with torch.autocast("cuda" if backend.name == "cuda" else "cpu", dtype=torch.bfloat16):
        loss = model(input_ids=x, labels=x, use_cache=False).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


_LORA_NOTE = "LoRA: frozen bf16 base, fp32 adapters (peft default), forward/backward under torch.autocast(bfloat16)"


def _measure_train(lm: Any, backend: Any, case: SuiteCase) -> tuple[dict[str, Any], list[str]]:
    import torch

    from suanli.bench.run import timed

    assert case.seq is not None
    model, params, opt = _train_setup(lm, case)
    g = torch.Generator(device="cpu").manual_seed(0)
    vocab = int(lm.info.vocab_size)
    x = torch.randint(0, vocab, (case.batch, case.seq), generator=g).to(lm.device)

    def step() -> None:
        _train_step(model, opt, backend, x)

    try:
        with _quiet():
            for _ in range(case.warmup):
                step()  # allocates the optimizer states
            backend.reset_peak()
            samples = timed(backend, step, 0, case.repeats)
            peak = backend.peak_memory_bytes()
    finally:
        opt.state.clear()  # frees the optimizer states before the next case
        model.zero_grad(set_to_none=True)
    t = statistics.median(samples)
    tokens = case.batch * case.seq
    trainable = sum(p.numel() for p in params)
    notes = ["full fine-tuning: fp32 weights and AdamW states, forward/backward under torch.autocast(bfloat16)"
             if case.task == "full" else _LORA_NOTE]
    return {
        "step_time_s": t, "train_tokens_per_s": tokens / t, "tokens_per_step": tokens,
        "trainable_params": trainable, "peak_memory_bytes": peak, "memory_kind": backend.memory_kind,
        "samples_step_time_s": samples,
    }, notes


def _env_expandable(backend_name: str) -> tuple[bool, dict[str, str]]:
    """The process's expandable_segments setting from its environment, and the variables as set: on npu
    PYTORCH_NPU_ALLOC_CONF (torch_npu); else the first set of PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF (the
    order c10/core/AllocatorConfig.cpp reads them in torch >= 2.9; earlier torch reads the second only). Unset: False,
    the allocator's default (CUDAAllocatorConfig; torch_npu's default assumed the same)."""
    names = ("PYTORCH_NPU_ALLOC_CONF",) if backend_name == "npu" else ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF")
    env = {n: os.environ[n] for n in names if n in os.environ}
    on = False
    for item in next(iter(env.values()), "").split(","):
        key, _, value = item.partition(":")
        if key.strip() == "expandable_segments":
            on = value.strip() == "True"  # the allocator's parser takes True or False
    return on, env


def _allocator_setting(backend: Any, case: SuiteCase) -> dict[str, Any]:
    """Before a variable-length case builds its model (every model dropped and the cache emptied): its
    expandable_segments setting made where the backend can at run time, how it was made, and what the allocator
    holds now."""
    env_on, env = _env_expandable(backend.name)
    out: dict[str, Any] = {"alloc_conf_env": env}
    if not backend.is_accelerator:
        out.update(expandable_segments=None, expandable_segments_how="no caching allocator on the CPU")
    elif backend.runtime_allocator_settings and case.expandable_segments is not None:
        backend.set_expandable_segments(case.expandable_segments)
        out.update(expandable_segments=case.expandable_segments,
                   expandable_segments_how="set at run time (torch.cuda.memory._set_allocator_settings) after "
                   "every model was dropped and the cache emptied, before the case's model was built")
    else:  # _skip_reason runs only the case that matches the process's setting
        out.update(expandable_segments=env_on, expandable_segments_how="the process's environment")
    backend.reset_peak()
    out["before_model_allocated_bytes"] = backend.peak_memory_bytes() if backend.is_accelerator else None
    out["before_model_reserved_bytes"] = backend.peak_reserved_bytes()
    return out


def _measure_varlen(lm: Any, backend: Any, case: SuiteCase, setting: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A variable-length LoRA run: `case.repeats` steps of `varlen_lengths`, the allocator's running peaks after
    each; no warmup left out (the first step allocates the AdamW states), as swift's max_memory_reserved covers its
    whole run."""
    import torch

    assert case.seq is not None and case.lengths is not None
    lengths = varlen_lengths(case.lengths, case.seq, case.repeats, case.length_seed or 0)
    model, params, opt = _train_setup(lm, case)
    g = torch.Generator(device="cpu").manual_seed(0)
    vocab = int(lm.info.vocab_size)
    device_memory = backend.memory_kind == "device-max-allocated"
    times: list[float] = []
    allocated: list[int] = []
    reserved: list[int | None] = []
    try:
        with _quiet():
            backend.reset_peak()  # from the model as built on an emptied allocator
            start = (backend.peak_memory_bytes(), backend.peak_reserved_bytes())
            for n in lengths:
                x = torch.randint(0, vocab, (case.batch, n), generator=g).to(lm.device)
                backend.synchronize()
                t0 = time.perf_counter()
                _train_step(model, opt, backend, x)
                backend.synchronize()
                times.append(time.perf_counter() - t0)
                allocated.append(backend.peak_memory_bytes())  # running peaks: reset once, before the first step
                reserved.append(backend.peak_reserved_bytes())
                del x
    finally:
        opt.state.clear()  # frees the optimizer states before the next case
        model.zero_grad(set_to_none=True)
    segments = backend.segment_counts()
    tokens = case.batch * sum(lengths)
    at_max = sum(1 for n in lengths if n == case.seq)
    if case.lengths == "fixed":
        drawn = f"every step {case.seq} tokens"
    else:
        mu, sigma = swift_lognormal()
        drawn = (f"log-normal lengths (mu {mu:.4f}, sigma {sigma:.4f}: ms-swift's LoRA benchmark dataset, "
                 f"{SWIFT_LENGTH_MEAN_TOKENS} +- {SWIFT_LENGTH_SD_TOKENS} tokens, moments matched; the shape is "
                 f"assumed, its page states mean, sd, min 91 and max 19548 only) x {case.seq}/"
                 f"{SWIFT_MAX_LENGTH_TOKENS}, truncated at max_length {case.seq} (expected share truncated "
                 f"{swift_share_truncated():.0%}), random.Random({case.length_seed or 0})")
    notes = [_LORA_NOTE,
             f"variable-length steps, batch {case.batch}: {drawn}; {at_max} of {len(lengths)} steps at max_length; "
             "peaks over every step from the freshly built model on, no warmup left out (swift's "
             "max_memory_reserved covers its whole run); one optimizer step per step, attention "
             f"{getattr(getattr(model, 'config', None), '_attn_implementation', None)} (swift's rows: LoRA rank 8 "
             "on its DEFAULT targets, flash attention, gradient accumulation 16)"]
    if backend.is_accelerator:
        notes.append(f"expandable_segments {setting['expandable_segments']}: {setting['expandable_segments_how']}; "
                     + (f"segments held at the end: {segments[0]} expandable of {segments[1]}" if segments
                        else "the allocator's snapshot does not say which segments are expandable"))
    else:
        notes.append("no caching allocator on the CPU: no reserved figure and no expandable_segments setting; "
                     "peak_memory_bytes is the process's peak RSS")
    return {
        **setting,
        "lengths": lengths, "steps": len(lengths), "max_length": case.seq, "steps_at_max_length": at_max,
        "tokens": tokens, "step_time_s": statistics.median(times), "train_tokens_per_s": tokens / sum(times),
        "samples_step_time_s": times, "trainable_params": sum(p.numel() for p in params),
        "peak_memory_bytes": allocated[-1], "memory_kind": backend.memory_kind,
        "peak_allocated_bytes": allocated[-1] if device_memory else None,
        "peak_reserved_bytes": reserved[-1],
        "start_allocated_bytes": start[0] if device_memory else None, "start_reserved_bytes": start[1],
        "steps_peak_allocated_bytes": allocated if device_memory else None,
        "steps_peak_reserved_bytes": reserved if reserved[-1] is not None else None,
        "segments_expandable_and_all": list(segments) if segments else None,
    }, notes


def _measure_matmul(backend: Any, case: SuiteCase) -> dict[str, Any]:
    from suanli.bench.run import matmul_tflops, timed

    if case.precision != "fp8":
        m = matmul_tflops(backend, case.precision, case.n, case.warmup, case.repeats)
        return {"tflops": m.tflops, "n": m.n, "time_s": m.time_s, "flops_per_call": m.flops_per_call,
                "samples_time_s": m.samples_time_s, **({"tf32": m.tf32} if m.tf32 is not None else {})}
    import torch

    n = int(case.n or 8192)
    gen = torch.Generator(device="cpu").manual_seed(0)
    a = torch.randn(n, n, generator=gen).to(backend.device).to(torch.float8_e4m3fn)
    b = torch.randn(n, n, generator=gen).to(backend.device).to(torch.float8_e4m3fn).t()  # column-major operand
    one = torch.ones((), device=backend.device, dtype=torch.float32)
    with torch.inference_mode():
        samples = timed(backend, lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
                        case.warmup, case.repeats)
    t = statistics.median(samples)
    flops = 2.0 * n**3
    return {"tflops": flops / t / 1e12, "n": n, "time_s": t, "flops_per_call": flops, "samples_time_s": samples,
            "kernel": "torch._scaled_mm e4m3 x e4m3 -> bf16, unit scales"}


def _skip_reason(case: SuiteCase, backend: Any) -> Message | None:
    """Why a case cannot run on this device or in this environment (None: it can)."""
    if case.kind == "matmul" and case.precision == "fp8":
        if backend.name != "cuda":
            return Message("bench.suite.skip_fp8_not_cuda", backend=backend.name)
        import torch

        cc = torch.cuda.get_device_capability(backend.device)
        if cc < (8, 9) or not hasattr(torch, "_scaled_mm"):
            return Message("bench.suite.skip_fp8_cc", major=cc[0], minor=cc[1])
    if case.optimizer == "adamw8bit":
        try:
            import bitsandbytes  # noqa: F401
        except Exception as e:  # noqa: BLE001 - ImportError or its CUDA-setup errors: recorded as the reason
            if type(e) is ModuleNotFoundError and e.name and str(e) == f"No module named '{e.name}'":
                return Message("bench.suite.skip_bnb_missing", module=e.name)  # Python's sentence, translated
            return Message("bench.suite.skip_bnb",
                           error=f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    if case.task == "lora":
        try:
            import peft  # noqa: F401
        except ImportError:
            return Message("bench.suite.skip_peft")
    if case.expandable_segments is not None:
        if not backend.is_accelerator:
            return Message("bench.suite.skip_expseg_cpu") if case.expandable_segments else None
        env_on, _ = _env_expandable(backend.name)
        if not backend.runtime_allocator_settings and case.expandable_segments != env_on:
            var = "PYTORCH_NPU_ALLOC_CONF" if backend.name == "npu" else "PYTORCH_CUDA_ALLOC_CONF"
            return Message("bench.suite.skip_expseg_env", backend=backend.name, now=env_on, var=var,
                           want=case.expandable_segments, id=case.id)
    return None


def read_records(directory: Path) -> tuple[list[CaseRecord], list[str | Message]]:
    """Every case file under `directory` (the run manifest and other JSON are left out), and unreadable files (a
    field's problem as a message naming the file and the field's dotted path, in the reader's language)."""
    from pydantic import ValidationError

    from suanli.errors import echoed, nonfinite_at, validation_message

    out: list[CaseRecord] = []
    bad: list[str | Message] = []
    for p in sorted(directory.glob("*.json")):
        try:
            doc = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            bad.append(f"{p.name}: {e}")
            continue
        if not isinstance(doc, dict) or doc.get("format") != SUITE_FORMAT:
            continue
        nonfinite = nonfinite_at(doc)
        if nonfinite is not None:  # JSON has no NaN or Infinity; Python's reader takes them: named, not stored
            bad.append(Message("bench.import.bad_field", file=p.name, path=nonfinite[0],
                               msg=Message("error.v.finite", value=echoed(nonfinite[1]))))
            continue
        try:
            out.append(CaseRecord.model_validate(doc))
        except ValidationError as e:
            err = e.errors()[0]
            bad.append(Message("bench.import.bad_field", file=p.name, path=".".join(str(x) for x in err["loc"]),
                               msg=validation_message(err)))
    return out, bad


def _write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def run_suite(
    outdir: Path,
    device: str = "auto",
    size: str = "auto",
    budget_s: float = 420.0,
    accelerator: str | None = None,
    only: list[str] | None = None,
    command: str = "",
    progress: Callable[[CaseRecord], None] | None = None,
) -> SuiteRun:
    """Run the suite into `outdir` (one `<case id>.json` per case, `run.json`, `configs/<preset>.json`)."""
    from suanli.bench.backends import get_backend, require_torch
    from suanli.errors import InputError

    torch = require_torch()
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    backend = get_backend(device)
    if size == "auto":
        size = "full" if backend.is_accelerator and backend.name != "fake" else "tiny"
    if size not in _SIZES:
        raise InputError("size", Message("err.is_not_one_of_auto", size=size, names_sizes=', '.join(_SIZES)))
    if budget_s <= 0:
        raise InputError("budget-s", Message("err.must_be_seconds_got", budget_s=budget_s))
    cases = plan_cases(size)  # type: ignore[arg-type]
    if only:
        cases = [c for c in cases if any(fnmatch.fnmatch(c.id, pat) for pat in only)]
        if not cases:
            ids = ", ".join(c.id for c in plan_cases(size)[:6])  # type: ignore[arg-type]
            raise InputError("only", Message("err.no_case_matches_case_ids_look", names_only=', '.join(only), ids=ids))
    try:
        outdir.mkdir(parents=True, exist_ok=True)
        (outdir / "configs").mkdir(exist_ok=True)
    except OSError as e:
        raise InputError("outdir", Message("err.cannot_write_into", outdir=outdir, v=e.strerror or e)) from None
    env = environment(backend)
    if accelerator is None and backend.name == "cuda":
        accelerator = guess_accelerator(env.device_name)
    run = SuiteRun(run_id=new_id(), command=command, size=size, budget_s=budget_s,  # type: ignore[arg-type]
                   environment=env, accelerator=accelerator, started_at=env.date)
    for preset in sorted({c.model for c in cases if c.model}):
        _write(outdir / "configs" / f"{preset}.json", json.dumps(_hf_config(preset), indent=2))
    start = time.perf_counter()
    micro = Microbench()
    loaded: dict[tuple[str, ...], Any] = {}  # (preset, precision, task) -> LoadedModel, one at a time
    lm: Any = None  # the case's model; let go before models are dropped (else the cache cannot be emptied)

    def drop_models() -> None:
        loaded.clear()
        _free(backend)

    for case in cases:
        left = budget_s - (time.perf_counter() - start)
        rec = CaseRecord(run_id=run.run_id, case=case, status="ok", command=command, environment=env,
                         accelerator=accelerator, hf_config=_hf_config(case.model) if case.model else None)
        rec.estimate_args = _estimate_args(case, accelerator)
        rec.estimate_command = _estimate_command(rec.estimate_args)
        key: tuple[str, ...] | None = (
            (case.model or "", case.precision, case.task) if case.kind in ("inference", "train") else None)
        if key is not None and case.lengths is not None:
            key = (*key, case.id)  # its own model on an emptied allocator: no cache another case left
        need = case.min_seconds * (1 if key is None or key in loaded else 2)
        reason = _skip_reason(case, backend)
        if reason is None and left < need:
            reason = Message("bench.suite.skip_budget", left=left, budget=budget_s, need=need)
        t0 = time.perf_counter()
        restore: bool | None = None  # the process's expandable_segments, put back after a case that changed it
        if reason is not None:  # the record keeps the English sentence and its message (shown in each language)
            rec.status, rec.reason, rec.reason_i18n = "skipped", render(reason, "en"), reason.to_json()
        else:
            try:
                if case.kind == "matmul":
                    rec.metrics = _measure_matmul(backend, case)
                    micro.matmul.append(_matmul_result(case, rec.metrics))
                elif case.kind == "copy":
                    from suanli.bench.run import memory_bandwidth

                    bw = memory_bandwidth(backend, case.buffer_bytes, case.warmup, case.repeats)
                    micro.bandwidth = bw
                    rec.metrics = {"bytes_per_s": bw.bytes_per_s, "buffer_bytes": bw.buffer_bytes,
                                   "bytes_per_call": bw.bytes_per_call, "time_s": bw.time_s,
                                   "samples_time_s": bw.samples_time_s}
                elif case.kind == "accuracy":
                    drop_models()
                    rec.bench_result, rec.metrics = _accuracy(backend, case, command, accelerator)
                    rec.notes.append("tiny preset on this device against the packaged CPU fp32 reference run")
                else:
                    assert key is not None and case.model is not None
                    setting: dict[str, Any] = {}
                    if key not in loaded:
                        lm = None
                        drop_models()
                        if case.lengths is not None:
                            setting = _allocator_setting(backend, case)
                            if backend.is_accelerator and backend.runtime_allocator_settings:
                                restore = _env_expandable(backend.name)[0]  # put back after the case
                        loaded[key] = (_train_model(case, backend) if case.kind == "train"
                                       else build_model(case.model, case.precision, backend))
                    lm = loaded[key]
                    if case.kind == "train" and case.lengths is not None:
                        rec.metrics, rec.notes = _measure_varlen(lm, backend, case, setting)
                    elif case.kind == "train":
                        rec.metrics, rec.notes = _measure_train(lm, backend, case)
                    elif case.mode == "loop":
                        rec.metrics, rec.bench_result = _measure_loop(
                            lm, backend, case, micro if (micro.matmul or micro.bandwidth) else None, command,
                            accelerator)
                    else:
                        rec.metrics, rec.notes = _measure_generate(lm, backend, case)
                    rec.metrics.setdefault("model_params", lm.info.params)
            except Exception as e:  # noqa: BLE001 - out of memory and the like: recorded as the case's failure
                rec.status = "failed"
                rec.reason = f"{type(e).__name__}: {(str(e).strip().splitlines() or [''])[0][:300]}"
                lm = None
                drop_models()
        if restore is not None:
            backend.set_expandable_segments(restore)
        rec.elapsed_s = time.perf_counter() - t0
        _write(outdir / f"{case.id}.json", rec.model_dump_json(indent=1))
        run.cases[case.id] = rec.status
        if progress is not None:
            progress(rec)
    drop_models()
    run.finished_at = dt.datetime.now(dt.UTC).replace(microsecond=0)
    _write(outdir / "run.json", run.model_dump_json(indent=1))
    return run


def _matmul_result(case: SuiteCase, m: dict[str, Any]) -> Any:
    from suanli.bench.results import MatmulResult

    return MatmulResult(precision=case.precision, n=int(m["n"]), flops_per_call=float(m["flops_per_call"]),
                        time_s=float(m["time_s"]), tflops=float(m["tflops"]), samples_time_s=list(m["samples_time_s"]),
                        tf32=m.get("tf32"))


def _accuracy(backend: Any, case: SuiteCase, command: str, accelerator: str | None) -> tuple[BenchResult, dict[str, Any]]:
    from suanli.bench.run import BenchSpec, run_benchmark

    spec = BenchSpec(device=backend.device, model=case.model or "tiny-llama", precision=case.precision,
                     throughput=False, micro=False, accuracy=True, accelerator=accelerator,
                     command=f"{command} --only {case.id}")
    r = run_benchmark(spec, backend=backend)
    a = r.accuracy
    metrics: dict[str, Any] = {}
    if a is not None:
        metrics = {"passed": a.passed, "verdict": a.verdict, "max_logit_rel_diff": a.max_logit_rel_diff,
                   "max_abs_logit_diff": a.max_abs_logit_diff, "perplexity": a.perplexity,
                   "reference_perplexity": a.reference_perplexity, "perplexity_rel_diff": a.perplexity_rel_diff}
    return r, metrics


def default_command(argv: list[str] | None = None) -> str:
    """The command line as typed (program name shortened to `suanli`)."""
    args = list(sys.argv if argv is None else argv)
    if args and os.path.basename(args[0]) in ("suanli", "__main__.py", "main.py"):
        args[0] = "suanli"
    return " ".join(args)
