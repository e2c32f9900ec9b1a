"""A layout's short label, one function for every surface that names a serving layout: `suanli plan`'s table (and
the page's, `web/static/app.js` `layout`, its mirror) and `compare`'s rows (`plan.compare`), so a row of one reads
as a row of the other (review 2026-12-01: compare's label dropped the expert-parallel group plan's showed)."""

from __future__ import annotations

from suanli.i18n import Message

__all__ = ["replica_words", "serving_label"]


def serving_label(replicas: int, tp: int, ep: int, batch: int, precision: str) -> str:
    """A serving layout as plan names it: replicas × tensor parallel, the expert-parallel group where one is used
    (ep > 1: `ep` replicas share one set of routed experts), the batch per replica and the precision —
    `8×tp1·ep8 b256 bf16`."""
    return f"{replicas}×tp{tp}" + (f"·ep{ep}" if ep > 1 else "") + f" b{batch} {precision}"


def replica_words(replicas: int, tp: int, ep: int, engine: str | None = None) -> Message:
    """The same layout as `serving_label` names it, in a sentence (plan's reasons, why-not and relax hints): `replicas`
    × `tp`-card replicas, or where `ep` replicas share one set of routed experts the whole group each needs, "12
    groups of 8 cards sharing experts (tp1 × ep8)" (buyer review 2026-12-02, task H2: "96 × 1-card replicas" of a
    671B model read as one card holding it); `engine` where the sentence names it."""
    if ep > 1 and replicas <= ep and not engine:  # one group: what a replica needs
        return Message("layout.ep_group", cards=tp * ep, tp=tp, ep=ep)
    if ep > 1:
        return Message("layout.ep_groups_engine" if engine else "layout.ep_groups", groups=-(-replicas // ep),
                       cards=tp * ep, tp=tp, ep=ep, **({"engine": engine} if engine else {}))
    return Message("layout.replicas_engine" if engine else "layout.replicas", replicas=replicas, tp=tp,
                   **({"engine": engine} if engine else {}))
