"""CUDA-era libraries a model depends on that an operator trace cannot see (pure: no torch).

A config.json names two of them: `quantization_config.quant_method` (bitsandbytes, gptq, awq, fp8, …) and the
attention implementation (`attn_implementation` / `_attn_implementation`: flash_attention_2 needs the flash-attn
package). Code-level ones (`import flash_attn`, bitsandbytes optimizers) come from `migrate check --uses`. Each is
looked up in `suanli/data/ascend_ops/libraries.yaml`: whether it runs on Ascend, what replaces it, with sources.
`coverage.classify` turns `replace`/`none` into the needs-port verdict. Weights stored in a format with no NPU kernel
(FP8: a preset's released checkpoint, a config's quant_method) are `convert`: converted once with the vendor's tools
before use (libraries.yaml `checkpoint`), a conversion step and not a port.
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

__all__ = ["MAX_USES", "Library", "LibraryUse", "from_checkpoint", "from_config", "load_libraries", "resolve_uses",
           "uses_names"]

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "ascend_ops"
MAX_USES = 12  # --uses names at most (a check, not a dependency list)
Status = Literal["npu", "replace", "none", "convert", "unknown"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Source(_Frozen):
    id: str
    title: str
    url: str
    date: Any  # a YAML date, a year or text


class CheckpointAdvice(_Frozen):
    """What to do where a model's weights are stored in this library's format (a preset's ModelArch.native_dtype, a
    config's quant_method): `advice` ends the use's `via`, `message` replaces the library's own (the conversion:
    tool and precision), `sources` where the conversion is documented."""

    advice: str
    advice_zh: str
    message: str
    message_zh: str
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
        """No NPU build: the verdict is needs-port (a `convert` use is a conversion step, not a port)."""
        return self.status in ("replace", "none")

    @property
    def unknown(self) -> bool:
        """Not in the catalog (a config's quant_method libraries.yaml has no entry for): whether it runs on Ascend is
        unknown, so the verdict is needs-check, never a clean npu-native."""
        return self.status == "unknown"

    @property
    def converts(self) -> bool:
        """Weights stored in a format with no NPU kernel, converted once before use (libraries.yaml `checkpoint`)."""
        return self.status == "convert"


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


def _stored_as(libs: Libraries, lib: Library, via: str, via_zh: str | None, source: str | None = None) -> LibraryUse:
    """The use of weights stored in `lib`'s format: with a `checkpoint` block, a conversion (status convert) whose
    message and sources are the conversion's, after `source` (where the format was read: the preset's config); without
    one, the library's own entry."""
    use, advice = _use(libs, lib, via), lib.checkpoint
    first = [source] if source else []
    if advice is None:
        return use.model_copy(update={"via_zh": via_zh, "sources": tuple(dict.fromkeys((*first, *use.sources)))})
    sources = (*first, *(libs.url(s) for s in advice.sources), *use.sources)
    return use.model_copy(update={
        "status": "convert", "replacement": None, "message": advice.message, "message_zh": advice.message_zh,
        "via": f"{via} → {advice.advice}", "via_zh": f"{via_zh}→ {advice.advice_zh}" if via_zh else None,
        "sources": tuple(dict.fromkeys(sources))})


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
        # the quant_method is how the weights are stored: a format with a `checkpoint` block is converted, not ported
        out.append(_stored_as(libs, lib, via, None) if lib is not None else LibraryUse(
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
    """The library a model's released checkpoint needs by itself: a preset whose weights are stored in a dtype with
    no NPU kernel (ModelArch.native_dtype: DeepSeek-V3/R1 ship FP8 only) counts as using it — a conversion (status
    convert) where libraries.yaml names how to convert it (`checkpoint`: msModelSlim W8A8/W4A8, or bf16), with the
    source of the fact first (`source`: the preset's config)."""
    libs = libs or load_libraries()
    lib = next((x for x in libs.libraries if native_dtype and x.id == native_dtype.lower()), None)
    if lib is None or native_dtype is None:
        return []
    dtype = native_dtype.upper()
    return [_stored_as(libs, lib, f"checkpoint: {dtype} ({model_id} release)", f"权重：{dtype}（{model_id} 发布版）",
                       source)]


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


def uses_names(libs: Libraries | None = None) -> str:
    """Every library `--uses` (the API's `uses`) takes, by its id in libraries.yaml's order, each in backticks:
    "`flash-attn`, `bitsandbytes`, …" — the list the options' help prints (`{libraries}` in help.migrate.check.uses,
    help.migrate.cost.uses and the API's field descriptions), so a row added to the data is in the help too."""
    libs = libs or load_libraries()
    return ", ".join(f"`{lib.id}`" for lib in libs.libraries)


def merge(config_uses: Iterable[LibraryUse], cli_uses: Iterable[LibraryUse]) -> list[LibraryUse]:
    """Config-found first; a --uses name the config already names is not repeated (bitsandbytes-* count as one)."""
    out = list(config_uses)
    family = {u.id.split("-")[0] if u.id.startswith("bitsandbytes") else u.id for u in out}
    for u in cli_uses:
        if (u.id.split("-")[0] if u.id.startswith("bitsandbytes") else u.id) not in family:
            out.append(u)
    return out
