"""Run the benchmark on every accelerator of a Ray cluster and gather the results.

One Ray task per accelerator: a node offering `GPU: 4` gets four tasks asking for `num_gpus=1`, a node
offering `NPU: 8` gets eight asking for `resources={"NPU": 1}` (Ray sets CUDA_VISIBLE_DEVICES or
ASCEND_RT_VISIBLE_DEVICES for each, so the task sees its card as index 0). Each task is pinned to its node
(NodeAffinitySchedulingStrategy, hard) and, where the node advertises one, asks for its
`accelerator_type`. Nodes without accelerators get one CPU task when the cluster has no accelerators at all
(or when asked). With no address a local Ray instance is started and stopped afterwards.

Workers must have suanli with the torch extra installed (for a remote cluster: in its image, or through a
Ray runtime_env). Dispatch, placement and retries are Ray's; nothing here schedules work itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from suanli.bench import RAY_HINT
from suanli.bench.models import model_key
from suanli.bench.results import BenchResult, ReferenceRun, ResultStore
from suanli.bench.run import BenchSpec
from suanli.errors import InputError
from suanli.i18n import Message

__all__ = ["FleetReport", "FleetTask", "plan_tasks", "require_ray", "run_fleet"]

ACCEL_PREFIX = "accelerator_type:"


def require_ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise InputError("ray", RAY_HINT, Message("err.bench_install_extra", extra="ray")) from e
    return ray


class FleetTask(BaseModel):
    node_id: str
    node_address: str
    kind: Literal["GPU", "NPU", "CPU"]
    slot: int = Field(description="0 .. count-1 among this node's accelerators of this kind")
    accelerator_type: str | None = None

    @property
    def device(self) -> str:
        return {"GPU": "cuda", "NPU": "npu", "CPU": "cpu"}[self.kind]


class FleetReport(BaseModel):
    address: str
    ray_version: str
    nodes: int
    tasks: list[FleetTask]
    results: list[BenchResult]
    errors: list[str] = Field(default_factory=list, description="one line per task that failed: node, device, error")


def plan_tasks(nodes: Sequence[Mapping[str, Any]], cpu_nodes: bool | None = None) -> list[FleetTask]:
    """Tasks for the alive nodes of `ray.nodes()`: one per GPU/NPU; CPU-only nodes per `cpu_nodes`.

    `cpu_nodes=None` (auto) benchmarks CPU-only nodes only when no node has an accelerator.
    """
    tasks: list[FleetTask] = []
    cpu_only: list[FleetTask] = []
    for n in nodes:
        if not (n.get("Alive") or n.get("alive")):
            continue
        res: Mapping[str, float] = n.get("Resources", {})
        acc_types = [k[len(ACCEL_PREFIX) :] for k in res if k.startswith(ACCEL_PREFIX)]
        acc_type = acc_types[0] if acc_types else None
        base = {"node_id": str(n["NodeID"]), "node_address": str(n.get("NodeManagerAddress", "?"))}
        found = False
        for kind in ("GPU", "NPU"):
            count = int(res.get(kind, 0))
            found = found or count > 0
            tasks.extend(FleetTask(**base, kind=kind, slot=i, accelerator_type=acc_type) for i in range(count))
        if not found:
            cpu_only.append(FleetTask(**base, kind="CPU", slot=0))
    if cpu_nodes or (cpu_nodes is None and not tasks):
        tasks.extend(cpu_only)
    return tasks


def _bench_task(spec_json: str, device: str, ref_json: str | None) -> str:
    """Runs inside a Ray worker: one benchmark on the task's device; returns the result as JSON."""
    from suanli.bench.results import ReferenceRun
    from suanli.bench.run import BenchSpec, run_benchmark

    spec = BenchSpec.model_validate_json(spec_json).model_copy(update={"device": device})
    ref = ReferenceRun.model_validate_json(ref_json) if ref_json else None
    return run_benchmark(spec, reference=ref).model_dump_json()


def run_fleet(
    spec: BenchSpec,
    address: str | None = None,
    store: ResultStore | None = None,
    cpu_nodes: bool | None = None,
    ray_init_kwargs: Mapping[str, Any] | None = None,
) -> FleetReport:
    """Benchmark every accelerator of the Ray cluster at `address` (None: start a local instance)."""
    ray = require_ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    if address and address.startswith("ray://"):
        try:
            import grpc  # noqa: F401  (the Ray client speaks gRPC)
        except ImportError:
            raise InputError("address", Message("err.ray_needs_the_ray_client_pip")) from None
    started = False
    if not ray.is_initialized():
        kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address is None:
            kw["object_store_memory"] = 128 * 2**20  # a small local instance; results are a few kB
        kw.update(ray_init_kwargs or {})
        ray.init(address=address, **kw)
        started = True
    try:
        nodes = ray.nodes()
        tasks = plan_tasks(nodes, cpu_nodes)
        if not tasks:
            raise InputError("address", Message("err.the_ray_cluster_at_has_no", v=address or 'local'))
        ref = store.reference(model_key(spec.model)) if (store is not None and spec.accuracy) else None
        ref_json = ref.model_dump_json() if isinstance(ref, ReferenceRun) else None
        spec_json = spec.model_dump_json()
        remote = ray.remote(_bench_task)
        futures = []
        for t in tasks:
            opts: dict[str, Any] = {
                "scheduling_strategy": NodeAffinitySchedulingStrategy(node_id=t.node_id, soft=False),
                "max_retries": 0,
                "num_cpus": 1,
            }
            if t.kind == "GPU":
                opts["num_gpus"] = 1
            elif t.kind == "NPU":
                opts["resources"] = {"NPU": 1}
            if t.accelerator_type and t.kind != "CPU":
                opts["accelerator_type"] = t.accelerator_type
            futures.append(remote.options(**opts).remote(spec_json, t.device, ref_json))
        results: list[BenchResult] = []
        errors: list[str] = []
        for t, f in zip(tasks, futures, strict=True):
            try:
                r = BenchResult.model_validate_json(ray.get(f))
            except ray.exceptions.RayError as e:  # a failed task is reported, the others still count
                last = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
                errors.append(f"{t.node_address} {t.kind}#{t.slot}: {last}")
                continue
            if store is not None:
                store.save(r)
            results.append(r)
        return FleetReport(
            address=address or "local",
            ray_version=str(ray.__version__),
            nodes=sum(1 for n in nodes if n.get("Alive") or n.get("alive")),
            tasks=tasks,
            results=results,
            errors=errors,
        )
    finally:
        if started:
            ray.shutdown()
