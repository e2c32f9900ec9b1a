"""Response models of the endpoints whose answers the views do not type: cost answers (compare, tco, value,
migrate; their dicts come from `suanli.plan.compare`), scenarios, the store's rows (price history, imports,
saved plans, benchmark results) and /api/info. The views' shapes (`PlanJson`, `EstimateJson`, `AcceleratorRow`,
…) live beside the functions that build them (`suanli.views`); the core's own models (`Plan`, `Scenario`,
`Source`, `BenchResult`, `MigrationTCO`) are reused, not copied.

Every shape keeps a key it does not name (`suanli.views.shape.Shape`), and `tests/unit/api/test_responses.py`
fails on one, so a new field shows up as a test failure rather than vanishing from the API."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from suanli.plan.cost import MigrationTCO
from suanli.plan.request import PlanRequest
from suanli.plan.search import Plan
from suanli.views.estimates import MemoryVerdictJson
from suanli.views.plans import PlanJson
from suanli.views.shape import MessageJson, Shape

__all__ = [
    "BenchSaved",
    "CompareLayout",
    "CompareRow",
    "CompareServed",
    "ImportResultJson",
    "ImportRow",
    "Info",
    "LibraryUsed",
    "MigrateAnswer",
    "MigrateCheckAnswer",
    "OfferFacts",
    "PriceRow",
    "RollbackJson",
    "SavedPlan",
    "SavedPlanRow",
    "ScenarioAnswer",
    "TcoRow",
    "ValueRow",
]


class OfferFacts(Shape):
    """The offer an answer cites (`suanli.plan.compare.offer_facts`)."""

    offer: str
    provider: str
    provider_i18n: MessageJson | None = Field(None, description="provider as a message (id, params): the catalog's "
                                              "Chinese name (provider_zh) in Chinese")
    kind: str = Field(description="listing, index, reference or contract (the buyer's own imported price)")
    region: str
    international: bool
    scope: str = Field(description="what is rented, in words (1 card, 8-card node, …)")
    scope_i18n: MessageJson | None = Field(None, description="scope as a message (id, params)")
    date: str
    url: str | None
    source: str
    second_hand: bool = Field(False, description="the price was read through a third party (a scraper's files, a "
                              "user's notes, an index): 'quoted via a third party', zh 转引")
    stale: str | None = Field(description="a warning when the price is older than 12 months, else null")
    stale_i18n: MessageJson | None = Field(None, description="stale as a message (id, params), else null")


class CompareLayout(Shape):
    """The parallel layout of one compare row (`suanli.plan.compare._layout_facts`)."""

    label: str = Field(description="e.g. tp2 × 4 replicas · batch 1 · vllm, or tp1·pp1·dp8·z3·mb2·ga4 · recompute full")
    label_i18n: MessageJson | None = Field(None, description="label as a message (id, params)")
    framework: str | None = Field(description="training framework the planner picked, else null")
    engine: str | None = Field(description="serving engine, else null")
    gpus: int
    tp: int
    pp: int
    vpp: int
    dp: int = Field(description="data-parallel ranks (training) or replicas (serving)")
    ep: int
    zero: int
    recompute: str
    batch: int = Field(description="micro-batch (training) or concurrent sequences per replica (serving)")
    grad_accum: int
    tp_comm_overlap: bool
    flash_attention: bool
    precision: str
    pinned: list[str] = Field(description="the dimensions the request pinned (tp, pp, zero, recompute)")


class CompareServed(Shape):
    """A serving compare row's request rate as served (`suanli.plan.compare._served_facts`): the planner's serving
    search at the row's tp, at the batch each replica runs to carry the rate."""

    requests_per_s: float
    output_tokens_per_s: float = Field(description="the output tokens/s served at the run batch (the rate's)")
    tp: int
    replicas: int
    batch: int = Field(description="concurrent sequences each replica runs to carry the rate (the row's layout "
                       "batch is the capacity's)")
    tpot_s: float | None = Field(description="the steady-state TPOT at the run batch (decode step + the batch's "
                                 "prefill over the output, as plan's rows)")
    ttft_s: float | None = Field(description="a joining request's time to first token at the run batch")
    memory_needed_bytes: float = Field(description="per card at the run batch, as plan's memory_needed_bytes")
    capacity_share: float | None = Field(description="output_tokens_per_s over the row's tokens_per_s (capacity)")
    note: str
    note_i18n: MessageJson | None = Field(None, description="note as a message (id, params)")


