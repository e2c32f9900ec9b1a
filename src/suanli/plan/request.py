"""What the user asks the planner: a workload, constraints and an objective (flags or a YAML file)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from suanli.catalog import lookup
from suanli.catalog.offers import DEFAULT_STALE_MONTHS
from suanli.errors import InputError, echoed, validation_message
from suanli.i18n import Message, render
from suanli.units import HOURS_PER_MONTH

if TYPE_CHECKING:
    from suanli.catalog.schema import Catalog
    from suanli.plan.search import PlanResult

__all__ = ["NAME_FIELDS", "PLAN_PRECISIONS", "catalog_names", "DEFAULT_GLOBAL_BATCH", "DEFAULT_INPUT_TOKENS", "DEFAULT_LENGTHS", "DEFAULT_OUTPUT_TOKENS", "MAX_CONCURRENT_USERS", "SLOW_TPOT_S", "OBJECTIVES", "PlanRequest", "make_request", "serving_task_refusal", "rate_from_users", "user_speed_tpot", "with_rate_note"]

OBJECTIVES = ("cheapest", "fastest", "best-value", "fastest-within-budget")
MAX_CONCURRENT_USERS = 10_000_000
_MAX_REQUESTS_PER_S = 1e6  # requests_per_s's own bound below
# serving settings and the engine that serves: given without a task they make it inference (README: `suanli plan …
# --requests-per-s 5`); beside a training task, refused (`serving_task_refusal`; --engine was ignored, review C F15)
_SERVING_FIELDS = ("requests_per_s", "concurrent_users", "ttft_s", "tpot_s", "tokens_per_s_per_user", "engine")
# serving request lengths when none are given (plan's `input`/`output`; compare and migrate cost take these too)
DEFAULT_INPUT_TOKENS = 512
DEFAULT_OUTPUT_TOKENS = 256
DEFAULT_LENGTHS = (DEFAULT_INPUT_TOKENS, DEFAULT_OUTPUT_TOKENS)
# sequences per optimizer step when none is given: plan's, compare's and migrate's training rows, and the layout a
# training estimate that does not fit is pointed to (one default: task F.1, the hint stepped one sequence a step)
DEFAULT_GLOBAL_BATCH = 64
# the precisions plan searches (search.SERVE_PRECISIONS, in that order); `precision` takes one, a comma list or `any`
PLAN_PRECISIONS = ("bf16", "fp8", "int8", "int4")
SLOW_TPOT_S = 1.0  # assumed: a TPOT target over 1 s per token is most likely tokens/s typed as seconds (30 → 1/30 s)


class _Refused(ValueError):
    """A whole-request check's refusal with its catalog message (`make_request` and the API render it)."""

    def __init__(self, text: str, i18n: Message) -> None:
        self.i18n = i18n
        super().__init__(text)


def rate_from_users(users: float, output_tokens: int, tpot_s: float, ttft_s: float = 0.0) -> float:
    """Requests per second that `users` concurrent users send when each sends its next request as soon as the last
    answer has streamed: each request spends W = TTFT + output × TPOT in the system and L = users are in it.
    Little's law, L = λW (J. D. C. Little 1961, Operations Research 9(3):383-387, doi:10.1287/opre.9.3.383)."""
    return users / (ttft_s + output_tokens * tpot_s)


def user_speed_tpot(tokens_per_s_per_user: float | None, tpot_s: float | None) -> float | None:
    """The TPOT a serving request asks for: `tpot_s`, or 1 / `tokens_per_s_per_user` (the streaming speed each user
    sees; README: `--tokens-per-s-per-user 30` is `--tpot 0.0333`). Both given must agree, else a refusal naming
    `tokens_per_s_per_user` (`_Refused`, a ValueError carrying its message). Plan and compare read it so."""
    if tokens_per_s_per_user is None:
        return tpot_s
    tpot = 1.0 / tokens_per_s_per_user
    if tpot_s is not None and abs(tpot_s - tpot) > 1e-9 * tpot:
        raise _Refused("tokens_per_s_per_user: give it or tpot_s (--tpot), not both (TPOT = 1 / tokens per "
                       "second per user)", Message("error.tps_user_not_both", field="tpot_s"))
    return tpot


