"""Export a chosen plan as a SkyPilot YAML: a training (or batch) plan as a task (`resources: accelerators: H100:8`,
`num_nodes`), a serving plan as a SkyServe service (`service: replicas`, each replica one tp-sized instance)."""

from __future__ import annotations

import math
from typing import Any

import yaml

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog, ModelArch
from suanli.errors import InputError
from suanli.estimate.precision import published_checkpoint
from suanli.i18n import Message
from suanli.plan.search import Plan, PlanResult, recompute_off

__all__ = ["SERVE_PORT", "SKYPILOT_CLOUDS", "SKYPILOT_NAMES", "skypilot_accelerator", "skypilot_cloud",
           "skypilot_notes", "skypilot_yaml"]

# SkyPilot accelerator names (sky/catalog: 'H100', 'A100-80GB', 'L40S', …). An NVIDIA device SkyPilot's clouds do
# not list (A800, H800, RTX 4090D) is exported under its catalog id, which the user maps to a Kubernetes GPU label;
# a device of another vendor (Ascend, MTT, Hygon, …) has no SkyPilot accelerator at all and is refused
# (`skypilot_accelerator`), never written under a name SkyPilot cannot schedule.
SKYPILOT_NAMES = {
    "h100-sxm": "H100", "h100-pcie": "H100", "h200": "H200", "b200": "B200", "a100-80g": "A100-80GB",
    "a100-80g-pcie": "A100-80GB", "a100-40g": "A100", "l40s": "L40S", "a10": "A10", "rtx-4090": "RTX4090",
    "rtx-3090": "RTX3090", "h20": "H20", "l20": "L20", "rtx-5090": "RTX5090",
}
# SkyServe needs a port on each replica and a readiness probe (docs.skypilot.co/en/v0.7.0/serving/service-yaml-spec.html,
# read 2026-12-01: 'readiness_probe (required)', path /v1/models): every engine below is started on this port with its
# OpenAI-compatible server, which answers /v1/models once the model is loaded
SERVE_PORT = 8000
# The catalog providers that are SkyPilot clouds, by the name before any ' (…)' (SkyPilot installation page,
# docs.skypilot.co/en/stable/getting-started/installation.html, read 2026-12-01: skypilot[aws], [runpod], [paperspace]);
# any other provider (AutoDL, 云擎天下, …) is not one: SkyPilot rents from its own clouds, at their prices
SKYPILOT_CLOUDS = {"aws": "aws", "runpod": "runpod", "paperspace": "paperspace"}
# Weight-only formats served from a pre-quantized checkpoint (AWQ/GPTQ), never quantized on load: the bf16 preset's
# id cannot be served at these precisions. vLLM and SGLang quantize a bf16 checkpoint to fp8 on load
# (docs.sglang.io/advanced_features/server_arguments.html, read 2026-12-01: '--quantization fp8 on a fp16 checkpoint');
# LMDeploy's api_server takes --model-format awq/gptq/fp8 checkpoints only
_PREQUANTIZED = ("int4", "int8", "nf4")
# which pre-quantized checkpoints fill MODEL at each precision (the engine reads the method from the checkpoint)
_CHECKPOINT_KINDS = {"int4": "AWQ or GPTQ", "int8": "GPTQ-Int8 or W8A8", "nf4": "bitsandbytes NF4"}
# the checkpoint formats LMDeploy's TurboMind loads: a quantization_config of another quant_method asserts
# 'unsupported quant_config', and both load as int4 weights (InternLM/lmdeploy@011536f5
# lmdeploy/turbomind/deploy/converter.py, get_tm_model and get_output_model_registered_name_and_config)
_LMDEPLOY_METHODS = ("awq", "gptq")
# multi-node launchers take the head node from SkyPilot's env (docs.skypilot.co/en/stable/running-jobs/
# distributed-jobs.html, read 2026-12-01: SKYPILOT_NODE_IPS, SKYPILOT_NUM_NODES, SKYPILOT_NUM_GPUS_PER_NODE,
# SKYPILOT_NODE_RANK)
_HEAD = 'MASTER_ADDR=$(echo "$SKYPILOT_NODE_IPS" | head -n1)\n'
_TORCHRUN = ("torchrun --nnodes=$SKYPILOT_NUM_NODES --nproc_per_node=$SKYPILOT_NUM_GPUS_PER_NODE "
             "--node_rank=$SKYPILOT_NODE_RANK --master_addr=$MASTER_ADDR --master_port=29500")


