"""The memory-within-error verdict fields are one model (views.estimates.MemoryVerdictJson) that EstimateJson and
the compare row (api.responses.CompareRow) both extend, no longer two field-for-field copies; the OpenAPI
components keep their property names and types (the names below are the document's before the change)."""

from __future__ import annotations

from typing import Any

from suanli.api import Settings, create_app
from suanli.api.responses import CompareRow
from suanli.views.estimates import EstimateJson, MemoryVerdictJson

VERDICT = {"fits_tight", "likely_short", "memory_warning", "memory_warning_i18n", "memory_likely_short",
           "memory_likely_short_i18n", "fit_label", "fit_label_i18n"}  # fit_label: task H (2026-12-02)
BEFORE = {
    "CompareRow": {
        "breakdown_bytes", "calibration", "calibration_i18n", "card_hour_billing_unit", "cny_per_card_hour",
        "cost_cny", "dense_tflops", "device", "device_name", "device_name_i18n", "domestic", "effective_tflops_per_cny_hour", "evidence",
        "evidence_i18n", "fits", "fits_tight", "hours", "job_cny_per_card_hour", "layout", "layout_note", "layout_note_i18n", "likely_short",
        "memory_capacity_bytes", "memory_likely_short", "memory_likely_short_i18n", "memory_needed_bytes",
        "memory_per_gpu_bytes", "memory_pool_note", "memory_pool_note_i18n", "memory_usable_bytes", "memory_warning",
        "memory_warning_i18n", "model_id", "no_price", "no_price_i18n", "notes", "notes_i18n", "offer",
        "offer_facts", "offer_kinds", "period_note", "period_note_i18n", "precision_note", "precision_note_i18n", "region", "runs",
        "scaling_efficiency", "served", "serving_rule", "serving_rule_i18n", "stack", "tokens_per_s", "tpot_kind",
        "tpot_s", "users_note", "users_note_i18n", "capacity_note", "capacity_note_i18n", "comfortable_requests_per_s",
        "max_requests_per_s", "max_users", "offer_warnings", "offer_warnings_i18n",
        "load_output_tokens_per_s", "cny_per_million_output_tokens", "cny_per_million_basis", "value_basis", "fit_label", "fit_label_i18n"},
    "EstimateJson": {
        "device", "error_band", "fits_tight", "framework", "likely_short", "memory", "memory_bias_pct", "memory_error_pct",
        "memory_group", "memory_headroom_pct", "memory_likely_short", "memory_likely_short_i18n", "memory_warning",
        "memory_warning_i18n", "method", "model", "notes", "notes_i18n", "runs", "scaling", "speed", "time",
        "workload", "fit_label", "fit_label_i18n"},
}


def _type(prop: dict[str, Any]) -> Any:
    """A property's JSON type without its words (description, title, default)."""
    return {k: v for k, v in prop.items() if k not in ("description", "title", "default")}


def test_one_model_serves_both() -> None:
    assert set(MemoryVerdictJson.model_fields) == VERDICT
    assert issubclass(EstimateJson, MemoryVerdictJson) and issubclass(CompareRow, MemoryVerdictJson)


def test_the_openapi_components_keep_their_property_names_and_types() -> None:
    schemas = create_app(Settings(database_url="sqlite:///:memory:")).openapi()["components"]["schemas"]
    for name, props in BEFORE.items():
        assert set(schemas[name]["properties"]) == props, name
    est, row = schemas["EstimateJson"]["properties"], schemas["CompareRow"]["properties"]
    for field in VERDICT:
        assert _type(est[field]) == _type(row[field]), field
    assert _type(est["fits_tight"]) == {"type": "boolean"}
    assert "MemoryVerdictJson" not in schemas  # a base, not a component of its own