class CompareRow(MemoryVerdictJson):
    """One device of POST /api/compare: the same job's memory, speed, hours and cheapest cost."""

    model_id: str = Field(description="the Hugging Face checkpoint the job downloads (training: the base, serving: the "
                          "instruction-tuned one; a full id as typed), as POST /api/plan's model_id")
    device: str
    device_name: str
    device_name_i18n: MessageJson | None = Field(None, description="device_name as a message: the vendor's Chinese "
                                                 "name in Chinese where the catalog has one")
    layout: CompareLayout = Field(description="the layout this row ran: the device's fastest on exactly `gpus` cards, "
                                  "pinned dimensions kept; `suanli estimate` with it gives the row's numbers")
    layout_note: str | None = Field(description="why no layout fits (plan's why-not sentence; the leanest layout a "
                                    "framework runs is shown, or a plain one where the device has no framework), else null")
    layout_note_i18n: MessageJson | None = Field(None, description="layout_note as a message, else null")
    calibration: str | None = Field(None, description="the calibration file's factors this row's estimate used "
                                    "(`suanli calibrate`; as `suanli estimate` applies them), else null")
    calibration_i18n: MessageJson | None = Field(None, description="calibration as a message, else null")
    serving_rule: str | None = Field(None, description="serving: how the batch per replica was chosen (the planner's "
                                     "serving search within the request's targets, else a 200 ms TPOT; or --batch)")
    serving_rule_i18n: MessageJson | None = Field(None, description="serving_rule as a message, else null")
    period_note: str | None = Field(None, description="serving a rate or a stated period (hours/days): the period its "
                                    "hours and cost are billed for, as POST /api/plan bills it; else null")
    period_note_i18n: MessageJson | None = Field(None, description="period_note as a message, else null")
    users_note: str | None = Field(None, description="with concurrent_users: the request rate they send (Little's "
                                   "law, as plan says it), else null")
    users_note_i18n: MessageJson | None = Field(None, description="users_note as a message, else null")
    tpot_s: float | None = Field(None, description="serving: the time per output token at the row's batch, the kind "
                                 "`tpot_kind` names")
    tpot_kind: str | None = Field(None, description="serving: `steady` (a rate or a TPOT stated: the steady-state TPOT "
                                  "a user sees, decode step + the batch's prefill ÷ output tokens) or `decode_step` (a "
                                  "batch job: --batch, or no rate and no TPOT); null for training")
    served: CompareServed | None = Field(None, description="serving with requests_per_s: the rate served at the batch "
                                         "each replica runs (the row's layout and tokens_per_s are its capacity); "
                                         "null without a rate or where the cards cannot carry it (layout_note says why)")
    max_requests_per_s: float | None = Field(None, description="serving with a rate or a TPOT: the most requests/s "
                                             "these cards serve at the row's tp within the targets (rounded down), "
                                             "the largest rate POST /api/plan serves on them; else null")
    comfortable_requests_per_s: float | None = Field(None, description="where plan warns of a thin margin (TPOT, TTFT "
                                                     "or memory within the stack's known error) below "
                                                     "max_requests_per_s: the rate up to which it does not; else null")
    max_users: int | None = Field(None, description="with concurrent_users: the most concurrent users these cards "
                                  "hold within the targets over every tp (or the pinned one), one slot of the "
                                  "running batch each — the largest count POST /api/plan accepts on them; else null")
    capacity_note: str | None = Field(None, description="max_requests_per_s (and comfortable_requests_per_s) in "
                                      "words, where the row has no layout_note; else null")
    capacity_note_i18n: MessageJson | None = Field(None, description="capacity_note as a message, else null")
    memory_per_gpu_bytes: float = Field(description="everything the card holds per device: the breakdown's sum, a "
                                        "pre-allocating engine's unused KV pool included (what nvidia-smi shows)")
    memory_capacity_bytes: float | None
    memory_needed_bytes: float | None = Field(None, description="what must fit, as plan's memory_needed_bytes: the "
                                              "breakdown less an engine's unused KV pool (plan's GiB/card: needed / "
                                              "usable)")
    memory_usable_bytes: float | None = Field(None, description="what the workload may use, as plan's "
                                              "memory_usable_bytes: capacity × (1 − the stack's fragmentation), or "
                                              "the engine's pre-allocated share; null without the memory size")
    memory_pool_note: str | None = Field(None, description="a pre-allocating engine (vLLM gpu_memory_utilization): "
                                         "its share, what the card holds in use and the needed / usable GiB; else "
                                         "null")
    memory_pool_note_i18n: MessageJson | None = Field(None, description="memory_pool_note as a message, else null")
    breakdown_bytes: dict[str, float]
    fits: bool | None
    runs: bool = Field(True, description="false when the row does not fit in memory or no framework runs its layout: it "
                       "never runs and is not priced; its tokens_per_s is what it would reach if it did (as an estimate's "
                       "`runs`), null where no framework runs it")
    tokens_per_s: float | None
    load_output_tokens_per_s: float | None = Field(None, description="serving: the output tokens/s the row's bill is "
                                                   "for — with requests_per_s (or concurrent_users) that rate × output "
                                                   "tokens, null where the cards do not carry it (served is null); "
                                                   "without a rate the capacity the row quotes (tokens_per_s); null "
                                                   "for training and a row that does not fit")
    cny_per_million_output_tokens: float | None = Field(None, description="serving: cost_cny per million output "
                                                        "tokens served at load_output_tokens_per_s over the hours the "
                                                        "period serves (a stated period less its set-up, as POST "
                                                        "/api/plan's plans count it); null without a cost or a load")
    cny_per_million_basis: str | None = Field(None, description="serving: `rate` (the stated or users' rate, the load "
                                              "the row is sized for) or `capacity` (no rate: the row's tokens_per_s); "
                                              "null for training")
    scaling_efficiency: float
    hours: float | None = Field(description="null without tokens, or when the job does not fit")
    cost_cny: float | None
    offer: str | None
    notes: list[str] = Field([], description="the offer's bill in words, as tco's notes: the billing-rounding note "
                             "(most paid hours unused: rounding up or the minimum term), a machine or block rented "
                             "whole; empty without a cost")
    notes_i18n: list[MessageJson] = Field([], description="notes as messages (id, params)")
    cny_per_card_hour: float | None
    card_hour_billing_unit: str | None = Field(description="billing unit of the offer behind cny_per_card_hour (hour, "
                                               "or a longer unit at full use)")
    job_cny_per_card_hour: float | None = Field(None, description="this job's, tco's effective_cny_per_card_hour: "
                                                "cost_cny ÷ cards ÷ hours (idle cards of a whole instance or a "
                                                "minimum term count); null without a cost")
    dense_tflops: float | None
    effective_tflops_per_cny_hour: float | None = Field(description="dense TFLOPS × scaling per ¥ of "
                                                        "job_cny_per_card_hour (of cny_per_card_hour without a cost)")
    value_basis: Literal["job", "hourly", "full_use"] | None = Field(
        None, description="the price effective_tflops_per_cny_hour divides by: job (job_cny_per_card_hour), hourly "
        "(an hourly offer's price for one card-hour) or full_use (a longer billing unit's price per card-hour at full "
        "use, a month = 730 h); null without a price")
    stack: str
    evidence: str | None = Field(None, description="what the out-of-sample validation cases say about tokens_per_s "
                                 "on this device's stack (their number and median signed error), else null")
    evidence_i18n: MessageJson | None = Field(None, description="evidence as a message, else null")
    precision_note: str | None = Field(None, description="an FP8 checkpoint run in 16-bit here (converted: 2x the "
                                       "weights; training upcasts), or a quantized precision of which no checkpoint is "
                                       "published for the row's stack (quantize it first; the model's cited list), "
                                       "else null; the row's precision is layout.precision")
    precision_note_i18n: MessageJson | None = Field(None, description="precision_note as a message, else null")
    offer_warnings: list[str] = Field([], description="what the row's offer leaves out of its card, as POST /api/plan "
                                      "warns of it: a 910B without its variant (B1…B4), an A100/A800 node without its "
                                      "form factor or memory size; each says the part assumed and the row's layout "
                                      "re-estimated on every other part it may be; then plan's export-control "
                                      "warning on a device controlled for China; empty: none")
    offer_warnings_i18n: list[MessageJson] = Field([], description="offer_warnings as messages (id, params)")
    domestic: bool
    region: str = Field(description="the offers' region the prices came from: cn, any or international")
    offer_kinds: list[str]
    offer_facts: OfferFacts | None
    no_price: str | None = Field(description="why there is no usable price, else null")
    no_price_i18n: MessageJson | None = Field(None, description="no_price as a message, else null")