def serving_task_refusal(given: list[str], task: str) -> _Refused:
    """The one refusal of serving settings (`given`: their fields, each said as the CLI's flag or the page's field)
    beside training task `task`, which would ignore them: plan's request and `suanli estimate` / POST /api/estimate
    (an engine named for a training estimate, buyer review C, F15)."""
    named: Message = Message("input.name", field=given[-1])
    for f in reversed(given[:-1]):
        named = Message("relax.pins", first=Message("input.name", field=f), rest=named)
    return _Refused(f"{given[0]}: {', '.join(given)} can only be used when serving (task inference), and task {task} "
                    f"was given: leave task out, or give inference", Message("error.req.serving_task", fields=named,
                                                                             given=task))


class PlanRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    model: str
    task: Literal["inference", "lora", "qlora", "full", "pretrain"] = "lora"
    # training
    tokens: float | None = Field(None, gt=0, le=1e16, description="tokens to train on (training tasks)")
    seq: int = Field(2048, ge=16, le=1_048_576)
    global_batch: int = Field(DEFAULT_GLOBAL_BATCH, ge=1, le=1_000_000, description="sequences per optimizer step")
    # serving
    requests_per_s: float | None = Field(None, gt=0, le=_MAX_REQUESTS_PER_S)
    concurrent_users: int | None = Field(
        None, ge=1, le=MAX_CONCURRENT_USERS, description="serving: users streaming at once, instead of requests_per_s "
        "(needs tpot_s; requests_per_s = users ÷ (ttft_s + output × tpot_s), Little's law; ttft_s not given: 0)")
    input: int = Field(DEFAULT_INPUT_TOKENS, ge=1, le=1_048_576)
    output: int = Field(DEFAULT_OUTPUT_TOKENS, ge=1, le=1_048_576)
    ttft_s: float | None = Field(None, gt=0, description="time-to-first-token target")
    tpot_s: float | None = Field(None, gt=0, description="time-per-output-token target")
    tokens_per_s_per_user: float | None = Field(
        None, gt=0, le=1e6, description="serving: streaming speed each user sees, tokens/s, instead of tpot_s "
        "(tpot_s = 1 / this)")
    hours: float | None = Field(None, gt=0, le=1e6, description="serving period in hours (default one calendar month, 730 h = 8,760 h / 12)")
    days: float | None = Field(None, gt=0, le=1e5, description="serving period in days (instead of hours)")
    # constraints
    budget_cny: float | None = Field(None, gt=0)
    deadline_hours: float | None = Field(None, gt=0, le=1e6)
    domestic_only: bool = False
    vendors: tuple[str, ...] = Field((), max_length=64)
    stacks: tuple[str, ...] = Field((), max_length=64)
    devices: tuple[str, ...] = Field((), max_length=256)
    max_gpus: int = Field(64, ge=1, le=4096)
    gpus: int | None = Field(None, ge=1, le=4096, description="use exactly this many cards (replaces max_gpus): training "
                             "layouts with tp × pp × dp = their ranks, serving with replicas × tp = their ranks (a "
                             "rank a card; a card of several dies, the Ascend 910C, a rank a die: 2 cards, 4 ranks)")
    billing: Literal["any", "hour", "day", "week", "month"] = "any"
    region: Literal["any", "cn", "international"] = Field(
        "cn", description="cn: only offers from Chinese platforms (default); international: only the others"
    )
    offer_kinds: tuple[Literal["listing", "index", "reference", "contract"], ...] = Field(
        ("listing",), min_length=1, description="which prices to plan with: rentable listings by default (listing "
        "takes the buyer's imported contract prices too: rentable by that buyer)"
    )
    stale_months: float = Field(
        DEFAULT_STALE_MONTHS, gt=0, le=1200, description="a price older than this many months is stale: it prices a "
        "configuration only where no fresher offer of the device can rent it, and the plan warns"
    )
    # what the team runs (issue 10): framework, pinned layout dimensions, LoRA configuration
    framework: str | None = Field(None, description="peft, llama-factory, deepspeed, megatron, mindspeed, vllm, sglang, lmdeploy, vllm-ascend, mindie, trt-llm, transformers")
    tp: int | None = Field(None, ge=1, le=64)
    pp: int | None = Field(None, ge=1, le=64)
    vpp: int | None = Field(None, ge=1, le=64, description="virtual pipeline stages per device (interleaved schedule)")
    ep: int | None = Field(None, ge=1, le=64)
    zero: int | None = Field(None, ge=0, le=3)
    recompute: Literal["none", "selective", "full"] | None = None
    precision: tuple[Literal["bf16", "fp8", "int8", "int4"], ...] | None = Field(
        None, min_length=1, max_length=len(PLAN_PRECISIONS), description="precisions to search: one, a list (or the "
        "CLI's comma list bf16,fp8) or any (all four); default: the model's release precision and 8-bit (fp8 where "
        "the device and stack run FP8, else int8 W8A8), never int4 unless asked")
    engine: str | None = None
    lora_rank: int = Field(16, ge=1, le=4096)
    lora_targets: Literal["attention", "all-linear", "q,v"] = "all-linear"
    already_on: tuple[str, ...] = Field((), max_length=16, description="stacks the team already runs: no migration cost")
    migration_months: float = Field(12.0, gt=0, le=120, description="months of this workload the one-off migration is spread over")
    allow_migration: bool = True
    subsidy: float = Field(0.0, ge=0, lt=1, description="share of domestic compute cost refunded (0.2–0.3 in some regions)")
    engineer_cny_per_week: float | None = Field(
        None, ge=0, description="CNY per engineer-week of a migration (None: the catalog's assumptions: block)")
    objective: Literal["cheapest", "fastest", "best-value", "fastest-within-budget"] = "cheapest"
    top: int = Field(5, ge=1, le=50)

    @field_validator("precision", mode="before")
    @classmethod
    def _precision_list(cls, v: object) -> object:
        """One precision, a comma list ("bf16,fp8") or a list, or `any` (all of PLAN_PRECISIONS), as a tuple in
        PLAN_PRECISIONS' order, each once; a value not among them is refused in one line naming the allowed values
        and the closest one."""
        if v is None:
            return v
        items = ([x.strip() for x in v.split(",")] if isinstance(v, str)
                 else [str(x).strip() for x in v] if isinstance(v, (list, tuple)) else None)
        if items is None:
            return v  # not text: pydantic's own message
        if len(items) > 2 * len(PLAN_PRECISIONS):
            msg = Message("err.precision_list", value=echoed(",".join(items)), allowed=", ".join(PLAN_PRECISIONS),
                          hint="")
            raise _Refused(render(msg), msg)
        out: list[str] = []
        for x in items:
            if x.lower() == "any":
                out += PLAN_PRECISIONS
            elif x.lower() in PLAN_PRECISIONS:
                out.append(x.lower())
            else:
                from suanli.errors import did_you_mean

                near = did_you_mean(x, [*PLAN_PRECISIONS, "any"], n=1)
                msg = Message("err.precision_list", value=echoed(x), allowed=", ".join(PLAN_PRECISIONS),
                              hint=Message("err.did_you_mean", name=near[0]) if near else "")
                raise _Refused(render(msg), msg)
        return tuple(p for p in PLAN_PRECISIONS if p in out) or v

    @model_validator(mode="before")
    @classmethod
    def _serving_task(cls, data: object) -> object:
        """Serving flags (a request rate, concurrent users, latency targets) imply task inference when no task is
        given; beside a training task they are refused in one line (they would be ignored)."""
        if not isinstance(data, dict):
            return data
        given = [f for f in _SERVING_FIELDS if data.get(f) is not None]
        if not given:
            return data
        if data.get("task") is None:
            return {**data, "task": "inference"}
        if data["task"] != "inference":
            raise serving_task_refusal(given, str(data["task"]))
        return data

    @model_validator(mode="after")
    def _needs(self) -> PlanRequest:
        if self.tokens_per_s_per_user is not None:  # frozen model: set once, while validating
            object.__setattr__(self, "tpot_s", user_speed_tpot(self.tokens_per_s_per_user, self.tpot_s))
        if self.concurrent_users is not None:
            self._derive_rate()
        self._check_period()
        if self.task == "inference":
            if self.requests_per_s is None and self.tokens is None:  # named as the field it needs (CLI: its flag)
                msg = Message("error.req.inference_needs_rate", field="requests_per_s", users_field="concurrent_users")
                raise _Refused(f"requests_per_s: {render(msg)}", msg)
            if self.tokens is not None and self.requests_per_s is not None:
                # tokens to generate are a batch job billed its hours; a rate serves a period, billed the period
                # (README "Serving"): beside a rate the tokens would be echoed and ignored, so both are named
                rate = "concurrent_users" if self.concurrent_users is not None else "requests_per_s"
                msg = Message("err.tokens_or_rate", field="tokens", rate_field=rate)
                raise _Refused(f"tokens: {render(msg)}", msg)
        elif self.tokens is None:  # named as the field it needs (CLI: --tokens), as the rate above
            msg = Message("error.req.training_needs_tokens", field="tokens")
            raise _Refused(f"tokens: {render(msg)}", msg)
        if self.objective == "fastest-within-budget" and self.budget_cny is None:  # named as the field it needs
            msg = Message("error.req.fwb_needs_budget", field="budget_cny")  # (CLI: --budget), as tokens above
            raise _Refused(f"budget_cny: {render(msg)}", msg)
        return self

    def _check_period(self) -> None:
        """The serving period's refusals, plan's and compare's one rule: hours or days, not both; a period serves
        (a training job's hours come from its tokens); beside tokens to generate it needs a request rate (a job or a
        period, not both: with a rate the period is billed)."""
        if self.hours is None and self.days is None:
            return
        name = "hours" if self.hours is not None else "days"
        if self.hours is not None and self.days is not None:
            raise _Refused("hours: give the serving period as hours or days, not both",
                           Message("error.req.hours_or_days"))
        if self.task != "inference":
            msg = Message("err.serving_period_only", field="tokens")
            raise _Refused(f"{name}: {render(msg)}", msg)
        if self.tokens is not None and not self.requests_per_s:
            msg = Message("err.tokens_or_serving_period", tokens_field="tokens")
            raise _Refused(f"{name}: {render(msg)}", msg)

    def _derive_rate(self) -> None:
        """requests_per_s from concurrent_users (Little's law, `rate_from_users`); a rate given beside it must be
        that rate (a request read back from its own JSON carries both)."""
        if self.task != "inference":
            raise _Refused("concurrent_users: applies to serving only (task inference)",
                           Message("error.users_serving_only"))
        if self.tpot_s is None:
            raise _Refused("concurrent_users: needs tpot_s (--tpot), the time per output token in seconds (30 "
                           "tokens/s per user is 1/30 s)", Message("error.users_needs_tpot", field="tpot_s"))
        users = self.concurrent_users or 0
        rate = rate_from_users(users, self.output, self.tpot_s, self.ttft_s or 0.0)
        if self.requests_per_s is not None and abs(self.requests_per_s - rate) > 1e-9 * rate:
            raise _Refused("concurrent_users: give it or requests_per_s (--requests-per-s), not both",
                           Message("error.users_not_both", field="requests_per_s"))
        if rate > _MAX_REQUESTS_PER_S:
            raise _Refused(f"concurrent_users: {users:,} users at these targets send {rate:.4g} requests/s, "
                           f"over the bound of {_MAX_REQUESTS_PER_S:g}",
                           Message("error.users_over", users=users, rate=rate, bound=_MAX_REQUESTS_PER_S))
        object.__setattr__(self, "requests_per_s", rate)  # frozen model: set once, while validating

    def tpot_note(self) -> Message | None:
        """A warning when the TPOT target is over `SLOW_TPOT_S`: likely tokens per second typed as seconds."""
        if self.tpot_s is None or self.tpot_s <= SLOW_TPOT_S or self.tokens_per_s_per_user is not None:
            return None
        return Message("plan.warn.tpot_slow", tpot=self.tpot_s, inv=1.0 / self.tpot_s, field="tokens_per_s_per_user")

    def rate_note(self) -> Message | None:
        """The derived request rate as a sentence (None when the rate was given)."""
        if self.concurrent_users is None or self.tpot_s is None or self.requests_per_s is None:
            return None
        if self.ttft_s is None:
            return Message("plan.assume.users_rate_no_ttft", users=self.concurrent_users, output=self.output,
                           tpot_ms=self.tpot_s * 1000, rps=self.requests_per_s, field="ttft_s")
        return Message("plan.assume.users_rate", users=self.concurrent_users, output=self.output,
                       tpot_ms=self.tpot_s * 1000, ttft_ms=self.ttft_s * 1000, rps=self.requests_per_s)

    @property
    def card_limit(self) -> int:
        """The most cards a plan may use: the pinned count (`gpus`), else `max_gpus`."""
        return self.gpus if self.gpus is not None else self.max_gpus

    @property
    def setup_billed(self) -> bool:
        """Serving: whether the set-up (time to first serve) is billed, i.e. the request sets a horizon: tokens to
        generate (no request rate) or a stated serving period (--hours/--days). The assumed month bills none."""
        return not self.requests_per_s or self.hours is not None or self.days is not None

    @property
    def setup_in_period(self) -> bool:
        """A serving period the request states (--hours/--days with a request rate) is the rental: the set-up (first
        serve) takes its start, so the billed hours are the period and the serving hours the period less the set-up.
        Tokens to generate, and every training job, add the set-up to the hours instead."""
        return self.task == "inference" and bool(self.requests_per_s) and (self.hours is not None
                                                                          or self.days is not None)

    @property
    def serving_hours(self) -> float:
        """The serving period: --hours, --days × 24, or one calendar month (units.HOURS_PER_MONTH, 730 h)."""
        if self.hours is not None:
            return self.hours
        return self.days * 24 if self.days is not None else HOURS_PER_MONTH


