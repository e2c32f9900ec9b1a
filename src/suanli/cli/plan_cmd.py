"""`suanli plan`: what to rent — ranked plans with reasons, warnings, a Pareto front and "why not X".

No `from __future__ import annotations`: typer reads the options from the annotations, built once as objects
(`estimate_cmd`'s docstring)."""

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from suanli.views.files import load_model_arg
from suanli.cli.context import as_of, plan_search_catalog
from suanli.cli.output import col_headers, console, echo, emit_json, emit_rows, label, lang, say, tr
from suanli.errors import InputError
from suanli.i18n import Message
from suanli.plan.request import PlanRequest, make_request, with_rate_note
from suanli.plan.search import PlanResult, plan
from suanli.units import count_from_text, money_from_text
from suanli.views.bounds import check_plan
from suanli.views.plans import plan_json, shows_calendar, with_calibration_note

__all__ = ["plan_json", "read_workload_file", "register", "render_plan"]

WHY_NOT_ROWS = 8  # rows of the why-not table; the rest are in --json


# --framework's help. A literal, because typer evaluates it on every `plan` run and reading frameworks.yaml there
# cost PyYAML's import (~30 ms); tests/unit/estimate/test_capability_gaps.py checks it lists every frameworks.yaml row
FRAMEWORK_HELP = ("training: llama-factory, peft, deepspeed, torchtune, megatron, nemo, mindspeed, torchtitan; serving: vllm, "
                  "sglang, lmdeploy, vllm-ascend, mindie, trt-llm, transformers (frameworks.yaml)")


def _framework_help() -> str:
    return FRAMEWORK_HELP


def _kinds(kinds: str | None) -> tuple[str, ...] | None:
    if kinds is None:
        return None
    from suanli.catalog.offers import parse_kinds

    return parse_kinds(kinds)


# the flags' names are accepted in a workload file too
_FILE_ALIASES = {
    "budget": "budget_cny", "deadline": "deadline_hours", "vendor": "vendors", "stack": "stacks",
    "gpu": "devices", "gpus": "devices", "ttft": "ttft_s", "tpot": "tpot_s", "domestic": "domestic_only",
}
_TUPLE_FIELDS = ("vendors", "stacks", "devices", "already_on", "offer_kinds")
# request fields whose flag has another name (budget_cny is --budget): errors name the flag the user typed
_FIELD_FLAGS = {"budget_cny": "budget", "ttft_s": "ttft", "tpot_s": "tpot", "devices": "gpu", "vendors": "vendor",
                "stacks": "stack"}


def _as_flag(e: InputError) -> InputError:
    """The request model's error with its field named as the `suanli plan` flag (budget-cny -> budget)."""
    key = e.field.replace("-", "_")
    if key not in _FIELD_FLAGS:
        return e
    return InputError(_FIELD_FLAGS[key], str(e).removeprefix(f"{e.field}: "), e.i18n)


def read_workload_file(path: str) -> dict[str, Any]:
    from suanli.views.files import parse_yaml, read_file_bytes

    doc = parse_yaml(read_file_bytes(path, "file", max_bytes=2**20), path, "file") or {}  # bounded size and depth
    if not isinstance(doc, dict):
        raise InputError("file", Message("err.must_be_a_mapping_of_plan", path=path))
    out: dict[str, Any] = {}
    for k, v in doc.items():
        key = str(k).replace("-", "_")
        if key == "gpus" and isinstance(v, int) and not isinstance(v, bool):
            out["gpus"] = v  # a number: exactly this many cards (--gpus); a name or list: the devices (--gpu)
            continue
        if key not in _FILE_KEYS:  # a typo is said as one, with the closest keys (buyer review C: `budgett: 100`
            from suanli.errors import NotFoundError  # answered "budgett: not a field of this request")

            raise NotFoundError("file", str(k), _FILE_KEYS, kind="file_key")
        key = _FILE_ALIASES.get(key, key)
        if key == "no_migration":
            key, v = "allow_migration", not v
        if key in _TUPLE_FIELDS:
            v = _names(v)
        if key == "tokens":  # `tokens: 50M` or `5亿`, as --tokens takes it (`units.count_from_text`)
            v = _read_as_flag(v, count_from_text, "tokens")
        elif key == "budget_cny":  # `budget: 2万`, as --budget takes it (`units.money_from_text`)
            v = _read_as_flag(v, money_from_text, "budget")
        out[key] = v
    return out