class TcoRow(OfferFacts):
    """One usable offer of POST /api/tco: the cost of holding the cards for the hours, in plan's order (offers that
    hold the cards as one job first; within them fresh prices before stale ones, `stale` set; then the cheapest).
    `region` is the request's region (cn, any or international); `international` marks the offer."""

    billing_unit: str
    units_billed: int
    cards_rented: int
    cost_cny: float
    cost_cny_max: float
    list_cny_per_card_hour: float = Field(description="the offer's price per card-hour at full use (a month = 730 h), "
                                          "as compare shows it")
    effective_cny_per_card_hour: float = Field(description="this job's: the bill ÷ cards ÷ hours")
    notes: list[str]
    notes_i18n: list[MessageJson] = Field([], description="notes as messages (id, params)")
    one_job: bool = Field(True, description="one instance of the offer (or spanning ones) holds the cards as one job, "
                          "plan's rule (offers.can_rent); false: separate instances, which plan rents only for serving "
                          "replicas a single instance holds (listed after every offer that holds the job)")
    offer_kinds: list[str]
    cny_per_million_tokens: float | None = Field(None, description="only with tokens_per_s")
    subsidy: float = Field(0.0, description="share of the bill the subsidy refunds (0: none); cost_cny, "
                           "cost_cny_max, effective_cny_per_card_hour and cny_per_million_tokens are after it")
    gross_cost_cny: float | None = Field(None, description="the bill before the subsidy (cost_cny without it)")
    subsidy_note: str | None = Field(None, description="the subsidy in words: share, gross → net; null: none")
    subsidy_note_i18n: MessageJson | None = None


