"""Generate InfraNode tasks from the API and keep only gold calls the API verifiably answers.

Every candidate task is a (question, gold call) pair built from the API's own answers (the
city register, station lists, city boards). The gold call is executed; the task is kept only
if its source answered as expected (``ok``; ``not_covered`` for the not_covered category).
Output is deterministic for a given seed and API snapshot.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from tooleval.records import Task, ToolCall
from tooleval.suites.infranode import CATEGORIES, DEFAULT_COUNTS, SUITE_VERSION, phrasing
from tooleval.suites.infranode.client import Transport, body_status, execute_tool, tool_request

PARTIAL_STATUS = "not_covered"


@dataclass(frozen=True)
class City:
    slug: str
    name: str


@dataclass(frozen=True)
class Candidate:
    """A proposed task before verification."""

    question: str
    gold: ToolCall
    expect_status: str = "ok"
    alternatives: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    target_station: Mapping[str, str] | None = None  # two_step: the station asked about


@dataclass(frozen=True)
class GeneratorConfig:
    seed: int = 0
    max_per_category: int | None = None

    def count(self, category: str) -> int:
        if self.max_per_category is None:
            return DEFAULT_COUNTS[category]
        return self.max_per_category


def fold_name(name: str) -> str:
    """The naive slug of a German name (ä→ae, ß→ss, spaces and brackets to hyphens)."""
    text = name.lower().replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("ß", "ss")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    cleaned = "".join(ch if ch.isalnum() else "-" for ch in text)
    return "-".join(part for part in cleaned.split("-") if part)


def is_plain(city: City) -> bool:
    """A city whose slug is just its lower-case name (no umlaut, space or bracket)."""
    return city.slug == city.name.lower()


def short_name(city: City, all_names: Sequence[str]) -> str:
    """A colloquial short form ('Frankfurt' for 'Frankfurt am Main') if it is unambiguous."""
    for cut in (" (", " am ", " an der ", " im ", " in "):
        if cut in city.name:
            short = city.name.split(cut)[0]
            if sum(n.startswith(short) for n in all_names) == 1:
                return short
    return city.name


class Generator:
    """Builds and verifies tasks against one transport (replica or live API)."""

    def __init__(self, transport: Transport, config: GeneratorConfig) -> None:
        self.transport = transport
        self.config = config
        self.cities = self._load_cities()

    def _load_cities(self) -> tuple[City, ...]:
        response = execute_tool(self.transport, "list_cities", {})
        rows = response.body.get("data") or []
        return tuple(City(row["slug"], row.get("name_de") or row["name"]) for row in rows)

    def rng(self, category: str) -> random.Random:
        return random.Random(f"{self.config.seed}:{category}")

    def generate(self) -> list[Task]:
        tasks: list[Task] = []
        for category in CATEGORIES:
            candidates = getattr(self, f"_{category}")(self.rng(category))
            tasks.extend(self._verified(category, candidates))
        return tasks

    def _verified(self, category: str, candidates: Iterator[Candidate]) -> list[Task]:
        wanted = self.config.count(category)
        tasks: list[Task] = []
        seen: set[tuple[str, str, str]] = set()
        for candidate in candidates:
            if len(tasks) >= wanted:
                break
            key = (candidate.question, candidate.gold.name, repr(candidate.gold.arguments))
            provenance = None if key in seen else self._verify(candidate)
            seen.add(key)
            if provenance is not None:
                task_id = f"{category}-{len(tasks) + 1:03d}"
                tasks.append(
                    Task(
                        task_id,
                        category,
                        candidate.question,
                        candidate.gold,
                        SUITE_VERSION,
                        dict(candidate.alternatives),
                        provenance,
                    )
                )
        return tasks

    def _verify(self, candidate: Candidate) -> dict[str, Any] | None:
        gold = candidate.gold
        response = execute_tool(self.transport, gold.name, gold.arguments)
        status = body_status(response.body)
        if response.status != 200 or status != candidate.expect_status:
            return None
        if gold.name == "stations" and not self._alternatives_answer(candidate):
            return None
        path, query = tool_request(gold.name, gold.arguments)
        meta = response.body.get("meta") or {}
        provenance: dict[str, Any] = {
            "request": f"GET {path}" + (f"?{urlencode(query)}" if query else ""),
            "source_status": status,
            "observed": meta.get("snapshot_date") or meta.get("retrieved_at"),
        }
        if candidate.target_station is not None:
            provenance["target_station"] = dict(candidate.target_station)
        return provenance

    def _alternatives_answer(self, candidate: Candidate) -> bool:
        """Every accepted ``q`` of a stations gold must still list the wanted EVA."""
        eva = (candidate.target_station or {}).get("eva")
        for q in candidate.alternatives.get("q", ()):
            if q is None:
                continue
            args = {**candidate.gold.arguments, "q": q}
            response = execute_tool(self.transport, "stations", args)
            if eva not in {s.get("eva") for s in station_rows(response.body)}:
                return False
        return True

    # -- candidate streams, one per category -------------------------------------------------

    def _plain_cities(self, rng: random.Random) -> list[City]:
        cities = [c for c in self.cities if is_plain(c)]
        rng.shuffle(cities)
        return cities

    def _routing_broad(self, rng: random.Random) -> Iterator[Candidate]:
        cities, templates = self._plain_cities(rng), cycle(phrasing.OVERVIEW, rng)
        for city in cities:
            question = next(templates).format(city=city.name)
            yield Candidate(question, call("get_city_overview", city))

    def _routing_named(self, rng: random.Random) -> Iterator[Candidate]:
        weather, air = cycle(phrasing.WEATHER, rng), cycle(phrasing.AIR, rng)
        for index, city in enumerate(self._plain_cities(rng)):
            tool, templates = ("weather", weather) if index % 2 == 0 else ("air_quality", air)
            yield Candidate(next(templates).format(city=city.name), call(tool, city))

    def _resource_key(self, rng: random.Random) -> Iterator[Candidate]:
        keys = sorted(phrasing.RESOURCE_PHRASES)
        rng.shuffle(keys)
        cities = self._plain_cities(rng)
        for round_ in range(len(cities)):
            for offset, key in enumerate(keys):
                city = cities[(round_ * len(keys) + offset) % len(cities)]
                template = rng.choice(phrasing.RESOURCE_PHRASES[key])
                yield Candidate(template.format(city=city.name), call("get_city_data", city, key))

    def _slug_resolution(self, rng: random.Random) -> Iterator[Candidate]:
        names = [c.name for c in self.cities]
        cities = [c for c in self.cities if not is_plain(c)]
        rng.shuffle(cities)
        tools = cycle(("weather", "air_quality", "get_city_overview"), rng)
        templates = {
            "weather": cycle(phrasing.WEATHER, rng),
            "air_quality": cycle(phrasing.AIR, rng),
            "get_city_overview": cycle(phrasing.OVERVIEW, rng),
        }
        for index, city in enumerate(cities):
            spoken = short_name(city, names) if index % 2 else city.name
            tool = next(tools)
            question = next(templates[tool]).format(city=spoken)
            yield Candidate(question, call(tool, city))

    def _poi_type(self, rng: random.Random) -> Iterator[Candidate]:
        types = sorted(phrasing.POI_PHRASES)
        cities = self._plain_cities(rng)
        for index, city in enumerate(cities * 2):
            poi = types[index % len(types)]
            template = phrasing.POI_PHRASES[poi][(index // len(types)) % 2]
            gold = ToolCall("pois", {"slug": city.slug, "type": poi})
            yield Candidate(template.format(city=city.name), gold)

    def _compare_multi(self, rng: random.Random) -> Iterator[Candidate]:
        resources = sorted(phrasing.COMPARE_PHRASES)
        rng.shuffle(resources)
        cities = self._plain_cities(rng)
        for index in range(len(cities)):
            resource = resources[index % len(resources)]
            size = 2 + index % 2
            chosen = [cities[(index * 3 + k) % len(cities)] for k in range(size)]
            template = rng.choice(phrasing.COMPARE_PHRASES[resource])
            question = template.format(cities=phrasing.enumerate_de([c.name for c in chosen]))
            gold = ToolCall("compare", {"cities": [c.slug for c in chosen], "resource": resource})
            yield Candidate(question, gold)

    def _not_covered(self, rng: random.Random) -> Iterator[Candidate]:
        keys = sorted(phrasing.RESOURCE_PHRASES)
        rng.shuffle(keys)
        cities = self._plain_cities(rng)
        for index, city in enumerate(cities * len(keys)):
            key = keys[index % len(keys)]
            template = rng.choice(phrasing.RESOURCE_PHRASES[key])
            gold = call("get_city_data", city, key)
            yield Candidate(template.format(city=city.name), gold, expect_status=PARTIAL_STATUS)

    def _two_step(self, rng: random.Random) -> Iterator[Candidate]:
        cities = list(self.cities)
        rng.shuffle(cities)
        per_city = [(city, self._off_board_stations(city, rng)) for city in cities]
        departures, arrivals = cycle(phrasing.DEPARTURES, rng), cycle(phrasing.ARRIVALS, rng)
        index = 0
        for round_ in range(max((len(s) for _, s in per_city), default=0)):
            for city, stations in per_city:
                if round_ >= len(stations):
                    continue
                station = stations[round_]
                templates = arrivals if index % 3 == 2 else departures
                index += 1
                yield Candidate(
                    next(templates).format(station=station["name"]),
                    ToolCall("stations", {"slug": city.slug}),
                    alternatives={"q": station_queries(station["name"], city.name)},
                    target_station={"eva": station["eva"], "name": station["name"]},
                )

    def _off_board_stations(self, city: City, rng: random.Random) -> list[dict[str, Any]]:
        """Named stations of the city that its main-station board does not cover (shuffled)."""
        listing = execute_tool(self.transport, "stations", {"slug": city.slug})
        board = execute_tool(
            self.transport, "get_city_data", {"slug": city.slug, "resource": "station-departures"}
        )
        on_board = board_station_names(board.body)
        choices = [
            s
            for s in station_rows(listing.body)
            if s.get("name")
            and s.get("eva")
            and s["name"] not in on_board
            and s["name"].startswith(city.name)
            and s["name"] != city.name
        ]
        rng.shuffle(choices)
        return choices


def call(tool: str, city: City, resource: str | None = None) -> ToolCall:
    arguments: dict[str, Any] = {"slug": city.slug}
    if resource is not None:
        arguments["resource"] = resource
    return ToolCall(tool, arguments)


def cycle(items: Sequence[str], rng: random.Random) -> Iterator[str]:
    """Endless shuffled rounds over ``items`` (every phrasing used before any repeats)."""
    while True:
        order = list(items)
        rng.shuffle(order)
        yield from order


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


def station_queries(station: str, city: str) -> tuple[Any, ...]:
    """Accepted ``q`` values: none, the full name, or the part after the city name."""
    rest = station[len(city) :].strip(" -()")
    variants: list[Any] = [None, station]
    if rest:
        variants.extend([rest, rest.lower()])
    return tuple(dict.fromkeys(variants))


def generate_tasks(transport: Transport, config: GeneratorConfig) -> list[Task]:
    return Generator(transport, config).generate()
