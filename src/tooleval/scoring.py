"""Pure scorers for the first tool call: one source of truth for every way of running a suite.

Rules (documented in the InfraNode suite README):
- ``parsed``: the output contained a readable tool call.
- ``tool_match``: the first call names the gold tool.
- ``args_match``: the first call's arguments equal the gold arguments, independent of the tool.
- ``call_match``: both.
- ``format_ok``: the output followed the format the prompt asked for, apart from which call
  it made. Prompt mode: the whole answer is one JSON object ``{"name": ..., "arguments":
  {...}}`` (one code fence around it and a leading reasoning block allowed, nothing else).
  Native mode: native tool calls, every one readable and named as offered. A call the parser
  read from another dialect (Hermes tags, pythonic, XML, near-JSON, ...) still scores the four
  call metrics, but not ``format_ok``.
Argument comparison: an argument that is ``null`` or a blank string counts as omitted; strings
are compared exactly after trimming surrounding whitespace; lists named in
``UNORDERED_ARGUMENTS`` compare as sets (city order in ``compare`` is irrelevant);
``True``/``False`` never equal numbers; an argument that the gold omits matches only if the
task lists ``None`` (absent) or the given value among its alternatives.
Slugs must be canonical: a call with "München" is executable but not a match.

The stations rule: a task whose purpose is a list containing one entry (``provenance``
``target_station`` with the gold answer's ``listing``) accepts any name filter ``q`` that keeps
the entry in the list and any integer ``limit`` that does not cut it off (a string of digits
counts as that integer: the API reads ``limit`` from the query string, so it answers both
alike; for the same reason an EVA number may be given as an integer); the filter folds case,
umlauts, ß and separators exactly as the API does (``tooleval.namefold``). When the entry's
record names the ``board`` the question asks for (departures or arrivals) and the entry's
``eva``, calling that board's tool with that EVA number directly is accepted as well: it gives
exactly the answer the lookup is a step towards.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tooleval.namefold import name_matches
from tooleval.records import ItemScore, Mode, ParseResult, Task, ToolCall

UNORDERED_ARGUMENTS = frozenset({"cities"})
ABSENT = None  # marker in Task.alternatives: the argument may be left out
LISTING_PROVENANCE = "target_station"
# the record's ``board`` (the direction the question asks for) -> the tool that answers it
BOARD_TOOLS = {"departures": "station_board_departures", "arrivals": "station_board_arrivals"}


def is_omitted(value: Any) -> bool:
    """``null`` and blank strings stand for an argument that was not given."""
    return value is None or (isinstance(value, str) and not value.strip())


def given_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments without the ones that count as omitted."""
    return {name: value for name, value in arguments.items() if not is_omitted(value)}


@dataclass(frozen=True)
class ListingTarget:
    """A gold call whose answer is a list and whose purpose is one entry of it.

    ``listing`` holds the entry names in the order the API lists them for the gold call;
    ``filter_argument`` narrows the list by name (folded substring), ``limit_argument`` cuts it.
    """

    name: str
    listing: tuple[str, ...]
    filter_argument: str = "q"
    limit_argument: str = "limit"
    board: str | None = None
    eva: str | None = None

    def rank(self, query: Any) -> int | None:
        """1-based position of the entry in the list the filter ``query`` leaves; None if gone."""
        if is_omitted(query):
            kept = list(self.listing)
        elif isinstance(query, str):
            kept = [entry for entry in self.listing if name_matches(query, entry)]
        else:
            return None
        return kept.index(self.name) + 1 if self.name in kept else None

    def keeps(self, query: Any, limit: Any) -> bool:
        """Whether a call with this filter and limit still lists the entry."""
        rank = self.rank(query)
        if rank is None:
            return False
        if is_omitted(limit):
            return True
        count = integer_value(limit)
        return count is not None and count >= rank

    def direct_call(self, call: ToolCall) -> bool:
        """Whether ``call`` asks the board the question is about for the entry's EVA number."""
        if self.board is None or self.eva is None or call.name.strip() != self.board:
            return False
        given = given_arguments(call.arguments)
        eva = integer_value(given.get("eva"))
        return set(given) == {"eva"} and eva is not None and str(given["eva"]).strip() == self.eva


