"""Typed schema of the catalog data files (see `suanli/data/SCHEMA.md` for the prose version).

Every number about the world is a `Sourced` value: the value, the id of its source and optionally a
date and a note. Where sources disagree a field holds several `Sourced` values and exactly one of them
is marked `default: true` with the reason in its `note`. A value that is an assumption names the
reserved source `assumed` and must say why in `note`.
"""

import datetime as dt
import functools
import math
import re
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from suanli.errors import Invalid
from suanli.i18n import Message, both

__all__ = [
    "ASSUMED",
    "Accelerator",
    "AdaptedList",
    "AcceleratorSpecs",
    "Alternatives",
    "Catalog",
    "DiffusionComponent",
    "DiffusionPipelineDefaults",
    "CostAssumptions",
    "EfficiencyFactor",
    "FlopsPoint",
    "Framework",
    "InferenceEngine",
    "JobSetup",
    "Link",
    "MLAConfig",
    "ModelArch",
    "MoEConfig",
    "OFFER_KINDS",
    "Offer",
    "PublishedCheckpoint",
    "Purchase",
    "Unpriced",
    "Source",
    "SoftwareStack",
    "Sourced",
    "MAX_INTER_NODE_GBIT_PER_S",
    "MIN_INTER_NODE_GBIT_PER_S",
    "inter_node_gbit_refusal",
]

ASSUMED = "assumed"
# the inter-node network an offer row, `--inter-node-gbit` or the API may state, Gbit/s per node. The floor is stated,
# not sourced: 0.001 Gbit/s (1 Mbit/s) is a tenth of the slowest Ethernet (10BASE-T, 10 Mbit/s, IEEE 802.3i), so a
# smaller figure is a unit slip, not a network between nodes (1e-320 made compare's step time infinite); the ceiling
# is the workload's before it (1e5: 100 Tbit/s, far above any fabric)
MIN_INTER_NODE_GBIT_PER_S = 0.001
MAX_INTER_NODE_GBIT_PER_S = 1e5
_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
_ID = re.compile(r"^[a-z0-9][a-z0-9.+_-]*$")

T = TypeVar("T")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def inter_node_gbit_refusal(gbit_per_s: float) -> Invalid | None:
    """The refusal of an inter-node network outside MIN_ … MAX_INTER_NODE_GBIT_PER_S (or not finite), else None: the
    one rule of the offers importer, the catalog, `--inter-node-gbit` and the API's `inter_node_gbit_per_s`."""
    if math.isfinite(gbit_per_s) and MIN_INTER_NODE_GBIT_PER_S <= gbit_per_s <= MAX_INTER_NODE_GBIT_PER_S:
        return None
    return Invalid(Message("err.inter_node_gbit", value=gbit_per_s, min=MIN_INTER_NODE_GBIT_PER_S,
                           max=MAX_INTER_NODE_GBIT_PER_S), field="inter_node_gbit_per_s")


def _check_date(v: str | None) -> str | None:
    if v is None:
        return v
    return _check_date_str(str(v))


@functools.lru_cache(maxsize=4096)
def _check_date_str(v: str) -> str:
    """A date string checked once per distinct value (10,000 stored offers share a few hundred dates)."""
    if not _DATE.match(v):
        raise ValueError(f"date {v!r} must be YYYY, YYYY-MM or YYYY-MM-DD")
    parts = [int(x) for x in v.split("-")] + [1, 1]
    try:
        dt.date(parts[0], parts[1], parts[2])
    except ValueError:
        raise ValueError(f"date {v!r} is not a calendar date") from None
    return v


class Source(_Strict):
    """Where facts come from: a datasheet, a paper's table, an article, a measurement command."""

    id: str
    title: str
    kind: Literal[
        "datasheet",
        "whitepaper",
        "paper",
        "vendor-doc",
        "article",
        "seed",
        "press",
        "community",
        "measurement",
        "price-list",
        "code",
        "derived",
    ]
    url: str | None = None
    date: str | None = Field(None, description="published or accessed, YYYY[-MM[-DD]]")
    note: str | None = None
    third_party: bool = Field(
        False, description="the source quotes prices of providers other than its own publisher (a scraper's files, "
        "a user's notes, a price index, a dataset, a post or article quoting platforms): every offer priced from it "
        "is second-hand (`Offer.second_hand`)"
    )

    _v_date = field_validator("date", mode="before")(_check_date)


class Sourced(_Strict, Generic[T]):
    """One value with its provenance."""

    value: T
    source: str
    date: str | None = None
    note: str | None = None
    note_zh: str | None = Field(None, description="the note in Chinese (shown by zh output; JSON keeps `note`)")
    default: bool = False

    _v_date = field_validator("date", mode="before")(_check_date)

    @model_validator(mode="after")
    def _assumed_needs_reason(self) -> "Sourced[T]":
        if self.source == ASSUMED and not self.note:
            raise ValueError("a value with source 'assumed' must say why in 'note'")
        return self


class Alternatives(_Strict, Generic[T]):
    """All known values of one field, each with its source; `chosen` is the default one."""

    values: tuple[Sourced[T], ...]

    @property
    def chosen(self) -> "Sourced[T]":
        for v in self.values:
            if v.default:
                return v
        return self.values[0]

    @property
    def value(self) -> T:
        return self.chosen.value

    @property
    def conflicting(self) -> bool:
        """Sources disagree: numbers more than 0.5 % apart (1978.9 vs 1979 is rounding), other values unequal."""
        vals = [v.value for v in self.values]
        if all(isinstance(x, int | float) and not isinstance(x, bool) for x in vals):
            nums = [float(x) for x in vals]  # type: ignore[arg-type]
            lo, hi = min(nums), max(nums)
            return hi - lo > 0.005 * max(abs(hi), abs(lo), 1e-30)
        return len({repr(x) for x in vals}) > 1

    @classmethod
    def parse(cls, raw: Any) -> Any:
        """Accept a single mapping or a list of mappings (exactly one `default: true` when several)."""
        if isinstance(raw, Alternatives):
            return raw
        if isinstance(raw, dict) and "values" not in raw:
            raw = [raw]
        if isinstance(raw, list):
            if len(raw) > 1:
                n_default = sum(1 for r in raw if isinstance(r, dict) and r.get("default"))
                if n_default != 1:
                    raise ValueError(
                        f"{len(raw)} values from different sources need exactly one 'default: true' "
                        f"(found {n_default})"
                    )
            return {"values": raw}
        return raw


_parse = BeforeValidator(Alternatives.parse)
FloatField = Annotated[Alternatives[float], _parse]
IntField = Annotated[Alternatives[int], _parse]
StrField = Annotated[Alternatives[str], _parse]
BoolField = Annotated[Alternatives[bool], _parse]
RangeField = Annotated[Alternatives[tuple[float, float]], _parse]

Vendor = Literal[
    "nvidia", "huawei", "hygon", "cambricon", "metax", "kunlunxin", "moore-threads", "amd", "intel"
]
Interconnect = Literal[
    "none", "pcie", "nvlink-bridge", "nvswitch", "hccs", "mlu-link", "mtlink", "metaxlink", "xpu-link", "xgmi"
]


