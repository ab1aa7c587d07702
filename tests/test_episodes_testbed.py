"""The scripted-episode test bed: every correct episode succeeds, every wrong one fails with
the right outcome class, for every task of the suite (episodes built from its gold calls)."""

from __future__ import annotations

from collections import Counter

import pytest

from episode_bed import Scripted, episodes_for
from tooleval.suites.infranode import CATEGORIES, load_suite
from tooleval.suites.infranode.client import execute_tool, make_transport
from tooleval.suites.infranode.episodes.scoring import score_episode

SUITE = load_suite()
REPLICA = make_transport(None)


def outcome(task_id: str, episode: Scripted) -> str:
    task = next(t for t in SUITE.tasks if t.id == task_id)
    gold = execute_tool(REPLICA, task.gold.name, task.gold.arguments)
    score = score_episode(task, episode.calls, episode.answer, gold, len(episode.calls) + 1)
    return score.outcome


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_scripted_episode_gets_its_outcome(category: str) -> None:
    kinds: Counter[str] = Counter()
    wrongly: list[str] = []
    for task in (t for t in SUITE.tasks if t.category == category):
        for episode in episodes_for(task, REPLICA):
            kinds["correct" if episode.expected == "success" else "wrong"] += 1
            got = outcome(task.id, episode)
            if got not in episode.expected.split("|"):
                wrongly.append(f"{task.id} {episode.name}: {episode.answer!r} -> {got}, "
                               f"expected {episode.expected}")  # fmt: skip
    assert wrongly == [], "\n".join(wrongly)
    assert kinds["correct"] >= 2 and kinds["wrong"] >= 2
