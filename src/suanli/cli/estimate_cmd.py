"""`suanli estimate`: memory, speed, scaling and time for one workload on one device.

No `from __future__ import annotations` here: typer reads the command's ~50 options from its annotations, and as
strings each is compiled and evaluated again on every call (~4 ms of the command's start-up); as objects they are
built once, when `register` defines the command."""

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.cli.output import console, display_name, emit_json, emit_rows, label, lang, say, say_json, tr
from suanli.estimate.efficiency import efficiency_value
from suanli.estimate.estimate import Estimate, check_ep_has_experts
from suanli.errors import InputError
from suanli.estimate.workload import make_workload
from suanli.units import GB, GiB, count_from_text
from suanli.views.files import load_model_arg

if TYPE_CHECKING:
    from suanli.catalog.schema import Catalog
    from suanli.i18n import Message
    from suanli.plan.search import Layout  # not at start-up: the planner loads only for a hint

__all__ = ["fitting_layout_hint", "layout_flags", "register", "render_estimate"]


T = TypeVar("T")
# workload fields whose flag has another name: errors name the flag the user typed
_FIELD_FLAGS = {"download_gbit_per_s": "download-gbit", "inter_node_gbit_per_s": "inter-node-gbit",
                "tp_comm_overlap": "tp-comm-overlap"}


def _named_as_flags(build: Callable[[], T]) -> T:
    try:
        return build()
    except InputError as e:
        key = e.field.replace("-", "_")
        if key not in _FIELD_FLAGS:
            raise
        raise InputError(_FIELD_FLAGS[key], str(e).removeprefix(f"{e.field}: "), e.i18n) from None


def _fmt_b(n: float) -> str:
    return f"{n / GB:,.2f} GB ({n / GiB:,.2f} GiB)"


def _label(prefix: str, key: str, **params: Any) -> str:
    """`<prefix>.<key>` in this run's language where the catalog has it, else the key (a JSON field name)."""
    from suanli.i18n import messages

    return tr(f"{prefix}.{key}", **params) if f"{prefix}.{key}" in messages(lang()) else key


_LATENCY = ("ttft_s", "tpot_s", "ttft_joining_s", "tpot_steady_s")  # named with the batch: which TTFT/TPOT is which


def _speed_row(s: dict[str, Any], key: str, batch: int) -> dict[str, object]:
    """One speed row: the latencies named with the batch they are for (the static batch started at once, then
    the ones plan judges by: a request joining a running batch, the batch kept full); a TPOT that does not exist
    (one output token: `tpot_s` and `tpot_steady_s` null) says so rather than a blank cell."""
    v = s[key]
    if key in ("tpot_s", "tpot_steady_s") and (v is None or v != v):  # null in --json, NaN in the contract
        v = tr("est.no_tpot")
    return {"metric": _label("est.metric", key, batch=batch) if key in _LATENCY else _label("est.metric", key),
            "value": _value(v)}


def _value(v: object) -> object:
    """Bounds ('compute', 'memory-bandwidth') in this run's language; numbers as they are."""
    return _label("est.bound", v) if isinstance(v, str) else v


def _notes(messages: list[Any], english: list[str]) -> list[str]:
    """The core's notes in this run's language (its messages; a plain string or a missing message: the English)."""
    from suanli.i18n import Message

    if len(messages) != len(english):
        return list(english)
    return [say(Message.from_json(x)) if isinstance(x, dict) and x else str(x or en) for x, en in zip(messages, english)]


