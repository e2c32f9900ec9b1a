"""Request bodies of the POST endpoints (pydantic; non-finite numbers are refused)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from suanli.errors import Invalid
from suanli.estimate.workload import Engine, Precision, Task, Workload
from suanli.i18n import Message
from suanli.catalog.load import packaged_assumptions
from suanli.plan.request import DEFAULT_GLOBAL_BATCH, MAX_CONCURRENT_USERS, PlanRequest
from suanli.views.bounds import LIMITS, MAX_LIST_ITEMS, MAX_NAME_CHARS, MIN_TOKENS_PER_S, MIN_UTILIZATION

__all__ = ["CompareBody", "EstimateBody", "JsonBody", "MigrateBody", "MigrateCheckBody", "PlanBody", "PriceBody", "SavePlanBody", "TcoBody"]

_NAME = Field(min_length=1, max_length=MAX_NAME_CHARS)
_ASSUME = packaged_assumptions()  # the catalog's `assumptions:` (assumptions.yaml): the defaults below
_Names = tuple[Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)], ...]
# the same region filter and offer kinds as POST /api/plan (`PlanRequest`), issue 11
Region = Annotated[Literal["any", "cn", "international"],
                   Field(description="cn: only offers from Chinese platforms (default); any; international: only the others")]
OfferKinds = Annotated[tuple[Literal["listing", "index", "reference", "contract"], ...],
                       Field(min_length=1, max_length=4, description="which prices to use: rentable listings by default "
                             "(listing takes imported contract prices too)")]


def _accepts(annotation: Any) -> set[type]:
    """The JSON-facing types a field's annotation takes (Annotated, unions and Literals walked: a Literal's values'
    types)."""
    import types
    import typing

    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _accepts(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_accepts(a) for a in typing.get_args(annotation)))
    if origin is Literal:
        return {type(v) for v in typing.get_args(annotation)}
    return {origin or annotation} if isinstance(origin or annotation, type) else set()


def _json_types(cls: type[BaseModel], value: Any, info: ValidationInfo) -> Any:
    """A number field takes a JSON number and a boolean field JSON true or false, nothing else, though pydantic's lax
    mode reads true/false as 1/0, "50" as 50 and "true", "yes", "1" or 1 as true: JSON true/false and JSON strings
    are refused for every field that takes a number and neither (schemathesis: `"server_share": false` was
    accepted; an integrator: `"requests_per_s": "50"` was accepted while `true` was refused, review 2026-12-01), and
    JSON strings and numbers for every field that takes a boolean and neither (`"domestic_only": "true"` was read
    as true, `"breakdown": 0` as false). Other fields need no rule: pydantic reads neither as text, a list or a
    Literal."""
    if info.field_name is None or not isinstance(value, bool | str | int | float):
        return value
    field = cls.model_fields[info.field_name]
    takes = _accepts(field.annotation)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(value, float) and int in takes and float not in takes and not -2**63 <= value < 2**63:
        _beyond_bound(field.metadata, value)  # 1e30 for an integer: the bound it breaks, not pydantic's "maximum size"
    if type(value) in takes or (number and takes & {int, float}):
        return value
    kind = "boolean" if isinstance(value, bool) else "string" if isinstance(value, str) else "number"
    if takes & {int, float}:  # pydantic's own error types, so the catalog words it: "must be a (whole) number"
        raise PydanticCustomError("float_type" if float in takes else "int_type",
                                  "Input should be a number, not a {kind}", {"kind": kind})
    if bool in takes and str not in takes:  # "must be true or false (got 'true')"
        raise PydanticCustomError("bool_type", "Input should be true or false, not a {kind}", {"kind": kind})
    return value


_BOUND_ERRORS = {"gt": ("greater_than", "Input should be greater than {gt}"),
                 "ge": ("greater_than_equal", "Input should be greater than or equal to {ge}"),
                 "lt": ("less_than", "Input should be less than {lt}"),
                 "le": ("less_than_equal", "Input should be less than or equal to {le}")}


def _beyond_bound(metadata: list[Any], value: float) -> None:
    """Refuse `value` by the field's own bound it breaks (`le` for 1e30, `ge` for -1e30) as pydantic's range error,
    so the refusal names the allowed range as every range refusal does (`errors.validation_message`); no such bound:
    nothing (pydantic's int_parsing_size follows, `error.v.int_size`)."""
    for m in metadata:
        for key in (("lt", "le") if value > 0 else ("gt", "ge")):
            limit = getattr(m, key, None)
            if limit is not None:
                kind, text = _BOUND_ERRORS[key]
                raise PydanticCustomError(kind, text, {key: limit})


# fields whose CLI option is negated (--no-migration, --no-flash-attention) or whose help says what only the CLI takes
# (a config.json path, "50M", a repeated --gpu)
_OWN_HELP = {"allow_migration": "false: leave out the stacks that need a migration (the CLI's --no-migration)",
             "flash_attention": "false: count the attention scores, as without a fused attention kernel",
             "model": "catalog preset: id, alias or Hugging Face id (GET /api/models); a config.json is read by the "
                      "CLI only",
             "devices": "only these devices: accelerator ids or aliases (GET /api/accelerators)",
             "tokens": "tokens to train on, or to generate as a batch job: gives hours and cost (a JSON number: 5e7)"}


def _described(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    """OpenAPI: a field the body leaves undescribed takes the help of its CLI option (`help.<command>.<flag>`, what
    `suanli <command> --help` prints), rendered for the API (flags named as JSON fields): one text per input, so
    /openapi.json describes every field beside its limits. A description's `{libraries}` is the data's list, as the
    CLI's help fills it."""
    from suanli.i18n import field_name, messages, render

    commands: tuple[str, ...] = getattr(cls, "help_commands", ())
    en = messages("en")
    for name, prop in (schema.get("properties") or {}).items():
        if "{libraries}" in (prop.get("description") or ""):  # the data's list (migrate.libraries.uses_names)
            from suanli.migrate.libraries import uses_names

            prop["description"] = prop["description"].replace("{libraries}", uses_names())
        if prop.get("description") or not commands:
            continue
        if name in _OWN_HELP:
            prop["description"] = _OWN_HELP[name]
            continue
        option = field_name(name, "en", "cli")  # the CLI's flag for the field (`flag.<name>`), else the name
        flag = (option if option.startswith("--") else name.replace("_", "-")).split("/")[0].removeprefix("--")
        found = next((i for i in (*(f"help.{c}.{flag}" for c in commands), f"help.{flag}") if i in en), None)
        if found is not None:
            prop["description"] = render(Message(found), "en", "api")


def _no_default(schema: dict[str, Any]) -> None:
    """OpenAPI: a field whose default depends on the rest of the request states none (its description says which)."""
    schema.pop("default", None)


class JsonBody(BaseModel):
    """What every request body shares: a number is a JSON number (never a boolean, never a string), a boolean is
    JSON true or false (never a string, never a number); its OpenAPI fields described (`_described`, from
    `help_commands`: the CLI commands whose options it takes)."""

    model_config = ConfigDict(json_schema_extra=_described)
    help_commands: ClassVar[tuple[str, ...]] = ()

    _json_types = field_validator("*", mode="before")(classmethod(_json_types))


class EstimateBody(Workload, JsonBody):
    """A model and a device plus the workload fields of `suanli estimate`."""

    help_commands = ("estimate",)

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    model: str = Field(min_length=1, max_length=200, description="preset (Hugging Face id or alias)")
    gpu: str = Field(min_length=1, max_length=200, description="accelerator id or alias")
    # unset, the engine is the device's stack's usual one (as `suanli estimate` without --engine; its description
    # says so), not the core's placeholder "hf": the schema names no default
    engine: Engine = Field("hf", json_schema_extra=_no_default)
    # unset (or null), the precision `suanli estimate` picks without --precision (POST /api/estimate), not bf16
    precision: Precision | None = Field(  # type: ignore[assignment]
        None, description="fp32, bf16, fp16, fp8, int8, int4, nf4; default (null): the precision the estimate picks "
        "(estimate.precision.default_precision, as the CLI's): serving an FP8 checkpoint (DeepSeek-V3/R1): fp8 where "
        "the device and its stack run FP8; qlora: nf4; else bf16")
    # bounded as every other name field (the core's Workload leaves it unbounded): OpenAPI states the limit
    framework: str | None = Field(None, min_length=1, max_length=MAX_NAME_CHARS, description="training: the "
                                  "framework the layout runs under (a frameworks.yaml id, GET /api/frameworks); "
                                  "default: the one POST /api/plan picks for the layout")

    def _parallel_fits(self) -> EstimateBody:  # type: ignore[override]
        """Not checked on the body: its `gpus` counts cards and a card may hold several dies (a 910C: 2), so the
        layout is checked once the device is known, on the workload of its ranks (POST /api/estimate, `validated`)."""
        return self


class PlanBody(PlanRequest, JsonBody):
    """The fields of `suanli plan` (with the shared bounds of `suanli.views.bounds`), plus what to return.
    Saving is a write: POST the same body to /api/plans with the token."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    help_commands = ("plan",)

    model: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    requests_per_s: float | None = Field(None, gt=0, le=LIMITS["requests_per_s"])
    ttft_s: float | None = Field(None, gt=0, le=LIMITS["ttft_s"], description="time-to-first-token target")
    tpot_s: float | None = Field(None, gt=0, le=LIMITS["tpot_s"], description="time-per-output-token target")
    budget_cny: float | None = Field(None, gt=0, le=LIMITS["budget_cny"])
    engineer_cny_per_week: float = Field(_ASSUME.engineer_cny_per_week.value, ge=0, le=LIMITS["engineer_cny_per_week"],
                                         description="CNY per engineer-week (default: the catalog's assumption)")
    vendors: _Names = Field((), max_length=MAX_LIST_ITEMS, description="allowed vendors, as GET /api/accelerators' "
                            "`vendor` takes them (huawei, 华为, NVIDIA, …)")
    stacks: _Names = Field((), max_length=MAX_LIST_ITEMS, description="allowed software stacks: id, name or Chinese "
                           "name, case aside (cann, CANN, 华为昇腾 CANN, …)")
    devices: _Names = Field((), max_length=MAX_LIST_ITEMS)
    already_on: _Names = Field((), max_length=16, description="stacks the team already runs (cuda, cann, CANN, …), "
                               "named as in `stacks`: no migration cost")
    framework: str | None = Field(None, min_length=1, max_length=MAX_NAME_CHARS, description="a frameworks.yaml id "
                                  "(GET /api/frameworks); default: the usual one for the task and stack")
    engine: str | None = Field(None, min_length=1, max_length=MAX_NAME_CHARS)
    breakdown: bool = Field(True, description="add each plan's memory breakdown per device (bytes)")

    @model_validator(mode="before")
    @classmethod
    def _no_save(cls, raw: Any) -> Any:
        if isinstance(raw, dict) and "save" in raw:  # the field first: the handler names it (api.errors._NAMED)
            said = Message("error.v.plan_save")
            raise Invalid(f"save: {said.render('en')}", said)
        return raw


class SavePlanBody(PlanBody):
    """A plan request to run and store (POST /api/plans, token): the body of POST /api/plan plus a name."""

    name: str | None = Field(None, max_length=300, description="name of the saved plan")


class CompareBody(JsonBody):
    help_commands = ("compare",)
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    model: str = _NAME
    devices: list[Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)]] = Field(
        min_length=2, max_length=4, description="2–4 accelerator ids or aliases")
    task: Task = "inference"
    gpus: int = Field(1, ge=1, le=4096)
    precision: Precision | None = Field(None, description="default: bf16; serving an FP8 checkpoint (DeepSeek-V3/R1): fp8 "
                                  "on each device that runs FP8 (estimate.precision.default_precision)")
    batch: int | None = Field(None, ge=1, le=65536, description="serving: concurrent sequences per replica (default: "
                              "the planner's serving search within the targets below, else within a 200 ms TPOT)")
    tokens: float | None = Field(None, gt=0, le=1e18)
    requests_per_s: float | None = Field(None, gt=0, le=LIMITS["requests_per_s"], description="serving target: "
                                         "requests per second the cards must sustain")
    ttft_s: float | None = Field(None, gt=0, le=LIMITS["ttft_s"], description="serving target: time to first token")
    tpot_s: float | None = Field(None, gt=0, le=LIMITS["tpot_s"], description="serving target: time per output token")
    concurrent_users: int | None = Field(None, ge=1, le=MAX_CONCURRENT_USERS, description="serving: users streaming "
                                         "at once, instead of requests_per_s, as in POST /api/plan (needs tpot_s; "
                                         "requests_per_s = users ÷ (ttft_s + output × tpot_s), Little's law)")
    tokens_per_s_per_user: float | None = Field(None, gt=0, le=1e6, description="serving: streaming speed each user "
                                                "sees, tokens/s, instead of tpot_s (tpot_s = 1 / this), as in POST "
                                                "/api/plan")
    input: int | None = Field(None, ge=1, le=1_048_576, description="serving: prompt tokens per request (as plan; "
                              "default 512; a training compare refuses it)")
    output: int | None = Field(None, ge=1, le=1_048_576, description="serving: output tokens per request (as plan; "
                               "default 256; a training compare refuses it)")
    global_batch: int = Field(DEFAULT_GLOBAL_BATCH, ge=1, le=1_000_000, description="training: sequences per optimizer "
                              "step")
    hours: float | None = Field(None, gt=0, le=1e6, description="serving period in hours, as POST /api/plan's (default "
                                "with requests_per_s: one calendar month, 730 h): hours and cost billed as plan bills it")
    days: float | None = Field(None, gt=0, le=1e5, description="serving period in days (instead of hours)")
    tp: int | None = Field(None, ge=1, le=64, description="pin tensor parallelism (default: each device's fastest layout)")
    pp: int | None = Field(None, ge=1, le=64, description="pin pipeline parallelism (training)")
    zero: int | None = Field(None, ge=0, le=3, description="pin the ZeRO stage (training)")
    recompute: Literal["none", "selective", "full"] | None = Field(None, description="pin activation recompute (training)")
    region: Region = "cn"
    offer_kinds: OfferKinds = ("listing",)


class TcoBody(JsonBody):
    help_commands = ("tco",)
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    gpu: str = _NAME
    hours: float = Field(gt=0, le=1e6)
    gpus: int = Field(1, ge=1, le=100_000)
    subsidy: float = Field(0.0, ge=0, lt=1)
    tokens_per_s: float | None = Field(None, ge=MIN_TOKENS_PER_S, le=1e12)
    utilization: float = Field(1.0, ge=MIN_UTILIZATION, le=1, description="share of the rented time in use (0.001–1)")
    region: Region = "cn"
    offer_kinds: OfferKinds = ("listing",)


class MigrateBody(JsonBody):
    help_commands = ("migrate.cost", "migrate")
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    model: str = _NAME
    to_gpu: str = Field("ascend-910b", min_length=1, max_length=200)
    from_gpu: str = Field("h100-sxm", min_length=1, max_length=200)
    monthly_spend: float | None = Field(None, gt=0, le=1e12, description="CNY per month on compute today (default "
                                        "¥100,000, assumed: seed-000 §4's worked example; the answer's "
                                        "monthly_spend_default says it was used)")
    saving: float | None = Field(None, ge=0, le=1e12, description="CNY saved per month (default: derived)")
    task: str = Field("full", min_length=1, max_length=MAX_NAME_CHARS)
    engineers: int = Field(_ASSUME.migration_engineers.value, ge=1, le=10_000,
                           description="engineers doing the migration (default: the catalog's assumption, seed-000)")
    engineer_week: float = Field(_ASSUME.engineer_cny_per_week.value, ge=0, le=1e9,
                                 description="CNY per engineer-week (default: the catalog's assumption)")
    subsidy: float = Field(0.0, ge=0, lt=1)
    horizon_months: float = Field(12.0, gt=0, le=1200)
    # compare's serving targets and precision (POST /api/compare's fields): each side's row is compare's for them
    precision: Precision | None = Field(None, description="as POST /api/compare's, both sides (default: each "
                                        "device's default; with requests_per_s or concurrent_users, each side at "
                                        "the precision POST /api/plan picks)")
    requests_per_s: float | None = Field(None, gt=0, le=LIMITS["requests_per_s"], description="task inference: "
                                         "requests per second, as POST /api/compare's")
    tpot_s: float | None = Field(None, gt=0, le=LIMITS["tpot_s"], description="task inference: time per output token")
    ttft_s: float | None = Field(None, gt=0, le=LIMITS["ttft_s"], description="task inference: time to first token")
    concurrent_users: int | None = Field(None, ge=1, le=MAX_CONCURRENT_USERS, description="task inference: "
                                         "users streaming at once, instead of requests_per_s (as POST /api/compare's:"
                                         " needs tpot_s)")
    max_gpus: int | None = Field(None, ge=1, le=4096, description="task inference with requests_per_s or "
                                 "concurrent_users: the most cards each side is sized with for the rate, as POST "
                                 "/api/plan's max_gpus (default 64; not with gpus, which fixes the count)")
    input: int | None = Field(None, ge=1, le=1_048_576, description="task inference: prompt tokens per request "
                              "(default 512)")
    output: int | None = Field(None, ge=1, le=1_048_576, description="task inference: output tokens per request "
                               "(default 256)")
    gpus: int | None = Field(None, ge=1, le=4096, description="cards on each side (default 8): each device's "
                             "tokens/s at the layout POST /api/plan finds for that count, optimizer offload included; "
                             "with requests_per_s or concurrent_users, exactly that many cards on each side for the "
                             "rate, as POST /api/plan's gpus (not with max_gpus; default: each side sized as POST "
                             "/api/plan sizes it, up to max_gpus)")
    parallel_weeks: float | None = Field(None, ge=0, le=520, description="weeks both sides are paid while the new "
                                         "one runs beside the old (default 2, assumed), as `--parallel-weeks`")
    region: Region = "cn"
    offer_kinds: OfferKinds = ("listing",)
    # `suanli migrate cost --uses`: validated by migrate.libraries.resolve_uses (at most 12, known names), as
    # `migrate check --uses`; one with no NPU build charges the weeks migrate check charges (plan.search.migration_weeks)
    uses: _Names = Field((), max_length=MAX_LIST_ITEMS, description="code-level libraries the model uses, any of "
                         "{libraries}, as `suanli migrate check --uses`")


class MigrateCheckBody(JsonBody):
    """The options of `suanli migrate check` (a catalog preset: the API reads no files)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    help_commands = ("migrate.check",)

    model: str = Field(min_length=1, max_length=MAX_NAME_CHARS, description="catalog preset (GET /api/models: id, "
                       "alias or Hugging Face id) of a language model; a config.json is checked by the CLI only")
    task: Literal["inference", "full", "lora", "qlora", "pretrain", "training"] = Field(
        "inference", description="inference traces the forward pass; full, lora, qlora, pretrain (or training) "
        "forward + backward, and look the model up on the training lists")
    torch_npu: str | None = Field(None, min_length=1, max_length=24, pattern=r"^[0-9]{1,3}(\.[0-9]{1,3}){0,2}(\.post[0-9]{1,4})?$",
                                  description="torch_npu version or prefix (2.1, 2.6, 2.13.0); default: the one "
                                  "built for the server's torch, else the newest shipped")
    uses: _Names = Field((), max_length=MAX_LIST_ITEMS, description="code-level libraries the trace cannot see, any "
                         "of {libraries}, as `suanli migrate check --uses`")


class PriceBody(JsonBody):
    """A new price for an existing offer; it is added to the offer's history (nothing is overwritten)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    price_cny: float = Field(ge=0, le=1e12, description="CNY for the whole instance per billing unit")
    price_cny_max: float | None = Field(None, ge=0, le=1e12, description="the top of a quoted range (price_cny its "
                                        "bottom), CNY as price_cny")
    date: str = Field(description="YYYY, YYYY-MM or YYYY-MM-DD, not in the future",
                      pattern=r"^(19[7-9][0-9]|2[01][0-9][0-9])(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?)?$")
    source: str = Field(min_length=1, max_length=200, pattern=r"^[a-z0-9][a-z0-9.+_-]*$",
                        description="id of the source the price comes from (GET /api/sources; a new id names a new "
                        "source)")
    note: str | None = Field(None, max_length=2000, description="free text kept with the price (what was quoted)")


def _bench_body() -> type:
    """`BenchResult` as a request body, checked as strictly as its JSON Schema reads (true is not a number,
    "1" is not an integer): pydantic's lax mode would accept both."""
    import contextvars
    import json

    from pydantic import ValidationError

    from suanli.bench.results import BenchResult
    from suanli.errors import Invalid, echoed, nonfinite_at, validation_message
    from suanli.i18n import Message

    inside = contextvars.ContextVar("inside", default=False)

    class BenchResultBody(BenchResult):
        @model_validator(mode="before")
        @classmethod
        def _strict_json(cls, raw: Any) -> Any:
            if isinstance(raw, dict) and not inside.get():
                token = inside.set(True)
                try:
                    BenchResult.model_validate_json(json.dumps(raw, allow_nan=False), strict=True)
                except ValidationError as e:
                    err = e.errors()[0]
                    where = ".".join(str(p) for p in err["loc"])  # the dotted path the error's `field` names
                    said = err["msg"]
                    if err["type"] in ("int_type", "float_type") and isinstance(err.get("input"), str):
                        said = "Input should be a number, not a string"  # JsonBody's words
                    elif err["type"] == "bool_type" and isinstance(err.get("input"), str | int | float):
                        said = "Input should be true or false, not a " + (
                            "string" if isinstance(err.get("input"), str) else "number")
                    # its catalog message, the value echoed as every error echoes it (`errors.validation_message`)
                    raise Invalid(f"{where}: {said}", validation_message(err)) from None
                except ValueError:  # NaN or Infinity (json.dumps refuses them): named by its dotted path
                    at = nonfinite_at(raw)
                    msg = Message("error.v.finite", value=echoed(at[1] if at else float("nan")))
                    raise Invalid(f"{at[0] if at else 'body'}: {msg.render('en')}", msg) from None
                finally:
                    inside.reset(token)
            return raw

    return BenchResultBody


BenchResultBody = _bench_body()
__all__ += ["BenchResultBody"]
