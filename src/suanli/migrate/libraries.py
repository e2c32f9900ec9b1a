"""CUDA-era libraries a model depends on that an operator trace cannot see (pure: no torch).

A config.json names two of them: `quantization_config.quant_method` (bitsandbytes, gptq, awq, fp8, …) and the
attention implementation (`attn_implementation` / `_attn_implementation`: flash_attention_2 needs the flash-attn
package). Code-level ones (`import flash_attn`, bitsandbytes optimizers) come from `migrate check --uses`. Each is
looked up in `suanli/data/ascend_ops/libraries.yaml`: whether it runs on Ascend, what replaces it, with sources.
`coverage.classify` turns `replace`/`none` into the needs-port verdict.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from suanli.errors import DataFileError, InputError
from suanli.i18n import Message

__all__ = ["MAX_USES", "Library", "LibraryUse", "from_checkpoint", "from_config", "load_libraries", "resolve_uses"]

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "ascend_ops"
MAX_USES = 12  # --uses names at most (a check, not a dependency list)
Status = Literal["npu", "replace", "none", "unknown"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Source(_Frozen):
    id: str
    title: str
    url: str
    date: Any  # a YAML date, a year or text


class CheckpointAdvice(_Frozen):
    """What to do where a model's released checkpoint is stored in this library's format (ModelArch.native_dtype)."""

    advice: str
    advice_zh: str
    sources: tuple[str, ...]


class Library(_Frozen):
    id: str
    names: tuple[str, ...]
    config_keys: tuple[str, ...] = ()
    status: Literal["npu", "replace", "none"]
    replacement: str | None = None
    message: str
    message_zh: str
    sources: tuple[str, ...]
    checkpoint: CheckpointAdvice | None = None


class Libraries(_Frozen):
    sources: tuple[Source, ...]
    libraries: tuple[Library, ...]

    def url(self, source_id: str) -> str:
        return next((s.url for s in self.sources if s.id == source_id), source_id)


class LibraryUse(_Frozen):
    """One library the model uses, as the report lists it (`--json` `libraries`)."""

    id: str
    via: str  # config field and value, "--uses", or the released checkpoint (`from_checkpoint`)
    via_zh: str | None = None  # `via` in Chinese where it is a sentence (the checkpoint's), not a field or flag
    status: Status
    replacement: str | None = None
    message: str
    message_zh: str | None = None
    sources: tuple[str, ...] = ()  # URLs (or owner/repo:path)

    @property
    def blocks(self) -> bool:
        """No NPU build: the verdict is needs-port."""
        return self.status in ("replace", "none")


@functools.cache
def load_libraries(data_dir: Path = DATA_DIR) -> Libraries:
    import yaml

    path = data_dir / "libraries.yaml"
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        libs = Libraries.model_validate(raw)
    except (OSError, yaml.YAMLError, ValueError) as e:
        raise DataFileError(str(path), None, None, str(e).splitlines()[0]) from None
    known = {s.id for s in libs.sources}
    for lib in libs.libraries:
        missing = [s for s in (*lib.sources, *(lib.checkpoint.sources if lib.checkpoint else ())) if s not in known]
        if missing:
            raise DataFileError(str(path), lib.id, "sources", Message("err.unknown_source_ids", ids=", ".join(missing)))
    return libs


def _key(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def _use(libs: Libraries, lib: Library, via: str) -> LibraryUse:
    return LibraryUse(id=lib.id, via=via, status=lib.status, replacement=lib.replacement, message=lib.message,
                      message_zh=lib.message_zh, sources=tuple(libs.url(s) for s in lib.sources))


def _by_config_key(libs: Libraries, key: str) -> Library | None:
    return next((lib for lib in libs.libraries if key in lib.config_keys), None)


def from_config(cfg: Mapping[str, Any], libs: Libraries | None = None) -> list[LibraryUse]:
    """The libraries a transformers config.json names: its quantization method and attention implementation."""
    libs = libs or load_libraries()
    out: list[LibraryUse] = []
    q = cfg.get("quantization_config")
    if isinstance(q, Mapping) and isinstance(q.get("quant_method"), str):
        method = q["quant_method"].strip().lower()
        key, via = method, f"quantization_config.quant_method {method}"
        if method == "bitsandbytes":
            if q.get("load_in_8bit"):
                key, via = "bitsandbytes-8bit", f"{via}, load_in_8bit"
            else:  # 4-bit (load_in_4bit, or a bare bitsandbytes config): transformers' default 4-bit type is fp4
                kind = str(q.get("bnb_4bit_quant_type") or "fp4").lower()
                key, via = f"bitsandbytes-4bit-{kind}", f"{via}, 4-bit {kind}"
        lib = _by_config_key(libs, key)
        out.append(_use(libs, lib, via) if lib is not None else LibraryUse(
            id=method, via=via, status="unknown",
            message=f"the catalog has no Ascend source for quant_method {method}: check that its kernels run on torch_npu",
            message_zh=f"目录中没有 quant_method {method} 在昇腾上的来源：请确认其算子能在 torch_npu 上运行"))
    seen: set[str] = set()
    for field in ("attn_implementation", "_attn_implementation"):
        value = cfg.get(field)
        if isinstance(value, str) and value.strip().lower() not in seen:
            seen.add(value.strip().lower())
            lib = _by_config_key(libs, value.strip().lower())
            if lib is not None:  # eager / sdpa / flex_attention are torch's own: the trace sees them
                out.append(_use(libs, lib, f"{field} {value.strip()}"))
    return out


def from_checkpoint(model_id: str, native_dtype: str | None, source: str | None = None,
                    libs: Libraries | None = None) -> list[LibraryUse]:
    """The library a model's released checkpoint needs by itself: a preset whose weights are stored in a dtype the
    Ascend check treats as needing a port (ModelArch.native_dtype: DeepSeek-V3/R1 ship FP8 only) counts as using it,
    with what to do first (libraries.yaml `checkpoint`) and the source of the fact (`source`: the preset's config)."""
    libs = libs or load_libraries()
    lib = next((x for x in libs.libraries if native_dtype and x.id == native_dtype.lower()), None)
    if lib is None or native_dtype is None:
        return []
    dtype, advice = native_dtype.upper(), lib.checkpoint
    via = f"checkpoint: {dtype} ({model_id} release)" + (f" → {advice.advice}" if advice else "")
    via_zh = f"权重：{dtype}（{model_id} 发布版）" + (f"→ {advice.advice_zh}" if advice else "")
    use = _use(libs, lib, via)
    sources = (*([source] if source else []), *(libs.url(s) for s in (advice.sources if advice else ())), *use.sources)
    return [use.model_copy(update={"via_zh": via_zh, "sources": tuple(dict.fromkeys(sources))})]


def resolve_uses(names: Iterable[str], libs: Libraries | None = None) -> list[LibraryUse]:
    """`--uses a,b,…`: each name validated against libraries.yaml (ids and aliases, - and _ alike), bounded."""
    libs = libs or load_libraries()
    wanted = [n.strip() for n in names if n.strip()]
    if len(wanted) > MAX_USES:
        raise InputError("uses", Message("err.uses_too_many", n=len(wanted), max=MAX_USES, field="uses"))
    index = {_key(n): lib for lib in libs.libraries for n in (lib.id, *lib.names)}
    out: list[LibraryUse] = []
    for name in wanted:
        if len(name) > 64:
            raise InputError("uses", Message("err.uses_unknown", name=name[:64] + "…", hint="",
                                             known=", ".join(lib.id for lib in libs.libraries)))
        lib = index.get(_key(name))
        if lib is None:
            close = difflib.get_close_matches(_key(name), list(index), n=1, cutoff=0.6)
            hint = Message("err.did_you_mean", name=index[close[0]].id) if close else ""
            raise InputError("uses", Message("err.uses_unknown", name=name, hint=hint,
                                             known=", ".join(lib.id for lib in libs.libraries)))
        if all(u.id != lib.id for u in out):
            out.append(_use(libs, lib, "--uses"))
    return out


def merge(config_uses: Iterable[LibraryUse], cli_uses: Iterable[LibraryUse]) -> list[LibraryUse]:
    """Config-found first; a --uses name the config already names is not repeated (bitsandbytes-* count as one)."""
    out = list(config_uses)
    family = {u.id.split("-")[0] if u.id.startswith("bitsandbytes") else u.id for u in out}
    for u in cli_uses:
        if (u.id.split("-")[0] if u.id.startswith("bitsandbytes") else u.id) not in family:
            out.append(u)
    return out
