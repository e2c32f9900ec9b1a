"""Export a chosen plan as a SkyPilot YAML: a training (or batch) plan as a task (`resources: accelerators: H100:8`,
`num_nodes`), a serving plan as a SkyServe service (`service: replicas`, each replica one tp-sized instance)."""

from __future__ import annotations

import math
from typing import Any

import yaml

from suanli.catalog.schema import Catalog
from suanli.errors import InputError
from suanli.i18n import Message
from suanli.plan.search import Plan, PlanResult

__all__ = ["SERVE_PORT", "SKYPILOT_NAMES", "skypilot_accelerator", "skypilot_yaml"]

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
# read 2026-12-01): vLLM's OpenAI-compatible server listens on 8000 and answers /v1/models once the model is loaded
SERVE_PORT = 8000


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
        **({"SEQ": result.request.seq, "GLOBAL_BATCH": result.request.global_batch}
           if result.request.task != "inference" else {}),
        **({"LORA_RANK": result.request.lora_rank} if result.request.task in ("lora", "qlora") else {}),
    }


def skypilot_yaml(p: Plan, result: PlanResult, cat: Catalog) -> str:
    """The plan as SkyPilot YAML. Training: one task of `num_nodes` nodes of `per_node` cards, nodes rounded up
    (20 cards at 8 per node: 3 nodes, the last partly idle, never 2 nodes = 16 cards). Serving: a SkyServe service
    of `replicas` replicas (docs.skypilot.co/en/stable/serving/autoscaling.html: 'service: replicas: 2'), each one
    instance with the replica's tp × pp cards."""
    name = skypilot_accelerator(cat, p.device)  # refuses a device SkyPilot cannot schedule
    per_node = next(a.max_cards_per_node for a in cat.accelerators if a.id == p.device)
    head = f"suanli-{result.model_id.split('/')[-1].lower()}-{result.request.task}"
    if result.request.task == "inference" and p.replicas:
        replica_cards = p.gpus // p.replicas
        task: dict[str, Any] = {
            "name": head,
            "service": {"readiness_probe": "/v1/models", "replicas": p.replicas},
            "resources": {"accelerators": f"{name}:{replica_cards}", "ports": SERVE_PORT},
            "envs": _envs(p, result),
            "run": f"echo 'suanli plan: {p.reason}'",
        }
        return ("# written by suanli plan --skypilot: a SkyServe service (sky serve up), "
                f"{p.replicas} replica(s) × {replica_cards} card(s) = {p.gpus} cards\n"
                + yaml.safe_dump(task, sort_keys=False, allow_unicode=True))
    nodes = max(1, math.ceil(p.gpus / per_node))
    per_node_gpus = min(p.gpus, per_node)
    task = {
        "name": head,
        "resources": {"accelerators": f"{name}:{per_node_gpus}"},
        "num_nodes": nodes,
        "envs": _envs(p, result),
        "run": f"echo 'suanli plan: {p.reason}'",
    }
    note = (f"; {nodes} node(s) × {per_node_gpus} = {nodes * per_node_gpus} cards for a {p.gpus}-card plan"
            if nodes * per_node_gpus != p.gpus else "")
    return f"# written by suanli plan --skypilot{note}\n" + yaml.safe_dump(task, sort_keys=False, allow_unicode=True)