class AcceleratorSpecs(_Strict):
    """Peak figures. Dense and sparse (2:4 structured sparsity) are separate fields, never mixed.

    `*_tflops` are 1e12 floating-point operations per second, `*_tops` 1e12 integer operations per
    second. For GeForce cards `fp16_dense_tflops`/`bf16_dense_tflops` are the FP32-accumulate rates
    (what PyTorch uses); the FP16-accumulate rate is `fp16_acc16_dense_tflops`.
    """

    memory_gib: FloatField | None = None
    memory_bandwidth_gb_per_s: FloatField | None = None
    fp32_tflops: FloatField | None = None
    tf32_dense_tflops: FloatField | None = None
    tf32_sparse_tflops: FloatField | None = None
    fp16_dense_tflops: FloatField | None = None
    fp16_sparse_tflops: FloatField | None = None
    fp16_acc16_dense_tflops: FloatField | None = None
    bf16_dense_tflops: FloatField | None = None
    bf16_sparse_tflops: FloatField | None = None
    fp8_dense_tflops: FloatField | None = None
    fp8_sparse_tflops: FloatField | None = None
    fp4_dense_tflops: FloatField | None = None
    int8_dense_tops: FloatField | None = None
    int8_sparse_tops: FloatField | None = None
    interconnect_gb_per_s: FloatField | None = Field(
        None, description="card-to-card bandwidth per card, bidirectional aggregate"
    )
    pcie_gen: IntField | None = None
    tdp_w: FloatField | None = None
    sm_count: IntField | None = Field(
        None, description="streaming multiprocessors (NVIDIA SMs): how many thread blocks of one kernel run at once "
        "(decode attention without split-KV, speed.py)"
    )


class Accelerator(_Strict):
    id: str
    name: str
    name_zh: str | None = Field(None, description="the vendor's Chinese product name, shown in Chinese output")
    aliases: tuple[str, ...] = ()
    vendor: Vendor
    family: str = Field(description="architecture family, e.g. ada, ampere, hopper, davinci; keys efficiency data")
    domestic: bool = Field(description="made by a Chinese vendor (信创 eligible)")
    segment: Literal["datacenter", "consumer", "workstation"]
    form_factor: Literal["pcie", "sxm", "oam", "module", "card"]
    stack: str = Field(description="id of a software stack in stacks.yaml")
    memory_type: str | None = None
    interconnect: Interconnect
    interconnect_name: str | None = None
    interconnect_name_zh: str | None = Field(None, description="interconnect_name in Chinese (zh output)")
    max_cards_per_node: int = 8
    dies_per_card: IntField | None = Field(
        None, description="compute dies in one rented card that every framework sees as separate devices (ranks), "
        "each with its own share of the memory, bandwidth and compute (the Ascend 910C: npu-smi lists 2 chips, HAMi "
        "schedules 2 NPUs); the estimator and planner count ranks (`catalog.ranks`), offers rent cards. None: 1"
    )
    variant_of: str | None = None
    china_market: StrField | None = None
    china_market_zh: str | None = Field(None, description="the china_market text in Chinese (zh output)")
    notes: tuple[str, ...] = ()
    notes_zh: tuple[str, ...] = Field((), description="the notes in Chinese, one per note in the same order")
    specs: AcceleratorSpecs
    server_power_w: FloatField | None = Field(
        None, description="whole-server power, W, of the vendor's server holding `max_cards_per_node` of these cards "
        "(cards, CPUs, memory, NICs, fans; the datasheet's maximum, as `tdp_w` is the card's): rent-vs-buy's host "
        "share per card = this ÷ the cards − the card's TDP (`plan.cost.host_w_per_card`); None: the catalog's "
        "assumed `host_power_share` of the TDP"
    )

    @model_validator(mode="after")
    def _notes_zh_match(self) -> "Accelerator":
        if self.notes_zh and len(self.notes_zh) != len(self.notes):
            raise ValueError(f"notes_zh has {len(self.notes_zh)} entries for {len(self.notes)} notes")
        return self

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not _ID.match(v):
            raise ValueError(f"id {v!r} must be lowercase letters, digits, '.', '+', '_' or '-'")
        return v


BillingUnit = Literal["second", "minute", "hour", "day", "week", "month", "year"]


OfferKind = Literal["listing", "index", "reference", "contract"]
InstanceType = Literal["bare-metal", "container", "vm", "unknown"]
OfferScope = Literal["card", "node", "cluster"]
# efa: AWS Elastic Fabric Adapter, an RDMA fabric NCCL uses through the aws-ofi-nccl plugin (libfabric)
InterNodeNetwork = Literal["none", "roce", "infiniband", "efa"]
OFFER_KINDS: tuple[str, ...] = ("listing", "index", "reference", "contract")


class OfferAssumption(_Strict):
    """One offer field the catalog filled in by reading the source, not from a stated figure (e.g. an index quoting a
    price per machine, '台', without the cards in it): a plan that uses the offer warns with it."""

    field: str = Field(description="the Offer field read by assumption (cards, billing_unit, device, ...)")
    note: str = Field(description="what the source says and how it was read")
    note_zh: str | None = Field(None, description="the note in Chinese (zh output; a zh answer gives it as `note`)")