class FrameworkRow(Shape):
    """A training framework or serving engine the planner knows (frameworks.yaml): POST /api/plan's `framework`."""

    id: str
    name: str
    tasks: list[str] = Field(description="the tasks it runs (inference: a serving engine)")
    stacks: list[str] = Field(description="the software stacks it runs on (cuda, cann, …)")
    engine: str | None = Field(description="serving frameworks: the engine they are, else null")


class ValueRow(Shape):
    """GET /api/value: dense TFLOPS per CNY-per-card-hour (每元有效TFLOPS), best first."""

    device: str
    device_name: str
    device_name_i18n: MessageJson | None = Field(None, description="device_name as a message (the vendor's Chinese "
                                                 "name in Chinese where the catalog has one)")
    vendor: str
    domestic: bool
    cny_per_card_hour: float
    card_hour_billing_unit: str = Field(description="the offer's billing unit: hour, or a longer unit at full use")
    card_hour_basis: Literal["hourly", "full_use"] = Field(
        description="how cny_per_card_hour was priced: hourly (an hourly offer exists: one card for one hour, a fresh "
        "price before a stale one, then the lowest) or full_use (no hourly offer: the longer billing unit's price ÷ "
        "its cards ÷ its hours at full use, a month = 730 h)")
    dense_tflops: float
    effective_tflops_per_cny_hour: float
    offer: str
    offer_kind: str
    international: bool
    region: str
    offer_kinds: list[str]


class MonthlyRent(Shape):
    """The new side's monthly bill for the old spend's work (`plan.cost.WorkRent`): the offer, its billing unit."""

    offer_id: str
    billing_unit: str = Field(description="the offer's billing unit (hour, day, week, month, year)")
    gpus: int = Field(description="cards each replica of the layout runs on")
    replicas: int = Field(description="copies of the layout run side by side to do a month's work within the month")
    cards_rented: int = Field(description="cards paid for: replicas × whole instances")
    hours_per_month: float = Field(description="hours each replica runs a month")
    units_per_month: float = Field(description="billing units paid a month, per replica")
    held: bool = Field(description="true: the cards are held the whole horizon (cheaper than a rental each month)")
    cost_cny_per_month: float
    note: str
    note_i18n: MessageJson


