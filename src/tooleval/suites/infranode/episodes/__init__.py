"""InfraNode's multi-step episodes: how results go back to the model (``feedback``), whether
the final answer states facts from them (``grounding``) and the per-category outcome classes
(``scoring``, ``records``). The conversation itself is run by the shared multi-turn driver
(``tooleval.runner.conversation``) through the InfraNode dialogue (``..dialogue``).
See docs/episodes.md.
"""

from __future__ import annotations
