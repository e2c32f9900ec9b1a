"""One library under both interfaces: catalog queries and filters, the JSON shapes of results, calibration
loading, bounded input parsing. The CLI and the API both call these; neither imports the other.

Imports run one way: core (catalog, estimate, plan) → views → {cli, api}. Nothing here imports typer,
rich, FastAPI or SQLAlchemy.
"""

from __future__ import annotations