def skypilot_accelerator(cat: Catalog, device: str) -> str:
    """The SkyPilot accelerator name for a catalog device; InputError for a device SkyPilot has no name for."""
    acc = next(a for a in cat.accelerators if a.id == device)
    if device in SKYPILOT_NAMES:
        return SKYPILOT_NAMES[device]
    if acc.vendor == "nvidia":
        return device
    raise InputError("skypilot", f"{acc.name} ({device}) has no SkyPilot accelerator name: SkyPilot schedules NVIDIA "
                                 "GPUs (and AMD/TPU), not this vendor's cards, so no task YAML is written; launch it "
                                 "with the platform's own tools, or plan with --gpu on a device SkyPilot lists",
                     Message("export.skypilot.no_name", name=acc.name, device=device))


def _envs(p: Plan, result: PlanResult) -> dict[str, Any]:
    # the whole layout the plan was estimated with: a launcher that drops one (recomputation above all) may
    # not fit in memory or run at the planned speed
    return {
        "MODEL": result.model_id, "TASK": result.request.task, "FRAMEWORK": p.framework,
        **({"ENGINE": p.engine} if p.engine else {}), "PRECISION": p.precision,
        "TP": p.tp, "PP": p.pp, "VPP": p.vpp, "EP": p.ep, "DP": p.dp,
        "ZERO_STAGE": p.zero if p.zero is not None else 0, "RECOMPUTE": p.recompute or "none",
        "MICRO_BATCH": p.micro_batch, "GRAD_ACCUM": p.grad_accum or 1,
        # serving: the tokens of one sequence the plan sized the KV cache for (prompt + generated)
        **({"CONTEXT_LEN": result.request.input + result.request.output}
           if result.request.task == "inference" else {}),
        **({"SEQ": result.request.seq, "GLOBAL_BATCH": result.request.global_batch,
            # the memory measure the plan chose (ZeRO-Offload / 8-bit AdamW): without it the job may not fit
            "OPTIMIZER": p.optimizer, "OFFLOAD_OPTIMIZER": p.offload_optimizer}
           if result.request.task != "inference" else {}),
        **({"LORA_RANK": result.request.lora_rank} if result.request.task in ("lora", "qlora") else {}),
    }


class _Dumper(yaml.SafeDumper):
    """Multi-line strings (the run: and setup: scripts) as YAML block literals (`run: |`), as SkyPilot's docs write them."""


def _str(dumper: yaml.SafeDumper, s: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None)


_Dumper.add_representer(str, _str)


def _dump(task: dict[str, Any]) -> str:
    return yaml.dump(task, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)


def skypilot_cloud(provider: str) -> str | None:
    """The SkyPilot cloud a catalog provider is ('AWS' → 'aws', 'RunPod (Community Cloud)' → 'runpod'); None for a
    provider SkyPilot cannot rent from (AutoDL, 云擎天下, …)."""
    return SKYPILOT_CLOUDS.get(provider.split(" (")[0].strip().lower())


def _provider(p: Plan, cat: Catalog) -> str:
    return next((o.provider for o in cat.offers if o.id == p.offer), p.offer)


def skypilot_notes(p: Plan, cat: Catalog) -> list[Message]:
    """What the export cannot carry over, one line each for stderr: a device no SkyPilot cloud lists (H800, A800, …:
    exported under its catalog id) runs only where the user's Kubernetes cluster labels its nodes with that name
    (SkyPilot's Kubernetes GPU label, lowercase: `kubectl label nodes <node> skypilot.co/accelerator=a40`,
    skypilot-org/skypilot#2653, read 2026-12-01), so no cloud will rent it at any price; otherwise a plan priced on a
    provider that is not a SkyPilot cloud is launched on SkyPilot's own clouds, at their prices, not the plan's."""
    if p.device not in SKYPILOT_NAMES:  # only NVIDIA devices get this far (skypilot_accelerator refuses the rest)
        acc = next(a for a in cat.accelerators if a.id == p.device)
        return [Message("export.skypilot.k8s_label", name=acc.name, device=p.device)]
    provider = _provider(p, cat)
    if skypilot_cloud(provider) is None:
        return [Message("export.skypilot.other_cloud", provider=provider)]
    return []


def _own_checkpoint(precision: str, model: ModelArch) -> bool:
    """The model's published checkpoint is already at `precision`: its config.json's quantization_config says so
    (ModelArch.native_dtype: DeepSeek-V3/R1 quant_method fp8)."""
    return model.native_dtype is not None and precision == model.native_dtype


