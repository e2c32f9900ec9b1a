"""Cost commands: compare, tco, rent-vs-buy, scenarios, and `migrate cost`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from suanli.catalog import lookup
from suanli.catalog import offers as offer_q
from suanli.catalog.load import packaged_assumptions, read_yaml
from suanli.views.files import load_model_arg
from suanli.cli.context import as_of, planning_catalog
from suanli.cli.output import (
    Price,
    col_headers,
    display_name,
    echo,
    emit_json,
    emit_rows,
    label,
    lang,
    say,
    say_json,
    tr,
)
from suanli.errors import InputError, NotFoundError
from suanli.i18n import Message, render, span_text, yuan
from suanli.plan.compare import (
    ServingTargets,
    compare_devices,
    migration_cost,
    tco_rows,
)
from suanli.plan.labels import replica_words
from suanli.plan.scenarios import Scenario, run_scenario
from suanli.units import count_from_text, money_from_text

_ASSUME = packaged_assumptions()  # the catalog's `assumptions:` (assumptions.yaml): option defaults and help texts

__all__ = ["SCENARIOS_PATH", "register"]

SCENARIOS_PATH = Path(__file__).resolve().parent.parent / "data" / "scenarios.yaml"

RegionOpt = Annotated[str, typer.Option("--region", help="offers from: cn (Chinese platforms), any, international")]
KindsOpt = Annotated[str, typer.Option("--offer-kinds", help="listing, index, reference, contract (comma-separated) or all; listing takes your imported contract prices too")]


def _basis(region: str, offer_kinds: str) -> tuple[str, tuple[str, ...]]:
    return offer_q.parse_region(region), offer_q.parse_kinds(offer_kinds)


def _card_hour(row: dict[str, Any]) -> float | str | None:
    """¥ per card-hour; a price from a longer billing unit (at full use) names the unit."""
    price, unit = row.get("cny_per_card_hour"), row.get("card_hour_billing_unit")
    if price is None or unit in (None, "hour"):
        return _fen(price)
    return tr("cli.card_hour_by", price=price, billing_unit=unit)


def _value_cell(row: dict[str, Any]) -> Any:
    """TFLOPS per ¥/h with the price it divides by beside it (`value_basis`: this job's bill, an hourly offer, or a
    longer billing unit at full use), so rows priced on different bases read as such (buyer review 2026-12-03, N.2)."""
    value, basis = row.get("effective_tflops_per_cny_hour"), row.get("value_basis")
    if value is None or basis is None:
        return value
    from suanli.cli.output import _cell

    return tr("cli.value_by", value=_cell(float(value)),
              basis=tr(_VALUE_BASIS[basis], billing_unit=row.get("card_hour_billing_unit") or "hour"))


_VALUE_BASIS = {"job": "value.basis.job", "hourly": "value.basis.hourly", "full_use": "value.basis.full_use"}


def _fen(price: Any) -> Any:
    """A per-card-hour price in a table cell to the fen, as every ¥/card-h column prints it (2.57 beside 2.60, not 2.6;
    output.Price); None and text pass through."""
    return Price(float(price)) if isinstance(price, (int, float)) and not isinstance(price, bool) else price


def _kinds(kinds: tuple[str, ...] | list[str], used: Any = ()) -> str:
    """The offer kinds a cost answer priced from, as one phrase: the requested ones and those of the offers it used
    (`offers.kinds_priced`: 'listing and contract' where an imported contract price set a figure)."""
    return say(offer_q.kinds_message(offer_q.kinds_priced(kinds, used)))


def _sentences(d: dict[str, Any], key: str) -> list[str]:
    """A list of sentences an answer carries (`key`, beside its messages in `key`_i18n) in this run's language."""
    msgs, texts = d.get(f"{key}_i18n") or [], d.get(key) or []
    return [say_json(m, x) for m, x in zip(msgs, texts)] if len(msgs) == len(texts) else list(texts)


def _say_offer_warnings(cat: Any, device_id: str, d: dict[str, Any]) -> None:
    """What the offer behind a device's figures leaves out of its card (a 910B without its variant, an A100 node
    without SXM or PCIe: `plan.caveats`, plan's warnings word for word), each a warning named by the device."""
    for text in _sentences(d, "offer_warnings"):
        echo("[yellow]" + tr("cli.named", name=_device(cat, device_id), text="! " + text))


def _device(cat: Any, device_id: str) -> str:
    """A device as a cost table names it, one rule for every row: its catalog name as plans name it (`display_name`:
    the vendor's Chinese name in Chinese output where the catalog has one, 华为昇腾 910B; else the name, NVIDIA H200
    SXM 141GB); the id only for a device the catalog lacks."""
    acc = next((a for a in cat.accelerators if a.id == device_id), None)
    return display_name(acc) if acc is not None else device_id


def _device_ranks(cat: Any, device_id: str, layout: dict[str, Any]) -> str:
    """A device as `_device` names it, with the ranks of its layout on a card of several dies (the 910C), as plan's
    table and reasons say them (`plan.device_dies`: 'Huawei Ascend 910C (16 dies)'); the layout's `ranks` are there
    only for such a card (`plan.compare._ranks_facts`), so every other device reads as `_device`."""
    ranks = layout.get("ranks")
    return tr("plan.device_dies", device=_device(cat, device_id), ranks=ranks) if ranks else _device(cat, device_id)


def _stack(cat: Any, stack_id: str | None) -> str | None:
    st = next((s for s in cat.stacks if s.id == stack_id), None)
    return display_name(st) if st is not None else stack_id


def _provider(offer_id: str | None, provider: Any) -> Any:
    """An offer's provider as this run shows it: the catalog's `provider_zh` in Chinese output (display_note)."""
    if lang() != "zh" or not offer_id:
        return provider
    from suanli.catalog.load import packaged_catalog
    from suanli.cli.output import display_note

    o = next((o for o in packaged_catalog().offers if o.id == offer_id), None)
    return display_note(o, "provider") if o is not None and o.provider == provider else provider


def _say_basis(region: str, kinds: tuple[str, ...], facts: list[dict[str, Any] | None]) -> None:
    """The line every cost answer prints: which offers it priced from, international ones marked, stale ones dated."""
    used = [f for f in facts if f]
    line = tr("cli.prices.basis", price_region=region, kinds=_kinds(kinds, (f["kind"] for f in used if f.get("kind"))))
    if used:
        seen: dict[str, dict[str, Any]] = {f["offer"]: f for f in used}
        line += tr("cli.prices.used", offers=tr("cli.prices.sep").join(
            tr("cli.prices.offer_intl" if f["international"] else "cli.prices.offer", offer=f["offer"],
               provider=_provider(f["offer"], f["provider"]), price_kind=f["kind"], date=f["date"],
               second_hand=tr("offer.second_hand") if f.get("second_hand") else "")
            for f in seen.values()))
    echo(f"[dim]{line}[/dim]")
    for f in {f["offer"]: f for f in used}.values():
        if f.get("stale"):
            echo(f"[yellow]{label('cli.label.warning')}[/]{say_json(f.get('stale_i18n'), f['stale'])}")