class Offer(_Strict):
    """A rental price. `price_cny` is for the whole instance (`cards` cards) for one `billing_unit`.

    `kind` says what the price is: a `listing` (a rentable product on a named platform, with its URL and date),
    an `index` (a market index or survey), a `reference` (an accounting assumption, a press figure) or a
    `contract` (a buyer's own quote or negotiated price, not public: rentable by that buyer, so priced wherever
    listings are, never part of a plausibility band; `suanli offers import` rows default to it). `scope`
    says what is rented: cards in a shared machine (`card`), a whole node (`node`) or several nodes with a
    fabric (`cluster`); only node and cluster offers with an `inter_node_network` span nodes
    (`suanli.catalog.offers.can_span_nodes`)."""

    id: str
    provider: str
    device: str
    cards: int = Field(ge=1, description="cards per instance (the unit `price_cny` pays for)")
    billing_unit: BillingUnit
    price_cny: FloatField
    price_cny_max: FloatField | None = Field(None, description="upper end where the source gives a range")
    min_units: int = Field(1, ge=1, description="minimum rental, in billing units")
    whole_machine_only: bool = False
    kind: OfferKind = Field("listing", description="listing, index, reference or contract (a buyer's own price)")
    instance: InstanceType = Field("unknown", description="bare-metal, container, vm, unknown")
    scope: OfferScope = Field("card", description="card, node or cluster")
    intra_node_link: Interconnect | None = Field(None, description="card-to-card link inside the instance")
    inter_node_network: InterNodeNetwork = Field("none", description="fabric between instances")
    inter_node_gbit_per_s: FloatField | None = Field(None, description="inter-node bandwidth per node, Gbit/s")
    public_network_mbit_per_s: FloatField | None = Field(
        None, description="public (internet) bandwidth the rental includes, Mbit/s, where the source states it: "
        "the model download in set-up runs at it (else the catalog's assumed rate, frameworks.yaml setup)"
    )
    max_cards_per_order: int | None = Field(None, ge=1, description="largest order the platform accepts")
    min_cards_per_order: int | None = Field(
        None, ge=1, description="smallest order: a block rented whole ('整租'), billed whole whatever a job uses"
    )
    multi_card_instance: bool = Field(
        False, description="card scope: the platform rents 1 … cards-per-node cards of one machine as one instance "
        "(a source must say so; otherwise a card rental's instance has exactly `cards` cards)"
    )
    single_card_why: Literal["form_factor_unpublished"] | None = Field(
        None, description="card scope without multi_card_instance: why the row is not combined into a multi-card job, "
        "said in plan's why-not (`form_factor_unpublished`: the listing does not say PCIe or SXM, so the card-to-card "
        "link a job would run on is unknown). Descriptive only: max_cards does not read it"
    )
    unstated: tuple[Literal["form_factor", "memory_size"], ...] = Field(
        (), description="what the listing does not say about its card (`form_factor`: PCIe or SXM; `memory_size`): a "
        "plan on the offer is made on `device`, says which part that assumes and what the same layout gives on each "
        "part of `may_be` (plan.warn.card_unstated), as a 910B offer without its variant is re-estimated on the others"
    )
    may_be: tuple[str, ...] = Field(
        (), description="with `unstated`: the other catalog accelerators the listing's words fit (云擎天下's '8*A100 80G' "
        "node: a100-80g-pcie beside the a100-80g it is entered under); empty where the catalog has none of them"
    )
    stock: int | None = Field(None, ge=0, description="cards in stock where the platform publishes it")
    url: str | None = Field(None, description="the listing's page")
    second_hand: bool = Field(
        False, description="the price was read through a third party (its source, or a price's, is `third_party`: "
        "a scraper's files, a user's notes, an index, a post quoting the platform), not from the provider's own page "
        "or quote; set by the one rule `catalog.offers.mark_second_hand` when the catalog loads and on import, and "
        "shown 'quoted via a third party' (zh 转引)"
    )
    region: str | None = None
    date: str
    source: str
    note: str | None = None
    provider_zh: str | None = Field(None, description="the provider's name in Chinese (zh output)")
    note_zh: str | None = Field(None, description="the note in Chinese (zh output)")
    assumed: tuple[OfferAssumption, ...] = Field(
        (), description="fields read by assumption where the source does not state them; plans warn with each")

    _v_date = field_validator("date", mode="before")(_check_date)

    @field_validator("inter_node_gbit_per_s")
    @classmethod
    def _network_is_real(cls, alt: Alternatives[float] | None) -> Alternatives[float] | None:
        for v in alt.values if alt is not None else ():
            if (no := inter_node_gbit_refusal(v.value)) is not None:
                raise no
        return alt

    @model_validator(mode="after")
    def _assumed_fields_exist(self) -> "Offer":
        for a in self.assumed:
            if a.field not in type(self).model_fields or a.field == "assumed":
                raise ValueError(f"assumed: {a.field!r} is not an offer field")
        return self

    @model_validator(mode="before")
    @classmethod
    def _legacy_kind(cls, raw: Any) -> Any:
        """Before issue 11 `kind` held the instance type; such rows (stored prices, old import files) still load."""
        if isinstance(raw, dict) and raw.get("kind") in ("bare-metal", "container", "vm", "unknown"):
            raw = {**raw, "instance": raw.get("instance") or raw["kind"]}
            del raw["kind"]
        return raw

    @model_validator(mode="after")
    def _prices_are_real(self) -> "Offer":
        for name, alt in (("price_cny", self.price_cny), ("price_cny_max", self.price_cny_max)):
            for v in alt.values if alt is not None else ():
                if not (math.isfinite(v.value) and 0 < v.value <= 1e9):
                    raise ValueError(f"{name} must be a positive number of CNY up to 1e9 (got {v.value})")
        if self.public_network_mbit_per_s is not None and not all(
                math.isfinite(v.value) and 0 < v.value <= 1e6 for v in self.public_network_mbit_per_s.values):
            raise ValueError("public_network_mbit_per_s must be a positive number of Mbit/s up to 1e6")
        if self.may_be and not self.unstated:
            raise ValueError("may_be needs unstated: what the listing does not say (form_factor, memory_size)")
        if self.inter_node_network != "none" and self.scope == "card":
            raise ValueError("inter_node_network needs scope node or cluster (a card rental does not span nodes)")
        if self.scope == "cluster" and self.inter_node_network == "none":
            raise ValueError("a cluster offer needs its inter_node_network: roce, infiniband or efa")
        if self.inter_node_gbit_per_s is not None and self.inter_node_network == "none":
            raise ValueError("inter_node_gbit_per_s needs an inter_node_network (roce, infiniband or efa)")
        if self.max_cards_per_order is not None and self.max_cards_per_order < self.cards:
            raise ValueError(f"max_cards_per_order ({self.max_cards_per_order}) is below cards per instance ({self.cards})")
        if self.min_cards_per_order is not None and (
                self.min_cards_per_order % self.cards
                or (self.max_cards_per_order is not None and self.min_cards_per_order > self.max_cards_per_order)):
            raise ValueError(f"min_cards_per_order ({self.min_cards_per_order}) must be whole instances of {self.cards} "
                             "cards and not above max_cards_per_order")
        return self


class Unpriced(_Strict):
    """A device searched for and found without a public rental price: the one line `plan` can print.

    `missing: multi-node` says instead that no node or cluster rental with an inter-node network (so no offer a
    multi-node job can use) was found for the device on Chinese platforms, though it may have card prices."""

    device: str
    note: str = Field(description="what is missing and that it is not public, e.g. 'no public 910C rental listing'")
    note_zh: str | None = Field(None, description="the same note in Chinese (shown by zh output)")
    missing: Literal["price", "multi-node"] = Field("price", description="price, or multi-node (no offer spans nodes)")
    searched: str = Field(description="when the search was made, YYYY[-MM[-DD]]")
    source: str | None = None

    _v_date = field_validator("searched", mode="before")(_check_date)


class Purchase(_Strict):
    """A purchase price (capex) for rent-vs-buy."""

    id: str
    item: Literal["card", "server", "node"]
    device: str | None = None
    cards: int = 0
    price_cny: FloatField
    price_cny_max: FloatField | None = None
    date: str
    source: str
    note: str | None = None
    note_zh: str | None = Field(None, description="the note in Chinese (rent-vs-buy's zh output; JSON keeps `note`)")

    _v_date = field_validator("date", mode="before")(_check_date)


