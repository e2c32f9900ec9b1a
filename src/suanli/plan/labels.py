"""A layout's short label, one function for every surface that names a serving layout: `suanli plan`'s table (and
the page's, `web/static/app.js` `layout`, its mirror) and `compare`'s rows (`plan.compare`), so a row of one reads
as a row of the other (review 2026-12-01: compare's label dropped the expert-parallel group plan's showed)."""

from __future__ import annotations

__all__ = ["serving_label"]


def serving_label(replicas: int, tp: int, ep: int, batch: int, precision: str) -> str:
    """A serving layout as plan names it: replicas × tensor parallel, the expert-parallel group where one is used
    (ep > 1: `ep` replicas share one set of routed experts), the batch per replica and the precision —
    `8×tp1·ep8 b256 bf16`."""
    return f"{replicas}×tp{tp}" + (f"·ep{ep}" if ep > 1 else "") + f" b{batch} {precision}"