# the keys a workload file takes: the flags' names (budget, gpu, no_migration) and the request's own fields
_FILE_KEYS = tuple(dict.fromkeys((*_FILE_ALIASES, "no_migration", *PlanRequest.model_fields)))


def _read_as_flag(v: Any, parse: Callable[[object], object], flag: str) -> Any:
    """A workload file's value read as its flag `flag` reads it (`parse`); text that is none, refused naming the flag."""
    from suanli.errors import Invalid

    try:
        return parse(v)
    except Invalid as e:
        raise InputError(flag, str(e), e.i18n) from None


def _names(v: Any) -> Any:
    """A list field of a workload file as the flags give it: `gpu: 4090` or `gpu: [4090, 910b]` is the names
    "4090" and "910b" (YAML reads 4090 as a number), a comma string "a100, h800" its names; else as written."""
    if isinstance(v, str):
        return tuple(x.strip() for x in v.split(","))
    if isinstance(v, int | float) and not isinstance(v, bool):
        v = [v]
    if isinstance(v, list):
        return tuple(str(x) if isinstance(x, int | float) and not isinstance(x, bool) else x for x in v)
    return v


def _i18n(messages: list[Any], english: list[str]) -> list[Any]:
    """The planner's sentences as `Message`s (rendered in the run's language), else the English strings."""
    from suanli.i18n import Message

    if messages and len(messages) == len(english) and all(isinstance(m, dict) and m for m in messages):
        return [Message.from_json(m) for m in messages]
    return list(english)


def _err_line(text: str) -> None:
    """A warning or error line on stderr (rich markup) through the one line breaker the CLI's errors use
    (`cli.main._err`: wrapped at word boundaries on a terminal, one line when piped, as a script reads it)."""
    from suanli.cli.main import _err

    _err(text)


def _layout(p: Any) -> str:
    if p.replicas is not None:  # serving: the one label compare's rows use too
        from suanli.plan.labels import serving_label

        return serving_label(p.replicas, p.tp, p.ep, p.micro_batch, p.precision)
    return (f"tp{p.tp}·pp{p.pp}" + (f"·vpp{p.vpp}" if getattr(p, "vpp", 1) > 1 else "") + f"·dp{p.dp}"
            + (f"·ep{p.ep}" if p.ep > 1 else "") + (f"·z{p.zero}" if p.zero else "")
            + (f"·{tr('layout.recompute.' + p.recompute)}" if p.recompute in ("selective", "full") else "")
            + (f" {p.precision}" if p.precision != "bf16" else "")
            # the memory-saving optimizer the plan needs (the reason says why): ZeRO-Offload, 8-bit AdamW
            + (" " + tr("layout.offload") if getattr(p, "offload_optimizer", False) else "")
            + (" adamw8bit" if getattr(p, "optimizer", None) == "adamw8bit" else ""))


