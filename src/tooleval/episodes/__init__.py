"""Multi-step episodes: the model's tool calls run against the InfraNode API (the offline
replica by default) and the results go back to it, for up to ``max_rounds`` turns.

Layers: ``loop`` (one episode as a state machine), ``scoring`` (per-category outcome classes),
``grounding`` (is every claim of the final answer about the right entity and field, within
tolerance; built on ``german``, ``facts``, ``entities``, ``clock``, ``gaps`` and
``vocabulary``), ``judge`` (an optional judge model beside it), ``goldchain`` (a task's gold
calls executed), ``runner`` (many episodes: threads or lockstep batches, pacing, retries),
``results`` (the results file).
``exec_match`` scores single calls by what the API answers. See docs/episodes.md.
"""

from __future__ import annotations

from tooleval.episodes.loop import Episode
from tooleval.episodes.records import OUTCOMES, EpisodeConfig, EpisodeRecord, EpisodeScore
from tooleval.episodes.results import EPISODES_FORMAT, build_document
from tooleval.episodes.runner import run_episodes
from tooleval.episodes.scoring import score_episode
from tooleval.suites.infranode.execmatch import exec_match

__all__ = [
    "EPISODES_FORMAT",
    "OUTCOMES",
    "Episode",
    "EpisodeConfig",
    "EpisodeRecord",
    "EpisodeScore",
    "build_document",
    "exec_match",
    "run_episodes",
    "score_episode",
]
