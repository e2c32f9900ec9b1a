"""A layout's short label, one function for every surface that names a serving layout: `suanli plan`'s table (and
the page's, `web/static/app.js` `layout`, its mirror) and `compare`'s rows (`plan.compare`), so a row of one reads
as a row of the other (review 2026-12-01: compare's label dropped the expert-parallel group plan's showed)."""

from __future__ import annotations

from suanli.catalog.ranks import whole_cards
from suanli.i18n import Message

__all__ = ["replica_words", "serving_label"]


def serving_label(replicas: int, tp: int, ep: int, batch: int, precision: str) -> str:
    """A serving layout as plan names it: replicas × tensor parallel, the expert-parallel group where one is used
    (ep > 1: `ep` replicas share one set of routed experts), the batch per replica and the precision —
    `8×tp1·ep8 b256 bf16`."""
    return f"{replicas}×tp{tp}" + (f"·ep{ep}" if ep > 1 else "") + f" b{batch} {precision}"


def replica_words(replicas: int, tp: int, ep: int, engine: str | None = None, dies: int = 1) -> Message:
    """The same layout as `serving_label` names it, in a sentence (plan's reasons, why-not and relax hints): `replicas`
    × `tp`-card replicas, or where `ep` replicas share one set of routed experts the whole group each needs, "12
    groups of 8 cards sharing experts (tp1 × ep8)" (buyer review 2026-12-02, task H2: "96 × 1-card replicas" of a
    671B model read as one card holding it); `engine` where the sentence names it. On a card of `dies` dies (the
    910C: tp counts dies) the `_dies` wording: "2-die replicas", "a group of 8 cards (16 dies) sharing experts"."""
    ids = _DIES_IDS if dies > 1 else _IDS
    group = tp * ep  # ranks: a 910C's dies
    cards = {"cards": whole_cards(group, dies), "ranks": group} if dies > 1 else {"cards": group}
    if ep > 1 and replicas <= ep and not engine:  # one group: what a replica needs
        return Message(ids["group"], **cards, tp=tp, ep=ep)
    if ep > 1:
        return Message(ids["groups_engine"] if engine else ids["groups"], groups=-(-replicas // ep),
                       **cards, tp=tp, ep=ep, **({"engine": engine} if engine else {}))
    return Message(ids["replicas_engine"] if engine else ids["replicas"], replicas=replicas, tp=tp,
                   **({"engine": engine} if engine else {}))


# the message ids (static: the catalog-ids test finds them), a one-die card's and a card of several dies'
_IDS = {"group": "layout.ep_group", "groups": "layout.ep_groups", "groups_engine": "layout.ep_groups_engine",
        "replicas": "layout.replicas", "replicas_engine": "layout.replicas_engine"}
_DIES_IDS = {"group": "layout.ep_group_dies", "groups": "layout.ep_groups_dies",
             "groups_engine": "layout.ep_groups_engine_dies", "replicas": "layout.replicas_dies",
             "replicas_engine": "layout.replicas_engine_dies"}
