"""Kem's: the real-time team game as a discrete-time model (docs/rules/kems.md)."""