def with_rate_note(result: PlanResult) -> PlanResult:
    """The plan result with the derived request rate first among its assumptions (when it was derived from
    concurrent users), so the CLI, its JSON and the API say it; a TPOT target over `SLOW_TPOT_S` (`tpot_note`) is
    said before it."""
    notes = [n for n in (result.request.tpot_note(), result.request.rate_note()) if n is not None]
    if not notes:
        return result
    return result.model_copy(update={"assumptions": [*(render(n) for n in notes), *result.assumptions],
                                     "assumptions_i18n": [*(n.to_json() for n in notes), *result.assumptions_i18n]})


# the request's fields that name catalog entries, each with the one lookup that reads a name as people type it
NAME_FIELDS = {"vendors": "vendor", "stacks": "stack", "already_on": "stack"}


def catalog_names(catalog: Catalog, fields: Mapping[str, Any], indexed: bool = False) -> dict[str, Any]:
    """`fields` (a plan request's, before `make_request`) with `vendors`, `stacks` and `already_on` as the catalog's
    ids, each name read by the lookup `suanli gpus --vendor` and GET /api/accelerators use (`lookup.vendor`,
    `lookup.stack`: ids, aliases, Chinese names; case, spaces and full-width forms do not matter): `suanli plan` and
    POST /api/plan take the same names. An unknown name is a NotFoundError naming the request's field with the closest
    names; `indexed`: the field as a path to the item (`vendors.1`, the API's dotted paths), else the field alone
    (the CLI names its flag)."""
    out = dict(fields)
    for name, kind in NAME_FIELDS.items():
        given = out.get(name)
        if not given or not isinstance(given, list | tuple):  # not a list: the request's own check refuses it
            continue
        ids: list[str] = []
        for i, typed in enumerate(given):
            field = f"{name}.{i}" if indexed else name
            ids.append(lookup.vendor(catalog, str(typed), field) if kind == "vendor"
                       else lookup.stack(catalog, str(typed), field).id)
        out[name] = tuple(dict.fromkeys(ids))  # 华为 and huawei: one vendor
    return out


def make_request(**kwargs: object) -> PlanRequest:
    clean = {k: v for k, v in kwargs.items() if v is not None}
    if "objective" in clean and clean["objective"] not in OBJECTIVES:
        raise InputError("objective", Message("err.is_not_one_of", value=echoed(clean['objective']), allowed=', '.join(OBJECTIVES)))
    try:
        return PlanRequest(**clean)  # type: ignore[arg-type]
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "plan"
        msg = err["msg"].removeprefix("Value error, ")
        named, sep, rest = msg.partition(": ")
        if field == "plan" and sep and named in PlanRequest.model_fields:  # a whole-request check naming its field
            field, msg = named, rest
        cause = (err.get("ctx") or {}).get("error")
        raise InputError(field.replace("_", "-"), msg, cause.i18n if isinstance(cause, _Refused) else validation_message(err)) from None