class MoEConfig(_Strict):
    num_experts: int
    top_k: int
    num_shared_experts: int = 0
    expert_intermediate_size: int
    shared_expert_intermediate_size: int | None = None
    first_dense_layers: int = Field(0, description="leading layers with a dense FFN instead of experts")
    dense_intermediate_size: int | None = None
    router_bias: bool = False
    # Optional additions (issue 2, model presets): what real MoE configs need beyond the above.
    shared_expert_gate: bool = Field(
        False, description="Qwen2-MoE: a sigmoid gate Linear(hidden, 1) on the shared expert output"
    )
    n_group: int | None = Field(None, description="DeepSeek-V3 group-limited routing: expert groups")
    topk_group: int | None = Field(None, description="DeepSeek-V3: groups a token may route to")

    @model_validator(mode="after")
    def _experts_route(self) -> "MoEConfig":
        # named as config.json names them (catalog.hf_config reads these keys)
        if self.num_experts < 1:
            raise ValueError(f"the number of experts (num_local_experts, num_experts or n_routed_experts) must be at "
                             f"least 1 (got {self.num_experts})")
        if not 1 <= self.top_k <= self.num_experts:
            raise ValueError(f"num_experts_per_tok (top_k) must be 1 to the {self.num_experts} experts: a token routes "
                             f"to at most every expert (got {self.top_k})")
        return self


class MLAConfig(_Strict):
    """DeepSeek multi-head latent attention (DeepSeek-V2 paper, §2.1)."""

    q_lora_rank: int | None
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int


class FlopsPoint(_Strict):
    """FLOPs of one forward pass of a network at batch 1 (2 per multiply-accumulate of matmuls, convolutions
    and attention), at a square image `resolution` in pixels; 0 for a text encoder, whose cost does not depend
    on the image."""

    resolution: int = Field(ge=0)
    flops: float = Field(gt=0)


class DiffusionComponent(_Strict):
    name: str
    role: Literal["unet", "transformer", "text-encoder", "vae"]
    params: FloatField
    # Optional addition (issue 3, diffusion speed): measured FLOPs per forward pass at several resolutions.
    flops_per_pass: Sourced[tuple[FlopsPoint, ...]] | None = Field(
        None, description="FLOPs per pass at batch 1 by resolution; the VAE's is `decode` only"
    )


class DiffusionPipelineDefaults(_Strict):
    """What the reference pipeline does when called with no arguments (issue 3, diffusion speed)."""

    steps: IntField = Field(description="num_inference_steps default")
    resolution: IntField = Field(description="default image side in pixels (square)")
    cfg: BoolField = Field(
        description="classifier-free guidance: the denoiser runs on the prompt and the negative prompt each step"
    )


class PublishedCheckpoint(_Strict):
    """One checkpoint of a model that its publisher (or a serving stack's maintainers) uploaded, as a model hub lists it:
    what a buyer can download and serve without quantizing the model first."""

    repo: str = Field(description="the hub id (Hugging Face, or ModelScope where the upload is only there)")
    precision: Literal["bf16", "fp16", "fp8", "int8", "int4"] = Field(
        description="the precision the estimate names it by: its weights' bits (a GPTQ-Int4 upload is int4)")
    quant_method: Literal["fp8", "gptq", "awq", "compressed-tensors", "modelslim"] | None = Field(
        None, description="config.json quantization_config.quant_method (modelslim: Ascend msModelSlim's "
        "quant_model_description.json); None: a 16-bit checkpoint")
    stacks: tuple[str, ...] = Field(
        (), description="the software stacks (stacks.yaml ids) the upload is made for where its format is one stack's "
        "(msModelSlim W8A8: cann); empty: the publisher ties it to none")


