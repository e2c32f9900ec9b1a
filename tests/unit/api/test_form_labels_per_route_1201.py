"""On the page (`?surface=web`) a refusal names the form's own label: the migrate form's cards are “Cards on each
side” (not the plan tab's “Exactly cards”), compare's “Cards each”, rent-vs-TCO's “Cards” (`field.<route>.<field>`,
api.errors._prefixed); API clients keep the JSON field."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from suanli.i18n import messages

CASES = [("/api/migrate", {"model": "qwen2.5-7b", "gpus": 5000, "saving": 100}, "field.migrate.gpus"),
         ("/api/compare", {"model": "qwen2.5-7b", "devices": ["h100", "910b"], "gpus": 0}, "field.compare.gpus"),
         ("/api/tco", {"gpu": "h100", "hours": 10, "gpus": 0}, "field.tco.gpus")]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("route", "body", "label_id"), CASES)
def test_cards_refusal_names_the_forms_own_label(client: TestClient, lang: str, route: str, body: dict[str, Any],
                                                  label_id: str) -> None:
    r = client.post(f"{route}?surface=web&lang={lang}", json=body)
    assert r.status_code == 422 and r.json()["field"] == "gpus"
    label = messages(lang)[label_id]
    assert r.json()["error"].startswith(f"{label}: ") and messages(lang)["field.gpus"] not in r.json()["error"]
    assert client.post(f"{route}?lang={lang}", json=body).json()["error"].startswith("gpus: ")


def test_form_labels_match_the_page() -> None:
    for lang in ("en", "zh"):
        cat = messages(lang)
        for (_, _, label_id), web in zip(CASES, ("web.mig_gpus", "web.cards", "web.tco_cards"), strict=True):
            assert cat[label_id].strip("“”") == cat[web], (lang, label_id)
