"""`suanli bench fleet` on a local Ray instance (CPU-only: one task on the one node)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the fleet needs the ray extra")
pytest.importorskip("torch", reason="the benchmark needs the torch extra")

pytestmark = pytest.mark.ray


def test_fleet_runs_on_a_local_ray_instance(tmp_path: Path) -> None:
    from suanli.bench.fleet import run_fleet
    from suanli.bench.results import ResultStore
    from suanli.bench.run import BenchSpec

    spec = BenchSpec(model="tiny-llama", input_tokens=16, output_tokens=4, warmup=0, repeats=1, micro=False)
    store = ResultStore(tmp_path)
    report = run_fleet(spec, address=None, store=store)
    assert report.errors == []
    assert report.nodes == 1 and [t.kind for t in report.tasks] == ["CPU"]
    (r,) = report.results
    assert r.throughput is not None and r.throughput.decode_tokens_per_s > 0
    assert r.accuracy is not None and r.accuracy.passed, r.accuracy
    assert [x.id for x in store.results()] == [r.id]


def test_plan_tasks_one_per_accelerator() -> None:
    from suanli.bench.fleet import plan_tasks

    nodes = [
        {
            "NodeID": "a",
            "Alive": True,
            "NodeManagerAddress": "10.0.0.1",
            "Resources": {"CPU": 64, "GPU": 2, "accelerator_type:H100": 1},
        },
        {
            "NodeID": "b",
            "Alive": True,
            "NodeManagerAddress": "10.0.0.2",
            "Resources": {"CPU": 192, "NPU": 8, "accelerator_type:Ascend910B": 1},
        },
        {"NodeID": "c", "Alive": True, "NodeManagerAddress": "10.0.0.3", "Resources": {"CPU": 8}},
        {"NodeID": "d", "Alive": False, "NodeManagerAddress": "10.0.0.4", "Resources": {"GPU": 8}},
    ]
    tasks = plan_tasks(nodes)
    assert [(t.node_id, t.kind, t.slot) for t in tasks] == [("a", "GPU", 0), ("a", "GPU", 1)] + [
        ("b", "NPU", i) for i in range(8)
    ]
    assert {t.accelerator_type for t in tasks} == {"H100", "Ascend910B"}
    assert {t.device for t in tasks} == {"cuda", "npu"}
    assert [t.node_id for t in plan_tasks(nodes, cpu_nodes=True) if t.kind == "CPU"] == ["c"]
    assert [t.kind for t in plan_tasks(nodes[2:])] == ["CPU"]  # no accelerators: CPU nodes run


def test_ray_client_address_without_grpc_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from suanli.bench.fleet import run_fleet
    from suanli.bench.run import BenchSpec
    from suanli.errors import InputError

    monkeypatch.setitem(sys.modules, "grpc", None)
    with pytest.raises(InputError, match=r"^address: ray:// needs the Ray client: pip install 'ray\[client\]'$"):
        run_fleet(BenchSpec(), address="ray://127.0.0.1:10001")
