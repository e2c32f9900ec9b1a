"""Benchmark results as pydantic models, their JSON form, and a file store.

Store layout (one JSON file per object; the service's SQL storage can replace it behind the same methods):

    <root>/results/<id>.json        a BenchResult
    <root>/references/<key>.json    a ReferenceRun (one per model key; newest wins)

`<root>` is `$SUANLI_HOME/bench` when SUANLI_HOME is set, else `~/.local/share/suanli/bench`.
Packaged references (`suanli/data/bench/references/`) are consulted after the store.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import os
import re
import uuid
from importlib import resources
from pathlib import Path
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from suanli import __version__
from suanli.bench.backends import BackendInfo
from suanli.bench.models import ModelInfo
from suanli.errors import DataFileError, InputError, NotFoundError, echoed, nonfinite_at
from suanli.i18n import Message

__all__ = [
    "SCHEMA_VERSION",
    "TF32_ENV_VARS",
    "AccuracyResult",
    "BandwidthResult",
    "BenchResult",
    "MatmulResult",
    "Microbench",
    "ReferenceRun",
    "ResultStore",
    "RunConfig",
    "Throughput",
    "Tf32Setting",
    "default_store_dir",
    "matmul_tf32",
    "new_id",
    "roof_precision",
]

SCHEMA_VERSION = 1


def new_id() -> str:
    """Sortable unique id: UTC time to the second plus 6 random hex digits."""
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:6]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


class RunConfig(BaseModel):
    device: str
    model: str
    precision: str
    batch: int = Field(ge=1)
    input_tokens: int = Field(ge=1)
    output_tokens: int = Field(ge=2, description="generated tokens per sequence; the first comes from prefill")
    warmup: int = Field(ge=0)
    repeats: int = Field(ge=1)


class Throughput(BaseModel):
    """Medians over `repeats` timed runs after `warmup` untimed ones; every time is taken after a device sync."""

    prefill_tokens: int = Field(description="batch * input_tokens")
    prefill_time_s: float
    prefill_tokens_per_s: float
    ttft_s: float = Field(description="prefill forward + choosing the first token, batch-wide")
    decode_steps: int = Field(description="output_tokens - 1 forward passes of one token per sequence")
    decode_tokens: int = Field(description="batch * decode_steps")
    decode_time_s: float
    decode_tokens_per_s: float = Field(description="decode_tokens / decode_time_s")
    decode_step_latency_s: float = Field(description="decode_time_s / decode_steps (time per output token)")
    peak_memory_bytes: int
    memory_kind: str = Field(description="device-max-allocated or process-peak-rss")
    samples_prefill_time_s: list[float] = []
    samples_ttft_s: list[float] = []
    samples_decode_time_s: list[float] = []


# The environment variables that override torch's own TF32 switch for cuBLAS matmuls:
# NVIDIA_TF32_OVERRIDE=0 makes every NVIDIA library (cuBLAS, cuDNN) leave TF32 off whatever the framework asks
# (github.com/alibaba/DeepRec docs/docs_en/NVIDIA-TF32.md, read 2026-12-01; only 0 is documented there);
# TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 "forces TF32 enablement, overrides set_float32_matmul_precision"
# (docs.pytorch.org/docs/stable/cuda_environment_variables, read 2026-12-01).
TF32_ENV_VARS = ("NVIDIA_TF32_OVERRIDE", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE")


def matmul_tf32(allow_tf32: bool | None, env: dict[str, str], fp32_precision: str | None = None) -> bool:
    """Whether cuBLAS fp32 matmuls run on the TF32 tensor cores: torch's switch unless an environment override says
    otherwise; NVIDIA's library-level override wins over torch's (it is applied inside cuBLAS, below torch). torch's
    switch is `torch.backends.cuda.matmul.fp32_precision` where it is set ("tf32" on, "ieee" off; torch >= 2.9,
    pytorch/pytorch#125888, docs.pytorch.org/docs/stable/notes/cuda.html 'TensorFloat-32 (TF32) on Ampere (and later)
    devices', read 2026-12-01; the legacy setters write it too), else `allow_tf32` (float32_matmul_precision other
    than "highest"); "none" (not set: inherits its parent, all unset means ieee), absent or unreadable: allow_tf32,
    and off when that is unreadable too (torch raises on it once the new API set the flag)."""
    if env.get("NVIDIA_TF32_OVERRIDE") == "0":
        return False
    if env.get("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE") == "1":
        return True
    if fp32_precision in ("tf32", "ieee"):
        return fp32_precision == "tf32"
    return bool(allow_tf32)


def roof_precision(precision: str, tf32: bool | None) -> str:
    """The precision whose peak a run's matmuls ran at: fp32 storage (`fp32`, `tf32`) is tf32 when TF32 was on and
    fp32 when it was off; None (not recorded, results before 2026-12-01) trusts the precision's name."""
    if tf32 is None or precision not in ("fp32", "tf32"):
        return precision
    return "tf32" if tf32 else "fp32"