def render_plan(r: PlanResult) -> None:
    """The plan as tables and sentences in the run's language (`--lang`, else LANG); reasons, warnings and
    relax hints are `Message`s (or plain strings) rendered through `say`."""
    from suanli.catalog.offers import kinds_message, kinds_priced
    from suanli.i18n import Message, t

    lg = lang()
    q = r.request
    what = (Message("plan.what.tokens", tokens=q.tokens) if q.tokens and q.task != "inference"
            else Message("plan.what.users", users=q.concurrent_users, rps=q.requests_per_s)
            if q.concurrent_users and q.requests_per_s
            else Message("plan.what.rps", rps=q.requests_per_s) if q.requests_per_s
            else Message("plan.what.generated", tokens=q.tokens))
    if q.task == "inference":  # the request's lengths, as compare states them (the 512-token prompt was unsaid)
        what = Message("plan.what.lengths", what=what, input=q.input, output=q.output,
                       default=Message("plan.what.lengths_default")
                       if not {"input", "output"} & q.model_fields_set else "")
    else:  # training: the step the layout and speed are worked out for (--seq 2048 and --global-batch 64 unsaid)
        typed = q.model_fields_set
        what = Message("plan.what.step", what=what, seq=q.seq, global_batch=q.global_batch,
                       step_tokens=q.seq * q.global_batch,
                       seq_default="" if "seq" in typed else Message("plan.what.default"),
                       batch_default="" if "global_batch" in typed else Message("plan.what.default"))
    console.print("[bold]" + say(Message("plan.header", model=r.model_id, task=q.task, what=what,
                                         objective=q.objective)) + "[/bold] · "
                  # the kinds the shown plans were priced from: 'listing and contract' where an imported contract
                  # price set a bill (`offers.kinds_priced`), in one phrase per language (`offers.kinds_message`)
                  + t("plan.scope", lg, region=t(f"price_region.{q.region}", lg), kinds=say(kinds_message(
                      kinds_priced(q.offer_kinds, (p.offer_kind for p in r.plans))))),
                  highlight=False)
    for w in _i18n(r.warnings_i18n, r.warnings):  # about the whole request: under the header, before any table
        console.print(f"[yellow]![/yellow] {say(w)}", highlight=False)
    if not r.plans:
        console.print(f"[red]{t('plan.none', lg)}[/red]")
        for tip in _i18n(r.relax_i18n, r.relax):
            console.print(f"  {t('plan.relax_prefix', lg)}{say(tip)}", highlight=False)
    serving = q.task == "inference"
    cols = {"#": "col.rank", "device": "col.device", "gpus": "col.gpus", "fw": "col.framework",
            "layout": "col.layout", "GiB": "col.gib_per_card", "TPOT ms": "col.tpot_ms", "TTFT ms": "col.ttft_ms",
            "hours": "col.hours", "calendar h": "col.calendar_hours", "¥ rent": "col.rent_cny",
            "¥ migr": "col.migration_cny", "¥ total": "col.total_cny",
            # serving: the rent per million output tokens at the load the plan is sized for (the header's rate),
            # a batch job at the tokens it generates (`Plan.cny_per_million_output_tokens`)
            "¥/M": "col.cny_per_m_out_rate" if q.requests_per_s else "col.cny_per_m_out_job"}
    # the calendar (migration weeks, then set-up and compute) beside the hours where it decided the plans (a
    # deadline, objective fastest) and differs from them: `shows_calendar`, the page's rule too
    calendar = shows_calendar(r)
    rows = []
    for p in r.plans:
        row: dict[str, Any] = {
            # a card of several dies (the 910C): the cards rented and the ranks the layout counts, memory per die
            "#": p.rank, "device": p.device,
            "gpus": p.gpus if p.cards is None else t("plan.cards_dies", lg, cards=p.cards, ranks=p.gpus),
            "fw": p.engine if serving else p.framework,
            "layout": _layout(p),
            # needed / usable GiB per card (the fits rule: capacity less fragmentation, or the engine's pool)
            "GiB": f"{p.memory_needed_bytes / 2**30:,.0f}/{p.memory_usable_bytes / 2**30:,.0f}"
                   + ("" if p.cards is None else " " + t("col.per_die", lg)),
        }
        if serving:
            row["TPOT ms"] = "—" if p.tpot_s is None else p.tpot_s * 1000  # none: one output token, no gap
            row["TTFT ms"] = (p.ttft_s or 0) * 1000
        row["hours"] = p.hours
        if calendar:
            row["calendar h"] = p.calendar_hours if p.calendar_hours is not None else p.hours
        row.update({"¥ rent": p.cost_cny, "¥ migr": p.migration_cost_cny, "¥ total": p.total_cost_cny})
        if serving:
            row["¥/M"] = p.cny_per_million_output_tokens
        rows.append(row)
    if rows:
        # ¥ total is what the plans are ranked by: it never goes; its parts (the reasons give both) and the
        # memory column go before an id is broken (buyer review 2026-12-01: `¥ total` had gone at 80 columns)
        emit_rows(rows, list(rows[0]), title=t("plan.ranked", lg), headers={k: t(v, lg) for k, v in cols.items()},
                  keep_always=("¥ total",), drop_later=("¥ migr", "¥ rent", "GiB", "TTFT ms", "¥/M"))
    for p in r.plans:
        console.print(f"{p.rank}. {say(_i18n([p.reason_i18n], [p.reason])[0])}", highlight=False)
        for w in _i18n(p.warnings_i18n, p.warnings):
            console.print(f"   [yellow]![/yellow] {say(w)}", highlight=False)
    # the planner orders why-not by relevance (nearest priced misses first); the table shows the first 8 and says
    # how many more the JSON lists
    # every reason of a device (the planner's `reasons`, most fundamental first) on a line of its own, ended by
    # "why.sep"; a record saved before the list (`plans --show`) has the one sentence
    sep = t("why.sep", lg) + "\n"
    why = [{"device": w["device"], "reason": sep.join(say(x) for x in _i18n(w.get("reasons_i18n") or [],
                                                                            w.get("reasons") or []))
            or say(_i18n([w.get("reason_i18n")], [w["reason"]])[0])}
           for w in r.why_not if (w.get("reason_i18n") or {}).get("id") != "why.ranked_below"]
    if why:
        emit_rows(why[:WHY_NOT_ROWS], ["device", "reason"], title=t("plan.why_not", lg),
                  headers={"device": t("col.device", lg), "reason": t("col.reason", lg)})
        if len(why) > WHY_NOT_ROWS:
            console.print(f"[dim]{t('plan.why_not_more', lg, n=len(why) - WHY_NOT_ROWS)}[/dim]", highlight=False)
    for a in _i18n(r.assumptions_i18n, r.assumptions):
        console.print("[dim]" + t("plan.assumed", lg, text=say(a)) + "[/dim]", highlight=False)
    console.print(f"[dim]{t('plan.searched', lg, n=r.configurations_evaluated, ms=r.search_seconds * 1000)}[/dim]")


