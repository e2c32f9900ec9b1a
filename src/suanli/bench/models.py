"""Models to benchmark: a local Hugging Face directory, or a preset built from its config with random weights.

Presets are data (`suanli/data/bench/<name>.json`): a transformers config, a deterministic initialisation
rule and a tokenizer kind. Random weights are enough to measure speed and to check that a device computes
the same function as the CPU reference; they are not a language model.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from suanli.bench.backends import require_torch
from suanli.errors import InputError, NotFoundError, echoed
from suanli.i18n import Message

__all__ = [
    "PRECISIONS",
    "ByteTokenizer",
    "LoadedModel",
    "ModelInfo",
    "dtype_for",
    "load_model",
    "model_key",
    "preset_names",
    "preset_spec",
]

# Precision names as the catalog uses them (precision.weight_bytes_per_param); tf32 = fp32 storage, TF32 matmuls.
PRECISIONS: tuple[str, ...] = ("fp32", "tf32", "bf16", "fp16")


def dtype_for(precision: str) -> Any:
    """torch dtype that stores weights and activations at `precision`."""
    torch = require_torch()
    table = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
    if precision not in table:
        raise InputError("precision", Message("err.is_not_one_of", value=echoed(precision), allowed=', '.join(PRECISIONS)))
    return table[precision]


class ByteTokenizer:
    """UTF-8 bytes as token ids 0..255: needs no vocabulary file, so presets run offline."""

    vocab_size = 256

    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))


class _HfTokenizer:
    def __init__(self, tok: Any) -> None:
        self.tok = tok

    def encode(self, text: str) -> list[int]:
        return list(self.tok.encode(text, add_special_tokens=False))


class ModelInfo(BaseModel):
    """Facts about the loaded model, stored with each result: its name, shape and size as loaded.

    FLOPs per token and KV-cache bytes per token are not stored: calibration takes them from the estimator's own
    functions on the model's architecture (`calibrate.speed_terms`: `speed.matmul_params` with active experts only,
    `arch.kv_cache_bytes_per_token` with MLA, sliding-window layers and the cache dtype), so no second formula can
    disagree with them. Results stored before carry `flop_params` and `kv_cache_bytes_per_token`: read and ignored."""

    name: str
    kind: Literal["preset", "hf-dir"]
    key: str
    architecture: str
    random_weights: bool
    params: int
    weight_bytes: int
    precision: str
    num_layers: int
    hidden_size: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    max_positions: int | None = None


@dataclass
class LoadedModel:
    model: Any
    tokenizer: Any
    info: ModelInfo
    device: str


def _presets_dir() -> Any:
    return resources.files("suanli") / "data" / "bench"


def preset_names() -> list[str]:
    out = []
    for f in _presets_dir().iterdir():
        if f.name.endswith(".json") and f.name not in ("testset.json", "tolerances.json"):
            out.append(f.name[: -len(".json")])
    return sorted(out)


def preset_spec(name: str) -> dict[str, Any]:
    if name not in preset_names():
        raise NotFoundError("model", name, preset_names())
    spec: dict[str, Any] = json.loads((_presets_dir() / f"{name}.json").read_text(encoding="utf-8"))
    return spec


def _init_weights(model: Any, seed: int, std: float) -> None:
    """Deterministic: parameters in name order, 2-D ~ normal(0, std) from one seeded generator, 1-D = 1."""
    torch = require_torch()
    g = torch.Generator(device="cpu").manual_seed(seed)
    with torch.no_grad():
        for _, p in sorted(model.named_parameters(), key=lambda kv: kv[0]):
            if p.dim() >= 2:
                p.copy_(torch.randn(p.shape, generator=g, dtype=torch.float32) * std)
            else:
                p.fill_(1.0)


def _info(
    model: Any, name: str, kind: Literal["preset", "hf-dir"], key: str, precision: str, random_weights: bool
) -> ModelInfo:
    cfg = model.config
    heads = int(cfg.num_attention_heads)
    kv_heads = int(getattr(cfg, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(cfg, "head_dim", None) or cfg.hidden_size // heads)
    layers = int(cfg.num_hidden_layers)
    params = sum(p.numel() for p in model.parameters())
    return ModelInfo(
        name=name,
        kind=kind,
        key=key,
        architecture=(cfg.architectures or [type(model).__name__])[0],
        random_weights=random_weights,
        params=int(params),
        weight_bytes=int(sum(p.numel() * p.element_size() for p in model.parameters())),
        precision=precision,
        num_layers=layers,
        hidden_size=int(cfg.hidden_size),
        num_attention_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        vocab_size=int(cfg.vocab_size),
        max_positions=getattr(cfg, "max_position_embeddings", None),
    )


def _require_transformers() -> Any:
    try:
        import transformers
    except ImportError as e:  # pragma: no cover
        from suanli.bench import TORCH_HINT

        raise InputError("transformers", TORCH_HINT, Message("err.bench_install_extra", extra="torch")) from e
    return transformers


def _build_preset(name: str, precision: str, device: str) -> LoadedModel:
    transformers = _require_transformers()
    spec = preset_spec(name)
    cfg_cls = getattr(transformers, spec["architecture"].replace("ForCausalLM", "Config"))
    model_cls = getattr(transformers, spec["architecture"])
    config = cfg_cls(**spec["config"])
    config.architectures = [spec["architecture"]]
    model = model_cls(config)
    _init_weights(model, int(spec["init"]["seed"]), float(spec["init"]["std"]))
    model = model.to(device=device, dtype=dtype_for(precision)).eval()
    tok = ByteTokenizer()
    if config.vocab_size < tok.vocab_size:
        raise InputError("model", Message("err.preset_vocab_size_byte_tokens", name=name, config_vocab_size=config.vocab_size))
    return LoadedModel(model, tok, _info(model, name, "preset", name, precision, True), device)


def _load_dir(path: Path, precision: str, device: str) -> LoadedModel:
    transformers = _require_transformers()
    if not (path / "config.json").is_file():
        raise InputError("model", Message("err.has_no_config_json_need_a", path=path))
    dtype = dtype_for(precision)
    major_minor = tuple(int(x) for x in re.findall(r"\d+", transformers.__version__)[:2])
    kw = {"dtype": dtype} if major_minor >= (4, 56) else {"torch_dtype": dtype}
    model = transformers.AutoModelForCausalLM.from_pretrained(str(path), **kw).to(device).eval()
    try:
        tok: Any = _HfTokenizer(transformers.AutoTokenizer.from_pretrained(str(path)))
    except (OSError, ValueError):
        if model.config.vocab_size < 256:
            raise InputError("model", Message("err.has_no_tokenizer_files_and_fewer", path=path)) from None
        tok = ByteTokenizer()
    key = model_key(str(path))
    return LoadedModel(model, tok, _info(model, path.name, "hf-dir", key, precision, False), device)


def load_model(spec: str, precision: str = "fp32", device: str = "cpu") -> LoadedModel:
    """A preset name (see `preset_names()`) or a path to a local Hugging Face model directory."""
    dtype_for(precision)  # validates the name
    p = Path(spec).expanduser()
    if p.is_dir():
        return _load_dir(p, precision, device)
    if spec in preset_names():
        return _build_preset(spec, precision, device)
    raise NotFoundError("model", spec, preset_names())


def model_key(spec: str) -> str:
    """The key references are stored under, without loading the model: preset name or dir name + config hash."""
    p = Path(spec).expanduser()
    if p.is_dir() and (p / "config.json").is_file():
        digest = hashlib.sha256((p / "config.json").read_bytes()).hexdigest()[:12]
        return f"{p.name}-{digest}"
    return spec
