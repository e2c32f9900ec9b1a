"""What the user wants to run: a typed, validated workload (the flags of `suanli estimate`)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from suanli.catalog.ranks import cards_splitting, dies_wording, ranks_in, whole_cards
from suanli.catalog.schema import MAX_INTER_NODE_GBIT_PER_S, MIN_INTER_NODE_GBIT_PER_S, inter_node_gbit_refusal
from suanli.errors import InputError, Invalid, echoed, unknown_name, validation_message
from suanli.i18n import Message

__all__ = [
    "ENGINES",
    "OPTIMIZERS",
    "PRECISIONS",
    "QUANT_METHODS",
    "RECOMPUTE",
    "TASKS",
    "Workload",
    "engine_release",
    "make_workload",
    "validated",
]

Task = Literal["inference", "lora", "qlora", "full", "pretrain"]
Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4"]
Recompute = Literal["none", "selective", "full"]
Optimizer = Literal["adamw", "adamw8bit", "sgd", "adafactor"]
Engine = Literal["hf", "vllm", "sglang", "lmdeploy", "trt-llm", "llama.cpp", "vllm-ascend", "mindie"]
QuantMethod = Literal["awq", "gptq"]
GptqKernel = Literal["exllama", "exllamav2", "cuda-old"]
Method = Literal["default", "seed"]

TASKS: tuple[str, ...] = ("inference", "lora", "qlora", "full", "pretrain")
PRECISIONS: tuple[str, ...] = ("fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4")
RECOMPUTE: tuple[str, ...] = ("none", "selective", "full")
OPTIMIZERS: tuple[str, ...] = ("adamw", "adamw8bit", "sgd", "adafactor")
ENGINES: tuple[str, ...] = ("hf", "vllm", "sglang", "lmdeploy", "trt-llm", "llama.cpp", "vllm-ascend", "mindie")
METHODS: tuple[str, ...] = ("default", "seed")
QUANT_METHODS: tuple[str, ...] = ("awq", "gptq")
# the weight precisions a checkpoint of each quant_method stores (vLLM AWQConfig: 'only 4-bit weight quantization is
# supported for AWQ'; GPTQ checkpoints of 4 and 8 bits, e.g. Qwen's GPTQ-Int4 / GPTQ-Int8 releases)
QUANT_METHOD_PRECISIONS: dict[str, tuple[str, ...]] = {"awq": ("int4",), "gptq": ("int4", "int8")}
# AutoGPTQ's 4-bit GPTQ kernels as transformers (optimum) loads them: GPTQConfig(use_exllama, exllama_config version),
# or neither (AutoGPTQ's older CUDA kernel, qlinear_cuda_old); speed.QUANT_KERNEL_RULES says how each runs a pass
GPTQ_KERNELS: tuple[str, ...] = ("exllama", "exllamav2", "cuda-old")

_ALLOWED = {
    "task": TASKS,
    "precision": PRECISIONS,
    "kv_dtype": PRECISIONS,
    "recompute": RECOMPUTE,
    "optimizer": OPTIMIZERS,
    "engine": ENGINES,
    "method": METHODS,
    "quant_method": QUANT_METHODS,
    "gptq_kernel": GPTQ_KERNELS,
}


class Workload(BaseModel):
    """One job. Training: `batch` is the micro-batch per device and `seq` the sequence length.
    Inference: `batch` is concurrent sequences, `input`/`output` tokens per sequence.
    Diffusion: `batch` is images per prompt (num_images_per_prompt); `resolution`, `steps`, `cfg`."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    task: Task = "inference"
    gpus: int = Field(1, ge=1, le=65536)
    precision: Precision = "bf16"
    batch: int = Field(1, ge=1, le=65536)
    seq: int = Field(2048, ge=1, le=10_000_000)
    input: int = Field(512, ge=1, le=10_000_000)
    output: int = Field(256, ge=1, le=10_000_000)
    tp: int = Field(1, ge=1, le=512)
    pp: int = Field(1, ge=1, le=512)
    vpp: int = Field(1, ge=1, le=128, description="virtual pipeline stages per device (interleaved 1F1B schedule, "
                     "Narayanan et al. 2021 §2.2.2); 1 = plain 1F1B")
    cp: int = Field(1, ge=1, le=512, description="context-parallel size: each sequence split over cp ranks (Megatron-Core "
                    "context parallelism, ring attention)")
    ep: int = Field(1, ge=1, le=512)
    tp_comm_overlap: bool = Field(False, description="training: the tensor-parallel all-gathers / reduce-scatters (sequence "
                                  "parallel) are split into chunks and pipelined with the GEMMs that need them (Megatron-"
                                  "Core / Transformer Engine tp_comm_overlap, MindSpeed CoC / MC2); only what the GEMMs "
                                  "cannot hide is exposed")
    zero: int = Field(0, ge=0, le=3)
    framework: str | None = Field(None, description="training: the framework the layout runs under (frameworks.yaml "
                                  "id); None: no framework's rule applied (`suanli estimate` assumes the one the planner picks for the "
                                  "layout: estimate.assumed_framework)")
    recompute: Recompute = "none"
    optimizer: Optimizer = "adamw"
    lora_rank: int = Field(16, ge=1, le=4096)
    lora_targets: Literal["attention", "all-linear", "q,v"] = "all-linear"
    tokens: float | None = Field(None, gt=0, le=1e16, description="tokens to train on (training) or to generate")
    engine: Engine = "hf"
    engine_version: str | None = Field(
        None, max_length=32, pattern=r"^\d+(\.\d+){0,2}[a-z0-9.]*$", description="inference: the engine release a run used, where "
        "a source states it (e.g. '0.5.0'); None: the current release. Read only where the engine's catalog row says "
        "behaviour differs by release (InferenceEngine.gqa_decode_kernel_from, last_logits_only_from, "
        "rotary_cache_per_layer_until, awq_marlin_from, graph_mode_from)"
    )
    quant_method: QuantMethod | None = Field(
        None, description="inference on a weight-only quantized checkpoint: its config.json quantization_config."
        "quant_method (awq, gptq), where a source states it; None: unstated. Read only where an engine's catalog row "
        "says a method runs another kernel by release (InferenceEngine.awq_marlin_from)"
    )
    gptq_kernel: GptqKernel | None = Field(
        None, description="inference with transformers (engine hf) on a 4-bit GPTQ checkpoint: the AutoGPTQ kernel it "
        "runs (exllama, exllamav2, cuda-old), where a source states it; None: unstated, no per-kernel rule applied "
        "(speed.QUANT_KERNEL_RULES)"
    )
    kv_dtype: Precision | None = None
    flash_attention: bool = True
    grad_accum: int = Field(1, ge=1, le=100_000)
    offload_optimizer: bool = False
    inter_node_gbit_per_s: float | None = Field(
        None, ge=MIN_INTER_NODE_GBIT_PER_S, le=MAX_INTER_NODE_GBIT_PER_S,
        description="the rented network between nodes, Gbit/s per node (caps the link data; at least 0.001: 1 Mbit/s, "
        "a tenth of the slowest Ethernet, catalog.schema.MIN_INTER_NODE_GBIT_PER_S)"
    )
    download_gbit_per_s: float | None = Field(
        None, gt=0, le=1e5, description="training set-up: the model download's rate, Gbit/s (the offer's public "
        "bandwidth; None: the catalog's assumed rate, frameworks.yaml setup)"
    )
    # training memory as fine-tuning frameworks run it (issue 12 item 3)
    paged_optimizer: bool = Field(False, description="optimizer states in CUDA unified memory, paged to host memory "
                                  "under pressure (bitsandbytes Paged*); not in the device peak")
    optimizer_in_backward: bool = Field(False, description="each parameter is stepped in its gradient hook and its "
                                        "gradient freed (torchtune optimizer_in_bwd)")
    master_weights: bool = Field(True, description="fp32 master copy of 16-bit weights (False: pure bf16 training, "
                                 "torchtune single-device recipes)")
    loss_chunks: int = Field(1, ge=1, le=1024, description="cross-entropy over this many chunks of tokens (torchtune "
                             "CEWithChunkedOutputLoss: 8): the fp32 upcast lives one chunk at a time")
    bnb_saves_inputs: bool = Field(False, description="qlora: the 4-bit linears are bitsandbytes MatMul4Bit before 0.43.2, "
                                   "which keeps each one's input for backward (ctx.tensors = (A, B)); 0.43.2 keeps none "
                                   "(bitsandbytes#1270), so no framework turns it on")
    lora_dropout: bool = Field(False, description="lora/qlora: the adapters' inputs pass through dropout with p > 0 "
                               "(PEFT lora_dropout; ms-swift 1.x lora_dropout_p default 0.05): each adapted linear keeps "
                               "its dropped-out input and the dropout mask for backward; False: p = 0 (nn.Identity)")
    fsdp_mixed_units: bool = Field(False, description="lora/qlora under FSDP1 (zero 2/3) with each decoder layer one unit "
                                   "mixing frozen and LoRA weights (use_orig_params): the gradient is the units' whole "
                                   "numel, kept unsharded under no_sync gradient accumulation")
    legacy_kv_cache: bool = Field(False, description="hf: the model's remote code returns a new tuple of torch.cat-grown "
                                  "caches each step while generate() still holds the previous one (Qwen 1 modeling_qwen.py)")
    identical_tokens: bool = Field(False, description="inference: every prompt position holds the same token id and the "
                                   "batch's sequences are identical under greedy decoding (benchmark harnesses such as "
                                   "TensorRT-LLM's gptSessionBenchmark, which fills each prompt with padId): every "
                                   "position's hidden state is the same, so an MoE router sends all tokens of a forward "
                                   "pass to the same top-k experts")
    method: Method = "default"
    # diffusion models (issue 3, item 2); None = the pipeline's default (ModelArch.pipeline)
    resolution: int | None = Field(None, ge=64, le=8192, description="diffusion: square image side in pixels")
    steps: int | None = Field(None, ge=1, le=10_000, description="diffusion: denoising steps")
    cfg: bool | None = Field(None, description="diffusion: classifier-free guidance (two denoiser passes per step)")

    @field_validator("inter_node_gbit_per_s", mode="before")
    @classmethod
    def _network_is_real(cls, v: object) -> object:
        """Before the bounds: the refusal that says why (`catalog.schema.inter_node_gbit_refusal`, the importer's)."""
        if isinstance(v, int | float) and not isinstance(v, bool) and (no := inter_node_gbit_refusal(float(v))):
            raise no
        return v

    @model_validator(mode="after")
    def _parallel_fits(self) -> Workload:
        if self.cp > 1 and self.gpus % (self.tp * self.pp * self.cp) != 0:
            raise Invalid(Message("error.wl.gpus_tp_pp_cp", gpus=self.gpus, tp=self.tp, pp=self.pp, cp=self.cp,
                                  n=self.tp * self.pp * self.cp), field="gpus")
        if self.gpus % (self.tp * self.pp) != 0:
            raise Invalid(Message("error.wl.gpus_tp_pp", gpus=self.gpus, tp=self.tp, pp=self.pp, n=self.tp * self.pp),
                          field="gpus")
        if self.ep > 1 and self.dp % self.ep != 0:
            raise Invalid(Message("error.wl.ep_dp", ep=self.ep, dp=self.dp), field="ep")
        if self.vpp > 1 and self.pp == 1:
            raise Invalid(Message("error.wl.vpp_pp"), field="vpp")
        if (self.vpp > 1 or self.cp > 1) and self.task == "inference":
            raise Invalid(Message("error.wl.vpp_cp_inference"), field="vpp" if self.vpp > 1 else "cp")
        if self.task == "qlora" and self.precision not in ("nf4", "int4", "bf16", "fp16"):
            raise Invalid(Message("error.wl.qlora_precision"), field="precision")
        allowed = QUANT_METHOD_PRECISIONS.get(self.quant_method or "")
        if allowed is not None and self.precision not in allowed:
            raise Invalid(Message("error.wl.quant_method_precision", method=self.quant_method,
                                  allowed=", ".join(allowed), precision=self.precision), field="quant_method")
        if self.gptq_kernel is not None and (self.engine != "hf" or self.precision != "int4" or self.training
                                             or self.quant_method not in (None, "gptq")):
            raise Invalid(Message("error.wl.gptq_kernel", kernel=self.gptq_kernel, engine=self.engine,
                                  precision=self.precision, task=self.task), field="gptq_kernel")
        return self

    @property
    def training(self) -> bool:
        return self.task != "inference"

    @property
    def dp(self) -> int:
        """Data-parallel size: model replicas that each take their own sequences (context-parallel ranks share one)."""
        return self.gpus // (self.tp * self.pp * self.cp)

    @property
    def context(self) -> int:
        """Tokens per sequence that the KV cache must hold (inference) or the training sequence length."""
        return self.input + self.output if self.task == "inference" else self.seq