def _break_even_text(be: float | None) -> str:
    if be == 0:  # owning cheaper even at 1 h of use: "at any use", never "above 0% use"
        return tr("cli.rvb.be_any")
    return tr("cli.rvb.be_share", share=be) if be is not None else tr("cli.rvb.be_never")


def _say_fresh_range(fresh: dict[str, Any]) -> None:
    offers = fresh["offers"]
    # buying pays off at any use at every fresh price: the verdict's note says why; the sentence keeps the prices
    any_use = fresh["break_even_at_lowest"] == 0 and fresh["break_even_at_highest"] == 0
    if not offers:
        line = tr("cli.rvb.fresh_none", margin=fresh["margin"])
    elif any_use and len(offers) == 1:
        line = tr("cli.rvb.fresh_one_any", margin=fresh["margin"], offer=offers[0]["offer"], date=offers[0]["date"],
                  price=offers[0]["rent_cny_per_card_hour"])
    elif any_use:
        line = tr("cli.rvb.fresh_range_any", margin=fresh["margin"], n=len(offers),
                  lo=offers[0]["rent_cny_per_card_hour"], hi=offers[-1]["rent_cny_per_card_hour"])
    elif len(offers) == 1:
        line = tr("cli.rvb.fresh_one", margin=fresh["margin"], offer=offers[0]["offer"], date=offers[0]["date"],
                  price=offers[0]["rent_cny_per_card_hour"], be=_break_even_text(fresh["break_even_at_lowest"]))
    else:
        line = tr("cli.rvb.fresh_range", margin=fresh["margin"], n=len(offers), lo=offers[0]["rent_cny_per_card_hour"],
                  hi=offers[-1]["rent_cny_per_card_hour"], be_lo=_break_even_text(fresh["break_even_at_lowest"]),
                  be_hi=_break_even_text(fresh["break_even_at_highest"]))
    echo(f"[yellow]{line}[/]")


def _saving_unpriced(cat: Any, e: InputError, reg: str, kinds: tuple[str, ...],
                     default_from: str | None = None) -> InputError:
    """`migrate cost` without a price for a device to derive the saving from: a one-line refusal naming the missing
    figure and the flag that widens the prices (or --saving). One line only: the catalog's account (printed as a
    second line before) repeated "widen" and "pass --saving"; the widened command shows the figures it names, and
    --json's caller gets the full error. `default_from`: the --from-gpu id where the user left it at its default;
    that device unpriced, the line says it is the default and asks for the device run today (buyer review C: the
    bare `suanli migrate cost --model X` failed on the H100, which no Chinese listing prices, naming only --saving)."""
    why = e.i18n.params.get("why") if e.i18n is not None else None
    device = str(why.params.get("device")) if isinstance(why, Message) else "?"
    others = [o for o in cat.offers if o.device == device and o.kind not in kinds]
    domestic = {o.kind for o in others if not offer_q.is_international(o.region)}
    if reg == "cn" and domestic:  # a Chinese figure of another kind exists: the narrowest widening
        wider = next(k for k in ("listing", "index", "reference") if k in domestic)
        flag = "--offer-kinds " + ",".join((*kinds, wider))
    else:
        flag = "--region any" if reg != "any" else "--offer-kinds all"
    from suanli.i18n import messages

    zh = messages("zh")  # the kinds in both languages: the English line (str(e)) keeps the codes
    both = {"en": "/".join(kinds), "zh": "、".join(zh.get(f"price_kind.{k}", k) for k in kinds)}
    short = Message("error.saving_short", price_region=reg, kinds=both, device=device, flag=flag)
    if default_from is not None and device == default_from:
        short = Message("error.saving_short_default_from", price_region=reg, kinds=both, device=device, flag=flag)
        return InputError("from-gpu", render(short, "en"), short)
    return InputError("saving", render(short, "en").removeprefix("saving: "), short)


def _short_of_load(r: dict[str, Any]) -> str | None:
    """A compare row's fits cell where its cards fit but do not carry the stated rate or users (`served` None, the
    row's note says what they hold): "yes, short of the load", so the cost column is not read as the price of the
    load (buyer review C: 4× RTX 4090 read "fits: yes, ¥5,490" for 100 users it holds 24 of). None otherwise."""
    if r.get("cny_per_million_basis") != "rate" or r.get("served") is not None or not r.get("runs", True) \
            or r.get("fits") is not True:
        return None
    return tr("cmp.fits_short_of_load", fits=tr("est.fits_tight") if r.get("fits_tight") else tr("bool.yes"))


def _typed(ctx: typer.Context, *names: str) -> frozenset[str]:
    """The options among `names` the user typed (click's parameter source: the command line, not the default), so
    an answer says a typed value "as given" even where it equals the default (rent-vs-buy's assumptions)."""
    return frozenset(n for n in names if (src := ctx.get_parameter_source(n)) is not None
                     and src.name not in ("DEFAULT", "DEFAULT_MAP"))


def _need_usable(r: dict[str, Any]) -> str | float:
    """A compare row's memory as `suanli plan` prints it (its GiB/card column): needed / usable GiB per card, the
    needed GiB alone where the device's memory size is unknown (rows from before these fields: the total). A card of
    several dies (the 910C: the layout's `dies_per_card`): the figures are a die's, "57/58 per die" as plan's cell."""
    need, usable = r.get("memory_needed_bytes"), r.get("memory_usable_bytes")
    if need is None:
        return float(r["memory_per_gpu_bytes"]) / 2**30
    cell = f"{need / 2**30:,.0f}/{usable / 2**30:,.0f}" if usable else f"{need / 2**30:,.0f}"
    return cell + (" " + tr("col.per_die") if (r.get("layout") or {}).get("dies_per_card") else "")