class ModelArch(_Strict):
    """What parameters, FLOPs and KV cache need. Field names follow Hugging Face configs."""

    id: str = Field(description="Hugging Face id, e.g. Qwen/Qwen2.5-7B-Instruct")
    aliases: tuple[str, ...] = ()
    base_id: str | None = Field(
        None, description="where `id` is an instruction-tuned checkpoint (-Instruct, -Chat): the Hugging Face id of "
        "the pre-trained (base) checkpoint it was tuned from, same architecture; one of `aliases`. Training tasks "
        "name it (catalog.lookup.checkpoint_id); None: `id` is the base, or no base checkpoint is public"
    )
    base_source: str | None = Field(
        None, description="source id for `base_id`: the base checkpoint's model card, and where its config.json's "
        "dimensions were checked against `id`'s (required with base_id)"
    )
    instruct_id: str | None = Field(
        None, description="where `id` is the pre-trained (base) checkpoint: the Hugging Face id of the instruction-tuned "
        "checkpoint made from it (-Instruct, -Chat, -it), same dimensions; one of `aliases`. Serving names it "
        "(catalog.lookup.checkpoint_id); None: `id` is the tuned one, or no tuned checkpoint is public"
    )
    instruct_source: str | None = Field(
        None, description="source id for `instruct_id`: the tuned checkpoint's model card, and where its config.json's "
        "dimensions were checked against `id`'s, or that they were not (required with instruct_id)"
    )
    base_max_context: int | None = Field(
        None, gt=0, description="where the base checkpoint's (`base_id`'s) config.json sets another "
        "max_position_embeddings than `id`'s (Qwen2.5-72B 131072, -Instruct 32768): the base's; a training plan "
        "checks --seq against the checkpoint it names (catalog.lookup.context_of); None: `max_context` for both"
    )
    base_max_context_source: str | None = Field(
        None, description="source id for `base_max_context`: the base checkpoint's config.json (required with it)"
    )
    family: str
    kind: Literal["llm", "diffusion"] = "llm"
    hf_architecture: str | None = Field(None, description="transformers class that builds an equivalent model")
    hidden_size: int | None = None
    num_layers: int | None = None
    num_attention_heads: int | None = None
    num_key_value_heads: int | None = None
    head_dim: int | None = None
    intermediate_size: int | None = None
    ffn_gated: bool = True
    vocab_size: int | None = None
    tie_word_embeddings: bool = False
    qkv_bias: bool = False
    attention_out_bias: bool = Field(False, description="bias on the attention output projection (o_proj)")
    qk_norm: bool = Field(False, description="RMSNorm over head_dim on queries and keys (Qwen3)")
    norm: Literal["rmsnorm", "layernorm", "layernorm-weight", "nonparametric"] = Field(
        "rmsnorm", description="rmsnorm: a weight; layernorm: weight and bias; layernorm-weight: LayerNorm "
        "without bias (Cohere, MPT); nonparametric: LayerNorm without weight or bias (OLMo-1)"
    )
    norms_per_layer: int | None = Field(
        None, description="norms in each decoder layer; None: 2 (pre-attention, pre-FFN). 1: one norm feeds a "
        "parallel attention+MLP block (GPT-J, Phi-2, Falcon-7B, Cohere); 4: Gemma-2/3 add post-norms"
    )
    embedding_norm: bool | None = Field(None, description="a norm right after the token embedding (BLOOM); None: none")
    mlp_bias: bool | None = Field(
        None, description="biases on the FFN projections (GPT-2, GPT-NeoX, Falcon bias, OPT); None: none"
    )
    lm_head_bias: bool | None = Field(
        None, description="a bias on the output projection (Phi-2, GPT-J, CodeGen); None: none"
    )
    qk_norm_width: Literal["head_dim", "heads"] | None = Field(
        None, description="with qk_norm, the norms' width: head_dim (None: one weight shared by the heads, Qwen3, "
        "Gemma-3) or heads (a weight per head, H·d for q and G·d for k: StableLM, Cohere, OLMo-2)"
    )
    position_embedding: Literal["rope", "learned", "alibi", "none"] | None = Field(
        None, description="rope (None: what the family uses, RoPE for every preset so far), learned absolute "
        "positions (GPT-2, OPT: a table of position_embedding_rows x hidden_size), alibi (BLOOM, MPT: no parameters)"
    )
    position_embedding_rows: int | None = Field(
        None, description="rows of the learned position table (GPT-2 n_positions; OPT max_position_embeddings + 2)"
    )
    max_context: int | None = None
    yarn_context: int | None = Field(
        None, gt=0, description="the context its model card extends `max_context` to with YaRN, by adding rope_scaling "
        "(type yarn, factor `yarn_factor`) to config.json (Qwen2, Qwen2.5, Qwen2.5-Coder, Qwen3: 131072); a request "
        "past max_context is refused, and the refusal says how to get this one; None: the card names no extension"
    )
    yarn_factor: float | None = Field(None, gt=1, description="the rope_scaling factor the card gives for `yarn_context`")
    yarn_source: str | None = Field(None, description="source id for `yarn_context`: the model card that says it")
    rope_scaling: str | None = Field(
        None, description="RoPE scaling the config sets (rope_scaling.rope_type / type: llama3, yarn, dynamic, linear; "
        "dynamic-ntk for Qwen-1's use_dynamic_ntk): positions beyond max_context are extrapolated, not refused"
    )
    sliding_window: int | None = Field(
        None, description="tokens a sliding-window attention layer sees (config.json sliding_window); with "
        "layer_types None every layer is windowed"
    )
    layer_types: tuple[Literal["full_attention", "sliding_attention"], ...] | None = Field(
        None, description="attention kind of each decoder layer, as transformers' config.layer_types (Gemma-2/3, "
        "gpt-oss, Qwen2 with max_window_layers); None: every layer sliding if sliding_window is set, else full"
    )
    moe: MoEConfig | None = None
    mla: MLAConfig | None = None
    mtp_layers: int = Field(
        0, description="DeepSeek multi-token-prediction modules in the checkpoint (num_nextn_predict_layers); "
        "not built by transformers and not in the parameter total"
    )
    native_dtype: Literal["fp8"] | None = Field(
        None, description="the dtype the published checkpoint stores its weights in where it is not 16-bit: fp8 where "
        "config.json has quantization_config.quant_method fp8 (DeepSeek-V3/R1: e4m3, 128x128 weight blocks); None: "
        "a 16-bit checkpoint. Inference defaults to it where the device runs it (estimate.precision.default_precision)"
    )
    published_checkpoints: tuple[Sourced[PublishedCheckpoint], ...] | None = Field(
        None, description="the checkpoints its publisher or a serving stack's maintainers upload (16-bit and "
        "quantized), each cited with the date it was read; None: not checked. Inference at a quantized precision with "
        "none of them warns (estimate.precision.unpublished_checkpoint_note); an entry missing means not published"
    )
    components: tuple[DiffusionComponent, ...] = ()
    pipeline: DiffusionPipelineDefaults | None = Field(None, description="diffusion models: pipeline defaults")
    published_params: FloatField | None = None
    published_active_params: FloatField | None = None
    reasoning_output_tokens: IntField | None = Field(
        None, description="a reasoning (thinking) model: the output length, tokens, its card recommends or evaluates "
        "with (thinking included); plan warns when the output is left at its default (buyer review 10)"
    )
    source: str
    date: str | None = None
    note: str | None = None

    @model_validator(mode="after")
    def _base_id_is_an_alias(self) -> "ModelArch":
        # the base checkpoint is one the catalog already names (an alias a source cites), never a made-up id
        if self.base_id is not None and self.base_id not in self.aliases:
            raise ValueError(f"base_id {self.base_id} is not among the aliases of {self.id}")
        if (self.base_id is None) != (self.base_source is None):  # a base checkpoint named is a base checkpoint cited
            raise ValueError(f"base_id and base_source of {self.id} go together")
        if self.instruct_id is not None and self.instruct_id not in self.aliases:
            raise ValueError(f"instruct_id {self.instruct_id} is not among the aliases of {self.id}")
        if (self.instruct_id is None) != (self.instruct_source is None):  # a tuned checkpoint named is one cited
            raise ValueError(f"instruct_id and instruct_source of {self.id} go together")
        if self.base_id is not None and self.instruct_id is not None:  # `id` is either the tuned one or the base
            raise ValueError(f"{self.id} names both a base_id and an instruct_id: `id` is one of the two")
        if (self.base_max_context is None) != (self.base_max_context_source is None):  # a context read is cited
            raise ValueError(f"base_max_context and base_max_context_source of {self.id} go together")
        if self.base_max_context is not None and self.base_id is None:
            raise ValueError(f"base_max_context of {self.id} needs base_id: the checkpoint it is the context of")
        if not (self.yarn_context is None) == (self.yarn_factor is None) == (self.yarn_source is None):  # yarn cited
            raise ValueError(f"yarn_context, yarn_factor and yarn_source of {self.id} go together")
        return self

    @model_validator(mode="after")
    def _layer_types_fit(self) -> "ModelArch":
        if self.layer_types is not None:
            if self.num_layers is not None and len(self.layer_types) != self.num_layers:
                raise ValueError(f"layer_types has {len(self.layer_types)} entries for {self.num_layers} layers")
            if "sliding_attention" in self.layer_types and self.sliding_window is None:
                raise ValueError("layer_types has sliding_attention layers but sliding_window is not set")
        return self


class AdaptedList(_Strict):
    """One published adapted-model list of a stack (vLLM-Ascend, MindSpeed-LLM, MindIE, ...).

    `models` is sourced: the value is the tuple of Hugging Face ids on the list, the source the list itself.
    """

    name: str
    name_zh: str | None = Field(None, description="the list's name in Chinese (zh output)")
    use: Literal["inference", "training", "both"]
    models: Sourced[tuple[str, ...]]


class SoftwareStack(_Strict):
    id: str
    name: str
    name_zh: str | None = Field(None, description="the stack's name as its vendor writes it in Chinese")
    vendor: str
    devices_note: str | None = None
    frameworks: tuple[str, ...] = ()
    components: tuple[str, ...] = ()
    precisions: tuple[str, ...] = ()
    fp8: BoolField | None = None
    qlora_4bit: BoolField | None = None
    nf4_kernel: BoolField | None = Field(
        None, description="an optimised (fused) NF4 dequantization kernel for 4-bit QLoRA; false: plain framework "
        "ops, so QLoRA runs below the bf16 speed the estimate shows; None: no source"
    )
    cuda_compatible: bool = False
    adapted_models: tuple[str, ...] = Field((), description="model ids on the stack's adapted lists")
    adapted_source: str | None = None
    adapted_lists: tuple[AdaptedList, ...] = Field(
        (), description="the individual adapted lists (inference / training) behind adapted_models"
    )
    migration_weeks_adapted: RangeField | None = Field(None, description="[low, high] engineer-weeks")
    migration_weeks_unadapted: RangeField | None = None
    migration_weeks_moe_multimodal: RangeField | None = None
    runtime_overhead_gib: FloatField | None = None
    allocator_fragmentation: FloatField | None = Field(
        None, description="the fits rule's margin for the framework's caching allocator (0-1): the share of device memory "
        "it may hold beyond the tensors alive"
    )
    allocator_conf_env: StrField | None = Field(
        None, description="the environment variable that sets the caching allocator's options (expandable_segments), "
        "cited; training estimates name it for data of varying sequence length")
    flash_attention: BoolField | None = Field(
        None, description="a fused (flash) attention kernel training and serving use on this stack; None: no source"
    )
    engines: tuple[str, ...] = Field((), description="inference engines that run on this stack, the default first")
    engines_source: str | None = None
    engines_alike_source: str | None = Field(
        None, description="where set, the serving engines here get the same figures (no engine measured on the stack, "
        "published comparisons too thin): estimate and plan say so in one line, citing this source")
    fp8_scheme: StrField | None = Field(
        None, description="what serving 'fp8' means on this stack's engines (W8A8 FP8, ...), cited; plan names it")
    int8_scheme: StrField | None = Field(
        None, description="what serving 'int8' means on this stack's engines (W8A8, W8A16, ...), cited; plan names it")
    int4_scheme: StrField | None = Field(
        None, description="what serving 'int4' means on this stack's engines (W4A16, W4A8, ...), cited; plan names it")
    notes: tuple[str, ...] = ()
    source: str