def render_estimate(e: Estimate, asked: str | None = None) -> None:
    """The estimate as text in this run's language (its notes as --json and POST /api/estimate carry them); the
    header names the checkpoint the job downloads, as `suanli plan` does (`views.estimates.checkpoint`; `asked`: the
    model name typed)."""
    c = e.contract()
    w = e.workload
    m = c["memory"]
    from suanli.plan.known_error import fit_word
    from suanli.views.estimates import checkpoint, memory_messages  # the plan's memory check, as --json and the API

    tight, short = memory_messages(packaged_catalog(), e)  # short: the bias exceeds the headroom, "likely short"
    color = "red" if short is not None else "yellow" if tight is not None else "green"
    fits = {True: f"[{color}]{say(fit_word(tight))}[/{color}]",  # compare's fits cell, the one rule
            False: f"[red]{tr('est.no_fit')}[/red]", None: "?"}[m["fits"]]
    # a card of several dies (the 910C): the cards rented and the ranks ('8× Huawei Ascend 910C (16 dies)'), memory per die
    cards, device, per = c["device"].get("cards", w.gpus), display_name(e.device), tr("col.per_gpu")
    if e.dies_per_card > 1:
        device, per = tr("plan.device_dies", device=device, ranks=w.gpus), tr("col.per_die")
    console.print(tr("cli.est.header", model=f"[bold]{checkpoint(e, asked)}[/bold]", task=w.task,
                     precision=w.precision, gpus=cards, device=device, method=_label("est.method", w.method)), highlight=False)
    console.print(tr("cli.est.params", total=c["model"]["params"] / 1e9, active=c["model"]["active_params"] / 1e9),
                  highlight=False)
    from suanli.estimate.memory import pool_bytes

    parts, pool = m["breakdown_bytes"], pool_bytes(m["breakdown_bytes"])
    rows = [{"item": _label("memory", k), "per GPU": _fmt_b(v)} for k, v in parts.items()]
    rows.append({"item": f"[bold]{tr('memory.total')}[/bold]", "per GPU": _fmt_b(m["per_gpu_bytes"])})
    if m["capacity_bytes"]:
        rows.append({"item": tr("est.device_memory"), "per GPU": _fmt_b(m["capacity_bytes"])})
    if m["usable_bytes"] is not None and m["capacity_bytes"]:
        # the fit compares needed with usable, not with the device memory (allocator fragmentation or the
        # engine's pre-allocated pool)
        if m["needed_bytes"] is not None and abs(m["needed_bytes"] - m["per_gpu_bytes"]) > 1:
            rows.append({"item": tr("est.needed"), "per GPU": _fmt_b(m["needed_bytes"])})
        rows.append({"item": tr("est.usable"), "per GPU": _fmt_b(m["usable_bytes"])})
    emit_rows(rows, ["item", "per GPU"], title=tr("cli.est.memory_title", fits=fits, per=per),
              headers={"item": tr("col.item"), "per GPU": per})
    if pool is not None and m["capacity_bytes"] and m["needed_bytes"] is not None and m["usable_bytes"] is not None:
        # a pre-allocating engine (vLLM): its pool holds every item, the runtime reserve included (memory.pool_bytes)
        console.print(tr("cli.est.pool_note", engine=w.engine, pct=m["usable_bytes"] / m["capacity_bytes"] * 100,
                         usable=m["usable_bytes"] / 2**30, runtime=parts.get("runtime_overhead", 0.0) / 2**30,
                         total=m["per_gpu_bytes"] / 2**30, capacity=m["capacity_bytes"] / 2**30,
                         needed=m["needed_bytes"] / 2**30), highlight=False)
    if m["fits"] is False:  # training: the layout plan runs on these cards, as flags (`fitting_layout_hint`)
        hint = fitting_layout_hint(packaged_catalog(), e)
        if hint is not None:
            console.print(f"[yellow]{tr('cli.est.hint', hint=say(hint))}[/yellow]", highlight=False)
    if tight is not None:  # the plan's warning, word for word
        console.print(f"[yellow]! {say(tight)}[/yellow]", highlight=False)
    if short is not None:  # the plan's sentence for it
        console.print(f"[yellow]! {say(short)}[/yellow]", highlight=False)
    if m["max_batch"] is not None:
        console.print(tr("cli.est.max_batch", batch=m["max_batch"], context=m["max_context"]), highlight=False)
    note = label("cli.label.note")  # no space after Chinese's full-width colon (output.label)
    for n in _notes(e.memory.notes_i18n, m["notes"]) + _notes(e.notes_i18n, c["notes"]):
        console.print(f"{note}{n}", highlight=False)
    s = c["speed"]
    headers = {"metric": tr("col.metric"), "value": tr("col.value")}
    if s and m["fits"] is False:  # it never runs: no speed, as its time below (--json keeps them with runs false)
        console.print(tr("cli.est.speed_no_fit"), highlight=False)
    elif s:
        keys = [k for k in s if k not in ("efficiency", "decode_step_s")]  # the step: --json only
        emit_rows([_speed_row(s, k, w.batch) for k in keys], ["metric", "value"],
                  title=tr("cli.est.speed_title"), headers=headers)
        if "ttft_joining_s" in s:  # which TTFT and TPOT plan's targets are checked against
            console.print(f"{note}{tr('cli.est.latency_note')}", highlight=False)
        for eff in s["efficiency"]:
            # where the value came from for this device (efficiency.basis): measured, inherited, family median …
            src = say_json(eff.get("provenance_i18n"), eff.get("provenance") or eff["source"])
            if str(eff["metric"]).endswith("_s"):  # seconds (an engine's step overhead): 2.6 ms, not 0.00
                shown = say(efficiency_value(str(eff["metric"]), float(eff["value"])))  # plan's wording too
                console.print(tr("cli.est.efficiency_time", metric=eff["metric"], value=shown, source=src),
                              highlight=False)
                continue
            console.print(tr("cli.est.efficiency", metric=eff["metric"], value=eff["value"], source=src), highlight=False)
    sc = c["scaling"]
    if sc and w.gpus > 1 and m["fits"] is not False:
        emit_rows([{"metric": _label("est.metric", k), "value": v} for k, v in sc.items()], ["metric", "value"],
                  title=tr("cli.est.scaling_title"), headers=headers)
    if c["time"].get("hours") is not None:
        # a configuration that does not fit never runs: its time is no answer, so it is marked as such
        console.print(tr("cli.est.time" if m["fits"] is not False else "cli.est.time_no_fit", tokens=w.tokens,
                         hours=c["time"]["hours"]), highlight=False)
    if c["time"].get("setup_hours") is not None and c["time"].get("total_hours") is not None and m["fits"] is not False:
        su = c["time"].get("setup_breakdown_hours") or {}  # a training job: set-up, then the tokens (JSON total_hours)
        console.print(tr("cli.est.setup_total", setup=c["time"]["setup_hours"], env=su.get("environment_h", 0.0) * 60,
                         download=su.get("download_h", 0.0) * 60, checkpoint=su.get("checkpoint_h", 0.0) * 60,
                         lost=su.get("lost_h", 0.0) * 60, total=c["time"]["total_hours"]), highlight=False)
    if c["time"].get("first_serve_hours") is not None and m["fits"] is not False:
        fs = c["time"]["first_serve_breakdown_hours"]
        # tokens to generate: a batch job, which starts and is done, rather than first serving (total_hours: set-up
        # and generation)
        job = c["time"].get("hours") is not None and c["time"].get("total_hours") is not None
        console.print(tr("cli.est.job_start" if job else "cli.est.first_serve", hours=c["time"]["first_serve_hours"],
                         env=fs["environment_h"] * 60, download=fs["download_h"] * 60, load=fs["load_h"] * 60,
                         total=c["time"].get("total_hours")), highlight=False)
    for g, b in c["error_band"].items():
        if m["fits"] is False and not g.endswith("memory"):
            continue  # a configuration that does not fit shows no speed, so no speed band either
        for line in _band_lines(e, g, b):
            console.print(line, highlight=False)
        ev = _evidence(e, g)  # the out-of-sample cases of this group on the device's own stack
        if ev is not None:
            console.print(tr("cli.est.evidence", evidence=ev), highlight=False)