class Tf32Setting(BaseModel):
    """torch's TensorFloat-32 switches as the run read them while it measured (not the harness's intent): on an
    NVIDIA GPU (and CPU, as before) torch's own, on an Ascend NPU torch_npu's HF32 switches. A switch this torch does
    not have, or would not read, is None (not recorded)."""

    float32_matmul_precision: str | None = Field(default=None, description="torch.get_float32_matmul_precision()")
    cuda_matmul_allow_tf32: bool | None = Field(default=None, description="torch.backends.cuda.matmul.allow_tf32")
    cudnn_allow_tf32: bool | None = Field(
        default=None, description="torch.backends.cudnn.allow_tf32 (convolutions; no matmul of a transformer uses it)")
    cuda_matmul_fp32_precision: str | None = Field(
        default=None, description="torch.backends.cuda.matmul.fp32_precision (torch >= 2.9): ieee, tf32, or none "
        "(not set: its parent's); decides matmul_tf32 where ieee or tf32")
    cudnn_conv_fp32_precision: str | None = Field(
        default=None, description="torch.backends.cudnn.conv.fp32_precision (torch >= 2.9; convolutions only)")
    npu_matmul_allow_hf32: bool | None = Field(
        default=None, description="torch_npu.npu.matmul.allow_hf32 (Ascend): fp32 matmuls may run in HF32 on the "
        "cube. The roof stays fp32: the catalog has no HF32 peak for any Ascend device (feedback.compare_basis)")
    npu_conv_allow_hf32: bool | None = Field(
        default=None, description="torch_npu.npu.conv.allow_hf32 (Ascend; convolutions only)")
    env: dict[str, str] = Field(default={}, description="TF32_ENV_VARS that were set, with their values")
    matmul_tf32: bool = Field(description="fp32 matmuls ran on TF32 tensor cores: NVIDIA device, torch's switch and "
                                          "the overrides (results.matmul_tf32); false off NVIDIA")

    def ascend(self) -> bool:
        """The record is an Ascend run's: its HF32 switches were read (torch's CUDA ones do not apply there)."""
        return self.npu_matmul_allow_hf32 is not None or self.npu_conv_allow_hf32 is not None

    def cause(self) -> str:
        """What decided `matmul_tf32`: an environment override when one applies, else torch's own setting."""
        if self.env.get("NVIDIA_TF32_OVERRIDE") == "0":
            return "NVIDIA_TF32_OVERRIDE=0"
        if self.env.get("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE") == "1":
            return "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1"
        if self.cuda_matmul_fp32_precision in ("tf32", "ieee"):
            return f"cuda.matmul.fp32_precision {self.cuda_matmul_fp32_precision}"
        return f"float32_matmul_precision {self.float32_matmul_precision}"

    def describe(self, translate: Callable[..., str] | None = None) -> str:
        """One line of what was read, e.g. `on (float32_matmul_precision high, NVIDIA_TF32_OVERRIDE unset)`, in the
        language of `translate` (a catalog message id and its parameters to text, as `cli.output.tr`; None: English,
        the text a result records); the torch names and values stay as torch spells them."""
        if translate is None:
            from suanli.i18n import t

            def translate(msg_id: str, /, **params: Any) -> str:
                return t(msg_id, "en", "cli", **params)
        read = [(name, value) for name, value in (
            ("float32_matmul_precision", self.float32_matmul_precision),
            ("cuda.matmul.allow_tf32", self.cuda_matmul_allow_tf32), ("cudnn.allow_tf32", self.cudnn_allow_tf32),
            ("cuda.matmul.fp32_precision", self.cuda_matmul_fp32_precision),
            ("cudnn.conv.fp32_precision", self.cudnn_conv_fp32_precision),
            ("npu.matmul.allow_hf32", self.npu_matmul_allow_hf32), ("npu.conv.allow_hf32", self.npu_conv_allow_hf32),
        ) if value is not None]  # a switch not recorded is not shown
        env = [] if self.ascend() else [f"{k}={self.env[k]}" if k in self.env
                                        else translate("cli.bench.env_unset", name=k) for k in TF32_ENV_VARS]
        settings = [f"{name} {value}" for name, value in read] + env
        on = bool(self.npu_matmul_allow_hf32) if self.ascend() else self.matmul_tf32
        return translate("cli.bench.tf32_setting", state=translate("cli.bench.on" if on else "cli.bench.off"),
                         settings=translate("cli.bench.sep").join(settings))


