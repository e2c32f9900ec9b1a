"""One estimate end to end: memory, speed, scaling and time for a workload on a device.

The JSON of `Estimate.contract()` is the stable contract of `suanli estimate --json` (issue 3, item 5)."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from suanli.catalog import lookup
from suanli.catalog.ranks import dies_per_card, dies_wording, rank_view, whole_cards
from suanli.catalog.schema import Accelerator, Catalog, EfficiencyFactor, ModelArch, SoftwareStack
from suanli.errors import EstimateError, InputError, unknown_name
from suanli.estimate import xp
from suanli.estimate.capability import (
    ALL_FRAMEWORK_TASKS,
    check_capability,
    framework_order,
    framework_refusals,
    runs_layout,
    tp_overlap_refusal,
    tp_overlap_runs,
    zero_framework,
)
from suanli.estimate.diffusion import DiffusionSpeed, diffusion_speed
from suanli.estimate.memory import (
    MemoryEstimate,
    estimate_memory,
    max_batch_that_fits,
    max_context_that_fits,
    nominal_params,
    weights_bytes,
)
from suanli.estimate.params import param_count
from suanli.estimate.scaling import link_for, rented_inter_node_bytes_per_s
from suanli.estimate.precision import native_precision_note, quant_scheme_note, unpublished_checkpoint_note
from suanli.estimate.speed import (
    InferenceSpeed,
    TrainingSpeed,
    awq_gemm_notes,
    quant_kernel_share_notes,
    quant_kernel_notes,
    inference_speed,
    offload_assumption,
    offload_not_estimated,
    training_speed,
)
from suanli.estimate.setup import job_setup, serve_setup_hours, setup_hours, setup_terms
from suanli.estimate.tp_heads import tp_heads_refusal, tp_heads_runs
from suanli.estimate.workload import Workload, optimizer_bytes_per_param
from suanli.i18n import Message, both, render
from suanli.units import GB, SECONDS_PER_HOUR, GiB

__all__ = ["LITTLE_EVIDENCE_CASES", "ErrorBand", "Estimate", "FrameworkChoice", "assumed_framework", "check_ep_has_experts", "context_refusal", "framework_note", "band_evidence", "estimate", "evidence_message", "LORA_TASKS", "lora_evidence_message", "lora_stack_band",
           "job_hours", "moe_evidence_message", "moe_stack_band", "stack_band", "PooledBias", "all_stacks_signed",
           "pooled_bias"]


def job_hours(tokens: Any, tokens_per_s: Any) -> Any:
    """Hours to process `tokens` at `tokens_per_s` (arrays or floats): tokens ÷ rate ÷ 3,600 s. The one hours rule
    of estimate, plan and validate; a rate of 0 (a step past float's range) takes inf hours, as numpy gives."""
    return xp.divide(tokens, tokens_per_s) / SECONDS_PER_HOUR


class ErrorBand(BaseModel):
    """Validated |relative error| of this kind of estimate (from `suanli validate`)."""

    model_config = ConfigDict(frozen=True)

    group: str
    median_abs_pct: float | None
    p90_abs_pct: float | None
    cases: int
    sample: Literal["out-of-sample", "in-sample only"] | None = None  # suanli.validate.report.quoted_bands
    # per-stack evidence (`stack:<stack>:<group>` bands, suanli.validate.report.stack_bands): the stack, and the
    # median signed error of the estimate's speed (+: the estimate is faster than measured; memory: larger)
    stack: str | None = None
    median_signed_pct: float | None = None
    # the band an estimate quotes for its group carries the out-of-sample evidence on the device's own stack
    # (cases 0: none on that stack; None: the stored bands predate per-stack entries)
    on_stack: ErrorBand | None = None
    # an MoE model's estimate also carries the out-of-sample MoE cases of the group on that stack
    # (`stack:<stack>:<group>:moe`; cases 0: none; None: a dense model, or bands stored before MoE entries)
    on_stack_moe: ErrorBand | None = None
    # a LoRA/QLoRA training estimate also carries the out-of-sample LoRA cases of the group on that stack
    # (`stack:<stack>:<group>:lora`; cases 0: none; None: another task, or bands stored before LoRA entries)
    on_stack_lora: ErrorBand | None = None



class FrameworkChoice(BaseModel):
    """The training framework an estimate ran its layout under and how it was chosen (`assumed_framework`)."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    # pinned: --framework; assumed: the one `suanli plan` picks for this layout (`assumed_framework`)
    chosen: Literal["pinned", "assumed"]
    # how an assumed one was picked: "fastest" (full, pretrain: the fastest of `candidates` that fits, ties to the
    # earlier), "first" (the first of `candidates`: LoRA, QLoRA, or none of them fits); None when pinned
    rule: Literal["fastest", "first"] | None = None
    candidates: list[str] = []  # the frameworks running the layout, in the preference order (capability.framework_order)


class Estimate(BaseModel):
    model_config = ConfigDict(frozen=True)

    model: ModelArch
    device: Accelerator  # one rank of the card (`catalog.ranks.rank_view`: a 910C's die)
    dies_per_card: int = 1  # ranks a rented card gives (`catalog.ranks.dies_per_card`); workload.gpus counts ranks
    workload: Workload
    memory: MemoryEstimate
    max_batch: int | None
    max_context: int | None = None
    inference: InferenceSpeed | None = None
    training: TrainingSpeed | None = None
    diffusion: DiffusionSpeed | None = None
    hours: float | None = None
    setup_hours: dict[str, float] | None = None
    # inference: hours from renting to the first request served (environment, download, weight load), the figure
    # serving plans show (suanli.estimate.setup.serve_setup_hours)
    first_serve_hours: dict[str, float] | None = None
    error_band: dict[str, ErrorBand] = {}
    framework: FrameworkChoice | None = None  # training: the framework the layout ran under, and how it was chosen
    notes: list[str] = []  # English (the JSON contract)
    # the same notes as messages (`Message.to_json`; a plain string where the note has no message yet)
    notes_i18n: list[dict[str, Any] | str] = []

    def contract(self) -> dict[str, Any]:
        p = param_count(self.model)
        w = self.workload
        out: dict[str, Any] = {
            "model": {"id": self.model.id, "params": p.total, "active_params": p.active},
            # gpus: the ranks (devices a framework sees); a card of several dies (the 910C: 2) adds the cards rented
            "device": {"id": self.device.id, "name": self.device.name, "gpus": w.gpus,
                       **({"ranks": w.gpus, "cards": whole_cards(w.gpus, self.dies_per_card),
                           "dies_per_card": self.dies_per_card} if self.dies_per_card > 1 else {})},
            "workload": w.model_dump(mode="json"),
            "method": w.method,
            "memory": {
                "per_gpu_bytes": self.memory.per_gpu_bytes,
                "per_gpu_gb": self.memory.per_gpu_bytes / 1e9,
                "per_gpu_gib": self.memory.per_gpu_bytes / 2**30,
                "breakdown_bytes": self.memory.breakdown_bytes,
                "capacity_bytes": self.memory.capacity_bytes,
                # what the fit compares: needed (the breakdown less the engine's unused KV pool) against usable
                # (capacity x (1 - fragmentation), or the engine's pre-allocated share)
                "usable_bytes": self.memory.usable_bytes,
                "needed_bytes": self.memory.needed_bytes,
                "fits": self.memory.fits,
                "max_batch": self.max_batch,
                "max_context": self.max_context,
                "trainable_params": self.memory.trainable_params,
                "notes": self.memory.notes,
            },
            "speed": {},
            "time": {},
            "scaling": {},
            "error_band": {k: v.model_dump() for k, v in self.error_band.items()},
            "framework": self.framework.model_dump() if self.framework is not None else None,
            "notes": self.notes,
            # a configuration that does not fit in memory never runs: speed and time are what it would reach if it did
            "runs": self.memory.fits is not False,
        }
        if self.memory.host_offload_bytes_per_node is not None:  # optimizer offloaded: host RAM per node it needs
            out["memory"]["host_offload_bytes_per_node"] = self.memory.host_offload_bytes_per_node
        if w.method == "seed":
            out["model"]["nominal_params"] = nominal_params(self.model)
        if self.inference is not None:
            s = self.inference
            out["speed"] = {
                "prefill_tokens_per_s": s.prefill_tokens_per_s,
                "decode_tokens_per_s": s.decode_tokens_per_s,
                "output_tokens_per_s": s.output_tokens_per_s,
                "ttft_s": s.ttft_s,
                # one output token: no gap between tokens, no TPOT (fb33107's rule, `speed.steady_tpot_s`); the
                # kernel's decode step stays as its own field
                "tpot_s": s.tpot_s if w.output > 1 else None,
                "decode_step_s": s.tpot_s,
                "ttft_joining_s": s.ttft_joining_s,
                "tpot_steady_s": s.tpot_steady_s,
                "prefill_bound": s.prefill_bound,
                "decode_bound": s.decode_bound,
                "efficiency": [e.model_dump() for e in s.efficiencies],
            }
            out["scaling"] = {
                # share of a decode step not spent in tensor-parallel all-reduces
                "efficiency": (s.tpot_s - s.tp_comm_per_token_s) / s.tpot_s,
                "tp_comm_per_token_s": s.tp_comm_per_token_s,
            }
        if self.training is not None:
            t = self.training
            out["speed"] = {
                "train_tokens_per_s": t.train_tokens_per_s,
                "step_time_s": t.step_time_s,
                "tokens_per_step": t.tokens_per_step,
                "mfu": t.mfu,
                "model_flops_per_token": t.model_flops_per_token,
                "hardware_flops_per_token": t.hardware_flops_per_token,
                "efficiency": [e.model_dump() for e in t.efficiencies],
            }
            out["scaling"] = {
                "efficiency": t.scaling_efficiency,
                "compute_s": t.compute_s,
                "dp_comm_s": t.comm.dp_s,
                "dp_exposed_s": t.comm.dp_exposed_s,
                "tp_comm_s": t.comm.tp_s,
                "ep_comm_s": t.comm.ep_s,
                "pp_bubble_s": t.comm.pp_bubble_s,
                "pp_p2p_s": t.comm.pp_p2p_s,
                "cp_comm_s": t.comm.cp_s,
                "intra_link": t.comm.intra_link,
                "inter_link": t.comm.inter_link,
                "bus_gb_per_s": t.comm.bus_gb_per_s,
            }
        if self.diffusion is not None:
            d = self.diffusion
            out["speed"] = {
                "seconds_per_image": d.seconds_per_image,
                "images_per_s": d.images_per_s,
                "step_time_s": d.step_time_s,
                "latency_s": d.latency_s,
                "steps": d.steps,
                "resolution": d.resolution,
                "cfg": d.cfg,
                "denoiser_flops_per_step": d.denoiser_flops_per_step,
                "text_encoder_s": d.text_encoder_s,
                "denoise_s": d.denoise_s,
                "vae_decode_s": d.vae_decode_s,
                "step_bound": d.step_bound,
                "efficiency": [e.model_dump() for e in d.efficiencies],
            }
        if self.hours is not None:
            out["time"] = {"hours": self.hours, "tokens": w.tokens}
            if self.setup_hours is not None:
                out["time"].update({
                    "compute_hours": self.hours,
                    "setup_hours": self.setup_hours["total_h"],
                    "setup_breakdown_hours": {k: self.setup_hours[k]
                                              for k in ("environment_h", "download_h", "checkpoint_h", "lost_h")},
                    "checkpoints": self.setup_hours["checkpoints"],
                    "checkpoint_interval_hours": self.setup_hours["checkpoint_interval_h"],
                    "expected_interruptions": self.setup_hours["interruptions"],
                    "total_hours": self.hours + self.setup_hours["total_h"],
                })
        if self.first_serve_hours is not None:
            fs = self.first_serve_hours
            out["time"].update({
                "first_serve_hours": fs["total_h"],
                "first_serve_breakdown_hours": {k: fs[k] for k in ("environment_h", "download_h", "load_h")},
            })
            if self.hours is not None:  # tokens to generate: billed on top, as a serving plan with a horizon
                out["time"].update({"compute_hours": self.hours, "total_hours": self.hours + fs["total_h"]})
        return out


def check_ep_has_experts(model: ModelArch, ep: int | None, model_id: str | None = None) -> None:
    """Expert parallelism splits an MoE's experts: ep > 1 on a dense LLM is refused naming ep. `suanli estimate` and
    POST /api/estimate call it before the workload's layout checks too, so a dense model's --ep is said as this,
    not as "ep must divide the data-parallel size" (buyer review C, F1); the planner calls it for training and serving
    alike. `model_id`: the checkpoint to name (the planner's: base for training, tuned for serving); None: model.id."""
    if (ep or 1) > 1 and model.kind == "llm" and model.moe is None:
        raise InputError("ep", Message("err.expert_parallelism_needs_an_moe_model", w_ep=ep,
                                       model_id=model_id if model_id is not None else model.id))


def context_refusal(model: ModelArch, tokens: int, limit: int, checkpoint: str, training: bool) -> InputError:
    """The one refusal of a context past the checkpoint's (`suanli plan`, `suanli estimate` and their API routes): the
    sum it adds up to and the limit, and where the model card extends the context with YaRN (`yarn_context`) and the
    sum fits it, how to get it — a config.json with the card's rope_scaling (a config with rope_scaling is not
    refused)."""
    yarn: Message | str = ""
    if model.yarn_context is not None and model.yarn_factor is not None and tokens <= model.yarn_context:
        yarn = Message("err.context_yarn", yarn_context=model.yarn_context, factor=model.yarn_factor)
    return InputError("seq" if training else "input", Message(
        "err.exceeds_s_context_of_tokens", what=Message("est.ctx.training" if training else "est.ctx.inference"),
        tokens=tokens, m_id=checkpoint, m_max_context=limit, yarn=yarn))


def estimate(
    cat: Catalog,
    model: ModelArch,
    device: Accelerator,
    w: Workload,
    error_bands: dict[str, ErrorBand] | None = None,
    overrides: tuple[EfficiencyFactor, ...] = (),
    strict_context: bool = True,
    assume_framework: bool = False,
    fit_limits: bool = True,
) -> Estimate:
    """Memory always; speed when the device has the peaks it needs; time when `w.tokens` is given. Training without
    `w.framework` runs under no framework's rule unless `assume_framework` (`suanli estimate`, POST /api/estimate):
    then under the one the planner picks for the layout (`assumed_framework`), named in a note and `framework`.
    `w.gpus` counts ranks: a card of several dies (the 910C) is estimated per die (`catalog.ranks.rank_view`).
    `fit_limits` False: no `max_batch` / `max_context` (None), a caller that reads neither (plan's re-estimate of a
    layout on a device's variants, `caveats.variant_outcome`) skips their ~30 memory estimates."""
    dies = dies_per_card(device)
    device = rank_view(device)  # the one division of a card's figures into its dies' (catalog.ranks)
    if model.kind == "llm" and model.num_layers and w.pp > model.num_layers:
        raise InputError("pp", Message("err.pipeline_stages_for_a_layer_model", w_pp=w.pp, model_num_layers=model.num_layers))
    if model.kind == "llm" and model.num_layers and w.vpp > 1 and model.num_layers % (w.pp * w.vpp) != 0:
        # the interleaved schedule gives every device vpp chunks of layers / (pp × vpp) layers (Megatron-LM requires
        # the division to be exact)
        raise InputError("vpp", Message("err.layers_do_not_split_into_pp", model_num_layers=model.num_layers, w_pp=w.pp, w_vpp=w.vpp))
    check_ep_has_experts(model, w.ep)
    if w.ep > 1 and model.moe is not None and model.moe.num_experts % w.ep != 0:
        # each EP rank holds num_experts / ep whole experts (Megatron-Core: num_moe_experts % expert_model_parallel_size
        # == 0); the planner searches the same sizes (plan.search._layouts)
        n = model.moe.num_experts
        raise InputError("ep", Message("err.ep_must_divide_experts", w_ep=w.ep, model_id=model.id, num_experts=n,
                                       allowed=", ".join(str(d) for d in range(1, n + 1) if n % d == 0)))
    if w.framework is not None and all(f.id != w.framework for f in cat.frameworks):
        raise InputError("framework", unknown_name("framework", w.framework, [f.id for f in cat.frameworks])[1])
    if model.kind == "llm" and w.tp > 1 and (refused_tp := _tp_heads(cat, model, device, w)) is not None:
        # the head rule the planner's layouts apply (tp_heads: Megatron-Core/torchtitan split whole heads and KV heads;
        # vLLM, SGLang, TensorRT-LLM, LMDeploy refuse tp not dividing the attention heads)
        raise InputError("tp", refused_tp)
    notes: list[Message | str] = []
    if w.training and w.method == "default":
        # the task, ZeRO stage, optimizer offload and 8-bit AdamW a framework runs: the one check the planner applies
        # too (capability.framework_refusals; frameworks.yaml tasks, zero_stages, offload_zero_stages, adamw8bit_stacks)
        refused = framework_refusals(cat.frameworks, w.task, device.stack, w.zero, w.offload_optimizer, w.optimizer,
                                     w.framework)
        if refused is not None:
            raise InputError("framework" if w.framework is not None else "zero" if w.offload_optimizer else
                             "optimizer" if w.optimizer == "adamw8bit" else "task", render(refused), refused)
    if w.training and w.tp_comm_overlap and (overlap := tp_overlap_refusal(cat.frameworks, device, w.framework)):
        # the link rule the planner's layouts apply (capability.tp_overlap_runs; frameworks.yaml tp_comm_overlap_links)
        raise InputError("tp_comm_overlap", render(overlap), overlap)
    choice = assumed_framework(cat, model, device, w, overrides) if assume_framework or w.framework else None
    if choice is not None and choice.chosen == "assumed":
        w = w.model_copy(update={"framework": choice.id})
        row = next((s for s in cat.stacks if s.id == device.stack), None)
        fw_note = framework_note(choice, w, both(row.name, row.name_zh) if row is not None else device.stack)
        notes += [fw_note] if fw_note is not None else []
    if w.training and (w.pp > 1 or w.tp > 1):
        # which ZeRO stages run beside pipeline / tensor parallelism is framework data (frameworks.yaml pp_zero_stages,
        # tp_zero_stages; the planner applies the same rule): DeepSpeed and Megatron shard optimizer states only beside
        # PP, torchtitan runs FSDP2 beside PP and TP (its DDP runs only as 1-D parallelism)
        fw, problem = zero_framework(cat.frameworks, w.task, device.stack, w.tp, w.pp, w.dp * w.cp, w.zero,
                                     w.framework)
        if problem is not None:
            raise InputError("zero", problem)
        if fw is not None and w.pp > 1 and w.zero >= 3 and w.dp * w.cp > 1:
            notes.append(Message("est.note.zero_pp", zero=w.zero, framework=fw.name, source=fw.pp_zero_source))
    stack = next((s for s in cat.stacks if s.id == device.stack), None)
    if stack is not None and w.method == "default":
        notes += check_capability(device, stack, w.task, w.precision, w.engine, w.kv_dtype, w.flash_attention,
                                  cat.engines)
    if w.task == "inference" and w.ep > 1 and model.moe is not None:  # expert parallel is the engine's (plan's rule)
        eng = next((e for e in cat.engines if e.id == w.engine), None)
        if eng is None or not eng.expert_parallel:
            notes.append(Message("est.note.engine_no_expert_parallel", engine=eng.name if eng else w.engine,
                                 engines=", ".join(e.name for e in cat.engines if e.expert_parallel), field="ep"))
    # the context of the checkpoint the task downloads (`lookup.context_of`): training the base, serving the tuned one
    limit = lookup.context_of(model, w.task) if model.kind == "llm" else None
    if limit and w.context > limit:
        named = lookup.checkpoint_id(model, w.task)
        ctx = dict(what=Message("est.ctx.training" if w.training else "est.ctx.inference"), tokens=w.context, model=named, max_context=limit)
        if model.rope_scaling or not strict_context:
            notes.append(Message("est.note.context_rope", ctx, rope=str(model.rope_scaling)) if model.rope_scaling
                         else Message("est.note.context_beyond", ctx))
        else:
            raise context_refusal(model, w.context, limit, named, w.training)
    if model.kind == "llm" and w.method == "default":
        # the FP8 checkpoint run converted to 16-bit, or upcast for training (precision.default_precision's rule)
        native = native_precision_note(model, device, stack, w.task, w.precision)
        if native is not None:
            notes.append(native)
        # a quantized precision nobody publishes a checkpoint of (on this stack): quantize it first (one rule)
        unpublished = unpublished_checkpoint_note(model, stack, w.task, w.precision, w.quant_method, stacks=cat.stacks)
        if unpublished is not None:
            notes.append(unpublished)
        # what a quantized precision means on the stack and the rate its matmuls run at, as plan says it (one
        # function): int8 on CUDA is GPTQ-Int8 W8A16, run at the 16-bit rate, not at the INT8 TOPS the card lists
        scheme = (quant_scheme_note(stack, w.precision, both(stack.name, stack.name_zh), device)
                  if stack is not None and w.task == "inference" else None)
        if scheme is not None:
            notes.append(scheme)
    mem = estimate_memory(model, w, device, stack, cat, dies=dies)
    if mem.fits is False and (hint := replica_fit_hint(cat, model, device, stack, w, mem, dies)) is not None:
        notes.append(hint)  # serving that does not fit: the tp (or ep) one replica needs, as plan's why-not says
    inf = tr = None
    dif = None
    hours = None
    setup: dict[str, float] | None = None
    first_serve: dict[str, float] | None = None
    max_b = None
    max_ctx = None
    if w.method == "default" and model.kind == "llm":
        if fit_limits:
            max_b = max_batch_that_fits(model, w, device, stack, cat=cat)
            max_ctx = max_context_that_fits(model, w, device, stack, cat=cat)
        try:
            if w.training:
                tr = training_speed(cat, model, device, w, overrides)
                why = offload_not_estimated(cat, device, w)
                if why is not None:  # the offload term has no rate: no speed, said in one line
                    notes.append(why)
                elif (assumed := offload_assumption(cat, w)) is not None:  # timed with an assumed CPU-Adam rate
                    notes.append(assumed)
                if w.tokens and math.isfinite(tr.train_tokens_per_s):
                    hours = job_hours(w.tokens, tr.train_tokens_per_s)
                    terms = setup_terms(cat, model, w.task, mem.trainable_params, optimizer_bytes_per_param(w))
                    nodes = math.ceil(w.gpus / device.max_cards_per_node)
                    su = setup_hours(terms, hours, nodes, w.gpus, w.download_gbit_per_s)
                    setup = {k: float(v) for k, v in su.items()}
            else:
                # time to first serve as serving plans count it (one function: setup.serve_setup_hours)
                first = serve_setup_hours(job_setup(cat), weights_bytes(model, w.precision), w.download_gbit_per_s)
                first_serve = {k: float(v) for k, v in first.items()}
                inf = inference_speed(cat, model, device, w, overrides)
                notes += replica_spans_nodes(cat, device, w, dies)
                notes += awq_gemm_notes(cat, device, w, overrides)  # an engine release before its Marlin path for AWQ
                notes += quant_kernel_notes(w)  # bitsandbytes 4-bit, AutoGPTQ kernels: passes and 16-bit copies
                notes += quant_kernel_share_notes(cat, device, w, overrides)  # their packed passes' measured rate
                if w.tokens:
                    hours = job_hours(w.tokens, inf.output_tokens_per_s)
        except EstimateError as e:
            notes.append(Message("est.note.no_speed", reason=str(e)))
    elif model.kind == "diffusion":
        # issue 3 item 2: seconds per image (suanli.estimate.diffusion); the seeds give no diffusion speed rule
        if w.method == "seed":
            notes.append(Message("est.note.diffusion_seed"))
        elif w.training:
            notes.append(Message("est.note.diffusion_training"))
        else:
            try:
                dif = diffusion_speed(cat, model, device, w, overrides)
            except EstimateError as e:
                notes.append(Message("est.note.no_speed", reason=str(e)))
    bands = error_bands or {}
    wanted = (
        ["training-memory", "training-throughput"]
        if w.training
        else ["inference-memory", "diffusion-speed"]
        if model.kind == "diffusion"
        else ["inference-memory", "decode-speed", "prefill-speed"]
    )
    sel = {g: bands[g] for g in wanted if g in bands}
    if w.method == "default":  # the evidence for this device's own stack beside the group's band
        sel = {g: b.model_copy(update={"on_stack": stack_band(bands, device.stack, g),
                                       "on_stack_moe": moe_stack_band(bands, device.stack, g) if model.moe else None,
                                       "on_stack_lora": lora_stack_band(bands, device.stack, g)
                                       if w.task in LORA_TASKS else None})
               for g, b in sel.items()}
    if w.method == "seed":
        sel = {g: b for g, b in ((g, bands.get(f"seed:{g}")) for g in wanted) if b is not None}
    return Estimate(
        model=model,
        device=device,
        dies_per_card=dies,
        workload=w,
        memory=mem,
        max_batch=max_b,
        max_context=max_ctx,
        inference=inf,
        training=tr,
        diffusion=dif,
        hours=hours,
        setup_hours=setup,
        first_serve_hours=first_serve,
        error_band=sel,
        framework=choice,
        notes=[render(n) for n in notes],
        notes_i18n=[n.to_json() if isinstance(n, Message) else n for n in notes],
    )


def assumed_framework(cat: Catalog, model: ModelArch, device: Accelerator, w: Workload,
                      overrides: tuple[EfficiencyFactor, ...] = ()) -> FrameworkChoice | None:
    """The framework a training workload runs under: the pinned `w.framework`, else the one `suanli plan` picks for
    this exact task, stack and layout — of the frameworks running it (capability.runs_layout and the head rule), in
    the preference order (capability.framework_order): for full fine-tuning and pre-training, which the planner
    searches under every framework (ALL_FRAMEWORK_TASKS), the fastest that fits in memory, ties to the earlier, each
    timed with the tensor-parallel overlap where it runs it, as the planner assumes (tp_overlap_runs); for LoRA and
    QLoRA, and where none fits, the first. None for inference, the seed method, non-LLM models and layouts no
    framework runs (no framework's rule applied)."""
    if not w.training or w.method != "default" or model.kind != "llm":
        return None
    if w.framework is not None:
        fw = next((f for f in cat.frameworks if f.id == w.framework), None)
        return None if fw is None else FrameworkChoice(id=fw.id, name=fw.name, chosen="pinned")
    cands = [f for f in framework_order(cat.frameworks, w.task, device.stack)
             if runs_layout(f, w.task, device, w.tp, w.pp, w.vpp, w.ep, w.dp * w.cp, w.zero, w.recompute, w.precision,
                            w.offload_optimizer, w.optimizer, w.tp_comm_overlap)
             and (w.tp <= 1 or bool(tp_heads_runs(model, w.tp, framework=f.id)))]
    if not cands:
        return None
    ids = [f.id for f in cands]
    if w.task not in ALL_FRAMEWORK_TASKS or len(cands) == 1:
        return FrameworkChoice(id=cands[0].id, name=cands[0].name, chosen="assumed", rule="first", candidates=ids)
    stack = next((s for s in cat.stacks if s.id == device.stack), None)
    best: tuple[float, int] | None = None
    for j, f in enumerate(cands):
        wf = w.model_copy(update={"framework": f.id,
                                  "tp_comm_overlap": w.tp_comm_overlap or (w.tp > 1 and tp_overlap_runs(f, device))})
        try:
            if estimate_memory(model, wf, device, stack, cat).fits is False:
                continue
            rate = training_speed(cat, model, device, wf, overrides).train_tokens_per_s
        except (EstimateError, InputError):
            rate = float("nan")
        rate = rate if math.isfinite(rate) else -math.inf
        if best is None or rate > best[0]:  # strictly faster: ties keep the earlier
            best = (rate, j)
    f = cands[best[1] if best is not None else 0]
    return FrameworkChoice(id=f.id, name=f.name, chosen="assumed", rule="fastest" if best is not None else "first",
                           candidates=ids)


def framework_note(choice: FrameworkChoice | None, w: Workload, stack_name: str | dict[str, str]) -> Message | None:
    """The note naming an assumed framework: "framework: Megatron-LM (assumed: the one plan picks for tp8·pp1·z1 on
    NVIDIA CUDA; --framework to change)"; None when pinned or none."""
    if choice is None or choice.chosen != "assumed":
        return None
    layout = (f"tp{w.tp}·pp{w.pp}" + (f"·vpp{w.vpp}" if w.vpp > 1 else "") + (f"·cp{w.cp}" if w.cp > 1 else "")
              + (f"·ep{w.ep}" if w.ep > 1 else "") + f"·z{w.zero}")
    return Message("est.note.framework_assumed", framework=choice.name, layout=layout, stack=stack_name,
                   field="framework")


def replica_spans_nodes(cat: Catalog, device: Accelerator, w: Workload, dies: int = 1) -> list[Message]:
    """Serving: the warning that one replica (its tp × pp cards, or an expert-parallel group of ep replicas) is wider
    than a node, so its traffic crosses the inter-node network the speed was charged at (`speed.inference_rates`:
    the link data capped by --inter-node-gbit), and, where tp itself crosses nodes, that the published two-node
    deployments keep tp within a node (vLLM-Ascend's DeepSeek-R1 W8A8 tutorial on 2 Atlas 800 A2 nodes: dp 4 × tp 4
    with expert parallel; vLLM's distributed-serving guide: tp = cards per node, pp = nodes). `device` is one rank
    (`rank_view`) and `w` counts ranks; on a card of `dies` dies (the 910C) the notes say the cards, dies beside."""
    per_node = device.max_cards_per_node  # ranks a node holds
    group = w.tp * w.pp * w.ep
    if w.task != "inference" or group <= per_node:
        return []
    link = link_for(cat, device, "inter-node")
    gb_s = float(rented_inter_node_bytes_per_s(link.bus_gb_per_s.value * GB, w.inter_node_gbit_per_s)) / GB
    axes = [f"tp {w.tp}" if w.tp > per_node else None, f"pp {w.pp}" if w.pp > 1 else None,
            f"ep {w.ep}" if w.ep > 1 else None]
    in_dies = {"ranks": group, "node_ranks": per_node} if dies > 1 else {}
    out = [Message(dies_wording("est.note.replica_spans_nodes", dies), nodes=math.ceil(group / per_node),
                   cards=whole_cards(group, dies), per_node=whole_cards(per_node, dies), **in_dies,
                   axes=", ".join(a for a in axes if a), gb_s=gb_s,
                   rate_from=(f"--inter-node-gbit {w.inter_node_gbit_per_s:g}" if w.inter_node_gbit_per_s
                              else link.id))]
    if w.tp > per_node:
        out.append(Message(dies_wording("est.note.tp_spans_nodes", dies), tp=w.tp,
                           per_node=whole_cards(per_node, dies), **({"node_ranks": per_node} if dies > 1 else {})))
    return out


def replica_fit_hint(cat: Catalog, model: ModelArch, device: Accelerator, stack: SoftwareStack | None, w: Workload,
                     mem: MemoryEstimate, dies: int = 1) -> Message | None:
    """Serving that does not fit at `w.tp`: the hint plan's why-not gives (`why.serve_need_tp`, buyer review
    2026-12-02: `estimate --gpus 8` without --tp ran 8 one-card replicas of Qwen3-235B and said only "does not fit"):
    the smallest tensor-parallel group of `plan.sizes.NEED_TPS` in which one batch-1 replica fits, by the same
    memory (`estimate_memory`, plan's `need_tp` rule: batch 1 at the workload's ep and context), named with the flags
    to pass (--tp, and --gpus where the replica needs more cards than asked); for an MoE model on an engine that
    serves expert parallel (plan's `_serve_eps` rule) with no --ep given, the smallest expert-parallel group of
    `plan.sizes.EP_SIZES` dividing its experts that fits at `w.tp`, too. A tp or ep the engine refuses
    (`tp_heads_runs`) is not suggested. None for training, a batch-1 replica that fits at `w.tp` (the batch is what
    does not fit), or nothing up to the last size. `device` is one rank (`rank_view`), `w` and tp/ep count ranks; on a
    card of `dies` dies (the 910C) --gpus is the cards those ranks rent (`whole_cards`, as the CLI's --gpus counts
    cards), the dies beside, the memory per die."""
    if w.training or w.method != "default" or model.kind != "llm" or mem.usable_bytes is None:
        return None
    from suanli.plan.sizes import EP_SIZES, NEED_TPS  # the sizes plan's why-not searches (one list; no numpy)

    def fits_at(tp: int, ep: int) -> bool:
        one = w.model_copy(update={"tp": tp, "ep": ep, "batch": 1, "gpus": tp * ep * w.pp})
        return bool(estimate_memory(model, one, device, stack, cat).fits)

    if fits_at(w.tp, w.ep):
        return None
    need_tp = next((t for t in NEED_TPS if t > w.tp and tp_heads_runs(model, t, engine=w.engine)
                    and fits_at(t, w.ep)), None)
    eng = next((e for e in cat.engines if e.id == w.engine), None)
    need_ep = (next((e for e in EP_SIZES if e > 1 and model.moe.num_experts % e == 0 and fits_at(w.tp, e)), None)
               if model.moe is not None and w.ep == 1 and eng is not None and eng.expert_parallel else None)
    if need_tp is None and need_ep is None:
        return None
    at = {"tp": w.tp, "need_gib": (mem.needed_bytes or mem.per_gpu_bytes) / GiB, "usable_gib": mem.usable_bytes / GiB,
          "cap_gib": (mem.capacity_bytes or 0.0) / GiB}
    tries: list[Message] = []

    def tried(msg_id: str, ranks: int) -> tuple[str, dict[str, int]]:
        """The try's wording and its --gpus: the cards `ranks` ranks rent, with the dies beside on a 910C (a bare
        `--tp` names no cards: its wording is every device's)."""
        wanted = msg_id.replace("_gpus", "") if ranks <= w.gpus else msg_id  # w.gpus: ranks too
        if wanted == "est.note.try_tp":
            return wanted, {"gpus": whole_cards(ranks, dies)}
        return dies_wording(wanted, dies), {"gpus": whole_cards(ranks, dies), **({"ranks": ranks} if dies > 1 else {})}

    if need_tp is not None:
        msg_id, kw = tried("est.note.try_tp_gpus", need_tp * w.ep * w.pp)
        tries.append(Message(msg_id, field="tp", tp=need_tp, gpus_field="gpus", **kw))
    if need_ep is not None:
        msg_id, kw = tried("est.note.try_ep_gpus", w.tp * need_ep * w.pp)
        tries.append(Message(msg_id, field="ep", ep=need_ep, gpus_field="gpus", **kw))
    need = (Message(dies_wording("why.serve_need_tp", dies), need_tp=need_tp, **at)
            if need_tp is not None and w.ep == 1 else Message(dies_wording("est.note.replica_at", dies), **at))
    return Message("est.note.replica_needs", need=need,
                   tries=Message("est.note.try_or", first=tries[0], second=tries[1]) if len(tries) > 1 else tries[0])


def _tp_heads(cat: Catalog, model: ModelArch, device: Accelerator, w: Workload) -> Message | None:
    """Why `w.tp` cannot run `model` (tp_heads.tp_heads_refusal): training under `w.framework`, or, not pinned, under
    every framework that runs tensor parallelism for the task on the device's stack; serving on `w.engine`."""
    if not w.training:
        name = next((e.name for e in cat.engines if e.id == w.engine), w.engine)
        return tp_heads_refusal(model, w.tp, engine=w.engine, runner=name)
    fws = [f for f in cat.frameworks if (f.id == w.framework if w.framework is not None else
                                         w.task in f.tasks and device.stack in f.stacks and f.tp)]
    why = [tp_heads_refusal(model, w.tp, framework=f.id, runner=f.name) for f in fws]
    return why[0] if why and all(r is not None for r in why) else None


def stack_band(bands: dict[str, ErrorBand], stack: str, group: str) -> ErrorBand | None:
    """The out-of-sample band of `group` on `stack` (`stack:<stack>:<group>`, written by `suanli validate --write`);
    a band of 0 cases when the stored bands have per-stack entries but none for this stack; None when they have none."""
    band = bands.get(f"stack:{stack}:{group}")
    if band is not None:
        return band
    if any(k.startswith("stack:") for k in bands):
        return ErrorBand(group=f"stack:{stack}:{group}", median_abs_pct=None, p90_abs_pct=None, cases=0, stack=stack)
    return None


class PooledBias(BaseModel):
    """The median signed error a plan's demotion is judged on (`pooled_bias`): the stack's own where it has
    LITTLE_EVIDENCE_CASES or more out-of-sample cases, else shrunk toward all stacks' figure."""

    model_config = ConfigDict(frozen=True)

    bias_pct: float  # the figure used (+: the estimate faster than measured; memory: larger)
    cases: int  # the stack's out-of-sample cases (0: all stacks' figure alone)
    stack_pct: float | None  # the stack's own median signed error (None: no case)
    all_pct: float | None  # all stacks' median signed error (None: not known)
    all_cases: int
    prior_cases: int  # k: the weight all stacks' figure carries, in cases (assumed)


def all_stacks_signed(bands: dict[str, ErrorBand], group: str) -> tuple[float | None, int]:
    """All stacks' out-of-sample median signed error of `group` and its cases: the group band's own where the stored
    bands carry one, else the per-stack medians (`stack:<stack>:<group>`) weighted by their cases — the bands file
    keeps no all-stack signed median, so this is an approximation of it (exact where one stack holds every case)."""
    own = bands.get(group)
    if own is not None and own.median_signed_pct is not None and own.sample != "in-sample only":
        return own.median_signed_pct, own.cases
    per = [b for k, b in bands.items() if k.startswith("stack:") and k.endswith(f":{group}")
           and b.cases and b.median_signed_pct is not None]
    n = sum(b.cases for b in per)
    if not n:
        return None, 0
    return sum(b.cases * (b.median_signed_pct or 0.0) for b in per) / n, n


def pooled_bias(bands: dict[str, ErrorBand], stack: str, group: str) -> PooledBias | None:
    """The bias a plan is demoted on (README, "How sure a plan's speed is"): with n >= LITTLE_EVIDENCE_CASES
    out-of-sample cases the stack's median signed error; with fewer, shrunk toward all stacks' median signed error,
    (n·stack + k·all) / (n + k) with k = LITTLE_EVIDENCE_CASES (empirical-Bayes shrinkage toward the pooled mean; k is
    an assumed prior weight, not a fitted one); with none, all stacks' figure. None when neither is known."""
    sb = stack_band(bands, stack, group)
    n = sb.cases if sb is not None and sb.median_signed_pct is not None else 0
    own = sb.median_signed_pct if n and sb is not None else None
    all_pct, all_n = all_stacks_signed(bands, group)
    k = LITTLE_EVIDENCE_CASES
    if own is not None and (n >= k or all_pct is None):
        bias = own
    elif all_pct is not None:
        bias = (n * (own or 0.0) + k * all_pct) / (n + k)
    else:
        return None
    return PooledBias(bias_pct=bias, cases=n, stack_pct=own, all_pct=all_pct, all_cases=all_n, prior_cases=k)


def moe_stack_band(bands: dict[str, ErrorBand], stack: str, group: str) -> ErrorBand | None:
    """The out-of-sample MoE cases of `group` on `stack` (`stack:<stack>:<group>:moe`, written by `suanli validate
    --write` beside each per-stack band); a band of 0 cases when the stored bands have MoE entries but none for this
    stack; None when they have none (bands stored before MoE entries: nothing is known)."""
    band = bands.get(f"stack:{stack}:{group}:moe")
    if band is not None:
        return band
    if any(k.startswith("stack:") and k.endswith(":moe") for k in bands):
        return ErrorBand(group=f"stack:{stack}:{group}:moe", median_abs_pct=None, p90_abs_pct=None, cases=0,
                         stack=stack)
    return None


# the tasks that train adapters on a frozen base: their per-stack evidence is counted apart (`lora_stack_band`), as a
# LoRA step runs no optimizer and no weight-gradient GEMM over the base weights, so full fine-tuning and pre-training
# cases do not validate it (buyer review 2026-12-03: 31 CANN cases, none LoRA, were quoted for LLaMA-Factory LoRA)
LORA_TASKS = ("lora", "qlora")


def lora_stack_band(bands: dict[str, ErrorBand], stack: str, group: str) -> ErrorBand | None:
    """The out-of-sample LoRA/QLoRA cases of `group` on `stack` (`stack:<stack>:<group>:lora`, written by `suanli
    validate --write` beside the per-stack training-throughput bands); a band of 0 cases when the stored bands have
    LoRA entries but none for this stack and group; None when they have none (nothing is known: no LoRA wording)."""
    band = bands.get(f"stack:{stack}:{group}:lora")
    if band is not None:
        return band
    if any(k.startswith("stack:") and k.endswith(f":{group}:lora") for k in bands):
        return ErrorBand(group=f"stack:{stack}:{group}:lora", median_abs_pct=None, p90_abs_pct=None, cases=0,
                         stack=stack)
    return None


def lora_evidence_message(band: ErrorBand | None, group: str, stack_name: str | dict[str, str]) -> Message | None:
    """For a LoRA/QLoRA job: that the stack has no out-of-sample LoRA case of `group` (unvalidated for LoRA: its cases
    are full fine-tuning or pre-training), or how many it has and their errors; None without LoRA bands."""
    if band is None:
        return None
    g = Message(f"band.{group}")
    if band.cases == 0 or band.median_abs_pct is None:
        return Message("evidence.lora.none", group=g, stack=stack_name)
    return Message("evidence.lora.little" if band.cases < LITTLE_EVIDENCE_CASES else "evidence.lora.cases", group=g,
                   stack=stack_name, cases=band.cases, median=band.median_abs_pct,
                   signed=band.median_signed_pct or 0.0, need=LITTLE_EVIDENCE_CASES)


def moe_evidence_message(band: ErrorBand | None, group: str, stack_name: str | dict[str, str]) -> Message | None:
    """For an MoE model: how many of the stack's out-of-sample cases of `group` are MoE models and their median signed
    error, or that none is (the stack's evidence is from dense models); None without MoE bands."""
    if band is None:
        return None
    g = Message(f"band.{group}")
    if band.cases == 0 or band.median_abs_pct is None:
        return Message("evidence.moe.none", group=g, stack=stack_name)
    return Message("evidence.moe.cases", group=g, stack=stack_name, cases=band.cases,
                   signed=band.median_signed_pct or 0.0, p90=band.p90_abs_pct or 0.0)  # the p90: a median hides misses


def band_evidence(band: ErrorBand, group: str, stack_name: str | dict[str, str]) -> Message | None:
    """The evidence line an estimate's band of `group` gives on the device's stack (`evidence_message`), with the MoE
    cases beside it for an MoE model (`moe_evidence_message`) and the LoRA cases for a LoRA/QLoRA job
    (`lora_evidence_message`); None without per-stack bands."""
    out = evidence_message(band.on_stack, group, stack_name)
    moe = moe_evidence_message(band.on_stack_moe, group, stack_name)
    if moe is not None:
        out = moe if out is None else Message("evidence.with_moe", evidence=out, moe=moe)
    lora = lora_evidence_message(band.on_stack_lora, group, stack_name)
    if lora is not None:
        out = lora if out is None else Message("evidence.with_lora", evidence=out, lora=lora)
    return out


# below this many out-of-sample cases the evidence for a stack is "little"; the one constant (validate.report imports it
# as MIN_OUT_OF_SAMPLE, below which a group's band is quoted "in-sample only")
LITTLE_EVIDENCE_CASES = 5


def evidence_message(band: ErrorBand | None, group: str, stack_name: str | dict[str, str]) -> Message | None:
    """What the out-of-sample cases of `group` on the device's stack say (`stack_band`): their number and median
    signed error, "little evidence" below LITTLE_EVIDENCE_CASES, "none" at 0; None without per-stack bands."""
    if band is None:
        return None
    g = Message(f"band.{group}")
    if band.cases == 0 or band.median_abs_pct is None:
        return Message("evidence.none", group=g, stack=stack_name)
    sign = Message("evidence.sign.memory" if group.endswith("memory") else "evidence.sign.speed")
    return Message("evidence.little" if band.cases < LITTLE_EVIDENCE_CASES else "evidence.cases", group=g,
                   stack=stack_name, cases=band.cases, median=band.median_abs_pct,
                   signed=band.median_signed_pct or 0.0, sign=sign)


def resolve(cat: Catalog, model: str, gpu: str) -> tuple[ModelArch, Accelerator]:
    return lookup.model(cat, model), lookup.accelerator(cat, gpu)
