"""Stacks are found as people type them, as devices and vendors are (README "names as typed": case, spaces, hyphens,
full-width forms do not matter): id, name, Chinese name, or the vendor's name where it has one stack; a miss names
the input that held it with the closest stacks. A plan request's vendors, stacks and already_on go through these
lookups in one function (`plan.request.catalog_names`), for the CLI and the API alike."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.errors import NotFoundError
from suanli.plan.request import catalog_names

CAT = packaged_catalog()


@pytest.mark.parametrize(("typed", "stack"), [
    ("cann", "cann"), ("CANN", "cann"), ("ＣＡＮＮ", "cann"), ("Huawei Ascend CANN", "cann"), ("华为昇腾 CANN", "cann"),
    ("昇腾", "cann"), ("Ascend", "cann"), ("CUDA", "cuda"), ("NVIDIA CUDA", "cuda"), ("英伟达", "cuda"),
    ("Hygon DTK (DCU Toolkit)", "dtk"), ("海光", "dtk"), ("MUSA", "musa"), ("摩尔线程 MUSA", "musa"),
])
def test_typed_stack_names(typed: str, stack: str) -> None:
    assert lookup.stack(CAT, typed).id == stack


def test_unknown_stack_suggests_ids_and_names_its_field() -> None:
    with pytest.raises(NotFoundError) as e:
        lookup.stack(CAT, "cnn", "already_on")
    assert e.value.field == "already_on" and e.value.suggestions == ["cann"]
    assert str(e.value) == "already_on: unknown stack 'cnn'. Did you mean: cann?"  # the kind stays "stack"
    with pytest.raises(NotFoundError) as v:
        lookup.vendor(CAT, "nvdia", "vendors")
    assert str(v.value) == "vendors: unknown vendor 'nvdia'. Did you mean: nvidia?"


def test_catalog_names_resolves_each_list_once() -> None:
    got = catalog_names(CAT, {"model": "m", "vendors": ("华为", "Huawei", "NVIDIA"), "stacks": ["CANN"],
                              "already_on": ("cuda",), "devices": ("H100",)})
    assert got == {"model": "m", "vendors": ("huawei", "nvidia"), "stacks": ("cann",), "already_on": ("cuda",),
                   "devices": ("H100",)}  # devices are the planner's (lookup.accelerator), untouched here


@pytest.mark.parametrize(("indexed", "field"), [(False, "stacks"), (True, "stacks.1")])
def test_catalog_names_names_the_field_or_the_item(indexed: bool, field: str) -> None:
    with pytest.raises(NotFoundError) as e:
        catalog_names(CAT, {"stacks": ("cuda", "cnn")}, indexed=indexed)
    assert e.value.field == field and e.value.suggestions == ["cann"]


def test_catalog_names_leaves_a_non_list_to_the_request_check() -> None:
    assert catalog_names(CAT, {"vendors": 3}) == {"vendors": 3}
