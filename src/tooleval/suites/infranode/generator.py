"""Generate InfraNode tasks from the API and keep only items that are verifiably defensible.

Every candidate task is a (question, gold call) pair built from the API's own answers (the
city register, station lists, city boards, coverage). A candidate is kept only if its gold call
answers as expected (``ok``; ``not_covered`` for the not_covered category), its wording points
to the gold tool or key alone by the confusables table and asks only for what the answer holds
(``confusables.wording_problems``), it names a city that is also an everyday word only as a
place (``confusables.unclear_city_names``), and, in slug_resolution, the API resolves the name
as written to the gold slug. Output is deterministic for a seed and API snapshot, and a smaller
``max_per_category`` gives a prefix of each category of a larger one.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from tooleval.records import Task, ToolCall
from tooleval.suites.infranode import CATEGORIES, DEFAULT_COUNTS, SUITE_VERSION, phrasing
from tooleval.suites.infranode.api import ApiResponse
from tooleval.suites.infranode.api.facts import aliases, partial_coverage
from tooleval.suites.infranode.client import Transport, body_status, execute_tool, tool_request
from tooleval.suites.infranode.confusables import (
    call_subject,
    load_table,
    mask,
    unclear_city_names,
    wording_problems,
)
from tooleval.suites.infranode.phrasing import Phrase
from tooleval.suites.infranode.phrasing_keys import NOT_COVERED_PHRASES, RESOURCE_PHRASES
from tooleval.suites.infranode.picking import CityCycle, Picker, compare_owns, cycle, kind_rounds
from tooleval.suites.infranode.slugforms import CityName, SpokenForm, is_plain, spoken_forms

PARTIAL_STATUS = "not_covered"
City = CityName


@dataclass(frozen=True)
class Candidate:
    """A proposed task before verification; ``spoken`` are the place names as written."""

    question: str
    gold: ToolCall
    phrase: Phrase
    spoken: tuple[str, ...]
    expect_status: str = "ok"
    check_wording: bool = True
    slug_form: SpokenForm | None = None
    target_station: Mapping[str, str] | None = None


@dataclass(frozen=True)
class GeneratorConfig:
    seed: int = 0
    max_per_category: int | None = None

    def count(self, category: str) -> int:
        if self.max_per_category is None:
            return DEFAULT_COUNTS[category]
        return self.max_per_category


class Generator:
    """Builds and verifies tasks against one transport (replica or live API)."""

    def __init__(self, transport: Transport, config: GeneratorConfig) -> None:
        self.transport = transport
        self.config = config
        self._answers: dict[str, ApiResponse] = {}
        self._asked: set[tuple[str, str]] = set()  # (city, key) pairs a keyed category took
        self.cities = self._load_cities()

    def _load_cities(self) -> tuple[City, ...]:
        rows = self.answer("list_cities", {}).body.get("data") or []
        return tuple(City(row["slug"], row.get("name_de") or row["name"]) for row in rows)

    def answer(self, tool: str, arguments: Mapping[str, Any]) -> ApiResponse:
        """The API's answer to one call, asked once per generator."""
        key = json.dumps([tool, arguments], sort_keys=True, ensure_ascii=False)
        if key not in self._answers:
            self._answers[key] = execute_tool(self.transport, tool, arguments)
        return self._answers[key]

    def status(self, tool: str, arguments: Mapping[str, Any]) -> str | None:
        response = self.answer(tool, arguments)
        return body_status(response.body) if response.status == 200 else None

    def rng(self, category: str) -> random.Random:
        return random.Random(f"{self.config.seed}:{category}")

    def generate(self) -> list[Task]:
        tasks: list[Task] = []
        for category in CATEGORIES:
            rng = self.rng(category)
            stream: Iterator[Candidate] = getattr(self, f"_{category}")(rng, Picker(rng))
            tasks.extend(self._verified(category, stream))
        return tasks

    def _verified(self, category: str, candidates: Iterator[Candidate]) -> list[Task]:
        wanted = self.config.count(category)
        tasks: list[Task] = []
        seen: set[str] = set()
        for candidate in candidates:
            if len(tasks) >= wanted:
                break
            provenance = None if candidate.question in seen else self._verify(candidate)
            seen.add(candidate.question)
            if provenance is not None:
                task_id = f"{category}-{len(tasks) + 1:03d}"
                gold = candidate.gold
                tasks.append(
                    Task(task_id, category, candidate.question, gold, SUITE_VERSION, {}, provenance)
                )
        return tasks

    def _verify(self, candidate: Candidate) -> dict[str, Any] | None:
        gold = candidate.gold
        status = self.status(gold.name, gold.arguments)
        if status != candidate.expect_status or not self._wording_ok(candidate):
            return None
        if unclear_city_names(candidate.question, candidate.spoken):
            return None
        form = candidate.slug_form
        if form is not None and not self._resolves(form.text, form.slug):
            return None
        path, query = tool_request(gold.name, gold.arguments)
        meta = self.answer(gold.name, gold.arguments).body.get("meta") or {}
        provenance: dict[str, Any] = {
            "request": f"GET {path}" + (f"?{urlencode(query)}" if query else ""),
            "source_status": status,
            "observed": meta.get("snapshot_date") or meta.get("retrieved_at"),
            "phrasing": {"template": candidate.phrase.text, "register": candidate.phrase.register},
        }
        if form is not None:
            provenance["slug_form"] = {"text": form.text, "kind": form.kind}
        if candidate.target_station is not None:
            listing = [
                str(s.get("name"))
                for s in station_rows(self.answer(gold.name, gold.arguments).body)
            ]
            if candidate.target_station["name"] not in listing:
                return None
            provenance["target_station"] = {**candidate.target_station, "listing": listing}
        return provenance

    def _wording_ok(self, candidate: Candidate) -> bool:
        if not candidate.check_wording:
            return True
        subject = call_subject(candidate.gold)
        masked = mask(candidate.question, candidate.spoken)
        return subject is not None and not wording_problems(masked, subject)

    def _resolves(self, name: str, slug: str) -> bool:
        """Whether the API resolves ``name`` (as written in the question) to ``slug``."""
        response = self.answer("get_city", {"slug": name})
        data = response.body.get("data")
        return response.status == 200 and isinstance(data, dict) and data.get("city_slug") == slug

    # -- candidate streams, one per category -------------------------------------------------

    def _plain_cities(self, rng: random.Random) -> list[City]:
        """Cities whose slug is the plain lower-case name and that slug_resolution never asks
        (Hannover is asked as "Hanover" there), so no city is asked the same in two categories."""
        hard = {form.slug for form in self._spoken_forms()}
        cities = [c for c in self.cities if is_plain(c.slug, c.name) and c.slug not in hard]
        rng.shuffle(cities)
        return cities

    def _routing_broad(self, rng: random.Random, picker: Picker) -> Iterator[Candidate]:
        for city in self._plain_cities(rng):
            phrase = picker.pick(phrasing.OVERVIEW, names_clearly(city.name))
            yield city_candidate(phrase, call("get_city_overview", city), city)

    def _routing_named(self, rng: random.Random, picker: Picker) -> Iterator[Candidate]:
        """Weather and air, the one asked less so far first; a city whose pair for it belongs
        to compare_multi is asked the other one, or skipped when both do."""
        banks = (("weather", phrasing.WEATHER), ("air_quality", phrasing.AIR))
        asked: Counter[str] = Counter()
        for city in self._plain_cities(rng):
            free = [b for b in banks if not compare_owns(city.slug, subject_of(call(b[0], city)))]
            if not free:
                continue
            tool, bank = min(free, key=lambda b: asked[b[0]])
            asked[tool] += 1
            yield city_candidate(
                picker.pick(bank, names_clearly(city.name)), call(tool, city), city
            )

    def _resource_key(self, rng: random.Random, picker: Picker) -> Iterator[Candidate]:
        yield from self._keyed(rng, picker, RESOURCE_PHRASES, "ok")

    def _not_covered(self, rng: random.Random, picker: Picker) -> Iterator[Candidate]:
        yield from self._keyed(rng, picker, NOT_COVERED_PHRASES, PARTIAL_STATUS)

    def _keyed(
        self,
        rng: random.Random,
        picker: Picker,
        banks: Mapping[str, Sequence[Phrase]],
        status: str,
    ) -> Iterator[Candidate]:
        """Rounds over the askable keys: each key once per round, each template once, with a city
        answering ``status``; within a round the template (and so the key) comes from the picker,
        which keeps openings and registers balanced across keys."""
        table, partial = load_table(), partial_coverage()
        keys = sorted(
            k for k in banks if table.subjects[k].asked and (status != "ok" or k not in partial)
        )
        cities, used = CityCycle(self._plain_cities(rng)), {k: set[str]() for k in keys}
        owner = {p.text: k for k in keys for p in banks[k]}
        for _ in range(max((len(banks[k]) for k in keys), default=0)):
            pending = [k for k in keys if any(p.text not in used[k] for p in banks[k])]
            while pending:
                options = [p for k in pending for p in banks[k] if p.text not in used[k]]
                phrase = picker.pick(options)
                key = owner[phrase.text]
                pending.remove(key)
                used[key].add(phrase.text)
                city = cities.take(self._answering(key, status, phrase))
                if city is not None:
                    gold = ToolCall("get_city_data", data_args(city, key))
                    yield city_candidate(phrase, gold, city, expect_status=status)

    def _answering(self, key: str, status: str, phrase: Phrase) -> Callable[[City], bool]:
        """A predicate: does ``phrase`` name the city clearly, and ``get_city_data(city, key)``
        answer with ``status``?"""

        def answers(city: City) -> bool:
            if not names_clearly(city.name)(phrase) or compare_owns(city.slug, key):
                return False
            if (city.slug, key) in self._asked:
                return False
            self._asked.add((city.slug, key))
            return self.status("get_city_data", data_args(city, key)) == status

        return answers

    def _slug_resolution(self, rng: random.Random, picker: Picker) -> Iterator[Candidate]:
        forms = self._spoken_forms()
        tools = cycle(("weather", "air_quality", "get_city_overview"), rng)
        for form in kind_rounds(forms, rng):
            tool = next(tools)
            bank = SLUG_BANKS[(tool, form.kind == "exonym")]
            phrase = picker.pick(bank, names_clearly(form.text))
            question = phrase.text.format(city=form.text)
            gold = ToolCall(tool, {"slug": form.slug})
            yield Candidate(question, gold, phrase, (form.text,), slug_form=form)

    def _spoken_forms(self) -> list[SpokenForm]:
        return spoken_forms(self.cities, ((a.alias, a.slug, a.documented) for a in aliases()))

    def _poi_type(self, rng: random.Random, picker: Picker) -> Iterator[Candidate]:
        table = load_table()
        types = sorted(t for t in phrasing.POI_NOUNS if table.subjects[f"poi:{t}"].asked)
        forms_used: Counter[str] = Counter()
        order: list[str] = []
        for city in self._plain_cities(rng):
            if not order:
                order = rng.sample(types, len(types))
            poi = order.pop()
            phrase = picker.pick(
                phrasing.POI_GENERIC + phrasing.POI_SPECIFIC.get(poi, ()), names_clearly(city.name)
            )
            nouns, n = phrasing.POI_NOUNS[poi], forms_used[poi]
            forms_used[poi] += 1
            question = phrase.text.format(
                city=city.name,
                plural=nouns.plurals[n % len(nouns.plurals)],
                one=nouns.ones[n % len(nouns.ones)],
            )
            yield Candidate(
                question, ToolCall("pois", {"slug": city.slug, "type": poi}), phrase, (city.name,)
            )

    def _compare_multi(self, rng: random.Random, picker: Picker) -> Iterator[Candidate]:
        plain = self._plain_cities(rng)
        cities, order = CityCycle(plain), list[str]()
        for index in range(len(plain)):
            if not order:
                order = rng.sample(sorted(phrasing.COMPARE_PHRASES), len(phrasing.COMPARE_PHRASES))
            resource, size = order.pop(), 2 + index % 2
            subject = subject_of(ToolCall("get_city_data", {"slug": "", "resource": resource}))
            chosen = cities.take_distinct(size, owned_by_compare(subject))
            sized = [p for p in phrasing.COMPARE_PHRASES[resource] if size in p.sizes]
            phrase = picker.pick(sized, compares_clearly(resource, chosen))
            yield compare_candidate(phrase, resource, chosen)

    def _two_step(self, rng: random.Random, picker: Picker) -> Iterator[Candidate]:
        targets = [(city, s) for city in self._plain_cities(rng) for s in self._off_board(city)]
        rng.shuffle(targets)
        first: dict[str, Phrase] = {}
        for round_ in (0, 1):
            for city, station in targets:
                if round_ == 0:
                    phrase = picker.pick(phrasing.DEPARTURES + phrasing.ARRIVALS)
                    first[station["eva"]] = phrase
                else:
                    went = first[station["eva"]] in phrasing.DEPARTURES
                    phrase = picker.pick(phrasing.ARRIVALS if went else phrasing.DEPARTURES)
                board = "departures" if phrase in phrasing.DEPARTURES else "arrivals"
                target = {"eva": station["eva"], "name": station["name"], "board": board}
                yield Candidate(
                    phrase.text.format(station=station["name"]),
                    ToolCall("stations", {"slug": city.slug}),
                    phrase,
                    (station["name"], city.name),
                    check_wording=False,
                    target_station=target,
                )

    def _off_board(self, city: City) -> list[dict[str, Any]]:
        """Named stations of the city that its main-station board does not cover."""
        listing = self.answer("stations", {"slug": city.slug})
        board = self.answer("get_city_data", data_args(city, "station-departures"))
        on_board = board_station_names(board.body)
        return [
            s
            for s in station_rows(listing.body)
            if s.get("name")
            and s.get("eva")
            and s["name"] not in on_board
            and s["name"].startswith(city.name)
            and s["name"] != city.name
        ]


