"""Command-line interface: thin — parse, call the core, render."""
