"""SkyPilot export (buyer review 2026-12-01 item 5): nodes rounded up, serving exported as a SkyServe service of
replicas with the replica's tp-sized accelerator, devices SkyPilot cannot schedule refused by name."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.errors import InputError
from suanli.plan.export import skypilot_accelerator, skypilot_yaml
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 1)


@pytest.fixture(scope="module")
def serving(cat: Catalog):  # type: ignore[no-untyped-def]
    req = make_request(model="qwen2.5-72b", task="inference", requests_per_s=3, input=1024, output=512,
                       tpot_s=0.033, devices=("rtx-4090",), precision="any")  # int4 only when asked
    return plan(cat, lookup.model(cat, "qwen2.5-72b"), req, TODAY)


def test_serving_plan_exports_replicas_of_tp_cards(cat: Catalog, serving) -> None:  # type: ignore[no-untyped-def]
    p = serving.plans[0]
    assert p.replicas and p.replicas > 1 and p.gpus == p.replicas * p.tp * p.pp  # the buyer's 20 cards: 5 × tp4
    task = yaml.safe_load(skypilot_yaml(p, serving, cat))
    assert task["service"]["replicas"] == p.replicas
    # the probe is live unless MODEL waits for an AWQ/GPTQ checkpoint id (test_int4_without_a_known_checkpoint_…)
    assert ("readiness_probe" in task["service"]) == (task["envs"]["MODEL"] is not None)
    assert task["resources"]["accelerators"] == f"RTX4090:{p.tp * p.pp}"
    assert "num_nodes" not in task  # each replica is its own instance, not a node of one job


def test_training_nodes_round_up(cat: Catalog, serving) -> None:  # type: ignore[no-untyped-def]
    """20 cards at 8 per node are 3 nodes (the last partly idle), never 2 × 8 = 16 (integer division)."""
    p = serving.plans[0].model_copy(update={"replicas": None, "gpus": 20})
    res = serving.model_copy(update={"request": serving.request.model_copy(update={"task": "full"})})
    text = skypilot_yaml(p, res, cat)
    task = yaml.safe_load(text)
    assert task["num_nodes"] == 3 and task["resources"]["accelerators"] == "RTX4090:8"
    assert "24 cards for a 20-card plan" in text
    small = yaml.safe_load(skypilot_yaml(p.model_copy(update={"gpus": 4}), res, cat))
    assert small["num_nodes"] == 1 and small["resources"]["accelerators"] == "RTX4090:4"


@pytest.mark.parametrize("device", ["ascend-910b", "mtt-s4000", "hygon-k100"])
def test_device_without_skypilot_name_is_refused(cat: Catalog, device: str) -> None:
    with pytest.raises(InputError, match="no SkyPilot accelerator name"):
        skypilot_accelerator(cat, device)


def test_nvidia_names(cat: Catalog) -> None:
    assert skypilot_accelerator(cat, "h100-sxm") == "H100"
    assert skypilot_accelerator(cat, "a800") == "a800"  # not in SkyPilot's clouds: the id, mapped to a k8s label


# --- buyer review 2026-12-01 (afternoon): the serving export must come up; training runs the framework's launcher


def test_serving_run_starts_vllm_on_the_probed_port(cat: Catalog, serving) -> None:  # type: ignore[no-untyped-def]
    p = serving.plans[0].model_copy(update={"engine": "vllm", "precision": "bf16"})
    text = skypilot_yaml(p, serving, cat)
    task = yaml.safe_load(text)
    assert task["run"].startswith("vllm serve $MODEL --tensor-parallel-size $TP")
    assert "--port 8000" in task["run"] and task["resources"]["ports"] == 8000
    assert "echo" not in task["run"] and "--quantization" not in task["run"]
    assert task["service"]["readiness_probe"] == "/v1/models" and task["envs"]["MODEL"] == serving.model_id
    fp8 = yaml.safe_load(skypilot_yaml(p.model_copy(update={"precision": "fp8"}), serving, cat))
    assert "--quantization fp8" in fp8["run"] and fp8["service"]["readiness_probe"]  # fp8 quantized on load


def test_int4_without_a_known_checkpoint_leaves_model_empty_and_probe_commented(  # type: ignore[no-untyped-def]
        cat: Catalog, serving) -> None:
    """The bf16 preset is never served as int4: where the catalog lists no int4 upload, MODEL is left for an AWQ/GPTQ
    id, and without a probe SkyServe refuses the YAML rather than bringing up replicas that never answer."""
    p = serving.plans[0].model_copy(update={"engine": "vllm", "precision": "int4"})
    m = lookup.model(cat, "qwen2.5-72b")
    unlisted = m.model_copy(update={"published_checkpoints": tuple(
        c for c in m.published_checkpoints or () if c.value.precision != "int4")})
    text = skypilot_yaml(p, serving, cat, unlisted)
    task = yaml.safe_load(text)
    assert task["envs"]["MODEL"] is None and task["envs"]["BASE_MODEL"] == serving.model_id
    assert "readiness_probe" not in task["service"] and "# readiness_probe: /v1/models" in text
    # the engine reads AWQ or GPTQ from the checkpoint's quantization_config: no --quantization (test_export_runs_…)
    assert "pre-quantized int4 checkpoint id" in text and "--quantization" not in task["run"]


# --- task B (2026-12-02): a quantized plan exports the checkpoint the catalog lists as published (one matching rule:
# estimate.precision.published_checkpoint, the one the unpublished-checkpoint warning uses)


def test_int4_with_a_published_checkpoint_fills_model_and_keeps_the_probe(cat: Catalog, serving) -> None:  # type: ignore[no-untyped-def]
    """Qwen publishes Qwen2.5-72B-Instruct-GPTQ-Int4 (the catalog's first int4 upload of it): MODEL names it, the
    probe is live, no --quantization (the engine reads GPTQ from the checkpoint), BASE_MODEL says what was planned."""
    p = serving.plans[0].model_copy(update={"engine": "vllm", "precision": "int4"})
    text = skypilot_yaml(p, serving, cat)
    task = yaml.safe_load(text)
    assert task["envs"]["MODEL"] == "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4"
    assert task["envs"]["BASE_MODEL"] == serving.model_id and task["service"]["readiness_probe"] == "/v1/models"
    assert "must be filled in" not in text and "--quantization" not in task["run"]
    assert "# MODEL is Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4, the published int4 checkpoint" in text


def test_16bit_plan_serves_the_preset_id(cat: Catalog, serving) -> None:  # type: ignore[no-untyped-def]
    """bf16 is the preset's own checkpoint: MODEL is the planned id, never a published upload of another name."""
    p = serving.plans[0].model_copy(update={"engine": "vllm", "precision": "bf16"})
    task = yaml.safe_load(skypilot_yaml(p, serving, cat))
    assert task["envs"]["MODEL"] == serving.model_id and "BASE_MODEL" not in task["envs"]


@pytest.mark.parametrize(("engine", "precision", "repo"), [
    ("vllm", "int4", "neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w4a16"),
    ("sglang", "int8", "neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w8a8"),
    # LMDeploy's TurboMind loads AWQ/GPTQ only: Llama-3.1-8B's int4 upload is compressed-tensors
    ("lmdeploy", "int4", None),
    ("lmdeploy", "fp8", None),
])
def test_published_checkpoint_per_engine(cat: Catalog, serving, engine: str, precision: str,  # type: ignore[no-untyped-def]
                                        repo: str | None) -> None:
    m = lookup.model(cat, "llama-3.1-8b")  # the checkpoint comes from the model given, on the plan's device (CUDA)
    p = serving.plans[0].model_copy(update={"engine": engine, "precision": precision, "pp": 1})
    text = skypilot_yaml(p, serving, cat, m)
    task = yaml.safe_load(text)
    assert task["envs"]["MODEL"] == repo
    assert ("readiness_probe" in task["service"]) == (repo is not None)


@pytest.mark.parametrize(("engine", "start"), [
    ("sglang", "python -m sglang.launch_server --model-path $MODEL --tp-size $TP"),
    ("lmdeploy", "lmdeploy serve api_server $MODEL --tp $TP"),
])
def test_other_engines_start_their_server(cat: Catalog, serving, engine: str, start: str) -> None:  # type: ignore[no-untyped-def]
    p = serving.plans[0].model_copy(update={"engine": engine, "precision": "bf16", "pp": 1})
    task = yaml.safe_load(skypilot_yaml(p, serving, cat))
    assert task["run"].startswith(start) and "8000" in task["run"] and task["service"]["readiness_probe"]


def test_unknown_engine_is_a_marked_template(cat: Catalog, serving) -> None:  # type: ignore[no-untyped-def]
    p = serving.plans[0].model_copy(update={"engine": "trt-llm", "precision": "bf16"})
    text = skypilot_yaml(p, serving, cat)
    assert "TEMPLATE" in yaml.safe_load(text)["run"] and "# readiness_probe" in text


@pytest.mark.parametrize(("framework", "start"), [
    ("llama-factory", "llamafactory-cli train $CONFIG"),
    ("deepspeed", "deepspeed --num_nodes $SKYPILOT_NUM_NODES"),
    ("torchtitan", "-m torchtitan.train --job.config_file $CONFIG"),
    ("megatron", "pretrain_gpt.py --tensor-model-parallel-size $TP --pipeline-model-parallel-size $PP"),
])
def test_training_runs_the_framework_launcher(cat: Catalog, serving, framework: str, start: str) -> None:  # type: ignore[no-untyped-def]
    p = serving.plans[0].model_copy(update={"replicas": None, "gpus": 16, "framework": framework})
    res = serving.model_copy(update={"request": serving.request.model_copy(update={"task": "full"})})
    text = skypilot_yaml(p, res, cat)
    task = yaml.safe_load(text)
    assert start in task["run"] and "SKYPILOT_NODE_IPS" in task["run"] and task["envs"]["CONFIG"] is None
    assert "must be filled in (sky launch --env" in text and "TEMPLATE" not in text
    other = skypilot_yaml(p.model_copy(update={"framework": "nemo"}), res, cat)
    assert "TEMPLATE" in other and "exit 1" in yaml.safe_load(other)["run"]


def test_cloud_only_for_a_skypilot_provider(cat: Catalog, serving) -> None:  # type: ignore[no-untyped-def]
    from suanli.plan.export import skypilot_cloud, skypilot_notes

    assert skypilot_cloud("AWS") == "aws" and skypilot_cloud("RunPod (Community Cloud)") == "runpod"
    assert skypilot_cloud("AutoDL") is None and skypilot_cloud("云擎天下 (omniyq.com)") is None
    p = serving.plans[0]
    provider = next(o.provider for o in cat.offers if o.id == p.offer)
    task = yaml.safe_load(skypilot_yaml(p, serving, cat))
    notes = skypilot_notes(p, cat)
    if skypilot_cloud(provider):
        assert task["resources"]["cloud"] == skypilot_cloud(provider) and notes == []
    else:
        assert "cloud" not in task["resources"] and notes and notes[0].params["provider"] == provider
    aws = next(o for o in cat.offers if o.provider == "AWS")
    assert skypilot_notes(p.model_copy(update={"offer": aws.id}), cat) == []


def test_training_export_carries_the_optimizer_measure(cat: Catalog) -> None:
    """A plan that fits only with ZeRO-Offload exports it: a launcher without it would run out of memory."""
    req = make_request(model="llama-3.1-70b", task="full", tokens=1e9, devices=("h800",))
    res = plan(cat, lookup.model(cat, "llama-3.1-70b"), req, TODAY)
    p = res.plans[0]
    assert p.offload_optimizer
    envs = yaml.safe_load(skypilot_yaml(p, res, cat))["envs"]
    assert envs["OFFLOAD_OPTIMIZER"] is True and envs["OPTIMIZER"] == p.optimizer


# --- task E (2026-12-01): an FP8 checkpoint is pre-quantized like an AWQ/GPTQ one: no --quantization fp8


@pytest.mark.parametrize("model_id", ["deepseek-v3", "deepseek-r1"])
@pytest.mark.parametrize("engine", ["vllm", "sglang", "lmdeploy"])
def test_native_fp8_checkpoint_gets_no_quantization_flag(cat: Catalog, model_id: str, engine: str) -> None:
    """DeepSeek-V3/R1 publish FP8 weights (config.json quantization_config.quant_method fp8): the engine reads the
    method from the checkpoint, so the export at fp8 names no --quantization and serves the model's own id."""
    m = lookup.model(cat, model_id)
    assert m.native_dtype == "fp8"
    req = make_request(model=model_id, task="inference", requests_per_s=1, input=1024, output=512,
                       devices=("h200",))
    res = plan(cat, m, req, TODAY)
    p = res.plans[0].model_copy(update={"engine": engine, "pp": 1})
    assert p.precision == "fp8"  # the checkpoint's own precision, the default on a device that runs FP8
    for text in (skypilot_yaml(p, res, cat, m), skypilot_yaml(p, res, cat)):  # model given, or looked up by id
        task = yaml.safe_load(text)
        assert "--quantization" not in task["run"]
        assert task["envs"]["MODEL"] == res.model_id and task["service"]["readiness_probe"] == "/v1/models"
        assert "pre-quantized" not in text


def test_fp8_flag_only_for_a_16bit_checkpoint(cat: Catalog, serving) -> None:  # type: ignore[no-untyped-def]
    """One rule: a bf16 checkpoint is quantized to fp8 on load (the flag); the same model said to be published in
    FP8 (a config.json with quantization_config fp8) is not; int4 serves the catalog's published int4 upload."""
    m = lookup.model(cat, "qwen2.5-72b")
    p = serving.plans[0].model_copy(update={"engine": "vllm", "precision": "fp8"})
    assert "--quantization fp8" in yaml.safe_load(skypilot_yaml(p, serving, cat, m))["run"]
    fp8_ckpt = m.model_copy(update={"native_dtype": "fp8"})
    assert "--quantization" not in yaml.safe_load(skypilot_yaml(p, serving, cat, fp8_ckpt))["run"]
    int4 = yaml.safe_load(skypilot_yaml(p.model_copy(update={"precision": "int4"}), serving, cat, fp8_ckpt))
    assert "--quantization" not in int4["run"] and int4["envs"]["MODEL"] == "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4"


@pytest.mark.parametrize("name", ["qwen2.5-0.5b", "qwen2.5-7b"])
def test_cuda_int8_export_takes_the_gptq_upload_the_estimate_models(name: str) -> None:
    """CUDA's int8 is W8A16 GPTQ-Int8 (stacks.yaml int8_scheme): the export's first match must be that upload, not
    the W8A8 compressed-tensors one listed beside it (which runs int8 matmuls the estimate does not model)."""
    from suanli.catalog.load import packaged_catalog
    from suanli.catalog.lookup import model
    from suanli.estimate.precision import published_checkpoint

    cat = packaged_catalog()
    cuda = next(s for s in cat.stacks if s.id == "cuda")
    repo = published_checkpoint(model(cat, name), cuda, "int8")
    assert repo is not None and repo.endswith("-GPTQ-Int8")
