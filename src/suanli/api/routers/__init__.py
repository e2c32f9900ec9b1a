"""The API's routers, one per resource: meta, catalog, prices, compute, plans, bench."""