class MatmulResult(BaseModel):
    precision: str
    n: int = Field(description="square matrices n x n")
    flops_per_call: float = Field(description="2 * n**3")
    time_s: float
    tflops: float = Field(description="flops_per_call / time_s / 1e12")
    samples_time_s: list[float] = []
    tf32: bool | None = Field(default=None, description="TF32 was on for this GEMM (Tf32Setting.matmul_tf32); "
                                                        "None: not recorded")

    def roof_precision(self) -> str:
        return roof_precision(self.precision, self.tf32)


class BandwidthResult(BaseModel):
    buffer_bytes: int
    bytes_per_call: int = Field(description="a copy reads and writes the buffer: 2 * buffer_bytes")
    time_s: float
    bytes_per_s: float
    samples_time_s: list[float] = []


class Microbench(BaseModel):
    matmul: list[MatmulResult] = []
    bandwidth: BandwidthResult | None = None


class AccuracyResult(BaseModel):
    passed: bool
    verdict: str
    reference_id: str
    reference_device: str
    reference_precision: str
    precision: str
    n_tokens: int
    perplexity: float
    reference_perplexity: float
    perplexity_rel_diff: float
    max_abs_logit_diff: float
    max_logit_rel_diff: float = Field(description="max |logit - reference| / max |reference logit|")
    tolerance_logit_rel: float
    tolerance_perplexity_rel: float
    tolerance_source: str


class BenchResult(BaseModel):
    schema_version: int = SCHEMA_VERSION
    id: str = Field(default_factory=new_id)
    created_at: dt.datetime = Field(default_factory=_now)
    command: str = ""
    suanli_version: str = __version__
    accelerator: str | None = Field(default=None, description="catalog accelerator id this device is, if given")
    backend: BackendInfo
    model: ModelInfo
    config: RunConfig
    throughput: Throughput | None = None
    micro: Microbench | None = None
    accuracy: AccuracyResult | None = None
    tf32: Tf32Setting | None = Field(default=None, description="torch's TF32 settings read during the timed run; "
                                                               "None: not recorded (results before 2026-12-01)")

    def roof_precision(self) -> str:
        """The precision whose peak the run's matmuls ran at (`roof_precision`), by the recorded TF32 setting."""
        return roof_precision(self.config.precision, None if self.tf32 is None else self.tf32.matmul_tf32)

    def ascend(self) -> bool:
        """An Ascend NPU's run: the npu backend, or torch_npu's HF32 switches recorded."""
        return self.backend.backend == "npu" or (self.tf32 is not None and self.tf32.ascend())

    def hf32_matmul(self) -> bool | None:
        """An Ascend run's `torch_npu.npu.matmul.allow_hf32` as it read it while it measured (one switch for the whole
        run: the harness does not touch it, so the microbenchmark's fp32 GEMMs ran under it too); None: not recorded
        (results before 2026-12-01, or a torch_npu that would not say) or not an Ascend run."""
        return None if self.tf32 is None else self.tf32.npu_matmul_allow_hf32

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)


class ReferenceRun(BaseModel):
    """Logits at a few positions and the perplexity of the shipped text, made once (normally CPU fp32)."""

    id: str = Field(default_factory=new_id)
    created_at: dt.datetime = Field(default_factory=_now)
    command: str = ""
    model_key: str
    device: str
    precision: str
    torch_version: str | None = None
    token_ids_sha256: str
    n_tokens: int
    perplexity: float
    positions: list[int]
    vocab_size: int
    logits_f32_b64: str = Field(description="float32 little-endian, shape (len(positions), vocab_size), base64")

    @staticmethod
    def encode_logits(arr: Any) -> str:
        return base64.b64encode(np.ascontiguousarray(arr, dtype="<f4").tobytes()).decode("ascii")

    def logits(self) -> np.ndarray:
        raw = np.frombuffer(base64.b64decode(self.logits_f32_b64), dtype="<f4")
        return raw.reshape(len(self.positions), self.vocab_size)


def default_store_dir() -> Path:
    home = os.environ.get("SUANLI_HOME")
    if home:
        return Path(home).expanduser() / "bench"
    return Path.home() / ".local" / "share" / "suanli" / "bench"


