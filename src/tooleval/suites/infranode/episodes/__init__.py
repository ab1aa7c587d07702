"""InfraNode's multi-step episodes: how results go back to the model (``feedback``), the
per-category outcome classes (``scoring``, ``records``) and the final-answer check
(``grounding``: is every claim of the answer about the right entity and field, within
tolerance, against what the model was shown; built on ``german``, ``facts``, ``entities``,
``context``, ``clock``, ``gaps`` and ``vocabulary``), an optional judge model beside it
(``judge``) and a task's gold calls executed (``goldchain``). The conversation itself is run
by the shared multi-turn driver (``tooleval.runner.conversation``) through the InfraNode
dialogue (``..dialogue``). See docs/episodes.md.
"""

from __future__ import annotations
