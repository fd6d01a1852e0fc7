"""Pluggable strategies, one sub-package per game, each with an explicit registry (no import side effects)."""