def register(app: typer.Typer) -> None:
    @app.command("plans")
    def plans_cmd(
        show: Annotated[int | None, typer.Option(help="print one saved plan in full (tables; --json for the record)")] = None,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Plans saved with `suanli plan --save` (SQLite by default, SUANLI_DATABASE_URL for PostgreSQL)."""
        from suanli.store.db import open_store

        if show is not None:
            from suanli.views.bounds import MAX_ID, check_whole

            check_whole("show", show, 1, MAX_ID)  # a saved plan's id, as GET /api/plans/{id} bounds it
        store = open_store()
        if show is not None:
            from suanli.cli.store_cmd import show_saved_plan

            emit_json(store.plan(show)) if json_ else show_saved_plan(store.plan(show))
            return
        rows = store.plans()
        if json_:
            emit_json(rows)
            return
        table = []
        for r in rows:
            best = (store.plan(r["id"]).get("result", {}).get("plans") or [{}])[0]
            req = r.get("request") or {}
            table.append({
                "id": str(r["id"]), "name": r.get("name"), "model": r["model"],  # an id, not a count: no separator
                "task": tr(f"task.{req['task']}") if req.get("task") and lang() == "zh" else req.get("task"),
                "best": f"{best.get('gpus')}× {best.get('device')}" if best else tr("cli.plans.none"),
                "hours": best.get("hours"), "¥ total": best.get("total_cost_cny"),
                "saved": str(r["created_at"])[:16],
            })
        cols = ["id", "name", "model", "task", "best", "hours", "¥ total", "saved"]
        emit_rows(table, cols, title=tr("cli.plans.title", url=store.url.split('@')[-1]),
                  headers=col_headers(cols, "plans.col"))

    def _export_skypilot(path: str, result: PlanResult, cat: Any, m: Any) -> Message | str | None:
        """Write the best plan as a SkyPilot task YAML to `path`; None when written, else why not (a device SkyPilot
        has no accelerator name for, no plan, a path that cannot be written): the caller prints the plan first and
        then that one warning line, and the exit code stays the plan's. `m`: the model planned (a config.json
        one included), whose own checkpoint precision decides the engine's --quantization flag."""
        from suanli.plan.export import skypilot_yaml

        if not result.plans:
            return Message("plan.skypilot.no_plan")
        try:
            Path(path).write_text(skypilot_yaml(result.plans[0], result, cat, m), encoding="utf-8")
        except InputError as e:
            return e.i18n or str(e)
        except OSError as e:
            return Message("plan.skypilot.cannot_write", why=str(e.strerror or e))
        return None

    @app.command("plan")
    def plan_cmd(
        model: Annotated[str | None, typer.Option(help="preset (HF id or alias) or path to a config.json")] = None,
        task: Annotated[str | None, typer.Option(help="inference, lora, qlora, full, pretrain")] = None,
        tokens: Annotated[float | None, typer.Option(parser=count_from_text, help="tokens to train on (training) or generate: 5e7, 50M, 5000万")] = None,
        seq: Annotated[int | None, typer.Option(help="training sequence length (default 2048; the context check uses the checkpoint trained: the base)")] = None,
        global_batch: Annotated[int | None, typer.Option(help="sequences per optimizer step (default 64: 131,072 tokens per step at --seq 2048)")] = None,
        requests_per_s: Annotated[float | None, typer.Option(help="serving: requests per second")] = None,
        concurrent_users: Annotated[int | None, typer.Option(help="serving: users streaming at once, instead of --requests-per-s (needs --tpot): requests/s = users ÷ (--ttft + --output × --tpot), Little's law")] = None,
        input: Annotated[int | None, typer.Option("--input", help="serving: prompt tokens")] = None,
        output: Annotated[int | None, typer.Option("--output", help="serving: generated tokens")] = None,
        ttft: Annotated[float | None, typer.Option(help="serving: time-to-first-token target, s")] = None,
        tpot: Annotated[float | None, typer.Option(help="serving: time-per-output-token target, s")] = None,
        tokens_per_s_per_user: Annotated[float | None, typer.Option(help="serving: streaming speed each user sees, tokens/s (instead of --tpot: TPOT = 1 / this)")] = None,
        hours: Annotated[float | None, typer.Option(help="serving period in hours (default 730: an average month, 8,760 h ÷ 12)")] = None,
        days: Annotated[float | None, typer.Option(help="serving period in days")] = None,
        budget: Annotated[float | None, typer.Option(parser=money_from_text, help="budget in CNY: 50000, 5万, 1.5万, 3千 or 20k")] = None,
        deadline_hours: Annotated[float | None, typer.Option(help="deadline in hours, migration included")] = None,
        domestic_only: Annotated[bool, typer.Option("--domestic-only", help="only Chinese vendors (信创)")] = False,
        vendor: Annotated[list[str] | None, typer.Option(help="allowed vendor (repeatable)")] = None,
        stack: Annotated[list[str] | None, typer.Option(help="allowed software stack (repeatable)")] = None,
        gpu: Annotated[list[str] | None, typer.Option(help="only these devices (repeatable)")] = None,
        max_gpus: Annotated[int | None, typer.Option(help="most cards to rent")] = None,
        gpus: Annotated[int | None, typer.Option("--gpus", help="use exactly this many cards (replaces --max-gpus): the layout, time and cost on N cards; a card of several dies, the Ascend 910C, runs one rank a die (tp × pp counts ranks)")] = None,
        billing: Annotated[str | None, typer.Option(help="any, hour, day, week, month")] = None,
        region: Annotated[str | None, typer.Option(help="cn (Chinese platforms, default), any, international")] = None,
        offer_kinds: Annotated[str | None, typer.Option(help="listing (default; takes your imported contract prices too), index, reference, contract or all; comma-separated")] = None,
        stale_months: Annotated[float | None, typer.Option(help="a price older than this is used only where no fresher offer of the device can rent the configuration (default 12)")] = None,
        framework: Annotated[str | None, typer.Option(help=_framework_help())] = None,
        tp: Annotated[int | None, typer.Option(help="pin tensor parallel size")] = None,
        pp: Annotated[int | None, typer.Option(help="pin pipeline parallel size")] = None,
        vpp: Annotated[int | None, typer.Option(help="pin virtual pipeline stages per device (interleaved schedule: megatron, mindspeed; 1, 2 or 4)")] = None,
        ep: Annotated[int | None, typer.Option(help="pin expert parallel size (MoE)")] = None,
        zero: Annotated[int | None, typer.Option(help="pin ZeRO stage 0-3")] = None,
        recompute: Annotated[str | None, typer.Option(help="pin recomputation: none, selective, full")] = None,
        precision: Annotated[str | None, typer.Option(help="precisions to search: one or a comma list of bf16, fp8, int8, int4, or any (default: the model's own and 8-bit, no int4)")] = None,
        engine: Annotated[str | None, typer.Option(help="serving engine, e.g. vllm, sglang, lmdeploy, vllm-ascend, mindie")] = None,
        lora_rank: Annotated[int | None, typer.Option(help="LoRA rank (default 16)")] = None,
        lora_targets: Annotated[str | None, typer.Option(help="all-linear (default), attention, q,v")] = None,
        already_on: Annotated[list[str] | None, typer.Option(help="a stack the team already runs, e.g. cann: no migration cost (repeatable)")] = None,
        migration_months: Annotated[float | None, typer.Option(help="months of this workload the migration cost is spread over (default 12)")] = None,
        no_migration: Annotated[bool, typer.Option("--no-migration", help="exclude stacks that need migration")] = False,
        subsidy: Annotated[float | None, typer.Option(help="share of domestic compute refunded, e.g. 0.25")] = None,
        objective: Annotated[str | None, typer.Option(help="cheapest, fastest, best-value, fastest-within-budget")] = None,
        top: Annotated[int | None, typer.Option(help="plans to show")] = None,
        file: Annotated[str | None, typer.Option(help="YAML workload file (flags override it)")] = None,
        skypilot: Annotated[str | None, typer.Option(help="write the best plan as a SkyPilot task YAML to this path")] = None,
        save: Annotated[bool, typer.Option("--save", help="store the plan in the database (SQLite by default)")] = False,
        name: Annotated[str | None, typer.Option(help="name for the saved plan")] = None,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Which device, how many, which billing, how long, how much — ranked, with reasons and warnings."""
        fields: dict[str, Any] = read_workload_file(file) if file else {}
        flags = {
            "model": model, "task": task, "tokens": tokens, "seq": seq, "global_batch": global_batch,
            "requests_per_s": requests_per_s, "concurrent_users": concurrent_users, "input": input, "output": output, "ttft_s": ttft, "tpot_s": tpot,
            "tokens_per_s_per_user": tokens_per_s_per_user,
            "hours": hours, "days": days, "budget_cny": budget, "deadline_hours": deadline_hours,
            "domestic_only": domestic_only or None, "vendors": tuple(vendor) if vendor else None,
            "stacks": tuple(stack) if stack else None, "devices": tuple(gpu) if gpu else None,
            "max_gpus": max_gpus, "gpus": gpus, "billing": billing.lower() if billing else None,
            "region": region.lower() if region else None, "allow_migration": False if no_migration else None,
            "offer_kinds": _kinds(offer_kinds), "stale_months": stale_months, "framework": framework, "tp": tp, "pp": pp, "vpp": vpp, "ep": ep, "zero": zero,
            "recompute": recompute, "precision": precision, "engine": engine, "lora_rank": lora_rank,
            "lora_targets": lora_targets, "already_on": tuple(already_on) if already_on else None,
            "migration_months": migration_months,
            "subsidy": subsidy, "objective": objective, "top": top,
        }
        fields.update({k: v for k, v in flags.items() if v is not None})
        if "model" not in fields:
            raise InputError("model", Message("err.required_a_preset_name_or_a"))
        cat = plan_search_catalog()  # the offers POST /api/plan searches too
        # a name that does not exist is said first, with its closest names, before any missing-flag refusal
        # (buyer review 2026-12-03: `--model qwen-32b --concurrent-users 100` asked for --tpot first)
        m = load_model_arg(cat, str(fields["model"]))
        if isinstance(fields.get("devices"), list | tuple):
            from suanli.views.bounds import check_device_names

            check_device_names(cat, [str(d) for d in fields["devices"]])  # unknown: NotFoundError naming --gpu
        try:
            from suanli.plan.request import NAME_FIELDS, catalog_names

            if any(fields.get(f) for f in NAME_FIELDS):  # '华为', 'CANN', 'Moore Threads' → the catalog's ids, as
                from suanli.catalog.load import packaged_catalog  # POST /api/plan reads them (`catalog_names`)

                fields = catalog_names(packaged_catalog(), fields)
            req: PlanRequest = make_request(**fields)
            check_plan(req, flags=True)  # the API's bounds (suanli.views.bounds)
        except InputError as e:
            raise _as_flag(e) from None
        slow = req.tpot_note()  # --tpot 30 meaning 30 tokens/s: said first, on stderr (the JSON stays parseable)
        if slow is not None:
            _err_line(f"[yellow]{label('cli.label.warning')}[/]{say(slow)}")
        from suanli.plan.search import PP_SIZES
        from suanli.views.bounds import check_vpp

        if req.task != "inference":  # a pinned --vpp no searched pp splits the layers for: the sizes that run
            check_vpp(req.vpp, req.pp, m.num_layers, PP_SIZES)
        from suanli.validate.bands import packaged_error_bands

        result = plan(cat, m, req, as_of(), error_bands=packaged_error_bands())  # each plan's speed evidence
        result = with_rate_note(result)  # a rate derived from --concurrent-users is said first among the assumptions
        result = with_calibration_note(result, cat)  # the calibration file's factors it used, said last
        not_written = _export_skypilot(skypilot, result, cat, m) if skypilot else None
        saved = None
        if save:
            from suanli.store.db import open_store
            from suanli.store.settings import redact_url

            store = open_store()
            # the checkpoint the job downloads (plan's model_id), as POST /api/plans stores it
            saved = store.save_plan(result.model_id, req.model_dump(mode="json"), plan_json(result), name=name)
            where = redact_url(store.url)
        if json_:
            emit_json({**plan_json(result), **({"saved_plan_id": saved} if saved is not None else {})})
        else:
            render_plan(result)
            if saved is not None:
                from suanli.i18n import t

                console.print(t("plan.saved", lang(), id=saved, where=where), highlight=False)
        if skypilot and not_written is None and result.plans:  # written: what SkyPilot will not rent as priced
            from suanli.plan.export import skypilot_notes

            for note in skypilot_notes(result.plans[0], cat):
                _err_line(f"[yellow]{label('cli.label.warning')}[/]{say(note)}")
        if not_written is not None:  # the plan stands (exit 0 when there is one); one line says why no YAML
            (_err_line if json_ else echo)(
                f"[yellow]{label('cli.label.warning')}[/]{say(Message('plan.skypilot.not_written', path=skypilot, why=not_written))}")
        if not result.plans:  # issue 10: nothing qualifies is a failure; one line on stderr, the relax hints are
            # printed above (or in the JSON's `relax`), with the label every error has
            _err_line(f"[red]{label('cli.label.error')}[/red]" + tr("error.plan_none_json" if json_ else "error.plan_none_short"))
            raise typer.Exit(1)
