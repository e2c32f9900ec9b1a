"""Record the aten operators a Hugging Face model calls, on the `meta` device (or a shrunk copy on the CPU).

Method: /work/shared/research/ascend-op-coverage.md §2. A `TorchDispatchMode` sits below autograd, so it
sees exactly the operators that would reach a backend kernel, in forward and (for training) backward.
For every operator that has a composite kernel (CompositeExplicitAutogradNonFunctional,
CompositeExplicitAutograd or CompositeImplicitAutograd — PyTorch's dispatch-table priority after a direct
backend kernel), the tracer also records what that kernel decomposes into, once per operator, by running
`op._op_dk(key, ...)` on copies of the arguments under a nested recorder. The result is plain data; the
classification against a torch_npu operator list is `suanli.migrate.coverage.classify` (pure).

MoE models route tokens with data-dependent operators (`nonzero`, `.item()`, `tolist`) that cannot run on
`meta`; they are built from a shrunk config (fewer layers and experts, narrow widths, same operator set) with
tiny random weights on the CPU.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any, Literal

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map

from suanli.errors import EstimateError, InputError
from suanli.i18n import Message, render
from suanli.migrate.coverage import OpTrace

__all__ = ["op_name", "record_ops", "shrink_config", "trace_model", "trace_module"]

Task = Literal["inference", "training"]

# Dispatch-table priority after a direct backend kernel (c10/core/dispatch/OperatorEntry.cpp,
# computeDispatchTableEntryWithDebug): CEANF, then CEA, then CIA, then the backend fallback.
_COMPOSITE_KEYS = (
    "CompositeExplicitAutogradNonFunctional",
    "CompositeExplicitAutograd",
    "CompositeImplicitAutograd",
)
_MAX_DEPTH = 6

# Config keys that hold a number of routed experts / experts per token (transformers config classes).
_EXPERT_KEYS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")
_TOPK_KEYS = ("num_experts_per_tok", "moe_top_k", "num_experts_per_token")


def op_name(func: Any) -> str:
    """The operator's name in native_functions.yaml spelling: `aten.add.Tensor` -> `add.Tensor`,
    `aten.mm.default` -> `mm`; other namespaces keep a prefix: `torchvision::nms`."""
    ns, name = func._schema.name.split("::", 1)
    overload = func._schema.overload_name
    base = name + ("." + overload if overload else "")
    return base if ns == "aten" else f"{ns}::{base}"


def _composite_key(func: Any) -> str | None:
    for key in _COMPOSITE_KEYS:
        if torch._C._dispatch_has_kernel_for_dispatch_key(func.name(), key):
            return key
    return None


def _copy_arg(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    return x


class _State:
    def __init__(self) -> None:
        self.decompositions: dict[str, dict[str, int] | None] = {}
        self.warnings: list[Message] = []


class _Recorder(TorchDispatchMode):
    """Counts every operator that reaches the backend; records each composite operator's children once."""

    def __init__(self, state: _State, depth: int = 0) -> None:
        super().__init__()
        self.state = state
        self.depth = depth
        self.counts: Counter[str] = Counter()

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        name = op_name(func)
        self.counts[name] += 1
        if name not in self.state.decompositions and self.depth < _MAX_DEPTH:
            key = _composite_key(func)
            if key is not None:
                self.state.decompositions[name] = None  # in progress: guards against self-recursion
                self.state.decompositions[name] = self._decompose(func, key, name, args, kwargs)
        return func(*args, **kwargs)

    def _decompose(self, func: Any, key: str, name: str, args: Any, kwargs: Any) -> dict[str, int] | None:
        child = _Recorder(self.state, self.depth + 1)
        try:
            c_args, c_kwargs = tree_map(_copy_arg, (args, kwargs))
            with child:
                func._op_dk(getattr(torch._C.DispatchKey, key), *c_args, **c_kwargs)
        except Exception as e:  # a decomposition that cannot run on copies: keep the op, say so
            self.state.warnings.append(Message("mig.warn.no_decomposition", op=name, error=type(e).__name__))
            return None
        return dict(child.counts)


