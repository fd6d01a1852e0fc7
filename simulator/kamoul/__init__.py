"""Kamoul (Dutch/Cabo family): rules K1–K16 of docs/rules/kamoul.md, two engines, output records."""