SLUG_BANKS: dict[tuple[str, bool], tuple[Phrase, ...]] = {
    ("weather", False): phrasing.SLUG_WEATHER,
    ("air_quality", False): phrasing.SLUG_AIR,
    ("get_city_overview", False): phrasing.SLUG_OVERVIEW,
    ("weather", True): phrasing.EXONYM_WEATHER,
    ("air_quality", True): phrasing.EXONYM_AIR,
    ("get_city_overview", True): phrasing.EXONYM_OVERVIEW,
}


def owned_by_compare(subject: str) -> Callable[[City], bool]:
    """A test: does the pair (city, ``subject``) belong to compare_multi?"""
    return lambda city: compare_owns(city.slug, subject)


def subject_of(gold: ToolCall) -> str:
    """The data type a call asks for (its canonical key or its tool's subject)."""
    return call_subject(gold) or gold.name


def call(tool: str, city: City) -> ToolCall:
    return ToolCall(tool, {"slug": city.slug})


def data_args(city: City, key: str) -> dict[str, str]:
    return {"slug": city.slug, "resource": key}


def city_candidate(
    phrase: Phrase, gold: ToolCall, city: City, expect_status: str = "ok"
) -> Candidate:
    question = phrase.text.format(city=city.name)
    return Candidate(question, gold, phrase, (city.name,), expect_status=expect_status)