def _prequantized(precision: str, model: ModelArch) -> bool:
    """One rule for every precision: the checkpoint served is already quantized to `precision`, either a
    pre-quantized int4/int8/nf4 release the user names (_PREQUANTIZED) or the model's own checkpoint at its native
    dtype (an FP8 release); the engine reads its method from the checkpoint's quantization_config."""
    return precision in _PREQUANTIZED or _own_checkpoint(precision, model)


def _published_repo(p: Plan, model: ModelArch, cat: Catalog) -> str | None:
    """The published checkpoint the plan's engine serves at the plan's precision on the device's stack (the model's
    `published_checkpoints`, matched by estimate.precision.published_checkpoint); LMDeploy only an AWQ/GPTQ int4 one
    (_LMDEPLOY_METHODS). None: the catalog lists none, and MODEL is left for the user."""
    stack = lookup.stack(cat, next(a.stack for a in cat.accelerators if a.id == p.device))
    if p.engine != "lmdeploy":
        return published_checkpoint(model, stack, p.precision)
    repos = (published_checkpoint(model, stack, p.precision, q) for q in _LMDEPLOY_METHODS) if (
        p.precision == "int4") else iter(())
    return next((r for r in repos if r is not None), None)


def _quant_flag(precision: str, model: ModelArch) -> str | None:
    """The --quantization value for vLLM/SGLang: fp8 only, the one precision they quantize a bf16 checkpoint to on
    load (SGLang's server arguments, read 2026-12-01: '--quantization fp8 on a fp16 checkpoint or directly load a fp8
    checkpoint without specifying any arguments'). A pre-quantized checkpoint (`_prequantized`: an int4/int8/nf4
    release, or an FP8 checkpoint such as DeepSeek-V3/R1's own) gets no flag: vLLM reads the method from the
    checkpoint's config (docs.vllm.ai/en/stable/configuration/engine_args/, --quantization, read 2026-12-01: 'If
    None, we first check the quantization_config attribute in the model config file'), SGLang too, and a named
    method that is not the checkpoint's is refused (--quantization awq on Qwen's GPTQ-Int4 release)."""
    if _prequantized(precision, model):
        return None
    return "fp8" if precision == "fp8" else None


def _serve_run(p: Plan, model: ModelArch) -> tuple[str, str, bool]:
    """(setup, run, is_template) starting the plan's engine on SERVE_PORT with the replica's tp × pp cards, at most
    $MICRO_BATCH sequences at once (the batch the plan was judged at) of at most $CONTEXT_LEN tokens (the request's
    input + output, what the plan sized the KV cache for). Flags, each as its engine's docs spell it (read 2026-12-01):
    vLLM `vllm serve MODEL --tensor-parallel-size --pipeline-parallel-size --port --max-num-seqs --max-model-len
    --quantization` (docs.vllm.ai/en/stable/configuration/engine_args/); SGLang `python -m sglang.launch_server
    --model-path --tp-size --pp-size --host --port --max-running-requests --context-length --quantization`
    (docs.sglang.io/advanced_features/server_arguments.html); LMDeploy `lmdeploy serve api_server MODEL --tp
    --server-name --server-port --max-batch-size --session-len` (`lmdeploy serve api_server -h`, InternLM/lmdeploy
    docs/en/serving/api_server.md). LMDeploy gets no --model-format: it takes the format from the checkpoint's
    quantization_config and asserts a given one matches it (InternLM/lmdeploy:lmdeploy/turbomind/deploy/converter.py,
    'mismatched quant method'), so `awq` would refuse a GPTQ checkpoint."""
    engine = p.engine or "vllm"
    q = _quant_flag(p.precision, model)
    if engine == "vllm":
        run = (f"vllm serve $MODEL --tensor-parallel-size $TP --pipeline-parallel-size $PP --port {SERVE_PORT}"
               " --max-num-seqs $MICRO_BATCH --max-model-len $CONTEXT_LEN" + (f" --quantization {q}" if q else ""))
        return "pip install vllm", run, False
    if engine == "sglang":
        run = ("python -m sglang.launch_server --model-path $MODEL --tp-size $TP"
               + (" --pp-size $PP" if p.pp > 1 else "") + f" --host 0.0.0.0 --port {SERVE_PORT}"
               " --max-running-requests $MICRO_BATCH --context-length $CONTEXT_LEN"
               + (f" --quantization {q}" if q else ""))
        return 'pip install "sglang[all]"', run, False
    if engine == "lmdeploy" and p.pp == 1:
        run = (f"lmdeploy serve api_server $MODEL --tp $TP --server-name 0.0.0.0 --server-port {SERVE_PORT}"
               " --max-batch-size $MICRO_BATCH --session-len $CONTEXT_LEN")
        return "pip install lmdeploy", run, False
    return ("", f"# TEMPLATE: start {engine} here with $MODEL on $TP × $PP cards, OpenAI-compatible on port "
            f"{SERVE_PORT}, at most $MICRO_BATCH sequences of $CONTEXT_LEN tokens at once; suanli writes no launch "
            f"command for this engine\nexit 1", True)