@contextlib.contextmanager
def _keep_whole(names: Iterable[str], device_type: str) -> Iterator[list[str]]:
    """Let CompositeImplicitAutograd ops that torch_npu overrides (SDPA, matmul, ...) reach the recorder whole.

    On the NPU these ops have a PrivateUse1 kernel, so they are not decomposed above the backend; on
    meta/CPU they would be. We register, for the trace's duration, a fallthrough on the Autograd key and a
    backend kernel that decomposes (research note §2). This breaks autograd, so it is used for inference only.
    """
    backend = {"meta": "Meta", "cpu": "CPU"}[device_type]
    lib = torch.library.Library("aten", "IMPL")  # noqa: TOR901 - scoped, destroyed below
    assert lib.m is not None  # the C++ handle a live Library holds (typed Optional)
    kept: list[str] = []
    try:
        for n in sorted(set(names)):
            if "::" in n:
                continue
            base, _, overload = n.partition(".")
            try:
                torch._C._dispatch_find_schema_or_throw(f"aten::{base}", overload)
            except RuntimeError:
                continue
            qual = f"aten::{n}"
            if not torch._C._dispatch_has_kernel_for_dispatch_key(qual, "CompositeImplicitAutograd"):
                continue
            if torch._C._dispatch_has_kernel_for_dispatch_key(qual, backend):
                continue
            packet = getattr(torch.ops.aten, base)
            op = getattr(packet, overload or "default")

            def kernel(*a: Any, _op: Any = op, **k: Any) -> Any:
                return _op.decompose(*a, **k)

            try:
                lib.m.impl(n, backend, kernel, False)  # bypasses the Python guard against Meta kernels on CIA ops
                lib.impl(n, torch.library.fallthrough_kernel, f"Autograd{backend}")
            except RuntimeError:  # an op this torch cannot take a backend kernel for: leave it decomposing
                continue
            kept.append(n)
        yield kept
    finally:
        lib._destroy()


def record_ops(
    fn: Any,
    *,
    keep_whole: Iterable[str] = (),
    device_type: str = "meta",
) -> tuple[dict[str, int], dict[str, dict[str, int] | None], list[str], list[Message]]:
    """Run `fn()` under the recorder: (op counts, decompositions, kept-whole ops, warnings as messages)."""
    state = _State()
    rec = _Recorder(state)
    with _keep_whole(keep_whole, device_type) as kept, rec:
        fn()
    return dict(rec.counts), state.decompositions, kept, state.warnings


def trace_module(
    module: torch.nn.Module,
    run: Any,
    *,
    model: str,
    task: Task,
    keep_whole: Iterable[str] = (),
    device_type: str = "meta",
) -> OpTrace:
    """Trace an already built module: `run(module)` is called under the recorder (it should call backward
    itself for training). Used for hand-written test models and by `trace_model`."""
    t0 = time.perf_counter()
    counts, decomps, kept, warnings = record_ops(
        lambda: run(module), keep_whole=keep_whole if task == "inference" else (), device_type=device_type
    )
    return OpTrace(
        model=model,
        task=task,
        device=device_type,
        ops=dict(sorted(counts.items())),
        decompositions={k: v for k, v in sorted(decomps.items())},
        kept_whole=kept,
        module_classes=sorted({type(m).__name__ for m in module.modules()}),
        torch_version=torch.__version__,
        trace_s=round(time.perf_counter() - t0, 3),
        warnings=[render(w) for w in warnings],
        warnings_i18n=[w.to_json() for w in warnings],
    )


# ---------------------------------------------------------------------------------------------- configs


def is_moe(cfg: dict[str, Any]) -> bool:
    return any(isinstance(cfg.get(k), int) and cfg[k] > 1 for k in _EXPERT_KEYS)


def _layers_needed(cfg: dict[str, Any]) -> int:
    """Fewest leading layers that still contain every layer kind (dense-first layers, every layer type)."""
    n = int(cfg.get("num_hidden_layers") or 2)
    need = 2
    for key in ("first_k_dense_replace", "first_dense_layers"):
        if isinstance(cfg.get(key), int):
            need = max(need, cfg[key] + 1)
    if isinstance(cfg.get("decoder_sparse_step"), int) and cfg["decoder_sparse_step"] > 1:
        need = max(need, cfg["decoder_sparse_step"])
    types = cfg.get("layer_types")
    if isinstance(types, list) and types:
        seen: set[Any] = set()
        for i, t in enumerate(types):
            if t not in seen:
                seen.add(t)
                need = max(need, i + 1)
    return min(n, need)