def _release_field(description: str) -> Any:
    """An engine release (`1`, `1.2`, `1.2.3`) from which a cited behaviour holds; None: no such change recorded."""
    return Field(None, pattern=r"^\d+(\.\d+){0,2}", description=description)


class InferenceEngine(_Strict):
    """A serving engine: its memory policy and whose efficiency factors it uses until it has its own."""

    id: str
    name: str
    preallocate_fraction: FloatField | None = Field(
        None, description="share of device memory reserved up front (vLLM gpu_memory_utilization); None: allocates on demand"
    )
    efficiency_as: str | None = Field(None, description="engine id whose efficiency factors apply (borrowed, see note)")
    fp16_accumulate: bool = Field(
        False, description="its 16-bit GEMMs accumulate in fp16, so the device's fp16_acc16_dense_tflops is the roof "
        "where published (GeForce cards: twice the fp32-accumulate rate); see note"
    )
    split_kv: bool = Field(
        True, description="its decode attention kernel also splits the KV sequence over thread blocks (Flash-Decoding); "
        "False: one block per sequence and head, so a small batch leaves SMs idle (see note)"
    )
    kv_dtypes: tuple[str, ...] = Field(
        (), description="KV-cache dtypes it can store (precision names; the 16-bit model dtype always); "
        "(): no source, a quantized KV cache is then a warning"
    )
    kv_dtypes_source: str | None = None
    gqa_decode_kernel_from: str | None = _release_field(
        "first release whose generation (decode) attention reads each "
        "KV head's cache once for its group of query heads (TensorRT-LLM: XQA); earlier releases run one thread block "
        "per query head, each reading its KV head's cache, so GQA's KV reads are heads / kv_heads times the cache. "
        "None: no such split (every release reads the cache once); see gqa_decode_kernel_source"
    )
    gqa_decode_kernel_source: str | None = None
    last_logits_only_from: str | None = _release_field(
        "first release whose generate() computes the prefill's logits "
        "for the last prompt position only (transformers: num_logits_to_keep = 1); earlier releases run the LM head over "
        "every prompt position and upcast the result to fp32 while the 16-bit output is alive, so the prefill holds "
        "input x vocab x (2 + 4) bytes per sequence. None: every release keeps the last position only; see "
        "last_logits_only_source"
    )
    last_logits_only_source: str | None = None
    rotary_cache_per_layer_until: str | None = _release_field(
        "first release whose attention layers of the families in "
        "rotary_cache_per_layer_families no longer keep a rotary cos/sin cache each (transformers: Qwen2RotaryEmbedding "
        "built in every Qwen2Attention with cos_cached / sin_cached buffers of max_position_embeddings x head_dim in "
        "the load dtype); earlier releases hold layers x 2 x positions x head_dim x bytes. None: no release keeps one; "
        "see rotary_cache_per_layer_source"
    )
    rotary_cache_per_layer_families: tuple[str, ...] = Field(
        (), description="model families (ModelArch.family) whose code in the engine was read to keep the per-layer "
        "rotary cache before rotary_cache_per_layer_until; a family not read is not given the term"
    )
    rotary_cache_per_layer_source: str | None = None
    awq_marlin_from: str | None = _release_field(
        "first release that runs an AWQ checkpoint (config.json "
        "quant_method awq, Workload.quant_method) through a Marlin kernel by default (vLLM: awq_marlin, vllm#6612); "
        "earlier releases run AWQ's own GEMM kernel (awq_gemm, adapted from llm-awq) on every forward pass of fewer than "
        "256 tokens, whose int4 weights read slower than the 16-bit path (efficiency metric awq_gemm_share). None: no "
        "such change recorded; see awq_marlin_source"
    )
    awq_marlin_source: str | None = None
    graph_mode_from: str | None = _release_field(
        "first release that runs decode steps as a captured graph by "
        "default (vLLM-Ascend: ACL graph on the V1 engine); earlier releases dispatch every operator from the host "
        "(eager), whose per-step cost is the efficiency metric eager_step_overhead_s instead of "
        "decode_step_overhead_s. None: no such change recorded; see graph_mode_source"
    )
    graph_mode_source: str | None = None
    prefill_chunk_tokens: IntField | None = Field(
        None, description="tokens one prefill step processes at most (vLLM chunked prefill: max_num_batched_tokens): "
        "an attention-score matrix without a fused kernel is then chunk x context, not context²; None: the whole "
        "prompt at once (transformers generate)"
    )
    expert_parallel: bool = Field(
        False, description="serves MoE models with expert parallelism: attention data-parallel over replicas, the routed "
        "experts spread over them (vLLM --enable-expert-parallel, SGLang --ep-size, MindIE moe_ep); False: no source "
        "says so: a serving plan with --ep is refused, an estimate says so; see expert_parallel_source"
    )
    expert_parallel_source: str | None = None
    source: str
    note: str | None = None


