"""Helpers for the reliability tests: a deterministic OpenAI-compatible loopback server that
can misbehave on demand, and a child-process driver with pause points for crash tests."""
