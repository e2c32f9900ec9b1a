"""Cost commands: compare, tco, rent-vs-buy, scenarios, and `migrate cost`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from suanli.catalog import lookup
from suanli.catalog.load import read_yaml
from suanli.cli.context import planning_catalog
from suanli.cli.catalog_cmd import load_model_arg
from suanli.cli.output import console, emit_json, emit_rows
from suanli.errors import InputError
from suanli.plan.cost import (
    rent_vs_buy,
)
from suanli.catalog import offers as offer_q
from suanli.plan.compare import compare_devices, migration_cost, no_price_message, offer_facts, rent_for, tco_rows
from suanli.units import HOURS_PER_YEAR
from suanli.plan.scenarios import Scenario, run_scenario

__all__ = ["SCENARIOS_PATH", "register"]

SCENARIOS_PATH = Path(__file__).resolve().parent.parent / "data" / "scenarios.yaml"

RegionOpt = Annotated[str, typer.Option("--region", help="offers from: cn (Chinese platforms), any, international")]
KindsOpt = Annotated[str, typer.Option("--offer-kinds", help="listing, index, reference (comma-separated) or all")]


def _basis(region: str, offer_kinds: str) -> tuple[str, tuple[str, ...]]:
    return offer_q.parse_region(region), offer_q.parse_kinds(offer_kinds)


def _card_hour(row: dict[str, Any]) -> float | str | None:
    """¥ per card-hour; a price from a longer billing unit (at full use) names the unit."""
    price, unit = row.get("cny_per_card_hour"), row.get("card_hour_billing_unit")
    if price is None or unit in (None, "hour"):
        return price  # type: ignore[no-any-return]
    return f"{price:,.2f} (by {unit})"


def _say_basis(region: str, kinds: tuple[str, ...], facts: list[dict[str, Any] | None]) -> None:
    """The line every cost answer prints: which offers it priced from, international ones marked, stale ones dated."""
    used = [f for f in facts if f]
    line = f"prices: region {region}, offer kinds {', '.join(kinds)}"
    if used:
        seen: dict[str, dict[str, Any]] = {f["offer"]: f for f in used}
        line += "; used " + "; ".join(
            f"{f['offer']} ({f['provider']}, {f['kind']}, {f['date']}{', INTERNATIONAL' if f['international'] else ''})"
            for f in seen.values())
    console.print(f"[dim]{line}[/dim]", highlight=False, soft_wrap=True)
    for f in {f["offer"]: f for f in used}.values():
        if f.get("stale"):
            console.print(f"[yellow]warning:[/] {f['stale']}", highlight=False, soft_wrap=True)


def register(app: typer.Typer, migrate_app: typer.Typer) -> None:
    @app.command("compare")
    def compare_cmd(
        model: Annotated[str, typer.Option(help="preset or config.json")],
        gpu: Annotated[list[str], typer.Option(help="2–4 devices (repeat --gpu)")],
        task: Annotated[str, typer.Option(help="inference, lora, qlora, full, pretrain")] = "inference",
        gpus: Annotated[int, typer.Option(help="cards per device")] = 1,
        precision: Annotated[str, typer.Option(help="precision")] = "bf16",
        batch: Annotated[int | None, typer.Option(help="serving: concurrent sequences per replica (default 1)")] = None,
        tokens: Annotated[float | None, typer.Option(help="tokens to train on / generate: gives hours and cost")] = None,
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
        reg, kinds = _basis(region, offer_kinds)
        cat = planning_catalog()
        rows = compare_devices(cat, load_model_arg(cat, model), list(gpu), task, gpus, precision, batch, tokens, zero,
                               region=reg, kinds=kinds, tp=tp, pp=pp, recompute=recompute, global_batch=global_batch)
        if json_:
            emit_json(rows)
            return
        table = [{
            "device": r["device"], "layout": r["layout"]["label"], "GiB/card": r["memory_per_gpu_bytes"] / 2**30,
            "fits": r["fits"], "tokens/s": r["tokens_per_s"], "scaling": r["scaling_efficiency"], "hours": r["hours"],
            "cost ¥": r["cost_cny"], "¥/card-h": _card_hour(r),
            "TFLOPS per ¥/h": r["effective_tflops_per_cny_hour"], "stack": r["stack"],
        } for r in rows]
        emit_rows(table, list(table[0]), title=f"{model} · {task} · {gpus} card(s) each")
        _say_basis(reg, kinds, [r["offer_facts"] for r in rows])
        for r in rows:
            if r["layout_note"]:
                console.print(f"[yellow]{r['device']}:[/] {r['layout_note']}", highlight=False, soft_wrap=True)
        for r in rows:
            if r["no_price"]:
                console.print(f"[yellow]unpriced:[/] {r['no_price']}", highlight=False, soft_wrap=True)

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
        """Cost of holding N cards for H hours under every usable offer and billing unit, cheapest first."""
        reg, kinds = _basis(region, offer_kinds)
        cat = planning_catalog()
        from suanli.views.bounds import check_tco  # the API's bounds

        check_tco(tokens_per_s, utilization, flags=True)
        rows = tco_rows(cat, gpu, hours, gpus, subsidy, tokens_per_s, utilization, region=reg, kinds=kinds)
        if json_:
            emit_json(rows)
            return
        cols = ["provider", "kind", "billing_unit", "units_billed", "cards_rented", "cost_cny", "cost_cny_max",
                "effective_cny_per_card_hour", *(["cny_per_million_tokens"] if tokens_per_s else []), "notes"]
        headers = {"billing_unit": "per", "units_billed": "units", "cards_rented": "cards", "cost_cny": "¥",
                   "cost_cny_max": "¥ max", "effective_cny_per_card_hour": "¥/card-h", "cny_per_million_tokens": "¥/1M tok"}
        emit_rows(rows, cols, title=f"{gpus}× {lookup.accelerator(cat, gpu).name} for {hours:,.1f} h", headers=headers)
        _say_basis(reg, kinds, list(rows))

    @app.command("rent-vs-buy")
    def rent_vs_buy_cmd(
        gpu: Annotated[str, typer.Option(help="device")] = "rtx-4090",
        utilization: Annotated[float, typer.Option(help="share of the year the card works")] = 0.5,
        years: Annotated[float, typer.Option(help="amortization years")] = 3.0,
        pue: Annotated[float, typer.Option(help="data-centre PUE (assumed default 1.3)")] = 1.3,
        electricity: Annotated[float, typer.Option(help="CNY per kWh (assumed default 0.8)")] = 0.8,
        ops: Annotated[float, typer.Option(help="operations CNY per card per year")] = 0.0,
        card_price: Annotated[float | None, typer.Option(help="CNY per card (default: catalog purchase)")] = None,
        server_share: Annotated[float | None, typer.Option(help="server CNY per card (default: catalog)")] = None,
        rent_price: Annotated[float | None, typer.Option(help="CNY per card-hour (default: the cheapest way to rent a card for a year, any billing unit)")] = None,
        region: RegionOpt = offer_q.DEFAULT_REGION,
        offer_kinds: KindsOpt = "listing",
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Per card per year: renting against buying (capex, power = TDP × PUE × price, ops) and break-even use.

        Renting is priced at the cheapest usable offer for holding a card 8,760 h (any billing unit: a monthly
        price beats an hourly one over a year), rented for the share of the year in use at that rate."""
        cat = planning_catalog()
        acc = lookup.accelerator(cat, gpu)
        cards = [p for p in cat.purchases if p.device == acc.id and p.item == "card"]
        servers = [p for p in cat.purchases if p.device == acc.id and p.item == "server"]
        def mid(p: Any) -> float:
            return (p.price_cny.value + (p.price_cny_max.value if p.price_cny_max else p.price_cny.value)) / 2

        card = card_price if card_price is not None else (cards[0].price_cny.value if cards else None)
        card_from = "--card-price" if card_price is not None else (f"purchase {cards[0].id}" if cards else None)
        srv = server_share
        srv_note = "--server-share" if server_share is not None else None
        if card is None and servers:  # only a server price: its cards included, so the whole capex per card
            card = mid(servers[0]) / max(servers[0].cards, 1)
            card_from = f"purchase {servers[0].id} ÷ {servers[0].cards} cards (server included)"
            if srv is None:
                srv, srv_note = 0.0, f"included: the card figure is the {servers[0].cards}-card server's price per card"
        if card is None:
            raise InputError("card-price", f"no purchase price for {acc.id} in the catalog; pass --card-price")
        if srv is None and servers:  # a server's price includes its cards (SCHEMA.md, purchases): the rest per card
            srv = max(mid(servers[0]) / max(servers[0].cards, 1) - card, 0.0)
            srv_note = (f"purchase {servers[0].id} ÷ {servers[0].cards} cards − the card price"
                        + (" (the server costs no more per card than the card: 0)" if srv == 0 else ""))
        priced_server = srv is not None
        if srv is None:
            srv_note = "not priced: no server price in the catalog, so buying counts the card only; pass --server-share"
        reg, kinds = _basis(region, offer_kinds)
        rent_info: dict[str, Any] = {"rent_from": "--rent-price"}
        if rent_price is not None:
            rent = rent_price
        else:
            found = rent_for(cat, acc.id, HOURS_PER_YEAR, reg, kinds)
            if found is None:
                raise InputError("rent-price", no_price_message(cat, acc.id, reg, kinds) + "; or pass --rent-price")
            rent, o, bill = found
            rent_info = {
                "rent_from": (f"{o.id} ({o.provider}, {o.kind}, billed per {o.billing_unit}): {bill.cards_rented} "
                              f"card(s) for a year = {bill.units_billed:,} {o.billing_unit}(s) = ¥{bill.cost_cny:,.0f}"
                              + (f", ÷ {bill.cards_rented} cards" if bill.cards_rented > 1 else "")),
                "rent_offer": offer_facts(o), "rent_billing_unit": o.billing_unit,
                "rent_cny_per_card_year": bill.cost_cny / bill.cards_rented,
            }
        tdp = acc.specs.tdp_w.value if acc.specs.tdp_w else 0.0
        r = rent_vs_buy(rent, card, srv or 0.0, tdp, pue, electricity, ops, years, utilization)
        extra = {"rent_cny_per_card_hour": rent, **rent_info, "card_cny": card, "card_from": card_from,
                 "server_share_cny": srv if priced_server else None, "server_share_note": srv_note}
        if json_:
            emit_json({**r.model_dump(mode="json"), "region": reg, "offer_kinds": list(kinds), **extra})
            return
        if rent_price is None:
            console.print(f"[dim]prices: region {reg}, offer kinds {', '.join(kinds)}; rent from {rent_info['rent_from']}[/dim]",
                          highlight=False, soft_wrap=True)
        share = f"¥{srv:,.0f} server share" if priced_server and srv else f"server {srv_note}"
        console.print(f"[bold]{acc.name}[/bold]: rent ¥{rent:.2f}/card-h, buy ¥{card:,.0f} card + {share}",
                      highlight=False, soft_wrap=True)
        items: list[dict[str, Any]] = []
        for k, v in r.model_dump().items():
            if k == "break_even_note":
                continue
            if k == "break_even_utilization" and v is None:
                v = r.break_even_note
            items.append({"item": k, "value": v})
        emit_rows(items, ["item", "value"], title="Rent vs buy, per card per year")

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
                raise InputError("id", f"unknown scenario {only!r}; allowed: {', '.join(ids)}")
        reg, kinds = _basis(region, offer_kinds)
        results = [run_scenario(cat, s, region=reg, kinds=kinds) for s in items]
        if json_:
            emit_json([
                {
                    "id": r.scenario.id, "title": r.scenario.title, "source": r.scenario.source,
                    "seed_answer": list(r.scenario.seed_answer), "seed_reason": r.scenario.seed_reason,
                    "plan_input": r.scenario.plan, "assumption": r.scenario.assumption,
                    "planner_answer": r.planner_device,
                    "planner_plan": r.planner.model_dump(mode="json") if r.planner else None,
                    "seed_best_plan": r.seed_best.model_dump(mode="json") if r.seed_best else None,
                    "agrees": r.agrees, "explanation": r.explanation, "region": reg, "offer_kinds": list(kinds),
                }
                for r in results
            ])
            return
        rows = [{
            "scenario": r.scenario.title, "seeds": ", ".join(r.scenario.seed_answer),
            "planner": r.planner_device or "—", "agree": "yes" if r.agrees else "no",
        } for r in results]
        emit_rows(rows, list(rows[0]), title="Seed scenarios: the articles' answer and the planner's")
        for r in results:
            console.print(f"[bold]{r.scenario.id}[/bold]: {r.explanation}", highlight=False)
        console.print(f"[dim]prices: region {reg}, offer kinds {', '.join(kinds)}[/dim]", highlight=False)

    @migrate_app.command("cost")
    def migrate_cost_cmd(
        model: Annotated[str, typer.Option(help="preset or config.json")],
        to_gpu: Annotated[str, typer.Option(help="domestic device to move to, e.g. 910b")] = "ascend-910b",
        from_gpu: Annotated[str, typer.Option(help="device used today")] = "h100-sxm",
        monthly_spend: Annotated[float, typer.Option(help="CNY spent per month on compute today")] = 100_000.0,
        saving: Annotated[float | None, typer.Option(help="CNY saved per month (default: derived from throughput per yuan)")] = None,
        task: Annotated[str, typer.Option(help="workload kind used to derive the saving")] = "full",
        engineers: Annotated[int, typer.Option(help="engineers doing the migration")] = 2,
        engineer_week: Annotated[float, typer.Option(help="CNY per engineer-week (assumed default ¥10,000)")] = 10_000.0,
        subsidy: Annotated[float, typer.Option(help="share of domestic compute refunded")] = 0.0,
        horizon_months: Annotated[float, typer.Option(help="horizon for the verdict")] = 12.0,
        region: RegionOpt = offer_q.DEFAULT_REGION,
        offer_kinds: KindsOpt = "listing",
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Cost/benefit of moving a workload to a domestic stack: engineer-weeks, saving, payback months."""
        reg, kinds = _basis(region, offer_kinds)
        cat = planning_catalog()
        m = load_model_arg(cat, model)
        out = migration_cost(cat, m, to_gpu, from_gpu, monthly_spend, saving, task, engineers, engineer_week,
                             subsidy, horizon_months, region=reg, kinds=kinds)
        if json_:
            emit_json(out)
            return
        console.print(f"[bold]{m.id}[/bold]: {out['from']} → {out['to']} ({out['stack']}); {out['weeks_reason']}")
        lo, hi = out["engineer_weeks"]
        c_lo, c_hi = out["one_off_cost_cny"]
        pb = out.get("payback_months")
        rows = [
            {"item": "migration", "value": f"{lo:g}–{hi:g} weeks × {out['engineers']} engineers"},
            {"item": "one-off cost", "value": f"¥{c_lo:,.0f}–¥{c_hi:,.0f}"},
            {"item": "monthly saving", "value": f"¥{out['monthly_saving_cny']:,.0f}"},
            {"item": "payback", "value": f"{pb[0]:.1f}–{pb[1]:.1f} months" if pb else "never"},
        ]
        for dev, d in out.get("derived", {}).items():
            if isinstance(d, dict):
                rows.append({"item": f"{dev}, 8 cards", "value": f"{d['tokens_per_s_8_cards']:,.0f} tokens/s at ¥{d['cny_per_card_hour']:.2f}/card-h ({d['offer']})"})
            else:
                rows.append({"item": "cost of the same work, new / old", "value": f"{d:.2f}"})
        rows.append({"item": "verdict", "value": out["verdict"]})
        emit_rows(rows, ["item", "value"], title="Migration cost/benefit")
        _say_basis(reg, kinds, list(out["offers_used"]))

