"""The planner: cost, search, ranking and explanations (pure; numpy for the search grid)."""
