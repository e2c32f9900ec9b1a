"""Every message id in the catalogs is used: referenced literally by code, data or a test, or built from a known
prefix (`f"segment.{a.segment}"`, `col_headers(cols, "val.col")`, the page's `label("price_kinds", k)` …) whose rest
appears in the code or data; and zh and en hold the same ids. Folded `<id>.api` copies (a sentence differing from its base
only by how a field is named) are gone: the field is a parameter (`i18n.field_name`)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from suanli.i18n import ENUM_PARAMS, Message, messages, render

ROOT = Path(__file__).resolve().parents[3]
I18N = ROOT / "src" / "suanli" / "i18n"

# ids built at run time from a prefix and a value (the value must still appear somewhere in code or data)
DYNAMIC = {p + "." for p in ENUM_PARAMS.values()} | {
    "band.", "band.sample.", "layout.recompute.", "family.", "val.metric.", "bench.col.", "bench.status.", "billing_unit.", "cal.col.", "fb.metric.", "mig.lib.", "mig.item.one_off_item.", "cli.label.", "cli.mig.task.", "cmd.", "col.",
    "compare.col.", "db.col.", "device_spec.", "est.bound.", "est.method.", "est.metric.", "est.needs.", "fb.col.",
    "field.", "flag.", "form_factor.", "gpus.col.", "imports.col.", "json.", "mig.col.", "mig.status.", "model.kind.",
    "models.col.", "offer_kind.", "offers.col.", "plans.col.", "price_kind.", "price_region.", "rate.margin.", "relax.", "rvb.cheaper.", "rvb.purchase.", "rvb.assume.",
    "rvb.item.", "rvb.pattern.", "scenarios.col.", "segment.", "stack.", "tco.col.", "val.col.", "val.fitted.",
    "val.met.", "verdict.", "why.",
}
# ids used only in a way the search above cannot see, each with the exact place: shrink, never grow. Empty since
# 2026-12-01: the 28 ids listed here before had no use in code, data, the page (app.js, index.html, its t()/label()
# prefixes), typer help or f-string-built ids, and were removed (REMOVED_20261201)
USED_DYNAMICALLY: dict[str, str] = {}
REMOVED_20261201 = (
    "app.version", "error.unknown_name", "error.did_you_mean", "error.not_one_of", "unit.gib_per_card", "unit.cny",
    "unit.hours", "unit.tokens_per_s", "memory.optimizer_states", "memory.lora_adapters", "plan.saved_plans",
    "plan.reason.serve", "plan.reason.migration", "plan.warn.migration", "plan.warn.international",
    "compare.pick_devices", "cli.lang_help", "cli.version_help", "cli.commands", "cli.options", "web.open_device",
    "web.hours_unit", "web.cny_unit", "web.gib_unit", "rvb.server.share", "mig.value.weeks", "error.cli.usage",
    "error.cli.help_hint",
)
# `<id>.api` entries that still word the sentence differently for the API (routes, not only field names)
# (err.plan_needs_llm, 2026-12-01: it names commands, not fields — `suanli plan` / POST /api/plan, `suanli estimate
# --model M --gpu <card>` / POST /api/estimate with model and gpu, `suanli scenarios` / GET /api/scenarios; field_name
# names fields only, and a route parameter would cost the CLI its copy-pasteable command: kept)
# error.saving_no_* and price.none_alt name their fields per surface now; est.note.framework_assumed names the planner
# (`suanli plan`, POST /api/plan, the Plan tab)
# the plan's migration line points to the command that adds the rest (POST /api/migrate on the API)
# the export-control warning points to `GET /api/accelerators/{id}`, the no-price hint to POST /api/offers/import, the
# optimizer-measure why-not to POST /api/plan and /api/compare (buyer review H, 2026-12-02)
API_WORDING = {"err.plan_needs_llm", "est.note.framework_assumed", "plan.warn.migration_share", "plan.warn.china_export",
               "relax.no_price_any", "why.plain_not_measure",
               # migrate's workload line names POST /api/compare (the page: the Compare tab), not the CLI's compare
               "mig.workload.serving", "mig.workload.serving_targets", "mig.workload.serving_targets_precisions",
               "mig.workload.serving_targets_rate", "mig.workload.serving_targets_precisions_rate",
               "mig.side_precision.picked", "mig.side_precision.picked_default", "mig.side_precision.fitted",
               "mig.side_precision.default"}


def _sources() -> tuple[str, str]:
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "src", "tests"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    texts, web = [], []
    for f in files:
        p = ROOT / f
        if p.parent == I18N and p.suffix == ".json" or not p.is_file() or p == Path(__file__).resolve():
            continue
        if p.suffix in (".py", ".js", ".html", ".yaml", ".yml", ".json", ".toml", ".csv"):
            text = p.read_text(encoding="utf-8")
            texts.append(text)
            if "web/static" in f:
                web.append(text)
    return "\n".join(texts), "\n".join(web)


def _referenced(msg_id: str, blob: str, web: str) -> bool:
    msg_id = msg_id.removesuffix(".api").removesuffix(".web")  # the API's / page's wording: used where the sentence is
    if re.search(r"(?<![\w.])" + re.escape(msg_id) + r"(?!\w)", blob):
        return True
    if msg_id.startswith("web.") and re.search(r"[\"'`]" + re.escape(msg_id[4:]) + r"[\"'`]", web):
        return True  # the page's t("tab_plan") and data-i18n="tab_plan"
    for prefix in DYNAMIC:
        rest = msg_id.removeprefix(prefix)
        if rest != msg_id and rest and any(re.search(r"(?<!\w)" + re.escape(r) + r"(?!\w)", blob, re.IGNORECASE)
                                           for r in (rest, rest.replace("_", " "))):  # est.needs.token_speed
            return True
    return False


def test_zh_and_en_hold_the_same_ids() -> None:
    assert set(messages("zh")) == set(messages("en"))
    for lang in ("zh", "en"):  # one entry per id: a duplicate key would be lost silently by json.load
        pairs = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"), object_pairs_hook=list)
        assert len(pairs) == len({k for k, _ in pairs}), lang


def test_every_id_is_referenced() -> None:
    blob, web = _sources()
    unused = sorted(i for i in messages("en") if i not in USED_DYNAMICALLY and not _help_of_a_command(i)
                    and not _referenced(i, blob, web))
    assert not unused, unused


def _help_of_a_command(msg_id: str) -> bool:
    """An option's help (`help.<command>.<flag>`, `help.<flag>`) or a sub-command's text (`cmd.<group>.<sub>`,
    `cmd.<command>.more`): ids built from the command tree, checked against it by tests/unit/cli/test_help_zh.py."""
    return msg_id.startswith("help.") or msg_id.startswith("cmd.") and "." in msg_id.removeprefix("cmd.")


def test_dynamic_uses_name_their_place() -> None:
    for msg_id, where in USED_DYNAMICALLY.items():
        assert msg_id in messages("en") and where.strip(), msg_id


def test_reported_unused_ids_are_gone() -> None:
    for gone in ("plan.warn.min_term", "plan.warn.billed_per", "err.must_be_in_2", "why.tp_heads.api",
                 "why.tp_heads_serving.api", "why.tp_heads_padding_alt.api", "err.is_a_model_needs_an_llm.api",
                 "web.mem", "web.mem_gib", "web.offers_used", *REMOVED_20261201):
        assert gone not in messages("en") and gone not in messages("zh"), gone


def test_api_copies_only_where_the_wording_differs() -> None:
    assert {i.removesuffix(".api") for i in messages("en") if i.endswith(".api")} == API_WORDING


def test_folded_sentences_name_the_field_per_interface() -> None:
    why = Message("why.tp_heads", framework="vLLM", field="tp", tp=8, heads=28, kv_heads=4, allowed="1, 2, 4")
    assert "--tp 8 须" in render(why, "zh") and "`tp` 8 须" in render(why, "zh", "api")
    assert "--tp 8 must divide" in render(why, "en") and "`tp` 8 must divide" in render(why, "en", "api")
    llm = Message("err.is_a_model_needs_an_llm", m_id="sdxl", model_kind="diffusion", what="x", task_field="task")
    assert render(llm, "en").endswith("set --task to inference)") and "set `task` to inference" in render(llm, "en", "api")
    assert "请把 “任务” 设为 `inference`" in render(llm, "zh", "web")
