"""Cards and ranks: the one place a card of several dies becomes the devices a framework runs on.

An Ascend 910C card is two dies to every framework: npu-smi lists each A3 NPU as two chips of 65536 MB
(accelerators-domestic.yaml, source npusmi-vllm-ascend-2534) and HAMi schedules it as two NPUs of 65,536 MB
(hami-device-configmap), so torch_npu, MindSpeed, vLLM-Ascend and MindIE see 16 ranks on an 8-card machine. The
estimator and the planner count ranks (`Workload.gpus`, tp/pp/dp/ep, `Plan.gpus`): each rank is the card's figures
÷ `Accelerator.dies_per_card` (`rank_view`), a node holds `max_cards_per_node` × the dies ranks. Offers rent cards:
`offer_in_ranks` counts an offer's cards in ranks with its price for the whole instance unchanged, so the one
billing formula (`plan.cost.billed_cost`) bills the same cards. A device without `dies_per_card` is one rank a card,
and `rank_view` returns it unchanged.

The link between a card's two dies: the catalog's figure is the die-to-die SIO of 224 GB/s (ascend-perf-model, in
the 910C's notes); the estimator takes one intra-node link row per device (links.yaml link-intra-hccs, "used for
910B1/B2/B3 and 910C (per die) too"), so a tensor-parallel pair on one package is timed at the HCCS bus figure, not
the faster SIO — conservative, said here rather than modelled.
"""

from __future__ import annotations

import math

from suanli.catalog.schema import Accelerator, AcceleratorSpecs, Alternatives, Offer

__all__ = ["PER_RANK_SPECS", "cards_of", "cards_splitting", "dies_per_card", "dies_wording", "offer_in_ranks", "rank_view", "ranks_in",
           "ranks_of", "whole_cards"]

# the card's figures a rank has its share of (÷ the dies): memory, its bandwidth, every peak, the card-to-card link
# and the power; pcie_gen and sm_count (NVIDIA only) are not shares
PER_RANK_SPECS: tuple[str, ...] = tuple(
    f for f in AcceleratorSpecs.model_fields
    if f in ("memory_gib", "memory_bandwidth_gb_per_s", "interconnect_gb_per_s", "tdp_w")
    or f.endswith(("_tflops", "_tops")))


def dies_per_card(acc: Accelerator) -> int:
    """Ranks (dies a framework sees as devices) in one card of `acc`: the catalog's `dies_per_card`, else 1."""
    return int(acc.dies_per_card.value) if acc.dies_per_card is not None else 1


def ranks_in(cards: int, dies: int) -> int:
    """The ranks `cards` cards of `dies` dies each give (a 910C's 8 cards: 16)."""
    return cards * dies


def ranks_of(acc: Accelerator, cards: int) -> int:
    """The ranks `cards` cards of `acc` give (`ranks_in`: a 910C, 2 a card)."""
    return ranks_in(cards, dies_per_card(acc))


def whole_cards(ranks: int, dies: int) -> int:
    """The cards rented for `ranks` ranks of `dies` a card: whole cards (one rank of a 910C still rents the card)."""
    return math.ceil(ranks / dies)


def cards_splitting(ranks: int, group: int, dies: int) -> int:
    """The fewest whole cards of `dies` dies, at least those `ranks` take, whose ranks split into groups of `group`
    (tp × pp × cp × ep): ranks a multiple of both (8 cards of a 910C for groups of 32 → 16 cards, 32 dies)."""
    step = math.lcm(group, dies)
    return whole_cards(math.ceil(ranks / step) * step, dies)


def cards_of(acc: Accelerator, ranks: int) -> int:
    """The cards rented for `ranks` ranks of `acc` (`whole_cards`)."""
    return whole_cards(ranks, dies_per_card(acc))


def dies_wording(msg_id: str, dies: int) -> str:
    """`msg_id`, or on a card of several dies (the 910C) its `_dies` wording: cards with their dies beside, tp in dies,
    memory per die (plan's `said` does the same for its messages)."""
    return f"{msg_id}_dies" if dies > 1 else msg_id


def _share(alt: Alternatives[float] | None, dies: int) -> Alternatives[float] | None:
    if alt is None:
        return None
    return Alternatives[float](values=tuple(v.model_copy(update={"value": v.value / dies}) for v in alt.values))


_VIEWS: dict[int, tuple[Accelerator, Accelerator]] = {}


def rank_view(acc: Accelerator) -> Accelerator:
    """`acc` as one rank: the card's memory, bandwidth, peaks, link and power ÷ `dies_per_card` (the 910C's
    128 GiB → 64 GiB, 65536 MiB as npu-smi lists each chip; 3,200 → 1,600 GB/s; 780 → 390 BF16 TFLOPS), a node of
    `max_cards_per_node` × the dies ranks, and no dies of its own (a rank view of a rank view is itself). The one
    division the estimator and the planner read a card through; a one-die device is returned as it is."""
    dies = dies_per_card(acc)
    if dies == 1:
        return acc
    hit = _VIEWS.get(id(acc))
    if hit is not None and hit[0] is acc:
        return hit[1]
    specs = acc.specs.model_copy(update={f: _share(getattr(acc.specs, f), dies) for f in PER_RANK_SPECS})
    view = acc.model_copy(update={"specs": specs, "max_cards_per_node": acc.max_cards_per_node * dies,
                                  "dies_per_card": None})
    if len(_VIEWS) > 256:
        _VIEWS.clear()
    _VIEWS[id(acc)] = (acc, view)  # the card held, so that no other object takes its id
    return view


def offer_in_ranks(offer: Offer, dies: int) -> Offer:
    """`offer` counted in ranks of `dies` a card: its instance, order limits and stock × dies, its price (for the
    whole instance) unchanged, so rentability (`offers.can_rent`, `max_cards`) and the bill (`billed_cost`) on
    ranks are those of the cards. One die a card: the offer as it is."""
    if dies == 1:
        return offer
    def times(n: int | None) -> int | None:
        return None if n is None else n * dies

    return offer.model_copy(update={"cards": offer.cards * dies, "max_cards_per_order": times(offer.max_cards_per_order),
                                    "min_cards_per_order": times(offer.min_cards_per_order),
                                    "stock": times(offer.stock)})
