"""Loopback HTTP servers for provider, runner and reliability tests, all on ``LoopbackServer``.

``ScriptedServer`` answers from a script of ``Reply`` behaviours (one per request, in order;
the last one repeats) and records every request (``Received``) so tests can assert what was
sent; ``openai_server``, ``anthropic_server`` and ``gemini_server`` speak each provider's wire
format; ``gold_server`` answers every InfraNode question deterministically.
"""

from .base import LoopbackServer, Received, Reply, ScriptedServer, closed_port

__all__ = ["LoopbackServer", "Received", "Reply", "ScriptedServer", "closed_port"]
