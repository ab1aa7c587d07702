"""The Cesium suite's prompt: a system message per locale naming the routed toolsets, then the
scenario's request as the user message (native mode: the routed tools travel separately)."""

from __future__ import annotations

from collections.abc import Sequence

from tooleval.records import Message

INSTRUCTIONS = {
    "en": (
        "You operate a CesiumJS globe in the user's browser through the tools provided. "
        "Carry out map actions only by calling tools; you may need several turns. For a place "
        "name, call geocode first and use the coordinates it returns. Use only values the user "
        "gave, values returned by tools, or schema defaults. Never write tool calls as text and "
        "never claim an action you did not perform with a tool.\n"
        "Tool scope for this turn: {scope}. Judge what you can do only by these tools.\n"
        "Answer in English."
    ),
    "zh-CN": (
        "你通过提供的工具操作用户浏览器中的 CesiumJS 地球。地图操作只能通过调用工具完成，"
        "可以分多轮进行。遇到地名时先调用 geocode，并使用它返回的坐标。只使用用户给出的值、"
        "工具返回的值或 schema 默认值。不要把工具调用写成文本，"
        "也不要声称完成了没有调用工具的操作。\n"
        "本轮工具范围：{scope}。只根据这些工具判断能力。\n"
        "请用简体中文回答。"
    ),
}


def scenario_instructions(locale: str, toolsets: Sequence[str]) -> str:
    """The system message for a scenario in ``locale`` whose routed toolsets are ``toolsets``."""
    scope = ", ".join(toolsets) or "none"
    return INSTRUCTIONS.get(locale, INSTRUCTIONS["en"]).format(scope=scope)


def scenario_messages(locale: str, toolsets: Sequence[str], prompt: str) -> tuple[Message, ...]:
    return (Message("system", scenario_instructions(locale, toolsets)), Message("user", prompt))