def _train_run(p: Plan, task: str, cat: Catalog) -> tuple[str, bool]:
    """(run, is_template) launching the plan's framework on every node. LLaMA-Factory: `FORCE_TORCHRUN=1 NNODES
    NODE_RANK MASTER_ADDR MASTER_PORT llamafactory-cli train CONFIG.yaml` (hiyouga/LLaMA-Factory examples/README.md,
    read 2026-12-01); DeepSpeed: the `deepspeed` launcher with --num_nodes --num_gpus --node_rank --master_addr
    --no_ssh (deepspeed.ai/getting-started, 'Launching DeepSpeed Training', read 2026-12-01); torchtitan: `torchrun …
    -m torchtitan.train --job.config_file` (pytorch/torchtitan run_train.sh, read 2026-12-01); Megatron: `torchrun …
    pretrain_gpt.py --tensor-model-parallel-size --pipeline-model-parallel-size` (NVIDIA/Megatron-LM examples/
    pretrain_gpt_distributed_with_mp.sh, read 2026-12-01). The config, script and data are the user's: each command
    reads them from $CONFIG / $TRAIN_SCRIPT, which the YAML leaves empty (sky launch --env CONFIG=…)."""
    fw = p.framework
    if fw == "llama-factory":
        # LLaMA-Factory checkpoints activations unless told not to, and merges key=value words after the YAML over
        # it: a plan without recompute says so (`recompute_off`, frameworks.yaml)
        off = f" {setting}" if (setting := recompute_off(cat, fw, p.recompute)) else ""
        return (_HEAD + "FORCE_TORCHRUN=1 NNODES=$SKYPILOT_NUM_NODES NODE_RANK=$SKYPILOT_NODE_RANK "
                "MASTER_ADDR=$MASTER_ADDR MASTER_PORT=29500 llamafactory-cli train $CONFIG" + off), False
    if fw == "deepspeed":
        return (_HEAD + "deepspeed --num_nodes $SKYPILOT_NUM_NODES --num_gpus $SKYPILOT_NUM_GPUS_PER_NODE "
                "--node_rank $SKYPILOT_NODE_RANK --master_addr $MASTER_ADDR --master_port 29500 --no_ssh "
                "$TRAIN_SCRIPT --deepspeed $CONFIG"), False
    if fw == "torchtitan":
        return (_HEAD + _TORCHRUN + " -m torchtitan.train --job.config_file $CONFIG "
                "--parallelism.tensor_parallel_degree $TP --parallelism.pipeline_parallel_degree $PP"), False
    if fw == "megatron":
        vpp = (" --num-layers-per-virtual-pipeline-stage $((NUM_LAYERS / PP / VPP))" if p.vpp > 1 else "")
        rec = {"selective": " --recompute-activations", "full": " --recompute-granularity full "
               "--recompute-method uniform --recompute-num-layers 1"}.get(p.recompute or "none", "")
        return (_HEAD + _TORCHRUN + " pretrain_gpt.py --tensor-model-parallel-size $TP "
                "--pipeline-model-parallel-size $PP" + (" --expert-model-parallel-size $EP" if p.ep > 1 else "")
                + vpp + rec + " --micro-batch-size $MICRO_BATCH --global-batch-size $GLOBAL_BATCH --seq-length $SEQ"
                " --bf16 $CONFIG  # CONFIG: the model's --num-layers/--hidden-size/… and --data-path/--tokenizer-*"
                " arguments"), False
    return (f"# TEMPLATE: launch {fw} here ({task}) with the layout in envs (TP, PP, DP, ZERO_STAGE, …) on every node;"
            f" suanli writes no launch command for this framework\nexit 1"), True