class Framework(_Strict):
    """A training or serving framework and the layouts it can run (what a team can actually launch)."""

    id: str
    name: str
    tasks: tuple[str, ...]
    stacks: tuple[str, ...]
    tp: bool = False
    pp: bool = False
    ep: bool = False
    zero_stages: tuple[int, ...] = (0,)
    pp_zero_stages: tuple[int, ...] | None = Field(
        None, description="the ZeRO stages it runs together with pipeline parallelism over data-parallel replicas "
        "(None: all of zero_stages); DeepSpeed's PipelineEngine asserts stage < 2, torchtitan shards with FSDP2 only"
    )
    pp_zero_source: str | None = None
    tp_zero_stages: tuple[int, ...] | None = Field(
        None, description="the ZeRO stages it runs together with tensor parallelism over data-parallel replicas "
        "(None: all of zero_stages); torchtitan's DDP (ZeRO 0 over replicas) runs only as 1-D parallelism"
    )
    tp_zero_source: str | None = None
    recompute: tuple[str, ...] = ("none", "full")
    fp8: bool = False
    fp8_recipe: str | None = Field(
        None, description="with fp8: what runs its FP8 training (Transformer Engine, torchao float8), which a plan at "
        "fp8 needs switched on; its warning names it with fp8_source")
    fp8_source: str | None = None
    vpp: bool = Field(False, description="runs the interleaved pipeline schedule (virtual pipeline stages per device)")
    pp_tasks: tuple[str, ...] = Field(
        (), description="tasks for which its pipeline parallelism runs (empty: every task it runs); DeepSpeed's "
        "deepspeed.pipe takes no PEFT model, so no pipeline parallelism for lora/qlora"
    )
    tp_comm_overlap: bool = Field(
        False, description="can pipeline its tensor-parallel all-gathers / reduce-scatters with the GEMMs (sequence "
        "parallel, chunked collectives: Megatron-Core tp_comm_overlap, MindSpeed CoC / MC2)"
    )
    tp_comm_overlap_links: tuple[Interconnect, ...] | None = Field(
        None, description="the intra-node links (Accelerator.interconnect) its tensor-parallel overlap runs on "
        "(None: no source here restricts it); Transformer Engine's userbuffers need an NVLink domain"
    )
    tp_comm_overlap_source: str | None = None
    engine: str | None = Field(None, description="serving frameworks: the engine they are")
    # memory-saving optimizer options the planner tries when nothing plainer fits (issue: 70B full on 8x 80 GB)
    offload_zero_stages: tuple[int, ...] = Field(
        (), description="ZeRO stages with which it offloads the optimizer states and step to the host CPU (DeepSpeed "
        "ZeRO-Offload offload_optimizer: stages 1-3); empty: no optimizer offload")
    offload_source: str | None = None
    cpu_adam_s_per_param: float | None = Field(
        None, gt=0, description="host seconds per parameter of its CPU Adam step on one node (ZeRO-Offload CPU-Adam)")
    cpu_adam_source: str | None = None
    adamw8bit_stacks: tuple[str, ...] = Field(
        (), description="stacks on which it runs an 8-bit AdamW (bitsandbytes: CUDA), with ZeRO 0 (unsharded)")
    adamw8bit_source: str | None = None
    bf16_grad_bytes_per_param: float | None = Field(
        None, gt=0, description="full training in bf16 (and fp8, which keeps bf16 weights): bytes per parameter of "
        "its gradient buffer where they differ from the weights' 2 (Megatron-Core keeps main_grad in fp32 under bf16: "
        "4); the memory kernel and the gradient all-reduce both read it (estimate.memory.grad_bytes_per_param); None: "
        "the weights' bytes")
    grad_bytes_source: str | None = None
    recompute_off: str | None = Field(
        None, description="the key=value word its launcher takes to switch off the activation (gradient) "
        "checkpointing it runs by default (LLaMA-Factory: disable_gradient_checkpointing=true); a plan without full "
        "recompute says it and `--skypilot` launches with it; None: no checkpointing unless asked")
    recompute_off_source: str | None = None
    default_for: tuple[str, ...] = Field((), description="tasks for which this is the framework most teams use")
    source: str
    note: str | None = None

    @model_validator(mode="after")
    def _grad_bytes_cited(self) -> "Framework":
        if (self.bf16_grad_bytes_per_param is None) != (self.grad_bytes_source is None):  # a number names its source
            raise ValueError(f"bf16_grad_bytes_per_param and grad_bytes_source of {self.id} go together")
        if self.fp8 != (self.fp8_recipe is not None) or self.fp8 != (self.fp8_source is not None):  # FP8 cited
            raise ValueError(f"fp8, fp8_recipe and fp8_source of {self.id} go together")
        if (self.recompute_off is None) != (self.recompute_off_source is None):  # a fact names its source
            raise ValueError(f"recompute_off and recompute_off_source of {self.id} go together")
        return self


class JobSetup(_Strict):
    """Fixed per-job time a rental pays for beyond the compute: environment, model download, checkpoints."""

    id: str
    environment_minutes: FloatField
    download_gbit_per_s: FloatField
    gpu_hours_between_failures: FloatField
    checkpoint_write_gb_per_s: FloatField
    weight_load_gb_per_s: FloatField | None = None  # serving: weights read from local disk into the cards
    source: str
    note: str | None = None


class CostAssumptions(_Strict):
    """World facts the cost answers assume (`assumptions:` in data/catalog/assumptions.yaml), each with its source
    (`assumed` with why where none is published): the one place plan, compare, tco, rent-vs-buy, migrate cost and
    the CLI/API defaults read them from."""

    id: str
    engineer_cny_per_week: FloatField = Field(description="CNY one engineer costs per week (migration one-off)")
    migration_engineers: IntField = Field(description="engineers a migration to another stack takes")
    pue: FloatField = Field(description="data-centre power usage effectiveness of an owned card (rent vs buy)")
    electricity_cny_per_kwh: FloatField = Field(description="CNY per kWh an owned card pays (rent vs buy)")
    amortization_years: FloatField = Field(description="years a bought card is written off over (rent vs buy)")
    host_power_share: FloatField | None = Field(
        None, description="a server's non-card draw (CPUs, memory, NICs, fans) as a share of its cards' TDP, for a "
        "device without a whole-server figure (`Accelerator.server_power_w`; rent vs buy); None: 0")
    source: str
    note: str | None = None