def integer_value(value: Any) -> int | None:
    """An integer argument as the API reads it: an int, or a string of digits; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return None


def listing_target(task: Task) -> ListingTarget | None:
    """The task's listing target, when its provenance records one."""
    target = task.provenance.get(LISTING_PROVENANCE)
    if not isinstance(target, Mapping):
        return None
    name, listing = target.get("name"), target.get("listing")
    if not isinstance(name, str) or not isinstance(listing, list):
        return None
    board, eva = BOARD_TOOLS.get(str(target.get("board"))), target.get("eva")
    return ListingTarget(
        name,
        tuple(str(entry) for entry in listing),
        board=board,
        eva=str(eva) if isinstance(eva, str | int) and not isinstance(eva, bool) else None,
    )


def normalise_value(name: str, value: Any) -> Any:
    """A comparable form of one argument value."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, list):
        items = [normalise_value(name, item) for item in value]
        if name in UNORDERED_ARGUMENTS:
            return ("unordered", sorted(items, key=repr))
        return ("list", items)
    if isinstance(value, dict):
        # Sorted by key only: nesting repr() strings would double every backslash per level,
        # making deeply nested (hostile) arguments exponential in time and memory.
        return ("dict", sorted(((k, normalise_value(k, v)) for k, v in value.items()), key=_key))
    return value


def _key(pair: tuple[str, Any]) -> str:
    return pair[0]


def _value_matches(name: str, value: Any, accepted: tuple[Any, ...]) -> bool:
    got = normalise_value(name, value)
    return any(
        candidate is not ABSENT and normalise_value(name, candidate) == got
        for candidate in accepted
    )


def _plain_arguments_match(
    task: Task, arguments: Mapping[str, Any], skip: frozenset[str] = frozenset()
) -> bool:
    gold = given_arguments(task.gold.arguments)
    if not skip and not task.alternatives and gold.keys() == arguments.keys():  # most calls
        return all(_value_matches(name, arguments[name], (value,)) for name, value in gold.items())
    for name in (set(gold) | set(arguments) | set(task.alternatives)) - skip:
        accepted = ((gold[name],) if name in gold else (ABSENT,)) + task.alternatives.get(name, ())
        if name not in arguments:
            if ABSENT not in accepted:
                return False
        elif not _value_matches(name, arguments[name], accepted):
            return False
    return True


def arguments_match(task: Task, arguments: Mapping[str, Any]) -> bool:
    """Whether ``arguments`` equal the gold arguments, honouring alternatives and listing rule."""
    given = given_arguments(arguments)
    target = listing_target(task)
    if target is None:
        return _plain_arguments_match(task, given)
    ruled = frozenset({target.filter_argument, target.limit_argument})
    return _plain_arguments_match(task, given, ruled) and target.keeps(
        given.get(target.filter_argument), given.get(target.limit_argument)
    )


def score_call(task: Task, call: ToolCall | None, form_ok: int | None = None) -> ItemScore:
    """Score one call (or no call) against the task's gold call; ``form_ok`` is passed on as
    the ``format_ok`` metric (None: not judged)."""
    if call is None:
        return ItemScore(parsed=0, tool_match=0, args_match=0, call_match=0, format_ok=form_ok)
    target = listing_target(task)
    if target is not None and target.direct_call(call):
        return ItemScore(parsed=1, tool_match=1, args_match=1, call_match=1, format_ok=form_ok)
    tool = int(call.name.strip() == task.gold.name)
    args = int(arguments_match(task, call.arguments))
    return ItemScore(
        parsed=1, tool_match=tool, args_match=args, call_match=tool * args, format_ok=form_ok
    )


def format_ok(parsed: ParseResult, mode: Mode) -> int:
    """1 when the output had the form ``mode`` asks for (see the module doc), else 0."""
    native = parsed.extractor == "native"
    return int(parsed.exact and native == (mode == "native"))


def score_parse(task: Task, parsed: ParseResult, mode: Mode | None = None) -> ItemScore:
    """Score the first call of a parse result; later calls are ignored by design.

    With ``mode`` (the prompt's mode), ``format_ok`` is scored too; without it, it is None.
    """
    return score_call(task, parsed.first, None if mode is None else format_ok(parsed, mode))
