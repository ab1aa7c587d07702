"""Facts with their meaning, read from the tool results the model was shown.

Each valid call's body is slimmed exactly as it is fed back (``feedback.slim``) and walked in
the order of its compact JSON text; a value counts only when its text ends within the first
``max_result_chars`` characters (what the model saw). Values become ``Fact``s of ``Record``s:

- a record is the body itself (its city: ``data.city_slug``), a ``compare`` row (its city), a
  list item (a departure, a party, a fuel station) or a named child of a dict of dicts (a
  pollen type). Its names are its identifying strings (``name``, ``line``, ``party``,
  ``destination``, …); a name every sibling shares (each departure's station) names the
  parent instead;
- a fact is (record, field, value, unit): numbers (also numeric strings such as ``"74,4772"``
  or a platform ``"14"``), booleans, ISO dates/times, and other strings. ``value`` is named by
  its ``dataset``/``measure`` sibling; the unit comes from the vocabulary, a ``unit`` sibling
  or the key's suffix;
- bookkeeping (ids, coordinates, sources, licences, ``meta`` except ``covered_cities``) is
  shown but never a fact;
- facts of calls that answered like a gold call are *key facts*; derived from them: shares
  within a record (electric cars of all cars, in %) and differences between compared cities
  (in the field's unit; ``%`` fields in Prozentpunkte, plus the relative difference in %).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

from tooleval.suites.infranode.api import resolve_slug
from tooleval.suites.infranode.episodes.feedback import slim
from tooleval.suites.infranode.episodes.german import UNITS, readings
from tooleval.suites.infranode.episodes.vocabulary import FIELDS

BOOKKEEPING = frozenset(
    {"lat", "lon", "geo", "ags", "qid", "osm_relation", "station_id", "stop_id", "eva", "evas",
     "zip", "kind", "source", "license_id", "city_slug", "slug", "path", "tool", "label_en",
     "dwd_station_ids", "gtfs_stop_ref", "region_id", "kreis_id", "system_id", "cache_status",
     "source_status", "replica", "snapshot_date", "resource", "coverage", "bbox_radius_deg",
     "granularity", "type", "unit", "dataset", "measure", "location_type", "parent_station",
     "platform_code", "code", "area", "city_source",
     "reference", "area_basis", "state", "train_number", "note", "headline", "truncated",
     "points_omitted", "long_distance", "available", "city", "wheelchair_boarding"}
)  # fmt: skip
NAME_KEYS = frozenset(
    {"name", "line", "party", "event", "station", "title", "gauge", "operator", "brand",
     "stop_name", "area_name", "region_name", "gen_name", "destination", "origin", "kreis_name",
     "venue", "district", "buyer", "label", "name_de", "election"}
)  # fmt: skip
NOT_KEY = frozenset(
    {"year", "reference_year", "reference_period", "season", "scale_max", "observed_at",
     "timestamp", "stand", "radius_km"}
)  # fmt: skip
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:?\d{2})?)?$")
_SUFFIX_UNITS = (("_km2", "km2"), ("_km", "km"), ("_prozent", "pct"), ("_eur_m2", "eur"),
                 ("_cm", "cm"), ("_kw", "kw"), ("_c", "degC"))  # fmt: skip


@dataclass(frozen=True)
class Record:
    rid: int
    parent: int | None
    city: str | None  # canonical city slug, inherited by children
    names: tuple[str, ...]
    index: int | None  # position in its list; None outside lists
    kind: str | None
    key: bool  # the record belongs to a gold answer


@dataclass(frozen=True)
class Fact:
    record: int
    field: str
    value: float | bool | str
    unit: str | None
    key: bool
    shape: str  # "number", "bool", "time", "date", "text"
    derived: bool = False


@dataclass(frozen=True)
class FactBase:
    """Everything the model was shown, as records and facts."""

    records: tuple[Record, ...] = ()
    facts: tuple[Fact, ...] = ()
    key_roots: tuple[int, ...] = ()  # one record per entity whose facts the answer must state
    neutral_numbers: frozenset[str] = frozenset()  # digits inside shown keys (``anteil_ab_65``)

    def children(self, rid: int) -> list[int]:
        return [r.rid for r in self.records if r.parent == rid]

    def subtree(self, rid: int) -> set[int]:
        found, todo = {rid}, [rid]
        while todo:
            for child in self.children(todo.pop()):
                found.add(child)
                todo.append(child)
        return found


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def unit_of(name: str, key: str, siblings: Mapping[str, Any]) -> str | None:
    if name in FIELDS and FIELDS[name].unit:
        return FIELDS[name].unit
    stated = siblings.get("unit")
    if key == "value" and isinstance(stated, str):
        spelled = stated.casefold().replace("eur/mwh", "€/mwh")
        if spelled in UNITS:
            return UNITS[spelled][0]
    return next((unit for suffix, unit in _SUFFIX_UNITS if name.endswith(suffix)), None)


def field_name(key: str, siblings: Mapping[str, Any]) -> str:
    if key == "value":
        for namer in ("dataset", "measure"):
            if isinstance(siblings.get(namer), str):
                return str(siblings[namer])
        return "water_level" if siblings.get("kind") == "water_level" else key
    return key


def number_of(text: str) -> float | None:
    found = readings(text.strip()) if re.fullmatch(r"-?[\d.,]+", text.strip()) else []
    return found[0].value if found else None


class _Builder:
    """Walks one slimmed body in JSON text order, keeping what ends within ``max_chars``."""

    def __init__(self, draft: _Draft, max_chars: int, key: bool) -> None:
        self.draft, self.max_chars, self.key, self.pos = draft, max_chars, key, 0

    def body(self, body: Mapping[str, Any], city: str | None = None) -> int:
        named = _city(body_city(body)) or (_city(city) if city else None)
        root = self.draft.record(None, named, None, None, self.key)
        self.walk(slim(body), (), root, {})
        return root

    def walk(self, value: Any, path: tuple[Any, ...], rid: int, holder: Mapping[str, Any]) -> None:
        if isinstance(value, Mapping):
            self._mapping(value, path, rid)
        elif isinstance(value, list):
            self._list(value, path, rid, holder)
        else:
            self.pos += len(_dumps(value))
            if self.pos <= self.max_chars:
                self.draft.leaf(rid, path, value, holder, self.key)

    def _list(
        self, value: list[Any], path: tuple[Any, ...], rid: int, holder: Mapping[str, Any]
    ) -> None:
        self.pos += 1
        for index, item in enumerate(value):
            self.pos += 1 if index else 0
            child = rid
            if isinstance(item, Mapping):
                city = _city(item.get("city")) if "data" in item else None
                child = self.draft.record(rid, city, index, item.get("kind"), self.key)
            self.walk(item, (*path, index), child, holder)
        self.pos += 1
        if value and all(isinstance(v, str) for v in value) and self.pos <= self.max_chars:
            name = f"{path[-1]}_count" if path else "count"
            self.draft.facts.append(Fact(rid, name, float(len(value)), None, False, "number"))

    def _mapping(self, value: Mapping[str, Any], path: tuple[Any, ...], rid: int) -> None:
        self.pos += 1
        named = len(value) > 1 and all(isinstance(v, Mapping) for v in value.values())
        for index, (key, item) in enumerate(value.items()):
            self.pos += (1 if index else 0) + len(_dumps(key)) + 1
            if self.pos <= self.max_chars:
                self.draft.neutral.update(re.findall(r"\d+", str(key)))
            if path[:1] == ("meta",) and key != "covered_cities":
                self.pos += len(_dumps(item))
                continue
            child = rid
            if named and key not in ("data", "payload", "meta", "city"):
                child = self.draft.record(rid, None, None, None, self.key, (str(key),))
            self.walk(item, (*path, key), child, value)
        self.pos += 1


def body_city(body: Mapping[str, Any]) -> Any:
    """The city a single-city body is about: ``data.city_slug`` or ``data.city.slug``."""
    data = body.get("data")
    if not isinstance(data, Mapping):
        return None
    city = data.get("city")
    return data.get("city_slug") or (city.get("slug") if isinstance(city, Mapping) else None)


def _city(value: Any) -> str | None:
    return resolve_slug(value) if isinstance(value, str) else None


@dataclass
class _Draft:
    records: list[Record] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    names: dict[int, list[str]] = field(default_factory=dict)
    neutral: set[str] = field(default_factory=set)

    def record(
        self,
        parent: int | None,
        city: str | None,
        index: int | None,
        kind: Any,
        key: bool,
        names: tuple[str, ...] = (),
    ) -> int:
        rid = len(self.records)
        inherited = city or (self.records[parent].city if parent is not None else None)
        kind_name = kind if isinstance(kind, str) else None
        self.records.append(Record(rid, parent, inherited, (), index, kind_name, key))
        self.names[rid] = list(names)
        return rid

    def leaf(
        self, rid: int, path: tuple[Any, ...], value: Any, holder: Mapping[str, Any], key: bool
    ) -> None:
        name = str(next((p for p in reversed(path) if isinstance(p, str)), ""))
        if name == "kind" and isinstance(value, str) and self.records[rid].kind is None:
            self.records[rid] = replace(self.records[rid], kind=value)
        if value is None or name in BOOKKEEPING:
            return
        if name in NAME_KEYS and isinstance(value, str):
            self.names[rid].append(value)
        if name == "count" and "total_available" in holder:  # the items listed, not all
            return
        is_key = key and name not in NOT_KEY
        self.facts.append(make_fact(rid, name, value, holder, is_key))

    def lift_shared_names(self) -> None:
        """A name every item of a list shares (each departure's station) names the parent."""
        by_parent: dict[int, list[int]] = {}
        for record in self.records:
            if record.parent is not None and record.index is not None:
                by_parent.setdefault(record.parent, []).append(record.rid)
        for parent, items in by_parent.items():
            if len(items) < 2:
                continue
            shared = set.intersection(*(set(self.names[i]) for i in items))
            for item in items:
                self.names[item] = [n for n in self.names[item] if n not in shared]
            self.names[parent].extend(sorted(shared))

    def freeze(self, key_roots: Sequence[int]) -> FactBase:
        self.lift_shared_names()
        records = tuple(
            replace(r, names=tuple(dict.fromkeys(self.names[r.rid]))) for r in self.records
        )
        base = FactBase(records, tuple(self.facts), tuple(key_roots), frozenset(self.neutral))
        return replace(base, facts=base.facts + tuple(derived_facts(base)))


def make_fact(rid: int, key: str, value: Any, siblings: Mapping[str, Any], is_key: bool) -> Fact:
    name = field_name(key, siblings)
    unit = unit_of(name, key, siblings)
    if isinstance(value, bool):
        return Fact(rid, name, value, None, is_key, "bool")
    if isinstance(value, int | float):
        return Fact(rid, name, float(value), unit, is_key, "number")
    text = str(value)
    if _ISO.match(text):
        return Fact(rid, name, text, None, is_key, "time" if "T" in text else "date")
    number = number_of(text)
    if number is not None:
        return Fact(rid, name, number, unit, is_key, "number")
    return Fact(rid, name, text, None, is_key, "text")


def _numbers(facts: Iterable[Fact]) -> list[Fact]:
    return [f for f in facts if f.shape == "number" and f.key and not f.derived]


def derived_facts(base: FactBase) -> list[Fact]:
    """Shares within a record and differences between the key entities' values."""
    out: list[Fact] = []
    for record in base.records:
        counts = [f for f in _numbers(base.facts) if f.record == record.rid and f.unit is None]
        for part, whole in combinations(counts, 2):
            small, big = sorted((part, whole), key=lambda f: float(f.value))
            if 0 < float(small.value) < float(big.value) and float(big.value).is_integer():
                share = float(small.value) / float(big.value) * 100
                out.append(Fact(record.rid, small.field, share, "pct", True, "number", True))
    out.extend(_ranges(base))
    roots = [r for r in base.key_roots if base.records[r].city]
    for first, second in combinations(roots, 2):
        out.extend(_differences(base, first, second))
    return out


def _ranges(base: FactBase) -> list[Fact]:
    """The lowest and highest value of a measured field over a list's items (its parent's)."""
    groups: dict[tuple[int, str], list[Fact]] = {}
    for fact in _numbers(base.facts):
        record = base.records[fact.record]
        up = base.records[record.parent] if record.parent is not None else None
        itemised = record.index is not None and up is not None and record.city == up.city
        if up is not None and itemised and fact.unit not in (None, "min"):
            groups.setdefault((up.rid, fact.field), []).append(fact)
    out: list[Fact] = []
    for (parent, name), facts in groups.items():
        values = [float(f.value) for f in facts]
        for value in {min(values), max(values)}:
            out.append(Fact(parent, name, value, facts[0].unit, True, "number", True))
    return out


def _differences(base: FactBase, first: int, second: int) -> list[Fact]:
    one = {f.field: f for f in _numbers(base.facts) if f.record in base.subtree(first)}
    two = {f.field: f for f in _numbers(base.facts) if f.record in base.subtree(second)}
    out: list[Fact] = []
    for name in one.keys() & two.keys():
        a, b = float(one[name].value), float(two[name].value)
        unit = "pp" if one[name].unit == "pct" else one[name].unit
        for rid in (first, second):
            out.append(Fact(rid, name, abs(a - b), unit, True, "number", True))
            if min(abs(a), abs(b)) > 0:
                relative = abs(a - b) / min(abs(a), abs(b)) * 100
                out.append(Fact(rid, name, relative, "pct", True, "number", True))
    return out


@dataclass(frozen=True)
class Shown:
    """One executed call's body and whether it answered like a gold call; ``city``: the city
    the call asked about (its ``slug``), the body's city where the body names none (a list of
    public tenders)."""

    body: Mapping[str, Any]
    gold: bool
    city: str | None = None


def fact_base(shown: Sequence[Shown], max_chars: int) -> FactBase:
    """All records and facts of the shown bodies; roots of gold answers are key roots."""
    draft = _Draft()
    roots: list[int] = []
    for item in shown:
        root = _Builder(draft, max_chars, item.gold).body(item.body, item.city)
        if item.gold:
            rows = [
                r.rid for r in draft.records if r.parent == root and r.city and r.index is not None
            ]
            roots.extend(rows if rows and draft.records[root].city is None else [root])
    return draft.freeze(roots)
