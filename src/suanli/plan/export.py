"""Export a chosen plan as a SkyPilot task YAML (`resources: accelerators: H100:8`)."""

from __future__ import annotations

import yaml

from suanli.catalog.schema import Catalog
from suanli.plan.search import Plan, PlanResult

__all__ = ["SKYPILOT_NAMES", "skypilot_yaml"]

# SkyPilot accelerator names (sky/catalog: 'H100', 'A100-80GB', 'L40S', …); devices SkyPilot's clouds do
# not offer are exported under their catalog id, which the user maps to a Kubernetes label.
SKYPILOT_NAMES = {
    "h100-sxm": "H100", "h100-pcie": "H100", "h200": "H200", "b200": "B200", "a100-80g": "A100-80GB",
    "a100-80g-pcie": "A100-80GB", "a100-40g": "A100", "l40s": "L40S", "a10": "A10", "rtx-4090": "RTX4090",
    "rtx-3090": "RTX3090", "h20": "H20", "l20": "L20", "rtx-5090": "RTX5090",
}


def skypilot_yaml(p: Plan, result: PlanResult, cat: Catalog) -> str:
    nodes = 1
    per_node = next(a.max_cards_per_node for a in cat.accelerators if a.id == p.device)
    if p.gpus > per_node:
        nodes, per_node_gpus = p.gpus // per_node, per_node
    else:
        per_node_gpus = p.gpus
    task = {
        "name": f"suanli-{result.model_id.split('/')[-1].lower()}-{result.request.task}",
        "resources": {"accelerators": f"{SKYPILOT_NAMES.get(p.device, p.device)}:{per_node_gpus}"},
        "num_nodes": nodes,
        # the whole layout the plan was estimated with: a launcher that drops one (recomputation above all) may
        # not fit in memory or run at the planned speed
        "envs": {
            "MODEL": result.model_id, "TASK": result.request.task, "FRAMEWORK": p.framework,
            **({"ENGINE": p.engine} if p.engine else {}), "PRECISION": p.precision,
            "TP": p.tp, "PP": p.pp, "VPP": p.vpp, "EP": p.ep, "DP": p.dp,
            "ZERO_STAGE": p.zero if p.zero is not None else 0, "RECOMPUTE": p.recompute or "none",
            "MICRO_BATCH": p.micro_batch, "GRAD_ACCUM": p.grad_accum or 1,
            **({"SEQ": result.request.seq, "GLOBAL_BATCH": result.request.global_batch}
               if result.request.task != "inference" else {}),
            **({"LORA_RANK": result.request.lora_rank} if result.request.task in ("lora", "qlora") else {}),
        },
        "run": f"echo 'suanli plan: {p.reason}'",
    }
    return "# written by suanli plan --skypilot\n" + yaml.safe_dump(task, sort_keys=False, allow_unicode=True)
