"""A runnable RL loop over the InfraNode environment, with no model and no key.

The "policy" here is a hand-written stand-in (it reads the gold call and the station list),
so the loop shows the interface a trainer drives: ``reset()`` -> observation,
``step(tool call or final answer)`` -> tool result, reward, done, info. Replace ``act`` with
your model's sampling. Run: ``python examples/rl_loop.py [--episodes N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from tooleval.export.rl import InfraNodeEnv, Observation
from tooleval.records import ToolCall


def first_eva(result: str, name: str) -> str | None:
    """The EVA of the station called ``name`` in a stations result (None if absent)."""
    try:
        stations = json.loads(result)["data"]["payload"]["stations"]
    except (ValueError, KeyError, TypeError):
        return None
    return next((s["eva"] for s in stations if s["name"] == name), None)


def act(env: InfraNodeEnv, obs: Observation, last: str, turn: int) -> ToolCall | str:
    """A scripted policy: the gold call, then (two_step) the board, then a short answer."""
    task = next(t for t in env.suite.tasks if t.id == obs.task_id)
    if turn == 0:
        return task.gold
    target = task.provenance.get("target_station") or {}
    if turn == 1 and target:
        eva = first_eva(last, target["name"]) or "0000000"
        arrivals = any(w in obs.question.casefold() for w in ("ankunft", "ankünfte", "ankommen"))
        board = "station_board_arrivals" if arrivals else "station_board_departures"
        return ToolCall(board, {"eva": eva})
    if task.category == "not_covered":
        return "Dazu liegen leider keine Daten vor."
    return next_train(last) or "Laut InfraNode: " + ", ".join(numbers(last)[:3]) + "."


def next_train(result: str) -> str | None:
    """A German sentence about the first train of a board result (None for other results)."""
    try:
        payload = json.loads(result)["data"]["payload"]
    except (ValueError, KeyError, TypeError):
        return None
    rows = (
        payload.get("departures") or payload.get("arrivals") if isinstance(payload, dict) else None
    )
    if not rows:
        return None
    first = rows[0]
    place = f"nach {first['destination']}" if "destination" in first else f"aus {first['origin']}"
    return f"Nächster Zug: {first['line']} {place} um {first['planned_time'][11:16]} Uhr."


def numbers(result: str) -> list[str]:
    """Numeric values of a tool result, in document order (German decimal comma)."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            found.append(str(value).replace(".", ","))

    with contextlib.suppress(ValueError):
        walk(json.loads(result).get("data"))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    env = InfraNodeEnv(
        max_steps=4, max_result_chars=30_000
    )  # whole results: the policy parses them
    total = 0.0
    for number in range(args.episodes):
        # the first episode shows the two-step chain; the rest are drawn at random
        obs = env.reset("two_step-001") if number == 0 else env.reset(seed=args.seed + number)
        last, turn, done, reward, info = "", 0, False, 0.0, {}
        while not done:
            result = env.step(act(env, obs, last, turn))
            last, turn, done, reward, info = (
                result.observation,
                turn + 1,
                result.done,
                result.reward,
                result.info,
            )
        total += reward
        print(f"{obs.task_id:22} reward={reward:.1f} outcome={info['outcome']} steps={turn}")
    print(f"mean reward {total / args.episodes:.2f} over {args.episodes} episodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
