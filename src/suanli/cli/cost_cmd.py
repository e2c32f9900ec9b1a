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
from suanli.estimate.estimate import estimate
from suanli.estimate.precision import peak_flops_per_s
from suanli.estimate.workload import make_workload
from suanli.plan.cost import (
    cheapest_job_cost,
    cost_per_million_tokens,
    job_cost,
    migration_tco,
    rent_vs_buy,
    yuan_per_effective_tflops,
)
from suanli.plan.scenarios import Scenario, run_scenario
from suanli.plan.search import migration_weeks
from suanli.units import TFLOPS

__all__ = ["SCENARIOS_PATH", "register"]

SCENARIOS_PATH = Path(__file__).resolve().parent.parent / "data" / "scenarios.yaml"


def _hourly_card_price(cat: Any, device_id: str) -> float | None:
    c = cheapest_job_cost(cat, device_id, 1, 1.0, billing="hour")
    return None if c is None else c.cost_cny


def register(app: typer.Typer, migrate_app: typer.Typer) -> None:
    @app.command("compare")
    def compare_cmd(
        model: Annotated[str, typer.Option(help="preset or config.json")],
        gpu: Annotated[list[str], typer.Option(help="2–4 devices (repeat --gpu)")],
        task: Annotated[str, typer.Option(help="inference, lora, qlora, full, pretrain")] = "inference",
        gpus: Annotated[int, typer.Option(help="cards per device")] = 1,
        precision: Annotated[str, typer.Option(help="precision")] = "bf16",
        batch: Annotated[int, typer.Option(help="batch (see suanli estimate)")] = 1,
        tokens: Annotated[float | None, typer.Option(help="tokens to train on / generate: gives hours and cost")] = None,
        zero: Annotated[int, typer.Option(help="ZeRO stage")] = 0,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """The same job on 2–4 devices side by side: memory, speed, hours, cheapest cost, TFLOPS per yuan."""
        if not 2 <= len(gpu) <= 4:
            raise InputError("gpu", f"give 2 to 4 devices (got {len(gpu)})")
        cat = planning_catalog()
        m = load_model_arg(cat, model)
        w = make_workload(task=task, gpus=gpus, precision=precision, batch=batch, tokens=tokens, zero=zero)
        rows = []
        for g in gpu:
            acc = lookup.accelerator(cat, g)
            e = estimate(cat, m, acc, w)
            c = e.contract()
            hours = c["time"].get("hours")
            cost = cheapest_job_cost(cat, acc.id, gpus, hours) if hours else None
            price = _hourly_card_price(cat, acc.id)
            try:
                peak = peak_flops_per_s(acc, precision)[0] / TFLOPS
            except Exception:  # noqa: BLE001 — a missing peak is shown as empty, not an error
                peak = None
            eff = c["scaling"].get("efficiency") or 1.0
            rows.append({
                "device": acc.id,
                "GiB/card": c["memory"]["per_gpu_bytes"] / 2**30,
                "fits": c["memory"]["fits"],
                "tokens/s": c["speed"].get("train_tokens_per_s") or c["speed"].get("output_tokens_per_s"),
                "scaling": eff,
                "hours": hours,
                "cost ¥": cost.cost_cny if cost else None,
                "¥/card-h": price,
                "TFLOPS per ¥/h": yuan_per_effective_tflops(price, peak, eff) if price and peak else None,
                "stack": acc.stack,
            })
        if json_:
            emit_json(rows)
        else:
            emit_rows(rows, list(rows[0]), title=f"{m.id} · {task} · {gpus} card(s) each")

    @app.command("tco")
    def tco_cmd(
        gpu: Annotated[str, typer.Option(help="device")],
        hours: Annotated[float, typer.Option(help="how long you need the cards")],
        gpus: Annotated[int, typer.Option(help="cards")] = 1,
        subsidy: Annotated[float, typer.Option(help="share refunded by a local compute subsidy (domestic only)")] = 0.0,
        tokens_per_s: Annotated[float | None, typer.Option(help="throughput, for cost per 1M tokens")] = None,
        utilization: Annotated[float, typer.Option(help="share of rented time the cards do useful work")] = 1.0,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Cost of holding N cards for H hours under every offer and billing unit, cheapest first."""
        cat = planning_catalog()
        acc = lookup.accelerator(cat, gpu)
        if subsidy and not acc.domestic:
            raise InputError("subsidy", f"subsidies apply to domestic compute; {acc.id} is not domestic")
        rows = []
        for o in cat.offers:
            if o.device != acc.id:
                continue
            c = job_cost(o, gpus, hours, subsidy)
            row: dict[str, Any] = {
                "offer": o.id, "provider": o.provider, "billing": o.billing_unit, "units": c.units_billed,
                "cards rented": c.cards_rented, "cost ¥": c.cost_cny, "max ¥": c.cost_cny_max,
                "¥/card-h effective": c.cost_cny / (gpus * hours) if hours else None,
                "notes": "; ".join(c.notes),
            }
            if tokens_per_s:
                row["¥ per 1M tokens"] = cost_per_million_tokens(c.cost_cny / hours, tokens_per_s, utilization)
            rows.append(row)
        if not rows:
            raise InputError("gpu", f"no offers for {acc.id} in the catalog (see suanli offers)")
        rows.sort(key=lambda r: r["cost ¥"])
        if json_:
            emit_json(rows)
        else:
            emit_rows(rows, list(rows[0]), title=f"{gpus}× {acc.name} for {hours:,.1f} h")

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
        rent_price: Annotated[float | None, typer.Option(help="CNY per card-hour (default: cheapest hourly offer)")] = None,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Per card per year: renting against buying (capex, power = TDP × PUE × price, ops) and break-even use."""
        cat = planning_catalog()
        acc = lookup.accelerator(cat, gpu)
        cards = [p for p in cat.purchases if p.device == acc.id and p.item == "card"]
        servers = [p for p in cat.purchases if p.device == acc.id and p.item == "server"]
        card = card_price if card_price is not None else (cards[0].price_cny.value if cards else None)
        if card is None:
            raise InputError("card-price", f"no purchase price for {acc.id} in the catalog; pass --card-price")
        srv = server_share if server_share is not None else (
            (servers[0].price_cny.value + (servers[0].price_cny_max.value if servers[0].price_cny_max else servers[0].price_cny.value))
            / 2 / max(servers[0].cards, 1) if servers else 0.0
        )
        rent = rent_price if rent_price is not None else _hourly_card_price(cat, acc.id)
        if rent is None:
            raise InputError("rent-price", f"no hourly offer for {acc.id}; pass --rent-price")
        tdp = acc.specs.tdp_w.value if acc.specs.tdp_w else 0.0
        r = rent_vs_buy(rent, card, srv, tdp, pue, electricity, ops, years, utilization)
        if json_:
            emit_json(r)
            return
        console.print(f"[bold]{acc.name}[/bold]: rent ¥{rent:.2f}/card-h, buy ¥{card:,.0f} card + ¥{srv:,.0f} server share")
        emit_rows([{"item": k, "value": v} for k, v in r.model_dump().items()], ["item", "value"], title="Rent vs buy, per card per year")

    @app.command("scenarios")
    def scenarios_cmd(
        only: Annotated[str | None, typer.Option("--id", help="one scenario id")] = None,
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
        results = [run_scenario(cat, s) for s in items]
        if json_:
            emit_json([
                {
                    "id": r.scenario.id, "title": r.scenario.title, "source": r.scenario.source,
                    "seed_answer": list(r.scenario.seed_answer), "seed_reason": r.scenario.seed_reason,
                    "plan_input": r.scenario.plan, "assumption": r.scenario.assumption,
                    "planner_answer": r.planner_device,
                    "planner_plan": r.planner.model_dump(mode="json") if r.planner else None,
                    "seed_best_plan": r.seed_best.model_dump(mode="json") if r.seed_best else None,
                    "agrees": r.agrees, "explanation": r.explanation,
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
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Cost/benefit of moving a workload to a domestic stack: engineer-weeks, saving, payback months."""
        cat = planning_catalog()
        m = load_model_arg(cat, model)
        src, dst = lookup.accelerator(cat, from_gpu), lookup.accelerator(cat, to_gpu)
        stack = lookup.stack(cat, dst.stack)
        lo, hi, why = migration_weeks(cat, stack, m)
        derived: dict[str, Any] = {}
        if saving is None:
            w = make_workload(task=task, gpus=8, zero=3 if task in ("full", "pretrain") else 0, batch=1)
            per_yuan = {}
            for acc in (src, dst):
                price = _hourly_card_price(cat, acc.id)
                e = estimate(cat, m, acc, w).contract()
                tps = e["speed"].get("train_tokens_per_s") or e["speed"].get("output_tokens_per_s")
                if price is None or not tps:
                    raise InputError("saving", f"cannot derive it for {acc.id} (no hourly price or speed); pass --saving")
                sub = subsidy if acc.domestic else 0.0
                per_yuan[acc.id] = tps / (price * 8 * (1 - sub))
                derived[acc.id] = {"tokens_per_s_8_cards": tps, "cny_per_card_hour": price}
            ratio = per_yuan[src.id] / per_yuan[dst.id]  # cost of the same work on dst relative to src
            saving = max(0.0, monthly_spend * (1 - ratio))
            derived["cost_ratio_same_work"] = ratio
        t = migration_tco(monthly_spend, min(saving, monthly_spend), (lo, hi), engineers, engineer_week, horizon_months)
        out = {"model": m.id, "from": src.id, "to": dst.id, "stack": stack.id, "weeks_reason": why,
               "derived": derived, **t.model_dump(mode="json")}
        if json_:
            emit_json(out)
            return
        console.print(f"[bold]{m.id}[/bold]: {src.id} → {dst.id} ({stack.name}); {why}")
        emit_rows([{"item": k, "value": v} for k, v in out.items() if k not in ("model", "from", "to")],
                  ["item", "value"], title="Migration cost/benefit")