class DerivedPrice(Shape):
    tokens_per_s_8_cards: float
    cny_per_card_hour: float
    offer: str
    gpus_asked: int | None = Field(None, description="the cards this side's row is asked on: gpus, or with a "
                                   "requests_per_s both sides carry, the cards its rate_bill rents (workload.gpus: "
                                   "fewer where no usable offer rents that many)")
    workload: dict[str, Any] | None = Field(None, description="the workload the tokens/s is at: task, gpus, tp, "
                                                               "batch (serving: replicas and the batch per replica "
                                                               "of compare's serving rule, tpot_target_s, batch_rule)")
    layout_note: str | None = Field(None, description="serving: why no layout met the TPOT target (batch 1 then)")
    layout_note_i18n: MessageJson | None = Field(None, description="layout_note as a message (id, params)")
    evidence: str | None = Field(None, description="what the out-of-sample validation cases say about this speed on "
                                 "the device's stack (their number and median signed error), else null")
    evidence_i18n: MessageJson | None = Field(None, description="evidence as a message, else null")
    offer_warnings: list[str] = Field([], description="what `offer` leaves out of its card, as POST /api/plan warns "
                                      "of it (a 910B without its variant, an A100/A800 node without its form factor "
                                      "or memory size), the layout re-estimated on every other part it may be; then "
                                      "plan's export-control warning on a device controlled for China; empty: none")
    offer_warnings_i18n: list[MessageJson] = Field([], description="offer_warnings as messages (id, params)")
    # the subsidy on the domestic side (subsidy > 0 only), as POST /api/tco's rows carry it (plan.cost.job_cost)
    subsidy: float | None = Field(None, description="share of the domestic side's rent a local subsidy refunds")
    gross_cost_cny: float | None = Field(None, description="the rent over the horizon before the subsidy")
    cost_cny: float | None = Field(None, description="the rent over the horizon after the subsidy")
    horizon_hours: float | None = Field(None, description="the hours the rent is for (horizon_months × 730)")
    subsidy_note: str | None = Field(None, description="the subsidy in words: share, gross → net")
    subsidy_note_i18n: MessageJson | None = Field(None, description="subsidy_note as a message (id, params)")
    monthly_rent: MonthlyRent | None = Field(None, description="the new side only: its bill for the work the old "
                                             "spend buys, priced as plan prices an offer (plan.cost.work_rent)")
    rate_bill: dict[str, Any] | None = Field(None, description="a stated requests_per_s or concurrent_users: this "
                                             "side sized and billed for it as POST /api/plan does (carried, gpus, tp, "
                                             "ep, replicas, batch, precision, framework, engine, offer, "
                                             "monthly_cost_cny, note; precisions_searched: those plan picked among "
                                             "without a precision; max_gpus: the card limit it was sized within, "
                                             "gpus_pinned: the request's gpus it was billed on exactly, "
                                             "cards_needed: the cards a side the limit stops needs); where carried, "
                                             "workload is this layout; the saving is the difference of the two sides' "
                                             "monthly_cost_cny")


class OneOffItemJson(Shape):
    """One line of the one-off cost (`plan.cost.OneOffItem`)."""

    item: str = Field(description="labour, test_instance or parallel_run")
    cost_cny: tuple[float, float] = Field(description="low and high, CNY")
    note: str
    note_i18n: MessageJson


class MeasuredErrorSaving(Shape):
    """The saving at the error the target stack's own few out-of-sample cases measured (`plan.compare._thin_evidence`),
    given where the verdict is unproven and the stack has at least one case."""

    group: str = Field(description="decode-speed (inference) or training-throughput")
    bias_pct: float = Field(description="the stack's own median signed error, % (not shrunk; +: estimate faster)")
    cases: int = Field(description="the stack's out-of-sample cases of the group (an MoE model: its MoE cases)")
    case_ids: list[str] = Field(description="their ids in the validation files (empty where their number is not the "
                                "band's)")
    from_bias_pct: float = Field(description="the source side's known (pooled) median signed error, %")
    monthly_cost_to_cny: float = Field(description="the new side's monthly bill at that error")
    monthly_saving_cny: float = Field(description="the spend less that bill (negative: the bill rises)")
    note: str
    note_i18n: MessageJson