def make_workload(*, dies: int = 1, **kwargs: object) -> Workload:
    """Build a Workload from user input; a bad value raises InputError naming the field and allowed values.
    `dies`: the device's dies a card (`catalog.ranks.dies_per_card`; `gpus` counts its ranks), for the wording of a
    layout refusal (`validated`)."""
    clean = {k: v for k, v in kwargs.items() if v is not None}
    for k, allowed in _ALLOWED.items():
        if k == "engine" and k in clean and clean[k] not in allowed:  # a name: the closest ones (errors' one helper)
            raise InputError("engine", unknown_name("engine", str(clean[k]), allowed)[1])
        if k in clean and clean[k] not in allowed:
            raise InputError(k.replace("_", "-"), Message("err.is_not_one_of", value=echoed(clean[k]), allowed=', '.join(allowed)))
    return validated(clean, dies)


def validated(fields: Mapping[str, object], dies: int = 1) -> Workload:
    """`Workload(**fields)`; a refusal raises one InputError naming its field. On a card of several dies (the 910C:
    `gpus` are its ranks, the user counted cards) a layout refusal says the cards, their dies and the cards that
    split (`_in_cards`), and the bound on `gpus` (ranks) is said in cards (65,536 ranks: 32,768 cards of a 910C);
    one die a card: the refusal as it is."""
    try:
        return Workload(**fields)  # type: ignore[arg-type]
    except ValidationError as e:
        err = e.errors()[0]
        msg = str(err["msg"]).removeprefix("Value error, ")
        cause = (err.get("ctx") or {}).get("error")  # a model-level check names its field (`Invalid.field`)
        field = ".".join(str(p) for p in err["loc"]) or getattr(cause, "field", None) or msg.split(" ", 1)[0]
        said = validation_message(err)
        if dies > 1 and said.id == "error.v.le" and tuple(err["loc"]) == ("gpus",):  # the bound is on ranks: in cards
            ranks = int(said.params["le"])
            raise InputError("gpus", Message("error.wl.gpus_le_dies", le=ranks // dies, ranks=ranks, dies=dies,
                                             value=_count(fields, "gpus") // dies)) from None
        if dies > 1 and said.id in _LAYOUT_REFUSALS:
            raise InputError(field.replace("_", "-"), _in_cards(said, fields, dies)) from None
        raise InputError(field.replace("_", "-"), msg, said) from None


# `_parallel_fits`' refusals whose `gpus` is a rank count: on a card of several dies, said in cards (`_in_cards`:
# error.wl.gpus_tp_pp_cp_dies, error.wl.gpus_tp_pp_dies, error.wl.ep_dp_dies)
_LAYOUT_REFUSALS = ("error.wl.gpus_tp_pp_cp", "error.wl.gpus_tp_pp", "error.wl.ep_dp")


def _in_cards(said: Message, fields: Mapping[str, object], dies: int) -> Message:
    """A layout refusal of `fields`, whose `gpus` are ranks of `dies` a card, in its `_dies` wording: the cards
    and their dies, and the fewest cards (at least these) whose dies split into tp × pp × cp × ep groups, so that
    the `--gpus` it suggests passes every layout check (`catalog.ranks.cards_splitting`)."""
    n = {k: _count(fields, k) for k in ("gpus", "tp", "pp", "cp", "ep")}
    ranks, model = n["gpus"], n["tp"] * n["pp"] * n["cp"]
    cards = cards_splitting(ranks, model * n["ep"], dies)
    kept = {k: v for k, v in said.params.items() if k != "gpus"}  # gpus: the ranks, said as cards and ranks here
    return Message(dies_wording(said.id, dies), {**kept, "cards": whole_cards(ranks, dies), "ranks": ranks,
                                                 "n": model,  # tp × pp (cp 1: a cp > 1 refusal is the _cp one)
                                                 "gpus_field": "gpus", "try_cards": cards,
                                                 "try_ranks": ranks_in(cards, dies)})


def _count(fields: Mapping[str, object], name: str) -> int:
    """A parallel size of `fields` as the Workload read it (a field left out: its default)."""
    v = fields.get(name, Workload.model_fields[name].default)
    return v if isinstance(v, int) else int(str(v))


def optimizer_bytes_per_param(w: Workload) -> float:
    """Optimizer state bytes per trainable parameter (AdamW: momentum + variance in fp32; 8-bit Adam: 2)."""
    return {"adamw": 8.0, "adamw8bit": 2.0, "sgd": 4.0, "adafactor": 0.0}[w.optimizer]


def engine_release(version: str) -> tuple[int, ...]:
    """A release string's leading numbers ('0.5.0' -> (0, 5, 0); '0.7a' -> (0, 7))."""
    out: list[int] = []
    for part in version.split("."):
        digits = "".join(itertools.takewhile(str.isdigit, part))
        if not digits:
            break
        out.append(int(digits))
        if len(digits) < len(part):
            break
    return tuple(out)