def skypilot_yaml(p: Plan, result: PlanResult, cat: Catalog, model: ModelArch | None = None) -> str:
    """The plan as SkyPilot YAML. Training: one task of `num_nodes` nodes of `per_node` cards, nodes rounded up
    (20 cards at 8 per node: 3 nodes, the last partly idle, never 2 nodes = 16 cards), run by the plan's framework's
    launcher. Serving: a SkyServe service of `replicas` replicas (docs.skypilot.co/en/stable/serving/autoscaling.html:
    'service: replicas: 2'), each one instance with the replica's tp × pp cards, running the plan's engine on
    SERVE_PORT. `resources: cloud:` only where the plan's provider is a SkyPilot cloud (see `skypilot_notes`).
    `model`: the model planned (a config.json one included); None: the catalog preset named result.model_id."""
    name = skypilot_accelerator(cat, p.device)  # refuses a device SkyPilot cannot schedule
    per_node = next(a.max_cards_per_node for a in cat.accelerators if a.id == p.device)
    head = f"suanli-{result.model_id.split('/')[-1].lower()}-{result.request.task}"
    cloud = skypilot_cloud(_provider(p, cat))
    envs = _envs(p, result)
    if result.request.task == "inference" and p.replicas:
        replica_cards = p.gpus // p.replicas
        m = model if model is not None else lookup.model(cat, result.model_id)
        setup, run, template = _serve_run(p, m)
        # the catalog names no quantized checkpoint (the model's own is one only at its native dtype), and LMDeploy
        # quantizes none on load
        unknown_ckpt = not _own_checkpoint(p.precision, m) and (
            _prequantized(p.precision, m) or (p.precision == "fp8" and p.engine == "lmdeploy"))
        repo = _published_repo(p, m, cat) if unknown_ckpt else None
        unknown_ckpt = unknown_ckpt and repo is None
        if unknown_ckpt or repo is not None:  # the published checkpoint, or None: the user fills one in (--env)
            envs = {"MODEL": repo, "BASE_MODEL": result.model_id, **{k: v for k, v in envs.items() if k != "MODEL"}}
        task: dict[str, Any] = {
            "name": head,
            "service": {"readiness_probe": "/v1/models", "replicas": p.replicas},
            "resources": {**({"cloud": cloud} if cloud else {}), "accelerators": f"{name}:{replica_cards}",
                          "ports": SERVE_PORT},
            "envs": envs,
            **({"setup": setup} if setup else {}),
            "run": run + "\n",
        }
        text = _dump(task)
        notes = [f"# written by suanli plan --skypilot: a SkyServe service (sky serve up), "
                 f"{p.replicas} replica(s) × {replica_cards} card(s) = {p.gpus} cards; {p.reason}"]
        if repo is not None:
            notes.append(f"# MODEL is {repo}, the published {p.precision} checkpoint of {result.model_id} (suanli's "
                         f"catalog, published_checkpoints), whose quantization_config the engine reads the method from")
        if unknown_ckpt or template:
            kinds = _CHECKPOINT_KINDS.get(p.precision, p.precision.upper())
            why = (f"MODEL must be filled in with a pre-quantized {p.precision} checkpoint id of {result.model_id} "
                   f"({kinds}; sky serve up --env MODEL=…), whose quantization_config the engine reads the method "
                   f"from: suanli's catalog knows none, and the bf16 checkpoint cannot be served at {p.precision}"
                   if unknown_ckpt else f"run: is a template for {p.engine}")
            notes.append(f"# {why}; the readiness probe stays commented out until then (SkyServe requires one)")
            text = text.replace("  readiness_probe: /v1/models\n", "  # readiness_probe: /v1/models\n")
        return "\n".join(notes) + "\n" + text
    nodes = max(1, math.ceil(p.gpus / per_node))
    per_node_gpus = min(p.gpus, per_node)
    run, template = _train_run(p, result.request.task, cat)
    needs = [k for k in ("CONFIG", "TRAIN_SCRIPT") if f"${k}" in run]
    task = {
        "name": head,
        "resources": {**({"cloud": cloud} if cloud else {}), "accelerators": f"{name}:{per_node_gpus}"},
        "num_nodes": nodes,
        "envs": {**envs, **{k: None for k in needs}},
        "run": run + "\n",
    }
    note = (f"; {nodes} node(s) × {per_node_gpus} = {nodes * per_node_gpus} cards for a {p.gpus}-card plan"
            if nodes * per_node_gpus != p.gpus else "")
    lines = [f"# written by suanli plan --skypilot{note}; {p.reason}"]
    if needs:
        lines.append(f"# {', '.join(needs)} must be filled in (sky launch --env {needs[0]}=…): the {p.framework} "
                     "config/script with the model, data and the layout in envs")
    if template:
        lines.append(f"# run: is a TEMPLATE: suanli writes no launch command for {p.framework}")
    return "\n".join(lines) + "\n" + _dump(task)