class LibraryUsed(Shape):
    """A CUDA-era library the model uses (`migrate.libraries.LibraryUse`: from `uses`, or a config's fields)."""

    id: str
    via: str = Field(description="the config field and value, --uses, or the released checkpoint (checkpoint: FP8 ...)")
    via_zh: str | None = Field(None, description="via in Chinese where it is a sentence (the released checkpoint's)")
    status: str = Field(description="npu (runs on Ascend), replace (no NPU build; replaced), none, unknown")
    replacement: str | None = None
    message: str
    message_zh: str | None = None
    sources: list[str] = Field(default_factory=list, description="URLs (or owner/repo:path)")


class OfferUsed(OfferFacts):
    device: str
    cny_per_card_hour: float


class KnownErrorSaving(Shape):
    """The saving if the target stack's speed is off by its known signed error (`plan.compare.saving_if_known_error`)."""

    group: str = Field(description="the speed group: decode-speed (inference) or training-throughput")
    bias_pct: float = Field(description="the pooled median signed error used, % (+: the estimate faster than measured)")
    cases: int = Field(description="the target stack's out-of-sample cases (0: all stacks' figure alone)")
    stack_signed_pct: float | None = Field(None, description="the stack's own median signed error, %")
    all_stacks_signed_pct: float | None = Field(None, description="all stacks' median signed error, %")
    all_stacks_cases: int
    prior_cases: int = Field(description="k, the assumed weight of all stacks' figure in cases")
    from_bias_pct: float | None = Field(None, description="the source device's pooled median signed error, %: the "
                                        "ratio becomes ratio × (1 + bias_pct/100) / (1 + from_bias_pct/100)")
    from_cases: int | None = Field(None, description="the source stack's out-of-sample cases")
    cost_ratio_same_work: float
    monthly_saving_cny: float
    same_bill: bool = Field(False, description="true: the new side's bill, in whole instances of its offer, carries "
                            "the slower work unchanged, so the ratio moves and the monthly saving does not")
    note: str
    note_i18n: MessageJson