def register(app: typer.Typer, migrate_app: typer.Typer) -> None:
    @app.command("compare")
    def compare_cmd(
        model: Annotated[str, typer.Option(help="preset or config.json")],
        gpu: Annotated[list[str], typer.Option(help="2–4 devices (repeat --gpu)")],
        task: Annotated[str, typer.Option(help="inference, lora, qlora, full, pretrain")] = "inference",
        gpus: Annotated[int, typer.Option(help="cards per device")] = 1,
        precision: Annotated[str | None, typer.Option(help="precision (default: bf16; serving an FP8 checkpoint: fp8 where the device runs FP8)")] = None,
        batch: Annotated[int | None, typer.Option(help="serving: concurrent sequences per replica (default: the planner's serving search picks it, within --tpot/--requests-per-s/--ttft or a 200 ms TPOT)")] = None,
        requests_per_s: Annotated[float | None, typer.Option(help="serving: requests per second the --gpus cards must serve (the planner's serving search)")] = None,
        tpot: Annotated[float | None, typer.Option(help="serving: time-per-output-token target, s (default when no --requests-per-s: 0.2, MLPerf Inference's Server bound)")] = None,
        ttft: Annotated[float | None, typer.Option(help="serving: time-to-first-token target, s")] = None,
        concurrent_users: Annotated[int | None, typer.Option(help="serving: users streaming at once, instead of --requests-per-s (as plan: needs --tpot; rate = users ÷ (TTFT + output × TPOT), Little's law)")] = None,
        input_: Annotated[int | None, typer.Option("--input", help="serving: prompt tokens per request (as plan; default 512)")] = None,
        output: Annotated[int | None, typer.Option("--output", help="serving: output tokens per request (as plan; default 256)")] = None,
        tokens: Annotated[float | None, typer.Option(parser=count_from_text, help="tokens to train on / generate: gives hours and cost; 5e7, 50M, 5000万")] = None,
        hours: Annotated[float | None, typer.Option(help="serving period in hours (as plan; default with --requests-per-s 730: an average month, 8,760 h ÷ 12)")] = None,
        days: Annotated[float | None, typer.Option(help="serving period in days")] = None,
        global_batch: Annotated[int, typer.Option(help="training: sequences per optimizer step (as plan)")] = 64,
        tp: Annotated[int | None, typer.Option(help="pin tensor parallelism (default: the fastest layout per device)")] = None,
        pp: Annotated[int | None, typer.Option(help="pin pipeline parallelism (training)")] = None,
        zero: Annotated[int | None, typer.Option(help="pin the ZeRO stage (training)")] = None,
        recompute: Annotated[str | None, typer.Option(help="pin activation recompute: none, selective, full (training)")] = None,
        region: RegionOpt = offer_q.DEFAULT_REGION,
        offer_kinds: KindsOpt = "listing",
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """The same job on 2–4 devices side by side: memory, speed, hours, cheapest cost, TFLOPS per yuan.

        Each device runs the planner's fastest layout on exactly --gpus of its cards unless --tp/--pp/--zero/--recompute
        pin it; the row names the layout (`suanli estimate` with it gives the same numbers)."""
        cat = planning_catalog()
        arch = load_model_arg(cat, model)
        from suanli.views.bounds import check_compare, check_device_names

        # an unknown --model or --gpu name is said first, before any other refusal, as plan and POST /api/compare
        check_device_names(cat, gpu)
        reg, kinds = _basis(region, offer_kinds)
        check_compare(tokens, gpus)  # POST /api/compare's bounds
        from suanli.validate.bands import packaged_error_bands

        rows = compare_devices(cat, arch, list(gpu), task, gpus, precision, batch, tokens, zero,
                               region=reg, kinds=kinds, tp=tp, pp=pp, recompute=recompute, global_batch=global_batch,
                               requests_per_s=requests_per_s, tpot_s=tpot, ttft_s=ttft, today=as_of(),
                               error_bands=packaged_error_bands(),  # each row's speed evidence on its stack
                               input_tokens=input_, output_tokens=output, concurrent_users=concurrent_users,
                               asked=model,  # each row's model_id: the checkpoint the job downloads
                               hours=hours, days=days)  # serving: plan's period and cost rule
        from suanli.views.estimates import calibration_rows

        rows = calibration_rows(rows, cat)  # the calibration file's factors each row used, as estimate applies them
        if json_:
            emit_json(rows)
            return
        # a row that does not fit never runs (estimate's rule): no speed, scaling or TFLOPS per yuan; --json keeps
        # the figures it would reach with runs: false
        table = [{
            "device": _device_ranks(cat, r["device"], r["layout"]), "layout": say_json(r["layout"].get("label_i18n"), r["layout"]["label"]),
            "gib_per_card": _need_usable(r),  # plan's GiB/card: needed / usable (the engine's pool: a note below)
            # the plan's memory-within-error check in the row's own words (`fit_label`, known_error.fit_word: "likely
            # short" where its bias exceeds the headroom, plan demotes it; "fits (tight)"); a plain fit stays "yes"
            "fits": (say_json(r.get("fit_label_i18n"), r.get("fit_label")) if r.get("likely_short")
                     else _short_of_load(r) or (say_json(r.get("fit_label_i18n"), r.get("fit_label"))
                                                if r.get("fits_tight") else r["fits"])),
            # a row that runs no layout but does fit (or may: no published bandwidth) is not estimable, not short
            "tokens_per_s": (r["tokens_per_s"] if r.get("runs", True) else tr("cmp.speed_no_fit") if r["fits"] is False
                             else tr("cmp.speed_not_estimable")),
            "scaling": r["scaling_efficiency"] if r.get("runs", True) else None, "hours": r["hours"],
            "cost_cny": r["cost_cny"], "cny_per_card_hour": _card_hour(r),
            # tco's job ¥/card-h (the bill ÷ cards ÷ hours: idle cards of a whole instance count); the value column's
            "job_cny_per_card_hour": _fen(r.get("job_cny_per_card_hour")),
            # serving: the bill per million output tokens at the rate (or, with none, the capacity) it is sized for
            "cny_per_million_output_tokens": r.get("cny_per_million_output_tokens"),
            "tflops_per_cny_hour": _value_cell(r) if r.get("runs", True) else None,
            "stack": _stack(cat, r["stack"]),
        } for r in rows]
        cols = list(table[0])
        # the title names the checkpoint the job downloads, as plan/estimate do (`lookup.checkpoint_id`: the rows'
        # model_id; a config.json: hf_config's config_model_name)
        if all(r.get("job_cny_per_card_hour") is None for r in rows):  # no bill (no hours): no job price to show
            cols.remove("job_cny_per_card_hour")
        if all(r.get("cny_per_million_output_tokens") is None for r in rows):  # training, or no bill
            cols.remove("cny_per_million_output_tokens")
        # the ¥/M column's header names its load: the stated (or users') rate, else the capacity the row quotes
        capacity = any(r.get("cny_per_million_basis") == "capacity" for r in rows)
        emit_rows(table, cols, title=tr("cli.compare.title", model=rows[0]["model_id"], task=task, gpus=gpus),
                  headers={**col_headers(cols, "compare.col"), "cny_per_million_output_tokens": tr(
                      "col.cny_per_m_out_capacity" if capacity else "col.cny_per_m_out_rate")},
                  drop_later=("stack",),
                  keep_always=("cost_cny", "job_cny_per_card_hour"))  # the stack before a name wraps
        # each row's bill in words (tco's notes: billing rounding, a machine or block rented whole), numbered under
        # the table as tco numbers them, one number per distinct sentence, naming the devices it applies to
        bill_notes: dict[str, list[str]] = {}
        for r in rows:
            msgs, texts = r.get("notes_i18n") or [], r.get("notes") or []
            for text in ([say_json(m, n) for m, n in zip(msgs, texts)] if len(msgs) == len(texts) else texts):
                bill_notes.setdefault(text, []).append(_device(cat, r["device"]))
        if bill_notes:
            from rich.markup import escape

            for i, (text, devices) in enumerate(bill_notes.items(), 1):
                echo(escape(f"({i}) {', '.join(devices)}: {text}"))
        if rows[0].get("users_note"):  # --concurrent-users: the rate they send (plan's sentence)
            echo(say_json(rows[0].get("users_note_i18n"), rows[0]["users_note"]))
        if rows[0].get("serving_rule"):  # how each row's serving batch was chosen (the batch is in its layout)
            echo(say_json(rows[0].get("serving_rule_i18n"), rows[0]["serving_rule"]))
        if rows[0].get("period_note"):  # the serving period hours and cost are billed for (plan's sentence)
            echo("[dim]" + tr("plan.assumed", text=say_json(rows[0].get("period_note_i18n"),
                                                            rows[0]["period_note"])) + "[/dim]")
        for r in rows:  # a request rate: the batch it is served at beside the capacity column (its TPOT, TTFT)
            if r.get("served"):
                echo(tr("cli.named", name=_device(cat, r["device"]), text=say_json(r["served"].get("note_i18n"), r["served"]["note"])))
        for r in rows:  # a rate or a TPOT: the most plan serves on the cards, and above which it warns of a thin margin
            if r.get("capacity_note"):
                echo(tr("cli.named", name=_device(cat, r["device"]), text=say_json(r.get("capacity_note_i18n"), r["capacity_note"])))
        _say_basis(reg, kinds, [r["offer_facts"] for r in rows])
        said: set[str] = set()
        for r in rows:  # the out-of-sample evidence for the speed column, once per stack (a row that runs)
            ev = say_json(r.get("evidence_i18n"), r["evidence"]) if r.get("evidence") and r.get("runs", True) else None
            if ev and ev not in said:
                said.add(ev)
                echo(f"[yellow]{label('cli.label.evidence')}[/]{ev}")
        for r in rows:  # a pre-allocating engine holds more than the workload needs: what the card shows in use
            if r.get("memory_pool_note"):
                echo("[dim]" + tr("cli.named", name=_device(cat, r["device"]),
                                 text=say_json(r.get("memory_pool_note_i18n"), r["memory_pool_note"])) + "[/dim]")
        for r in rows:  # a fit within the known memory error: the plan's warning, word for word
            if r.get("memory_warning"):
                echo("[yellow]" + tr("cli.named", name=_device(cat, r["device"]),
                                    text="! " + say_json(r.get("memory_warning_i18n"), r["memory_warning"])))
            if r.get("memory_likely_short"):  # the bias exceeds the headroom: the plan's sentence
                echo("[yellow]" + tr("cli.named", name=_device(cat, r["device"]),
                                    text="! " + say_json(r.get("memory_likely_short_i18n"), r["memory_likely_short"])))
        for r in rows:  # the row's offer does not name its card's variant, form factor or memory size
            _say_offer_warnings(cat, r["device"], r)
        for r in rows:  # an FP8 checkpoint run in 16-bit on this device
            if r.get("precision_note"):
                echo("[yellow]" + tr("cli.named", name=_device(cat, r["device"]) + "[/]",
                                    text=say_json(r.get("precision_note_i18n"), r["precision_note"])))
        for r in rows:
            if r["layout_note"]:
                echo("[yellow]" + tr("cli.named", name=_device(cat, r["device"]) + "[/]",
                                    text=say_json(r.get("layout_note_i18n"), r["layout_note"])))
        for r in rows:
            if r["no_price"]:
                echo(f"[yellow]{label('cli.label.unpriced')}[/]{say_json(r.get('no_price_i18n'), r['no_price'])}")
        for r in rows:
            if r.get("calibration"):
                echo("[dim]" + tr("plan.assumed", text=say_json(r.get("calibration_i18n"), r["calibration"]))
                     + "[/dim]")

    @app.command("tco")
    def tco_cmd(
        gpu: Annotated[str, typer.Option(help="device")],
        hours: Annotated[float, typer.Option(help="how long you need the cards")],
        gpus: Annotated[int, typer.Option(help="cards")] = 1,
        subsidy: Annotated[float, typer.Option(help="share refunded by a local compute subsidy (domestic only)")] = 0.0,
        tokens_per_s: Annotated[float | None, typer.Option(help="throughput, for cost per 1M tokens")] = None,
        utilization: Annotated[float, typer.Option(help="share of rented time the cards do useful work")] = 1.0,
        region: RegionOpt = offer_q.DEFAULT_REGION,
        offer_kinds: KindsOpt = "listing",
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Cost of holding N cards for H hours under every usable offer and billing unit, in plan's order: fresh prices first, then the cheapest."""
        reg, kinds = _basis(region, offer_kinds)
        cat = planning_catalog()
        from suanli.views.bounds import check_tco  # the API's bounds

        check_tco(tokens_per_s, utilization, flags=True, gpus=gpus)
        rows = tco_rows(cat, gpu, hours, gpus, subsidy, tokens_per_s, utilization, region=reg, kinds=kinds,
                        today=as_of())
        if json_:
            emit_json(rows)
            return
        # Chinese: the count and its unit one cell (40 小时, 1 个月), so no width leaves a bare 计费数 40 (native reader's
        # review 2026-12-01); English keeps its two columns (units, per)
        zh = lang() == "zh"
        billed = ["billed"] if zh else ["billing_unit", "units_billed"]
        cols = ["provider", "kind", *billed, "cards_rented", "cost_cny", "cost_cny_max",
                "list_cny_per_card_hour", "effective_cny_per_card_hour",
                *(["cny_per_million_tokens"] if tokens_per_s else []), "notes"]
        # two prices per card-hour, both named (buyer review 2026-12-01: tco's 2.6 beside compare's 2.57 for the
        # 910B month): the offer's at full use (a month = 730 h), as compare, migrate and rent-vs-buy show it, and
        # this job's, the bill ÷ (cards × --hours); both from the row (tco_rows), as the API and the page read them
        # the notes are sentences: numbered under the table (one number per distinct sentence), so the column
        # holds only their numbers and the table keeps its width for the figures at 80 columns
        footnotes: dict[str, int] = {}

        def refs(r: dict[str, Any]) -> str:
            texts = ([say_json(m, n) for m, n in zip(r.get("notes_i18n") or [], r["notes"])]
                     if len(r.get("notes_i18n") or []) == len(r["notes"]) else list(r["notes"]))
            return " ".join(f"({footnotes.setdefault(x, len(footnotes) + 1)})" for x in texts)

        shown = [{**r, "provider": _provider(r.get("offer"), r.get("provider")),
                  "kind": tr(f"price_kind.{r['kind']}") if r.get("kind") else r.get("kind"),
                  "notes": refs(r),
                  "billing_unit": tr(f"billing_unit.{r['billing_unit']}") if r.get("billing_unit") else r.get("billing_unit"),
                  "billed": tr("cli.tco.billed", units=r.get("units_billed"), billing_unit=r.get("billing_unit")),
                  "list_cny_per_card_hour": _fen(r.get("list_cny_per_card_hour")),
                  "effective_cny_per_card_hour": _fen(r.get("effective_cny_per_card_hour"))}
                 for r in rows]
        emit_rows(shown, cols, title=tr("cli.tco.title", gpus=gpus, device=display_name(lookup.accelerator(cat, gpu)),
                                         hours=hours), headers=col_headers(cols, "tco.col"),
                  # the notes' numbers (their sentences print below) and ¥/1M tok when --tokens-per-s was given stay
                  keep_always=("cost_cny", "effective_cny_per_card_hour", "notes",
                               *(["cny_per_million_tokens"] if tokens_per_s else [])),
                  drop_later=("cost_cny_max",),
                  # ¥ max that repeats ¥ in every row goes first, before a provider's name wraps; then kind and
                  # billing unit (the offer's words, not the bill's figures)
                  drop_first=(*(("cost_cny_max",) if all(r["cost_cny_max"] == r["cost_cny"] for r in rows) else ()),
                              "kind", "billing_unit"))
        echo("[dim]" + tr("cli.tco.per_card_hour", gpus=gpus, hours=hours) + "[/dim]")
        # the order said as it is (plan's offer choice, `fresh_first`; one-job offers before separate instances):
        # a stale row after a fresh one is no "cheaper first" slip (buyer review 2026-12-01)
        if any(r.get("stale") for r in rows):
            echo("[dim]" + tr("cli.tco.order_stale", months=offer_q.DEFAULT_STALE_MONTHS) + "[/dim]")
        if not all(r.get("one_job", True) for r in rows):
            echo("[dim]" + tr("cli.tco.order_apart", gpus=gpus) + "[/dim]")
        if rows[0].get("subsidy_note"):  # gross and net of the first row (plan.cost.subsidy_note: one rule)
            echo(tr("cli.tco.subsidy", line=say_json(rows[0].get("subsidy_note_i18n"), rows[0]["subsidy_note"])))
        from rich.markup import escape

        for text, i in footnotes.items():
            echo(escape(f"({i}) {text}"))
        _say_basis(reg, kinds, list(rows))
        from suanli.catalog.offers import china_export_controlled

        acc = lookup.accelerator(cat, gpu)
        if rows and china_export_controlled(acc):  # as plan, compare and rent-vs-buy warn: a listing is no licence
            echo(f"[yellow]{label('cli.label.warning')}[/]"
                 + tr("plan.warn.china_export", device=display_name(acc), device_id=acc.id))

    @app.command("rent-vs-buy")
    def rent_vs_buy_cmd(
        ctx: typer.Context,
        gpu: Annotated[str, typer.Option(help="device")] = "rtx-4090",
        utilization: Annotated[float, typer.Option(help="share of the year the card works (hours in use ÷ 8,760)")] = 0.5,
        use_pattern: Annotated[str, typer.Option("--use-pattern", help="how the hours in use fall: spread (some every month: a monthly offer is rented all year) or blocks (whole months: each offer bills the units covering them)")] = "spread",
        years: Annotated[float, typer.Option(help=f"amortization years (assumed default {_ASSUME.amortization_years.value:g})")] = _ASSUME.amortization_years.value,
        pue: Annotated[float, typer.Option(help=f"data-centre PUE (assumed default {_ASSUME.pue.value:g})")] = _ASSUME.pue.value,
        electricity: Annotated[float, typer.Option(parser=money_from_text, help=f"CNY per kWh (assumed default {_ASSUME.electricity_cny_per_kwh.value:g})")] = _ASSUME.electricity_cny_per_kwh.value,
        ops: Annotated[float, typer.Option(parser=money_from_text, help="operations CNY per card per year")] = 0.0,
        card_price: Annotated[float | None, typer.Option(parser=money_from_text, help="CNY per card (default: catalog purchase)")] = None,
        server_share: Annotated[float | None, typer.Option(parser=money_from_text, help="server CNY per card (default: catalog)")] = None,
        rent_price: Annotated[float | None, typer.Option(parser=money_from_text, help="CNY per card-hour (default: the cheapest way to rent a card for a year, any billing unit)")] = None,
        tdp_w: Annotated[float | None, typer.Option("--tdp-w", help="card power in W (default: the catalog's TDP)")] = None,
        host_w: Annotated[float | None, typer.Option("--host-w", help="host power per card in W: the card's share of its server's CPUs, memory, NICs and fans (default: the catalog's whole-server figure, else an assumed share of the TDP)")] = None,
        n_cards: Annotated[int | None, typer.Option("--cards", "--gpus", help="cards you buy: up to one server's (its non-card hardware is shared by them) or a multiple of them, whole servers (default: the catalog server's cards)")] = None,
        subsidy: Annotated[float, typer.Option(help="share of the rent refunded by a local compute subsidy (domestic only; rent side only, as tco)")] = 0.0,
        region: RegionOpt = offer_q.DEFAULT_REGION,
        offer_kinds: KindsOpt = "listing",
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Per card per year: renting against buying (capex, power = (TDP + host share) × PUE × price, ops) and break-even use.

        A year of renting is the cheapest usable offer for holding a card 8,760 h (any billing unit: a monthly
        price beats an hourly one over a year). Renting at a use is the cheapest bill for utilization × 8,760 h in
        use, each offer billed in its own unit: spread over the year (--use-pattern spread, the default) a monthly
        offer is still rented every month and an hourly one bills the hours in use; in whole months (blocks) each
        offer bills the units covering them. A fresh price before a stale one, as the planner chooses. Buying
        shares one server's non-card hardware among --cards."""
        from suanli.i18n import messages
        from suanli.views.rent_vs_buy import rent_vs_buy_answer

        reg, kinds = _basis(region, offer_kinds)
        cat = planning_catalog()
        # one computation for the CLI and POST /api/rent-vs-buy (views.rent_vs_buy): prices, offer, verdict, totals
        a = rent_vs_buy_answer(cat, gpu, utilization, use_pattern, years, pue, electricity, ops, card_price,
                               server_share, rent_price, tdp_w, n_cards, reg, kinds, as_of(), subsidy, host_w,
                               given=_typed(ctx, "utilization", "years", "pue", "electricity", "ops"))
        if json_:
            emit_json(a.json)
            return
        acc, r, rent, card, srv_msg, fresh = (a.acc, a.result, a.rent_cny_per_card_hour, a.card_cny, a.server_msg,
                                              a.fresh)
        srv, priced_server, rent_o, at_o = (a.server_share_cny, a.server_share_cny is not None, a.rent_offer,
                                            a.at_offer)
        rent_info: dict[str, Any] = {"rent_offer": a.json.get("rent_offer") or {}}
        extra_at: dict[str, Any] = {"rent_at_utilization_offer_facts": a.json.get("rent_at_utilization_offer_facts") or {}}
        totals, total_cards = a.totals, a.totals["cards"]
        if rent_o is not None:
            # the offer and the year's bill (whole servers: one instance per server), the answer's own message
            echo("[dim]" + tr("cli.prices.basis", price_region=reg,
                              kinds=_kinds(kinds, (o.kind for o in (rent_o, at_o) if o is not None)))
                 + tr("cli.rvb.rent_from", text=say_json(a.json["rent_from_i18n"], a.json["rent_from"])) + "[/dim]")
            for note, note_i18n in zip(a.json.get("rent_notes") or [], a.json.get("rent_notes_i18n") or []):
                # the bill's notes: separate instances when no offer holds the cards as one job (tco's note)
                echo(f"[yellow]{label('cli.label.warning')}[/]{say_json(note_i18n, note)}")
            facts = rent_info["rent_offer"]
            if facts.get("stale"):
                echo(f"[yellow]{label('cli.label.warning')}[/]{say_json(facts.get('stale_i18n'), facts['stale'])}")
        from suanli.catalog.offers import china_export_controlled

        if china_export_controlled(acc):  # as plan warns: a Chinese listing of such a card is no licence
            echo(f"[yellow]{label('cli.label.warning')}[/]"
                 + tr("plan.warn.china_export", device=display_name(acc), device_id=acc.id))
        if at_o is not None and at_o is not rent_o and extra_at["rent_at_utilization_offer_facts"].get("stale"):
            facts = extra_at["rent_at_utilization_offer_facts"]
            echo(f"[yellow]{label('cli.label.warning')}[/]{say_json(facts.get('stale_i18n'), facts['stale'])}")
        share = (tr("cli.rvb.server_share", cny=srv) if priced_server and srv
                 else tr("cli.rvb.server", note=say(srv_msg) if srv_msg is not None else ""))
        echo(tr("cli.rvb.header", device=f"[bold]{display_name(acc)}[/bold]", rent=rent, card=card, share=share))
        echo(tr("cli.rvb.amortized", years=years))  # buy ¥/year's basis
        if priced_server and srv and srv_msg is not None:  # the server the share comes from, and how it is split
            echo("[dim]" + tr("cli.rvb.server", note=say(srv_msg)) + "[/dim]")
        # the purchase prices' rows and dates, as the rent offer's are cited; stale or low-confidence ones warned
        dated = [tr(f"rvb.purchase.{w}", id=a.json[f"{w}_price_id"], date=a.json[f"{w}_price_date"])
                 for w in ("card", "server") if a.json.get(f"{w}_price_date")]
        for line in dated:
            echo("[dim]" + line + "[/dim]")
        # the card bought in months of this rent: an 8-card machine's monthly price ÷ 8 beside a card's price
        echo("[dim]" + say_json(a.json["rent_vs_price_i18n"], a.json["rent_vs_price"]) + "[/dim]")
        for note, note_i18n in zip(a.json["purchase_notes"], a.json["purchase_notes_i18n"]):
            echo(f"[yellow]{label('cli.label.warning')}[/]{say_json(note_i18n, note)}")
        if a.json.get("servers"):  # --cards a multiple of the server's: whole servers bought
            echo(tr("rvb.purchase.servers", servers=a.json["servers"], server_cards=a.json["server_cards"],
                    cards=total_cards))
        # the rent side at this use: the offer, its unit, the units billed and the bill (the table's figure)
        echo("[dim]" + say_json(r.rent_at_utilization_note_i18n, r.rent_at_utilization_note) + "[/dim]")
        if r.subsidy_note is not None:  # the subsidy on the rent (plan.cost.subsidy_note), rent side only
            echo(tr("rvb.subsidy_rent_only", line=say_json(r.subsidy_note_i18n, r.subsidy_note)))
        if r.commitment_note is not None:  # a contract longer than the year, billed here for the year's share
            echo(f"[yellow]{label('cli.label.warning')}[/]{say_json(r.commitment_note_i18n, r.commitment_note)}")
        items: list[dict[str, Any]] = []
        for k, v in r.model_dump().items():
            if k in ("break_even_note", "break_even_note_i18n", "use_pattern", "hours_in_use",
                     "rent_at_utilization_note", "rent_at_utilization_note_i18n", "commitment_note",
                     "power_w_per_card", "host_w_per_card",  # said in the assumptions below the table
                     "commitment_note_i18n", "subsidy", "gross_rent_at_utilization_cny", "subsidy_note",
                     "subsidy_note_i18n") or k.startswith("rent_at_utilization_") \
                    and k != "rent_at_utilization_cny":  # said in the line above the table
                continue
            if k == "break_even_utilization" and (v is None or v == 0):  # never, or at any use: why, in words
                v = say_json(r.break_even_note_i18n, r.break_even_note)
            elif k in ("break_even_utilization", "utilization"):  # a share of the year, as the README says it
                v = f"{v * 100:.1f}".rstrip("0").rstrip(".") + "%"
            if k == "cheaper" and isinstance(v, str):
                v = tr(f"rvb.cheaper.{v}")
            if k == "running_cny_per_year" and ops:  # power alone unless --ops adds operations (none in the catalog)
                items.append({"item": tr("rvb.item.running_with_ops"), "value": v})
                continue
            items.append({"item": tr(f"rvb.item.{k}") if f"rvb.item.{k}" in messages(lang()) else k, "value": v})
        emit_rows(items, ["item", "value"], title=tr("cli.rvb.title"), headers=col_headers(["item", "value"]))
        # the core's totals and verdict (plan.cost.rent_vs_buy_totals), as the page reads them
        echo(tr("cli.rvb.totals", cards=total_cards, years=years, share=utilization, rent=totals["rent_cny"],
                own=totals["own_cny"], capex=totals["capex_all_cards_cny"], running=totals["running_cny"],
                running_what=tr("rvb.running.power_ops" if ops else "rvb.running.power"),
                cheaper=tr(f"rvb.cheaper.{totals['cheaper']}"), diff=totals["diff_cny"])
             + (tr("cli.rvb.verdict_but", note=say_json(totals["verdict_note_i18n"], totals["verdict_note"]))
                if totals.get("verdict_note") else ""))  # no offer holds the cards in one job: said in the verdict
        if fresh is not None:
            _say_fresh_range(fresh)
        # every input no quote gives (PUE, ¥/kWh, operations, years, use, host power): assumed, cited or as typed
        echo("[dim]" + tr("cli.rvb.assumptions") + "[/dim]")
        for item in a.json["assumptions"]:
            echo("[dim]" + tr("cli.rvb.assumption", text=say_json(item["text_i18n"], item["text"])) + "[/dim]")

    @app.command("scenarios")
    def scenarios_cmd(
        only: Annotated[str | None, typer.Option("--id", help="one scenario id")] = None,
        region: RegionOpt = offer_q.DEFAULT_REGION,
        offer_kinds: KindsOpt = "listing",
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Every scenario in the seeds' tables: the seeds' answer beside the planner's, and why they differ."""
        cat = planning_catalog()
        items = [Scenario.model_validate(s) for s in (read_yaml(SCENARIOS_PATH) or {}).get("scenarios", [])]
        if only:
            ids = [s.id for s in items]
            items = [s for s in items if s.id == only]
            if not items:
                raise InputError("id", Message("err.unknown_scenario_allowed", only=only, names_ids=', '.join(ids)))
        reg, kinds = _basis(region, offer_kinds)
        from suanli.validate.bands import packaged_error_bands

        # each plan's speed evidence and price freshness as `suanli plan` gives them
        results = [run_scenario(cat, s, region=reg, kinds=kinds, today=as_of(), error_bands=packaged_error_bands())
                   for s in items]
        if json_:  # the API's shape (views.scenarios): the English explanation and its message, explanation_i18n
            from suanli.views.scenarios import scenario_json

            emit_json([scenario_json(r, reg, kinds) for r in results])
            return
        rows = [{
            "scenario": r.scenario.title, "seeds": tr("list.sep").join(_device(cat, d) for d in r.scenario.seed_answer),
            "planner": _device(cat, r.planner_device) if r.planner_device else "—", "agree": bool(r.agrees),
        } for r in results]
        emit_rows(rows, list(rows[0]), title=tr("cli.scenarios.title"), headers=col_headers(list(rows[0]), "scenarios.col"))
        for r in results:
            # labelled by the seed article's (Chinese) title in Chinese output, by its id in English
            name = r.scenario.title if lang() == "zh" else r.scenario.id
            echo(tr("cli.scenarios.line", name=f"[bold]{name}[/bold]",
                    text=say_json(r.explanation_i18n, r.explanation)))
        echo("[dim]" + tr("cli.prices.basis", price_region=reg,
                          kinds=_kinds(kinds, (k for r in results for k in r.offer_kinds_used))) + "[/dim]")

    @migrate_app.command("cost")
    def migrate_cost_cmd(
        ctx: typer.Context,
        model: Annotated[str, typer.Option(help="preset or config.json")],
        to_gpu: Annotated[str, typer.Option(help="domestic device to move to, e.g. 910b")] = "ascend-910b",
        from_gpu: Annotated[str, typer.Option(help="device used today")] = "h100-sxm",
        monthly_spend: Annotated[float | None, typer.Option(parser=money_from_text, help="CNY spent per month on compute today (default ¥100,000, assumed: seed-000 §4's worked example)")] = None,
        saving: Annotated[float | None, typer.Option(parser=money_from_text, help="CNY saved per month (default: derived from throughput per yuan)")] = None,
        task: Annotated[str, typer.Option(help="inference, lora, qlora, full or pretrain (training: as full): the workload the saving is derived from (migrate check's --task takes the same names)")] = "full",
        engineers: Annotated[int, typer.Option(help=f"engineers doing the migration (default {_ASSUME.migration_engineers.value}, seed-000)")] = _ASSUME.migration_engineers.value,
        engineer_week: Annotated[float, typer.Option(parser=money_from_text, help=f"CNY per engineer-week (assumed default ¥{_ASSUME.engineer_cny_per_week.value:,.0f})", show_default=False)] = _ASSUME.engineer_cny_per_week.value,  # the help says the default as money (¥10,000), as --monthly-spend does
        subsidy: Annotated[float, typer.Option(help="share of domestic compute refunded")] = 0.0,
        horizon_months: Annotated[float, typer.Option(help="horizon for the verdict")] = 12.0,
        precision: Annotated[str | None, typer.Option(help="precision of both sides, as compare's (default: bf16; serving an FP8 checkpoint: fp8 where the device runs FP8; with --requests-per-s or --concurrent-users, each side at the precision plan picks)")] = None,
        requests_per_s: Annotated[float | None, typer.Option(help="--task inference: requests per second, as compare's (each side's row is compare's for the targets; each side is sized and billed for the rate as plan does, the saving the difference)")] = None,
        concurrent_users: Annotated[int | None, typer.Option(help="--task inference: users streaming at once, instead of --requests-per-s (as plan and compare: needs --tpot)")] = None,
        max_gpus: Annotated[int | None, typer.Option(help="--task inference with a rate or users: most cards plan may size each side with for it, as plan's (default 64; not with --gpus, which fixes the count)")] = None,
        tpot: Annotated[float | None, typer.Option(help="--task inference: time-per-output-token target, s, as compare's (default: 0.2)")] = None,
        ttft: Annotated[float | None, typer.Option(help="--task inference: time-to-first-token target, s, as compare's")] = None,
        input_: Annotated[int | None, typer.Option("--input", help="--task inference: prompt tokens per request (as compare; default 512)")] = None,
        output: Annotated[int | None, typer.Option("--output", help="--task inference: output tokens per request (as compare; default 256)")] = None,
        uses: Annotated[str | None, typer.Option(help="code-level libraries, comma-separated, as migrate check's --uses: {libraries} (a config.json's quant_method and attn_implementation are read by themselves)")] = None,
        gpus: Annotated[int | None, typer.Option(help="cards on each side (default 8): each device's tokens/s at the layout plan finds for that count, optimizer offload included; with --requests-per-s or --concurrent-users, exactly that many cards on each side for the rate, as plan --gpus serves it (not with --max-gpus; default: plan sizes each side, up to --max-gpus)", show_default=False)] = None,
        parallel_weeks: Annotated[float | None, typer.Option(help="weeks both sides are paid while the new one runs beside the old (default 2, assumed)")] = None,
        region: RegionOpt = offer_q.DEFAULT_REGION,
        offer_kinds: KindsOpt = "listing",
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Cost/benefit of moving a workload to a domestic stack: engineer-weeks, saving, payback months."""
        from suanli.migrate.libraries import from_config, merge, resolve_uses

        reg, kinds = _basis(region, offer_kinds)
        libraries = resolve_uses((uses or "").split(","))  # validated first, as migrate check does
        cat = planning_catalog()
        m = load_model_arg(cat, model)
        if model.endswith(".json"):  # the libraries the config names, then --uses: migrate check's list
            from suanli.views.files import parse_json, read_file_bytes

            cfg = parse_json(read_file_bytes(model, "model", max_bytes=4 * 2**20), model, "model")
            libraries = merge(from_config(cfg), libraries)
        try:
            from suanli.validate.bands import packaged_error_bands

            out = migration_cost(cat, m, to_gpu, from_gpu, monthly_spend, saving, task, engineers, engineer_week,
                                 subsidy, horizon_months, region=reg, kinds=kinds, today=as_of(),
                                 error_bands=packaged_error_bands(),  # each device's speed evidence on its stack
                                 asked=model,  # its "model": the checkpoint the task downloads
                                 precision=precision,  # compare's serving targets: each side's row is compare's
                                 targets=ServingTargets(requests_per_s, tpot, ttft, input_, output,
                                                        concurrent_users, max_gpus),
                                 libraries=libraries,  # the weeks migrate check charges for them
                                 gpus=gpus,  # each side's layout is plan's for this count
                                 parallel_weeks=parallel_weeks)  # the one-off's parallel run (default assumed)
        except NotFoundError as e:  # the catalog names its `gpu`; the user typed --to-gpu or --from-gpu
            if e.field != "gpu":
                raise
            raise InputError("to-gpu" if e.name == to_gpu else "from-gpu", str(e).removeprefix("gpu: "),
                             e.i18n) from None
        except InputError as e:
            if json_ or e.i18n is None or e.i18n.id != "error.saving_no_price":
                raise
            default_from = None if _typed(ctx, "from_gpu") else lookup.accelerator(cat, from_gpu).id
            raise _saving_unpriced(cat, e, reg, kinds, default_from) from None
        from suanli.views.estimates import with_migration_calibration

        out = with_migration_calibration(out, cat)  # the calibration file's factors the derived saving used
        if json_:
            emit_json(out)
            return
        echo(tr("cli.mig.header", model=f"[bold]{out['model']}[/bold]", src=_device(cat, out["from"]),
                dst=_device(cat, out["to"]), stack=_stack(cat, out["stack"]),
                reason=say_json(out.get("weeks_reason_i18n"), out["weeks_reason"])))
        lo, hi = out["calendar_weeks"]
        c_lo, c_hi = out["one_off_cost_cny"]
        pb = out.get("payback_months")
        rows = [
            {"item": tr("mig.item.task"), "value": say_json(out.get("workload_note_i18n"), out.get("workload_note") or "")
             if out.get("workload_note") else tr("mig.value.task_given", task=out["task"])},
            {"item": tr("mig.item.migration"), "value": tr("mig.value.effort", lo=lo, hi=hi, n=out["engineers"],
                                                           plo=out["person_weeks"][0], phi=out["person_weeks"][1])},
            *([{"item": tr("mig.item.libraries"), "value": tr("list.sep").join(
                tr("mig.value.library", lib=u["id"], status=tr("mig.lib." + u["status"])) for u in out["libraries"])}] if out.get("libraries") else []),
            {"item": tr("mig.item.one_off"), "value": span_text(yuan(c_lo), yuan(c_hi))},
            # what the one-off adds up: labour, the new side's test instance and parallel run (plan.cost.migration_one_off)
            *({"item": tr(f"mig.item.one_off_item.{i['item']}"),
               "value": span_text(yuan(i["cost_cny"][0]), yuan(i["cost_cny"][1]))
               + " — " + say_json(i.get("note_i18n"), i["note"])}
              for i in (out.get("one_off_items") or []) if len(out.get("one_off_items") or []) > 1),
            # the spend the saving rests on, marked as the assumed default when --monthly-spend was not typed
            {"item": tr("mig.item.monthly_spend"), "value": say_json(out.get("monthly_spend_note_i18n"),
                                                                     out.get("monthly_spend_note") or "")
             + (tr("mig.spend.pass", field="monthly_spend") if out.get("monthly_spend_default") else "")},
            # the new side billed as plan bills an offer (plan.cost.work_rent): its unit, minimum order, whole instances
            *([{"item": tr("mig.item.new_bill"), "value": say_json(r.get("note_i18n"), r["note"])}
               for r in (d.get("monthly_rent") for d in out.get("derived", {}).values() if isinstance(d, dict)) if r]),
            # a stated rate: each side sized and billed for it as plan does (plan.compare._rate_bill)
            *({"item": tr("mig.item.rate_bill", device=_device(cat, dev)),
               "value": say_json(d["rate_bill"].get("note_i18n"), d["rate_bill"]["note"])}
              for dev, d in out.get("derived", {}).items() if isinstance(d, dict) and d.get("rate_bill")),
            {"item": tr("mig.item.monthly_saving"), "value": yuan(out["monthly_saving_cny"])
             if out["monthly_saving_cny"] >= 0 else tr("mig.value.rise", rise=-out["monthly_saving_cny"])},
            {"item": tr("mig.item.payback"),
             "value": tr("mig.value.months", lo=pb[0], hi=pb[1]) if pb else tr("mig.value.never")},
        ]
        for dev, d in out.get("derived", {}).items():
            if isinstance(d, dict):
                lay = d.get("workload") or {}
                value = tr("mig.value.device_8", tps=d["tokens_per_s_8_cards"], cny=d["cny_per_card_hour"],
                           offer=d["offer"])
                if lay.get("replicas"):  # serving: the layout and batch the throughput is at
                    if (lay.get("ep") or 1) > 1:  # replicas in expert groups, named as plan names them (one
                        # formatter, `labels.replica_words`: cards, and a 910C's dies, of the whole group)
                        words = replica_words(lay["replicas"], lay["tp"], lay["ep"], dies=lay.get("dies_per_card") or 1)
                        value += tr("mig.value.serving_layout_ep", layout=say_json(words.to_json(), render(words)),
                                    replicas=lay["replicas"], batch=lay["batch"])
                    else:
                        value += tr("mig.value.serving_layout", tp=lay["tp"], replicas=lay["replicas"],
                                    batch=lay["batch"])
                if lay.get("served_batch"):  # a rate (compare's "serves" line): the batch each replica runs for it
                    value += tr("mig.value.serves", rps=lay["requests_per_s"], batch=lay["served_batch"])
                if lay.get("layout_rule"):  # training: the default layout does not fit, the planner's one does
                    value += tr("mig.value.training_layout", tp=lay["tp"], pp=lay["pp"], zero=lay["zero"],
                                batch=lay["batch"], recompute=lay["recompute"])
                    if lay.get("offload_optimizer") or lay.get("optimizer") == "adamw8bit":  # plan's measure, said
                        value += " — " + say_json(lay.get("layout_rule_i18n"), lay["layout_rule"])
                if d.get("layout_note"):  # serving: no layout met the TPOT target, and why
                    value += " — " + say_json(d.get("layout_note_i18n"), d["layout_note"])
                # --gpus, or with a rate both sides carry the cards the side's bill rents; fewer when no usable
                # offer rents that many
                asked = d.get("gpus_asked") or out.get("gpus", 8)
                n = lay.get("gpus", asked)
                named = _device_ranks(cat, dev, lay)  # '(16 dies)' on a 910C, as plan says it
                rows.append({"item": tr("mig.item.device_gpus", device=named, gpus=n) if n == asked
                             else tr("mig.item.device_fewer", device=named, gpus=n, asked=asked),
                             "value": value})
            else:
                rows.append({"item": tr("mig.item.ratio"), "value": f"{d:.2f}"})
        rows.append({"item": tr("mig.item.verdict"), "value": say_json(out.get("verdict_i18n"), out["verdict"])})
        emit_rows(rows, ["item", "value"], title=tr("cli.mig.title"), headers=col_headers(["item", "value"]))
        _say_basis(reg, kinds, list(out["offers_used"]))
        for dev, d in out.get("derived", {}).items():  # the subsidy as tco says it (plan.cost.subsidy_note), domestic side
            if isinstance(d, dict) and d.get("subsidy_note"):
                echo(tr("mig.subsidy", line=say_json(d.get("subsidy_note_i18n"), d["subsidy_note"]),
                        device=_device(cat, dev), months=horizon_months))
        said: set[str] = set()
        for d in out.get("derived", {}).values():  # the out-of-sample evidence behind each tokens/s, once per stack
            ev = say_json(d.get("evidence_i18n"), d["evidence"]) if isinstance(d, dict) and d.get("evidence") else None
            if ev and ev not in said:
                said.add(ev)
                echo(f"[yellow]{label('cli.label.evidence')}[/]{ev}")
        for dev, d in out.get("derived", {}).items():  # a side's offer does not name its card's variant, form factor
            if isinstance(d, dict):                     # or memory size (plan's warnings)
                _say_offer_warnings(cat, dev, d)
        known = out.get("if_known_error")
        if known:  # the saving if the target's speed is off by its known (pooled) signed error
            echo(f"[yellow]{say_json(known.get('note_i18n'), known['note'])}[/]")
        if out.get("calibration"):  # as plan and compare say it: "efficiency calibrated from your measurements"
            echo("[dim]" + tr("plan.assumed", text=say_json(out.get("calibration_i18n"), out["calibration"]))
                 + "[/dim]")
        echo("[dim]" + tr("mig.effort.seed_reading") + "[/dim]")