def _safe(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", key)


def _nonfinite(path: Path, where: str, value: float) -> DataFileError:
    """The refusal of a stored file holding NaN or Infinity: `bench import`'s line (the file, the field's dotted path,
    `must be a finite number (got NaN)`, en + zh), as a DataFileError of that file and field."""
    from suanli.i18n import render

    said = Message("bench.import.bad_field", file=str(path), path=where,
                   msg=Message("error.v.finite", value=echoed(value)))
    e = DataFileError(str(path), None, where, said)
    e.args = (render(said, "en"),)  # the import's words, not the data-file form "<file>, field <path>: …"
    e.i18n = said
    return e


def _read(path: Path, cls: type[BaseModel]) -> Any:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        found = nonfinite_at(doc)  # Python's reader takes NaN and Infinity (JSON has none): refused, never loaded
        if found is not None:
            raise _nonfinite(path, found[0], found[1])
        return cls.model_validate(doc)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(x) for x in err["loc"])
        raise DataFileError(str(path), None, field, err["msg"]) from None
    except (OSError, json.JSONDecodeError) as e:
        raise DataFileError(str(path), None, None, str(e)) from None


class ResultStore:
    """Benchmark results and reference runs as JSON files under `root`."""

    def __init__(self, root: Path | str | None = None) -> None:
        self.root = Path(root) if root is not None else default_store_dir()

    @property
    def results_dir(self) -> Path:
        return self.root / "results"

    @property
    def references_dir(self) -> Path:
        return self.root / "references"

    def save(self, result: BenchResult) -> Path:
        self.results_dir.mkdir(parents=True, exist_ok=True)
        path = self.results_dir / f"{_safe(result.id)}.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(result.to_json(), encoding="utf-8")
        tmp.replace(path)
        return path

    def results(self, strict: bool = False) -> list[BenchResult]:
        """Every stored result, oldest first. A file that cannot be read, or that holds a NaN or Infinity, is refused
        (never loaded): named in `unreadable` (English) and `refused` (messages, en + zh), the others still listed
        (`bench list`, `bench compare`); `strict` raises instead (InputError naming the first file and field), for
        `calibrate`, which fits all the stored results or none (never part of the data without saying)."""
        self.unreadable: list[str] = []
        self.refused: list[Message | str] = []
        self._refused_files: dict[str, DataFileError] = {}
        if not self.results_dir.is_dir():
            return []
        out = []
        for p in sorted(self.results_dir.glob("*.json")):
            try:
                out.append(_read(p, BenchResult))
            except DataFileError as e:  # one damaged file must not hide the others
                self.unreadable.append(str(e))
                self.refused.append(e.i18n or str(e))
                self._refused_files[p.stem] = e
        if strict and self.refused:
            more: Message | str = Message("bench.import.more", n=len(self.refused) - 1) if len(self.refused) > 1 else ""
            raise InputError("store", Message("bench.store.refused", bad=self.refused[0], more=more))
        return sorted(out, key=lambda r: (r.created_at, r.id))

    def get(self, id_prefix: str) -> BenchResult:
        matches = [r for r in self.results() if r.id.startswith(id_prefix)]
        if len(matches) != 1:
            refused = [e for stem, e in self._refused_files.items() if stem.startswith(_safe(id_prefix))]
            if not matches and refused:  # the result asked for is stored but refused: say why, not "unknown"
                raise refused[0]
            if not matches:
                raise NotFoundError("result", id_prefix, [r.id for r in self.results()])
            raise InputError("result", Message("err.matches_results_give_more_of_the", id_prefix=id_prefix, n_matches=len(matches)))
        return matches[0]

    def save_reference(self, ref: ReferenceRun) -> Path:
        self.references_dir.mkdir(parents=True, exist_ok=True)
        path = self.references_dir / f"{_safe(ref.model_key)}.json"
        path.write_text(ref.model_dump_json(indent=1), encoding="utf-8")
        return path

    def reference(self, model_key: str, where: Literal["any", "store", "packaged"] = "any") -> ReferenceRun | None:
        """The stored reference for a model key: the store's own first, then the packaged one."""
        name = f"{_safe(model_key)}.json"
        if where in ("any", "store") and (self.references_dir / name).is_file():
            return _read(self.references_dir / name, ReferenceRun)  # type: ignore[no-any-return]
        if where in ("any", "packaged"):
            packaged = resources.files("suanli") / "data" / "bench" / "references" / name
            if packaged.is_file():
                return _read(Path(str(packaged)), ReferenceRun)  # type: ignore[no-any-return]
        return None
