"""Integrations with other evaluation tools (lm-evaluation-harness)."""
