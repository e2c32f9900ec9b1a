"""Task H 5 (2026-12-02): an inter-node network of 1e-320 Gbit/s passed the importer and `--inter-node-gbit` (only
> 0 was asked); compare then printed numpy RuntimeWarnings and a wrongly named error ("--hours/--days: must be a
finite number ≥ 0 (got inf)"). The one rule (`catalog.schema.inter_node_gbit_refusal`): 0.001 to 100,000 Gbit/s per
node, the floor stated (1 Mbit/s, a tenth of 10BASE-T Ethernet's 10 Mbit/s), refused in one line naming the field —
in the importer (CSV, YAML), the catalog's Offer, the workload (CLI flag, API). A row stored before the floor is one
line naming the offer and the import to roll back, not a bare validation error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from cli_run import run_cli  # noqa: E402
from sqlalchemy import update  # noqa: E402

from suanli.catalog.schema import MIN_INTER_NODE_GBIT_PER_S, Catalog, inter_node_gbit_refusal  # noqa: E402
from suanli.errors import InputError  # noqa: E402
from suanli.store import open_store  # noqa: E402
from suanli.store.importer import OfferImportError, parse_offers  # noqa: E402
from suanli.store.models import PriceRow  # noqa: E402

ROW = dict(id="z-h800-node", provider="Z", device="h800", cards=8, billing_unit="hour", scope="node",
           inter_node_network="roce", price_cny=70, date="2026-11-01", source="z")


def _csv(gbit: str) -> str:
    return ",".join([*ROW, "inter_node_gbit_per_s"]) + "\n" + ",".join([*(str(v) for v in ROW.values()), gbit]) + "\n"


def test_the_floor_is_stated() -> None:
    assert MIN_INTER_NODE_GBIT_PER_S == 0.001  # 1 Mbit/s: a tenth of 10BASE-T's 10 Mbit/s (SCHEMA.md says why)
    assert inter_node_gbit_refusal(0.001) is None and inter_node_gbit_refusal(1e5) is None
    assert all(inter_node_gbit_refusal(v) is not None for v in (1e-320, 0.0, 0.000999, 1.0001e5, float("inf")))


@pytest.mark.parametrize("gbit", ["1e-320", "0", "0.0005"])
@pytest.mark.parametrize("fmt", ["csv", "yaml"])
def test_import_refuses_a_network_below_the_floor(cat: Catalog, gbit: str, fmt: str) -> None:
    # YAML 1.1 reads 1e-320 as text: the float is written with its point (1.0e-320)
    text = _csv(gbit) if fmt == "csv" else \
        f"offers:\n  - {json.dumps(ROW)[:-1]}, \"inter_node_gbit_per_s\": {float(gbit):.1e}}}\n"
    with pytest.raises(OfferImportError) as e:
        parse_offers(text, f"o.{fmt}", cat, force=True)
    [err] = e.value.errors
    assert err.field == "inter_node_gbit_per_s", err
    assert err.message.startswith("must be a number of Gbit/s per node from 0.001 to 100,000"), err.message
    assert err.i18n is not None and "每秒 1 兆比特" in err.i18n.render("zh")


def test_import_takes_the_floor(cat: Catalog) -> None:
    o = parse_offers(_csv("0.001"), "o.csv", cat, force=True).offers[0]
    assert o.inter_node_gbit_per_s is not None and o.inter_node_gbit_per_s.value == 0.001


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_flag_refuses_it_in_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path, lang: str) -> None:
    code, out, err = run_cli(["--lang", lang, "estimate", "--model", "qwen2.5-7b", "--gpu", "h800", "--gpus", "16",
                              "--task", "lora", "--inter-node-gbit", "1e-320"], monkeypatch, capsys, tmp_path)
    assert code != 0 and "RuntimeWarning" not in err and "Traceback" not in err, err
    [line] = err.strip().splitlines()
    assert "--inter-node-gbit" in line and "1e-320" in line and "0.001" in line and "--hours" not in line, line


def test_a_row_stored_before_the_floor_names_its_import(tmp_path: Path) -> None:
    st = open_store(f"sqlite:///{tmp_path / 's.db'}")
    imp = st.import_offers_bytes(_csv("25"), "o.csv")
    with st.engine.begin() as conn:  # as a store written before the floor holds it
        row = conn.execute(PriceRow.__table__.select().where(PriceRow.offer_id == ROW["id"])).one()
        [value] = row.offer["inter_node_gbit_per_s"]["values"]
        offer = dict(row.offer, inter_node_gbit_per_s={"values": [dict(value, value=1e-320)]})
        conn.execute(update(PriceRow).where(PriceRow.id == row.id).values(offer=offer))
    with pytest.raises(InputError) as e:
        st.current_offers()
    said = str(e.value)
    assert said.startswith("inter_node_gbit_per_s: the stored offer z-h800-node (import ") and "\n" not in said, said
    assert f"roll back import {imp['import_id']}" in said, (said, imp)
