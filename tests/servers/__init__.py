"""Loopback HTTP servers that speak each provider's wire format, for provider and runner tests.

Each server runs a stdlib ``ThreadingHTTPServer`` on 127.0.0.1 with an ephemeral port, answers
from a script of :class:`Reply` behaviours (one per request, in order; the last one repeats) and
records every request it received (:class:`Received`) so tests can assert what was sent.
"""

from .base import Received, Reply, ScriptedServer, closed_port

__all__ = ["Received", "Reply", "ScriptedServer", "closed_port"]
