"""Validation of the estimators against measurements: the report behind `suanli validate` and `error_band`."""