def shrink_config(cfg: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A copy of a transformers config dict that builds a tiny model with the same operator set.

    Keeps: model_type, activation, norm kind, attention kind (MHA/GQA/MQA/MLA), MoE routing, layer-type
    pattern. Shrinks: layers (to the fewest that contain every layer kind), experts (to at most 8), widths,
    heads and vocabulary. Returns (new config, {field: [old, new]}).
    """
    out = dict(cfg)
    changed: dict[str, Any] = {}

    def put(key: str, value: Any) -> None:
        if key in out and out[key] is not None and out[key] != value:
            changed[key] = [out[key], value]
            out[key] = value

    layers = _layers_needed(cfg)
    put("num_hidden_layers", layers)
    if isinstance(out.get("layer_types"), list):
        put("layer_types", out["layer_types"][:layers])
    if isinstance(out.get("mlp_only_layers"), list):
        put("mlp_only_layers", [i for i in out["mlp_only_layers"] if i < layers])

    heads = int(cfg.get("num_attention_heads") or 4)
    kv = int(cfg.get("num_key_value_heads") or heads)
    put("num_attention_heads", 4)
    put("num_key_value_heads", 4 if kv == heads else (1 if kv == 1 else 2))
    put("hidden_size", 64)
    put("n_embd", 64)
    put("intermediate_size", 128)
    put("ffn_hidden_size", 128)
    put("moe_intermediate_size", 32)
    put("shared_expert_intermediate_size", 64)
    if "kv_lora_rank" in cfg:  # DeepSeek MLA (DeepSeek-V2 paper §2.1); head_dim is the rope part there
        put("kv_lora_rank", 32)
        put("q_lora_rank", 32)
        put("qk_rope_head_dim", 8)
        put("qk_nope_head_dim", 16)
        put("v_head_dim", 16)
        put("head_dim", 8)
    else:
        put("head_dim", 16)
    for key in list(out):
        if key.startswith("linear_") and key.endswith("_head_dim"):  # gated-delta-net (Qwen3-Next)
            put(key, 16)
    put("linear_num_key_heads", 2)
    put("linear_num_value_heads", 4)

    experts = None
    for key in _EXPERT_KEYS:
        if isinstance(out.get(key), int) and out[key] > 8:
            put(key, 8)
        if isinstance(out.get(key), int):
            experts = out[key]
    if experts:
        for key in _TOPK_KEYS:
            if isinstance(out.get(key), int) and out[key] > 2:
                put(key, 2)
        if isinstance(out.get("n_group"), int) and out["n_group"] > 1:
            put("n_group", 2)
            if isinstance(out.get("topk_group"), int):
                put("topk_group", min(out["topk_group"], 2))

    vocab = 512
    put("vocab_size", vocab)
    for key in ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id"):
        v = out.get(key)
        if isinstance(v, int) and v >= vocab:
            put(key, vocab - 1)
        elif isinstance(v, list) and any(isinstance(x, int) and x >= vocab for x in v):
            put(key, [min(x, vocab - 1) for x in v])
    return out, changed


def _build(cfg: dict[str, Any], device: str, dtype: torch.dtype) -> torch.nn.Module:
    try:
        import transformers
        from transformers import AutoConfig, AutoModel, AutoModelForCausalLM
    except ImportError as e:  # pragma: no cover - the torch extra is installed in CI
        raise InputError("model", Message("err.tracing_needs_transformers_pip_install_suanli", e=e)) from None
    raw = {k: v for k, v in cfg.items() if k not in ("architectures", "torch_dtype", "dtype", "auto_map")}
    model_type = raw.pop("model_type", None)
    if not model_type:
        raise InputError("model", Message("err.the_config_has_no_model_type"))
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    if model_type not in CONFIG_MAPPING:
        # transformers' own message lists every model type it knows (~900, 12 KB): one line instead
        remote = " (its auto_map names remote code, which is not traced)" if "auto_map" in cfg else ""
        raise InputError(
            "model_type", Message("err.is_not_an_architecture_transformers_knows", model_type=model_type, transformers_version=transformers.__version__, remote=remote)
        )
    try:
        config = AutoConfig.for_model(model_type, **raw)
    except (ValueError, KeyError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise InputError(
            "model", Message("err.transformers_cannot_build_model_type", transformers_version=transformers.__version__, model_type=model_type, first=first[:300])
        ) from None
    torch.manual_seed(0)
    with torch.device(device):
        try:
            return AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation="sdpa")
        except ValueError:
            return AutoModel.from_config(config, dtype=dtype, attn_implementation="sdpa")


def _runner(task: Task, batch: int, seq_len: int, vocab: int, device: str) -> Any:
    torch.manual_seed(0)
    ids = torch.randint(0, vocab, (batch, seq_len), device=device)  # made outside the recorder

    def run(m: torch.nn.Module) -> None:
        if task == "training":
            m.train()
            out = m(input_ids=ids, labels=ids)
            loss = out.loss if getattr(out, "loss", None) is not None else out[0].float().mean()
            loss.backward()
        else:
            m.eval()
            with torch.no_grad():
                # prefill with a KV cache, as a server does; also keeps transformers from probing
                # position_ids for packed sequences (a data-dependent .item() that meta cannot run)
                m(input_ids=ids, use_cache=True)

    return run


def _dtype(cfg: dict[str, Any]) -> torch.dtype:
    name = cfg.get("dtype") or cfg.get("torch_dtype") or "bfloat16"
    return {"float16": torch.float16, "float32": torch.float32}.get(str(name), torch.bfloat16)


def trace_model(
    hf_config: dict[str, Any],
    *,
    name: str,
    task: Task = "inference",
    keep_whole: Iterable[str] = (),
    seq_len: int = 1024,
    batch: int = 1,
    device: Literal["auto", "meta", "cpu"] = "auto",
) -> OpTrace:
    """Build `hf_config` (a transformers config dict with `model_type`) and record its operators.

    device="auto": dense models on `meta` at full size; MoE models (and dense ones whose meta trace hits a
    data-dependent operator) on the CPU from `shrink_config`. `keep_whole` lists operator names that the
    target backend implements whole (see `_keep_whole`); it applies to inference only.
    """
    if task not in ("inference", "training"):
        raise InputError("task", Message("err.must_be_inference_or_training_not", task_=task))
    dtype = _dtype(hf_config)
    warnings: list[Message] = []
    use = device if device != "auto" else ("cpu" if is_moe(hf_config) else "meta")
    if use == "cpu" and device == "auto":
        warnings.append(Message("mig.warn.moe_shrunk"))
    for attempt in ("first", "retry"):
        cfg, changed = (shrink_config(hf_config) if use == "cpu" else (dict(hf_config), {}))
        t0 = time.perf_counter()
        try:
            module = _build(cfg, use, dtype)
        except InputError:
            raise
        except Exception as e:
            raise InputError("model", Message("err.could_not_build_from_its_config", v=cfg.get('model_type'), name=type(e).__name__, v2=str(e).splitlines()[0] if str(e) else '')) from None
        build_s = time.perf_counter() - t0
        vocab = int(cfg.get("vocab_size") or 512)
        tokens = seq_len if use == "meta" else min(seq_len, 32)
        try:
            result = trace_module(
                module, _runner(task, batch if use == "meta" else max(batch, 2), tokens, vocab, use),
                model=name, task=task, keep_whole=keep_whole, device_type=use,
            )
        except (RuntimeError, NotImplementedError) as e:
            if use == "meta" and attempt == "first" and device == "auto":
                warnings.append(Message("mig.warn.meta_failed", error=str(e).splitlines()[0][:80] if str(e) else ""))
                use = "cpu"
                continue
            raise EstimateError(
                Message("err.model_tracing_on_failed", name=name, use=use, name2=type(e).__name__, v=str(e).splitlines()[0][:160])
            ) from None
        return result.model_copy(
            update={
                "shrunk": changed,
                "build_s": round(build_s, 3),
                "warnings": [*(render(w) for w in warnings), *result.warnings],
                "warnings_i18n": [*(w.to_json() for w in warnings), *result.warnings_i18n],
                "seq_len": tokens,
            }
        )
    raise EstimateError(Message("err.model_tracing_failed", name=name))  # pragma: no cover - loop always returns