def names_clearly(name: str) -> Callable[[Phrase], bool]:
    """A test: does a ``{city}`` template name the city ``name`` as a place (see
    ``confusables.unclear_city_names``: "Überblick über Essen?" does not)?"""

    def clear(phrase: Phrase) -> bool:
        return not unclear_city_names(phrase.text.replace("{city}", name), (name,))

    return clear


def compares_clearly(resource: str, chosen: Sequence[City]) -> Callable[[Phrase], bool]:
    """``names_clearly`` for a compare template and its cities."""

    def clear(phrase: Phrase) -> bool:
        candidate = compare_candidate(phrase, resource, chosen)
        return not unclear_city_names(candidate.question, candidate.spoken)

    return clear


def compare_candidate(phrase: Phrase, resource: str, chosen: Sequence[City]) -> Candidate:
    names = [c.name for c in chosen]
    question = phrase.text.format(
        cities_and=phrasing.enumerate_de(names, "und"),
        cities_or=phrasing.enumerate_de(names, "oder"),
    )
    gold = ToolCall("compare", {"cities": [c.slug for c in chosen], "resource": resource})
    return Candidate(question, gold, phrase, tuple(names))


def station_rows(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    data = body.get("data") or {}
    payload = data.get("payload") if isinstance(data, dict) else None
    rows = payload.get("stations") if isinstance(payload, dict) else None
    return [r for r in rows or [] if isinstance(r, dict)]


def board_station_names(body: Mapping[str, Any]) -> set[str]:
    data = body.get("data") or {}
    payload = data.get("payload") if isinstance(data, dict) else None
    entries = payload.get("departures") if isinstance(payload, dict) else None
    return {e["station"] for e in entries or [] if isinstance(e, dict) and e.get("station")}


def generate_tasks(transport: Transport, config: GeneratorConfig) -> list[Task]:
    return Generator(transport, config).generate()