class MigrateAnswer(MigrationTCO):
    """POST /api/migrate: `MigrationTCO` plus what it was derived from."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    model: str = Field(description="the Hugging Face checkpoint the task downloads (training: the base, serving: "
                       "the instruction-tuned one; a full id as typed), as POST /api/plan's model_id")
    preset: str = Field(description="the catalog preset behind `model`")
    gpus: int = Field(8, description="the cards each side's tokens/s is asked on (the request's gpus); a side's "
                      "derived workload.gpus is fewer where no usable offer rents that many")
    from_: str = Field(alias="from", description="the device used today")
    to: str
    stack: str
    weeks_reason: str
    weeks_reason_i18n: MessageJson | None = Field(None, description="weeks_reason as a message (id, params)")
    task: str = Field(description="the workload kind the saving is derived from")
    monthly_spend_cny: float = Field(description="CNY per month on compute today: the request's monthly_spend, else "
                                     "the assumed default (monthly_spend_default true)")
    monthly_spend_default: bool = Field(description="true when monthly_spend was not given and the assumed default "
                                        "(seed-000 §4's worked example) was used")
    monthly_spend_note: str = Field(description="the spend used, in words, marked when it is the default")
    monthly_spend_note_i18n: MessageJson = Field(description="monthly_spend_note as a message (id, params)")
    workload_note: str | None = Field(None, description="the workload behind the saving in words; null when given")
    workload_note_i18n: MessageJson | None = Field(None, description="workload_note as a message (id, params)")
    derived: dict[str, DerivedPrice | float] = Field(
        description="per device: tokens/s on 8 cards and the card-hour price behind the saving, and "
        "cost_ratio_same_work; empty when the saving was given")
    one_off_items: list[OneOffItemJson] = Field(default_factory=list, description="what one_off_cost_cny adds up: "  # type: ignore[assignment]
                                                "labour; with a derived saving the test instance and the parallel run")
    measured_error: MeasuredErrorSaving | None = Field(
        None, description="unproven verdicts: the saving at the target stack's own measured error; else null")
    parallel_weeks: float = Field(description="weeks both sides are paid in the parallel run (the one-off's item)")
    parallel_weeks_default: bool = Field(description="true: parallel_weeks is the assumed default (2), not given")
    if_known_error: KnownErrorSaving | None = Field(
        None, description="the saving if the target stack's speed is off by its known (pooled) signed error; null "
        "when the saving was given or no bands are stored")
    libraries: list[LibraryUsed] = Field(default_factory=list, description="the libraries `uses` named; one with no "
                                         "NPU build charges the weeks `suanli migrate check` charges")
    region: str
    offer_kinds: list[str]
    offers_used: list[OfferUsed]
    calibration: str | None = Field(None, description="the calibration file's factors the derived saving's "
                                    "estimates used (`suanli calibrate`); null when none applied or the saving was given")
    calibration_i18n: MessageJson | None = Field(None, description="calibration as a message, else null")


class CheckOp(Shape):
    """One traced operator of POST /api/migrate/check (`migrate.coverage.OpRow`)."""

    op: str = Field(description="aten operator as native_functions.yaml spells it, or a non-aten one")
    calls: int
    status: str = Field(description="npu, composite, composite-fallback, cpu-fallback or non-aten")
    impl_ns: str | None = Field(description="torch_npu kernel families, e.g. acl_op+op_api")
    fused: str | None = Field(description="torch_npu fused replacement that absorbs this op")
    falls_back: dict[str, int] = Field(description="for composites: leaf ops that fall back, with calls")
    note: str | None
    note_i18n: MessageJson | None = Field(None, description="note as a message (id, params)")


class CheckFused(Shape):
    id: str
    api: str = Field(description="the torch_npu call, e.g. torch_npu.npu_rms_norm")
    replaces: str
    replaces_zh: str | None = Field(None, description="replaces in Chinese (shown as replaces with ?lang=zh)")
    available: bool = Field(description="the chosen torch_npu version registers it")
    matched_modules: list[str]
    source: str


class CheckAdaptedList(Shape):
    stack: str
    name: str
    name_zh: str | None
    use: str = Field(description="inference, training or both")
    listed: bool | None = Field(description="null when the catalog has no adapted list for the stack")
    source: str | None
    matched: str | None = Field(description="the list's entry the model was found as")


class CheckMatch(Shape):
    """What the adapted-list look-up went by (`migrate.identity.ListIdentity`)."""

    basis: str
    preset: str | None
    presets: list[str]
    text: str
    text_i18n: MessageJson | None = Field(None, description="text as a message (id, params)")


class CheckTrace(Shape):
    device: str = Field(description="meta (no memory), or cpu for a shrunk copy (MoE routing)")
    seq_len: int | None
    shrunk: dict[str, list[int]] = Field(description="config field -> [full, traced] when a shrunk copy was traced")
    kept_whole: list[str]
    distinct_ops: int
    op_calls: int
    torch_version: str | None
    build_s: float | None
    trace_s: float | None
    cached: bool = Field(description="read from the server's trace cache, not traced now")


class MigrateCheckAnswer(Shape):
    """POST /api/migrate/check: `suanli migrate check --json`, its sentences in the request's language (their
    messages in the `*_i18n` fields)."""

    model: str
    task: str = Field(description="inference or training: what was traced")
    torch_npu_version: str
    torch_npu_requires: str
    ops: list[CheckOp]
    fallback_ops: dict[str, int] = Field(description="operators torch_npu runs on the CPU, with calls")
    non_aten_ops: dict[str, int] = Field(description="operators outside aten: they need their own NPU kernel")
    verdict: str = Field(description="npu-native, cpu-fallback, needs-port, or needs-check (a library the catalog "
                                     "has no Ascend source for, on an otherwise clean trace)")
    verdict_text: str
    verdict_text_i18n: MessageJson | None = None
    libraries: list[LibraryUsed]
    fused: list[CheckFused]
    adapted_lists: list[CheckAdaptedList]
    warnings: list[str]
    warnings_i18n: list[MessageJson] = Field(default_factory=list, description="warnings as messages")
    migration_weeks: list[float] | None = Field(description="calendar weeks (low, high) for the migration engineers")
    migration_basis: str
    migration_basis_i18n: MessageJson | None = None
    migration_engineers: int
    migration_person_weeks: list[float] | None = Field(description="migration_weeks × migration_engineers")
    trace: CheckTrace
    adapted_match: CheckMatch | None


class ScenarioAnswer(Shape):
    """GET /api/scenarios/{id}: a seed article's scenario, its answer and the planner's."""

    id: str
    title: str
    source: str
    seed_answer: list[str]
    seed_reason: str
    plan_input: dict[str, Any] = Field(description="the fields of the plan request the scenario makes")
    assumption: str
    assumption_i18n: MessageJson | None = Field(None, description="assumption as a message (id, params)")
    planner_answer: str | None
    planner_plan: Plan | None
    seed_best_plan: Plan | None
    agrees: bool
    explanation: str
    explanation_i18n: MessageJson | None = Field(None, description="explanation as a message (id, params)")
    region: str
    offer_kinds: list[str]


class PriceRow(Shape):
    """One row of the price history (GET /api/prices, /api/offers/{id}/history)."""

    id: int
    offer_id: str
    device: str
    cards: int
    billing_unit: str
    price_cny: float
    price_cny_max: float | None
    date: str
    source: str
    origin: str = Field(description="packaged, import or update")
    import_id: int | None
    rolled_back: bool
    recorded_at: str


class ImportRow(Shape):
    """GET /api/imports: one import, and its rollback if any."""

    id: int
    filename: str
    file_sha256: str
    format: str
    rows: int
    new_prices: int
    via: str
    imported_at: str
    forced: bool
    rolled_back_at: str | None
    rolled_back_via: str | None


class ImportResultJson(Shape):
    """POST /api/offers/import and /api/offers/{id}/prices: what the import added."""

    file: str
    format: str
    rows: int
    new_prices: int
    unchanged: int
    new_offers: int
    new_sources: int
    import_id: int | None = Field(description="what a rollback takes; null when nothing was new")
    stale: int = Field(0, description="rows dated more than 12 months ago (written: answers warn about them)")
    stale_warning: str | None = Field(None, description="one line naming how many and the oldest, else null")
    stale_warning_i18n: MessageJson | None = Field(None, description="stale_warning as a message (id, params)")


class RollbackJson(Shape):
    """POST /api/imports/{import_id}/rollback: what the rollback removed."""

    import_id: int
    filename: str
    prices_rolled_back: int
    rolled_back_at: str
    via: str


class SavedPlanRow(Shape):
    """GET /api/plans: one saved plan, without its result."""

    id: int
    name: str | None
    model: str
    created_at: str
    request: PlanRequest | dict[str, Any] = Field(
        union_mode="left_to_right", description="the plan request (as saved: an older version's may differ)")


class SavedPlan(SavedPlanRow):
    """GET /api/plans/{id}: the saved plan and its result."""

    catalog_version_id: int | None
    result: PlanJson | dict[str, Any] = Field(
        union_mode="left_to_right", description="the plan answer as it was saved (an older version's may differ)")


class BenchSaved(Shape):
    id: str = Field(description="the stored result's id")


class CatalogVersion(Shape):
    id: int
    data_sha256: str
    suanli_version: str
    seeded_at: str


class Counts(Shape):
    sources: int
    offers: int
    price_history: int
    imports: int
    saved_plans: int
    bench_results: int


class PlanCacheInfo(Shape):
    size: int
    hits: int
    misses: int


class Info(Shape):
    """GET /api/info: database kind and revision, catalog versions, row counts (the URL redacted)."""

    url: str = Field(description="the database URL without password, query secrets or host path")
    dialect: str
    revision: str | None
    head: str | None
    catalog_versions: list[CatalogVersion]
    packaged_catalog_sha256: str
    counts: Counts
    version: str
    writes_enabled: bool
    catalog_as_of: str | None
    plan_cache: PlanCacheInfo