class EfficiencyFactor(_Strict):
    """An empirical efficiency (achieved / peak), labelled empirical, with the measurement that set it.

    `metric`: `matmul` (large-GEMM TFLOPS / dense peak, the prefill ceiling), `decode_bandwidth` (bytes/s read
    while decoding / peak memory bandwidth), `train_mfu` (model FLOPs utilization of a single device's
    training step, communication excluded), `link` (achieved collective bus bandwidth / link peak),
    `decode_step_overhead_s` (seconds an engine adds to every forward pass beyond the roofline: Python and
    kernel-launch time; not a ratio). Diffusion (issue 3): `diffusion_unet` / `diffusion_transformer` (achieved
    share of the `matmul` ceiling for a UNet / a diffusion transformer or text encoder), `diffusion_step_overhead_s`
    (seconds per denoising step beyond the roofline; not a ratio). `collective_overhead_s`: seconds each
    inference collective (tensor-parallel all-reduce, expert all-to-all) adds to the link's latency model at
    small messages (kernel launch, rank skew; issue 12 item 2; not a ratio). `matmul_engine_share`: an engine's
    GEMM throughput as a share of the device's `matmul` efficiency (torch.matmul), on the engine's own roof.
    `linear_call_overhead_s`: seconds each linear layer call adds to a forward pass beyond the roofline where the
    engine's kernel for that precision has a per-call host cost (transformers' fine-grained FP8Linear: two Triton
    launches and a device synchronize per call; not a ratio).
    `moe_routed_overhead_s`: seconds a training step adds per routed token copy and hidden element of every MoE layer
    (forward + backward) beyond the expert GEMMs' FLOPs: router, permute/unpermute, dispatch/combine and grouped-GEMM
    scheduling scale with tokens x top_k x hidden, not with the expert width (issue 12; not a ratio).
    `awq_gemm_share`: the rate at which AWQ's own GEMM kernel (llm-awq gemm_forward_4bit_cuda_m16nXk32, vLLM's
    awq_gemm) reads its packed int4 weights at one token, as a share of the rate the 16-bit path reads 16-bit weights
    on the same device; applied only where the engine release predates its Marlin path (InferenceEngine.awq_marlin_from).
    `eager_step_overhead_s`: `decode_step_overhead_s` of an engine release that predates its graph mode
    (InferenceEngine.graph_mode_from: every operator dispatched from the host), used in its place for such a run.
    `gptq_exllama_share` / `gptq_cuda_old_share`: the same for AutoGPTQ's exllama (v1) and cuda-old kernels at one input
    row, per pass over the packed weights (speed.QUANT_KERNEL_RULES: the workload's `gptq_kernel`).
    `train_mfu_end_to_end`: a published whole-run MFU (communication and pipeline bubble included) on the device; no
    kernel uses it, plan warns where a plan's implied MFU is above it (`plan.warn.mfu_above_published`).
    `family` matches Accelerator.family or `*`; `device` (optional) overrides for one accelerator id, or a list of
    ids where a factor measured on one chip holds for its variants only (A100 runs: the GA100 parts, not the GA102
    cards of the same family).
    `framework` (optional, training): a frameworks.yaml id, or a list of ids where one measured stack runs under two
    rows (Megatron-Core under Megatron-LM and NeMo); the row applies only to workloads run under one of them and is
    then more specific than a row without one (below a precision match, above an engine match).
    `framework_unstated` (with `framework`): the row also applies to a workload that names no framework — a row
    fitted to cases whose framework the catalog does not list, so they name none (mfu-910b: MindFormers on
    MindSpore); frameworks the catalog lists and the row does not name still never get it.
    `derived` / `derived_from` (set by `catalog.load.derived_matmul_efficiency`, not written in data files): a row
    computed from other devices' measurements, `inherited` from a variant's parent (`derived_from`: the parent) or the
    `median` of the devices in `derived_from`; `estimate.efficiency.basis` reads them to say what an estimate used.
    `note_i18n` (set there too): the note of a row suanli derives, as a message, so a Chinese answer says it in
    Chinese. A data file's note has its Chinese twin in `note_zh` instead; `note_message` gives either as a message.
    """

    id: str
    metric: Literal[
        "matmul", "decode_bandwidth", "train_mfu", "link", "decode_step_overhead_s",
        "diffusion_unet", "diffusion_transformer", "diffusion_step_overhead_s", "collective_overhead_s",
        "matmul_engine_share", "linear_call_overhead_s", "moe_routed_overhead_s", "train_mfu_end_to_end",
        "awq_gemm_share", "gptq_exllama_share", "gptq_cuda_old_share", "eager_step_overhead_s",
    ]
    family: str = "*"
    device: str | tuple[str, ...] | None = None
    precision: str = "*"
    engine: str = "*"
    framework: str | tuple[str, ...] | None = None
    framework_unstated: bool = False
    value: float = Field(ge=0, le=1)
    source: str
    note: str | None = None
    note_zh: str | None = Field(None, description="the note in Chinese (a zh answer's efficiency note; JSON keeps `note`)")
    derived: Literal["inherited", "median"] | None = None
    derived_from: tuple[str, ...] = ()
    note_i18n: dict[str, Any] | None = None  # a derived row's note as a message (`Message.to_json`), as `derived`

    @property
    def device_ids(self) -> tuple[str, ...]:
        """The accelerator ids the row is scoped to (empty: every device of its family)."""
        if self.device is None:
            return ()
        return (self.device,) if isinstance(self.device, str) else tuple(self.device)

    @property
    def framework_ids(self) -> tuple[str, ...]:
        """The frameworks.yaml ids the row applies to (empty: any workload)."""
        if self.framework is None:
            return ()
        return (self.framework,) if isinstance(self.framework, str) else tuple(self.framework)

    @property
    def note_message(self) -> dict[str, Any] | None:
        """The note as a message (`Message.to_json`) in each answer's language: a derived row's own (`note_i18n`),
        else a data file's note with its Chinese twin (`note_zh`); None where the row has neither (the note is said
        as it is). The one place an efficiency note's language is chosen (`estimate.efficiency` → API, JSON)."""
        if self.note_i18n is not None:
            return self.note_i18n
        if self.note and self.note_zh:
            return Message("est.efficiency_note", note=both(self.note, self.note_zh)).to_json()
        return None

    @model_validator(mode="after")
    def _ratio_positive(self) -> "EfficiencyFactor":
        if not self.metric.endswith("_overhead_s") and self.value <= 0:
            raise ValueError(f"{self.metric} is a ratio of achieved to peak and must be > 0")
        if (self.derived is None) != (not self.derived_from):
            raise ValueError("derived and derived_from go together: how the row was derived and from which devices")
        return self


class Link(_Strict):
    """A card-to-card or node-to-node link as collectives see it (NCCL/HCCL 'bus bandwidth').

    `bus_gb_per_s` is the achieved per-card all-reduce bus bandwidth (nccl-tests definition), `latency_us` the
    per-step latency of a ring/tree step. `interconnect` matches Accelerator.interconnect; `device` overrides.
    `busbw_half_size_mb` (optional): S_half of the bus bandwidth's saturation with message size,
    busbw(S) = bus_gb_per_s · S / (S + S_half), MB = 1e6 B, read off one cited nccl-tests curve (scaling.busbw_at);
    absent: the bus bandwidth does not depend on the size."""

    id: str
    scope: Literal["intra-node", "inter-node"]
    interconnect: str = "*"
    device: str | None = None
    bus_gb_per_s: FloatField
    latency_us: FloatField
    busbw_half_size_mb: FloatField | None = None
    note: str | None = None
    note_zh: str | None = Field(None, description="the note in Chinese (zh output)")


class Catalog(_Strict):
    """Everything loaded, validated and cross-checked. Pure data: look-ups live in `catalog.lookup`."""

    sources: dict[str, Source]
    accelerators: tuple[Accelerator, ...]
    offers: tuple[Offer, ...]
    purchases: tuple[Purchase, ...]
    models: tuple[ModelArch, ...]
    stacks: tuple[SoftwareStack, ...]
    efficiency: tuple[EfficiencyFactor, ...] = ()
    links: tuple[Link, ...] = ()
    engines: tuple[InferenceEngine, ...] = ()
    frameworks: tuple[Framework, ...] = ()
    setup: tuple[JobSetup, ...] = ()
    unpriced: tuple[Unpriced, ...] = ()
    assumptions: tuple[CostAssumptions, ...] = ()
    #: the user's calibrated factors (`suanli calibrate`'s file, set by `views.estimates.calibrated`; empty in the
    #: packaged catalog): `estimate.efficiency` ranks them as overrides, so every command agrees with `suanli estimate`
    calibration: tuple[EfficiencyFactor, ...] = ()

    @property
    def as_of(self) -> str:
        dates = [s.date for s in self.sources.values() if s.date]
        return max(dates) if dates else dt.date.today().isoformat()