def layout_flags(lay: "Layout") -> str:
    """The `suanli estimate` flags that set training layout `lay` (a `plan.search.Layout`), e.g. `--tp 1 --pp 1
    --zero 3 --recompute full --batch 1 --grad-accum 3 --framework deepspeed`."""
    flags = [f"--tp {lay.tp}", f"--pp {lay.pp}", *([f"--vpp {lay.vpp}"] if lay.vpp > 1 else []),
             *([f"--ep {lay.ep}"] if lay.ep > 1 else []), f"--zero {lay.zero or 0}",
             f"--recompute {lay.recompute or 'none'}", f"--batch {lay.micro_batch}", f"--grad-accum {lay.grad_accum or 1}"]
    if lay.tp_comm_overlap:
        flags.append("--tp-comm-overlap")
    if lay.optimizer and lay.optimizer != "adamw":
        flags.append(f"--optimizer {lay.optimizer}")
    if lay.offload_optimizer:
        flags.append("--offload-optimizer")
    if lay.framework:
        flags.append(f"--framework {lay.framework}")
    return " ".join(flags)


def fitting_layout_hint(cat: "Catalog", e: Estimate) -> "Message | None":
    """A training estimate that does not fit its cards: the layout plan runs on the same cards, model, precision,
    sequence length and global batch (`plan.search.fastest_layout_why` with plan's own memory measures: optimizer
    offload or 8-bit AdamW only where no plain AdamW layout fits), as the flags that set it (`layout_flags`); where no
    layout fits those cards, the fewest cards plan finds a plan on (`plan.search.fewest_training_cards`, the default
    region's offers, plan's default global batch), else the `suanli plan` search. None where it fits, serves, or is
    not a language model (buyer review 2026-12-02: 'does not fit' with no way out). The CLI's alone: it names flags."""
    w = e.workload
    if e.memory.fits or not w.training or e.model.kind != "llm":
        return None
    from suanli.catalog.ranks import whole_cards
    from suanli.plan.compare import training_request
    from suanli.plan.request import DEFAULT_GLOBAL_BATCH  # plan's own default (task F.1)
    from suanli.plan.search import fastest_layout_why, fewest_training_cards
    from suanli.i18n import Message
    from suanli.validate.bands import packaged_error_bands

    cards = whole_cards(w.gpus, e.dies_per_card)
    dp = max(1, w.gpus // (w.tp * w.pp * w.cp))
    pins: dict[str, Any] = {"seq": w.seq, "lora_rank": w.lora_rank, "lora_targets": w.lora_targets,
                            "framework": w.framework}  # --framework pinned: kept
    req = training_request(e.model, w.task, cards, w.precision, w.batch * dp * w.grad_accum, pins)
    lay, _ = fastest_layout_why(cat, e.model, req, e.device.id, error_bands=packaged_error_bands(), measures=True)
    if lay is not None:
        return Message("est.hint.fits_as", gpus=cards, layout=lay.label_message(), flags=layout_flags(lay),
                       need_gib=lay.memory_needed_bytes / GiB, usable_gib=lay.memory_usable_bytes / GiB)
    # another card count steps another global batch (micro-batch × dp × accumulation): plan's default one, as the
    # `suanli plan` the hint names searches it
    fewest = fewest_training_cards(cat, e.model, training_request(e.model, w.task, None, w.precision,
                                                                  DEFAULT_GLOBAL_BATCH, pins), e.device.id)
    if fewest is not None:
        return Message("est.hint.fewest_cards", gpus=cards, fewest=fewest)
    return Message("est.hint.plan_search", gpus=cards)


def _band_lines(e: Estimate, group: str, b: dict[str, Any]) -> list[str]:
    """The headline error band of `group`: the device's stack's own out-of-sample band when it has at least
    LITTLE_EVIDENCE_CASES cases (the all-stack band beside it as context); below that, that the group is not validated
    on this stack, the all-stack band for context only; without per-stack bands (older stored bands) the all-stack
    band as before."""
    from suanli.estimate.estimate import LITTLE_EVIDENCE_CASES

    if b["median_abs_pct"] is None:
        return []
    sample = tr("cli.est.band_sample", sample=_label("band.sample", b["sample"])) if b.get("sample") else ""
    everywhere = dict(median=b["median_abs_pct"], p90=b["p90_abs_pct"], cases=b["cases"], sample=sample)
    on = e.error_band[group].on_stack if group in e.error_band else None
    if on is None:
        return [tr("cli.est.band", group=_label("band", group), median=b["median_abs_pct"], p90=b["p90_abs_pct"],
                   cases=b["cases"]) + sample]
    st = next((x for x in packaged_catalog().stacks if x.id == e.device.stack), None)
    stack = display_name(st) if st is not None else e.device.stack
    if on.cases >= LITTLE_EVIDENCE_CASES and on.median_abs_pct is not None:
        return [tr("cli.est.band_stack", group=_label("band", group), stack=stack, median=on.median_abs_pct,
                   p90=on.p90_abs_pct if on.p90_abs_pct is not None else on.median_abs_pct, cases=on.cases),
                tr("cli.est.band_all", **everywhere)]
    return [tr("cli.est.band_unvalidated", group=_label("band", group), stack=stack, min=LITTLE_EVIDENCE_CASES,
               **everywhere)]


def _evidence(e: Estimate, group: str) -> str | None:
    """The evidence for `group` on the device's stack (estimate.evidence_message) in this run's language, or None."""
    from suanli.cli.output import say
    from suanli.estimate.estimate import band_evidence
    from suanli.i18n import both

    band = e.error_band.get(group)
    st = next((x for x in packaged_catalog().stacks if x.id == e.device.stack), None)
    if band is None or st is None:
        return None
    msg = band_evidence(band, group, both(st.name, st.name_zh))  # an MoE model: the stack's MoE cases too
    return None if msg is None else say(msg)


def register(app: typer.Typer) -> None:
    @app.command("estimate")
    def estimate_cmd(
        model: Annotated[str, typer.Option(help="preset (HF id or alias) or path to a config.json")],
        gpu: Annotated[str, typer.Option(help="accelerator id or alias")],
        task: Annotated[str, typer.Option(help="inference, lora, qlora, full, pretrain")] = "inference",
        gpus: Annotated[int, typer.Option(help="number of cards (a card of several dies, the Ascend 910C, runs one rank a die: tp × pp × cp × dp counts ranks)")] = 1,
        precision: Annotated[str | None, typer.Option(help="fp32, bf16, fp16, fp8, int8, int4, nf4 (default: bf16; serving an FP8 checkpoint such as DeepSeek-V3/R1: fp8 where the device runs FP8)")] = None,
        batch: Annotated[int, typer.Option(help="training: micro-batch per device; inference: concurrent sequences per replica (cards beyond tp × pp are replicas)")] = 1,
        seq: Annotated[int, typer.Option(help="training sequence length")] = 2048,
        input: Annotated[int, typer.Option("--input", help="inference prompt tokens per sequence")] = 512,
        output: Annotated[int, typer.Option("--output", help="inference generated tokens per sequence")] = 256,
        tp: Annotated[int, typer.Option(help="tensor-parallel size")] = 1,
        pp: Annotated[int, typer.Option(help="pipeline-parallel size")] = 1,
        vpp: Annotated[int, typer.Option(help="training: virtual pipeline stages per device (interleaved 1F1B; layers divisible by pp × vpp)")] = 1,
        cp: Annotated[int, typer.Option(help="training: context-parallel size (each sequence split over cp ranks; gpus = tp × pp × cp × dp)")] = 1,
        ep: Annotated[int, typer.Option(help="expert-parallel size (MoE; divides gpus / (tp × pp × cp))")] = 1,
        tp_comm_overlap: Annotated[bool, typer.Option("--tp-comm-overlap", help="training: tensor-parallel collectives pipelined with the GEMMs (Megatron-Core tp_comm_overlap, MindSpeed CoC/MC2); only what the GEMMs cannot hide is exposed")] = False,
        zero: Annotated[int, typer.Option(help="ZeRO stage 0-3 (3 = FSDP full shard)")] = 0,
        framework: Annotated[str | None, typer.Option(help="training: the framework the layout runs under (deepspeed, megatron, torchtitan, ...; default: the one `suanli plan` picks for this layout, named in a note)")] = None,
        recompute: Annotated[str, typer.Option(help="activation recomputation: none, selective, full")] = "none",
        optimizer: Annotated[str, typer.Option(help="adamw, adamw8bit, sgd, adafactor")] = "adamw",
        lora_rank: Annotated[int, typer.Option(help="LoRA rank")] = 16,
        tokens: Annotated[float | None, typer.Option(parser=count_from_text, help="tokens to train on (or generate): gives time.hours; 5e7, 50M, 5000万")] = None,
        engine: Annotated[str | None, typer.Option(help="inference engine: vllm, sglang, lmdeploy, trt-llm, hf (transformers), llama.cpp, vllm-ascend, mindie (default: the one most teams serve with on the device's stack)")] = None,
        engine_version: Annotated[str | None, typer.Option(help="inference: the engine release the run uses (e.g. 4.38.2 for transformers); a release older than one the catalog records a change at keeps the old behaviour (transformers before 4.45: every prompt position's logits, and Qwen2's rotary cos/sin cache in every layer); default: the current release")] = None,
        quant_method: Annotated[str | None, typer.Option(help="inference on a weight-only quantized checkpoint: its config.json quant_method, awq (int4) or gptq (int4, int8); with --engine vllm --engine-version before 0.5.3 an AWQ checkpoint runs AWQ's own GEMM kernel, not Marlin (slower on A100); default: unstated")] = None,
        gptq_kernel: Annotated[str | None, typer.Option(help="inference with --engine hf on a 4-bit GPTQ checkpoint: the AutoGPTQ kernel it runs, exllama, exllamav2 or cuda-old (passes over the packed weights per decode step, and the batch from which it reconstructs a 16-bit copy); default: unstated, no per-kernel rule")] = None,
        lora_targets: Annotated[str, typer.Option(help="LoRA target modules: all-linear, attention, q,v")] = "all-linear",
        kv_dtype: Annotated[str | None, typer.Option(help="KV-cache dtype (default: the activation dtype)")] = None,
        grad_accum: Annotated[int, typer.Option(help="gradient-accumulation micro-batches per step")] = 1,
        no_flash_attention: Annotated[bool, typer.Option("--no-flash-attention", help="count the attention scores (no fused attention kernel)")] = False,
        legacy_kv_cache: Annotated[bool, typer.Option("--legacy-kv-cache", help="remote-code models that grow the KV cache with torch.cat (Qwen 1): the previous step's cache is alive too")] = False,
        offload_optimizer: Annotated[bool, typer.Option("--offload-optimizer", help="training: optimizer states and step on the host CPU (DeepSpeed ZeRO-Offload; the CPU Adam step and the PCIe copy back are in the time; ZeRO 1-3 under DeepSpeed, 2-3 under LLaMA-Factory)")] = False,
        bnb_saves_inputs: Annotated[bool, typer.Option("--bnb-saves-inputs", help="qlora: bitsandbytes before 0.43.2, whose MatMul4Bit keeps each 4-bit linear's input for backward (ctx.tensors = (A, B)); 0.43.2 stopped keeping it (bitsandbytes#1270), so off by default")] = False,
        fsdp_mixed_units: Annotated[bool, typer.Option("--fsdp-mixed-units", help="lora/qlora under FSDP1 (--zero 2/3) with each decoder layer one unit mixing frozen and LoRA weights (LitGPT): the gradient has the units' whole size, kept unsharded under no_sync gradient accumulation")] = False,
        paged_optimizer: Annotated[bool, typer.Option("--paged-optimizer", help="optimizer states paged to host memory (bitsandbytes paged AdamW)")] = False,
        optimizer_in_backward: Annotated[bool, typer.Option("--optimizer-in-backward", help="step each parameter in its gradient hook (torchtune)")] = False,
        no_master_weights: Annotated[bool, typer.Option("--no-master-weights", help="pure bf16 training: no fp32 master copy")] = False,
        loss_chunks: Annotated[int, typer.Option(help="cross-entropy over this many token chunks (torchtune chunked loss)")] = 1,
        inter_node_gbit: Annotated[float | None, typer.Option(help="the rented network between nodes, Gbit/s per node (caps the link data; plans set it from their node offer)")] = None,
        download_gbit: Annotated[float | None, typer.Option(help="training set-up: the model download's rate, Gbit/s (the offer's public bandwidth; default: the catalog's assumed rate; plans set it from their offer)")] = None,
        method: Annotated[str, typer.Option(help="default (accurate) or seed (the articles' rules of thumb)")] = "default",
        resolution: Annotated[int | None, typer.Option(help="diffusion: image side in pixels (default: the pipeline's)")] = None,
        steps: Annotated[int | None, typer.Option(help="diffusion: denoising steps (default: the pipeline's)")] = None,
        cfg: Annotated[bool | None, typer.Option("--cfg/--no-cfg", help="diffusion: classifier-free guidance (default: the pipeline's)")] = None,
        json_: Annotated[bool, typer.Option("--json", help="print the JSON contract")] = False,
    ) -> None:
        """Memory per GPU (typed breakdown), prefill/decode or training speed, multi-card scaling and time."""
        cat = packaged_catalog()
        m = load_model_arg(cat, model)
        acc = lookup.accelerator(cat, gpu)
        from suanli.catalog.ranks import dies_per_card, ranks_of  # --gpus counts cards; the workload ranks (a 910C: 2 a card)

        engine_note, engine_given = None, engine is not None
        if engine is None:
            from suanli.views.estimates import default_engine, engine_default_note  # as POST /api/estimate

            engine = default_engine(cat, acc, task)
            engine_note = engine_default_note(cat, acc, m, task)  # the first note, text and JSON alike
        if precision is None:  # the one default rule (estimate.precision.default_precision)
            from suanli.estimate.precision import default_precision

            precision = default_precision(m, acc, next((x for x in cat.stacks if x.id == acc.stack), None), task)
        check_ep_has_experts(m, ep)  # a dense model's --ep said as such, before the layout checks
        w = _named_as_flags(lambda: make_workload(  # a layout refusal in cards and dies (`validated`)
            dies=dies_per_card(acc), task=task, gpus=ranks_of(acc, gpus), precision=precision, batch=batch, seq=seq, input=input, output=output,
            tp=tp, pp=pp, vpp=vpp, cp=cp, ep=ep, tp_comm_overlap=tp_comm_overlap, zero=zero, framework=framework, recompute=recompute, optimizer=optimizer, lora_rank=lora_rank,
            lora_targets=lora_targets,
            tokens=tokens, engine=engine, engine_version=engine_version, quant_method=quant_method, gptq_kernel=gptq_kernel, kv_dtype=kv_dtype, grad_accum=grad_accum, inter_node_gbit_per_s=inter_node_gbit,
            download_gbit_per_s=download_gbit,
            flash_attention=not no_flash_attention, legacy_kv_cache=legacy_kv_cache,
            bnb_saves_inputs=bnb_saves_inputs, fsdp_mixed_units=fsdp_mixed_units, paged_optimizer=paged_optimizer, optimizer_in_backward=optimizer_in_backward,
            offload_optimizer=offload_optimizer,
            master_weights=not no_master_weights, loss_chunks=loss_chunks, method=method,
            resolution=resolution, steps=steps, cfg=cfg,
        ))
        if engine_given and w.training:  # --engine serves; a training estimate would ignore it (plan's one refusal)
            from suanli.plan.request import serving_task_refusal

            raise InputError("engine", serving_task_refusal(["engine"], w.task).i18n)
        from suanli.views.estimates import estimate_with_calibration  # the same call as POST /api/estimate

        from suanli.views.estimates import with_notes

        e = with_notes(_named_as_flags(lambda: estimate_with_calibration(cat, m, acc, w)), [engine_note])
        if json_:
            from suanli.views.estimates import estimate_json  # with the memory check, as POST /api/estimate

            emit_json(estimate_json(packaged_catalog(), e, asked=model))
        else:
            render_estimate(e, model)

