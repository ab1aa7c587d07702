"""Every replica endpoint validates against the 2026-07-22 OpenAPI schemas (tests/data copy).

The contract's CanonicalRecord lists only some payload kinds and sources, although the same
document describes endpoints (stations, boards, fuel prices, ...) whose records carry other
kinds. Records of those kinds are checked against the same record schema with ``source``,
``license_id`` and ``payload`` relaxed, and the set of such kinds is pinned below so that any
new gap is a deliberate change.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tooleval.suites.infranode.api import ApiResponse, InfraNodeReplica
from tooleval.suites.infranode.api.facts import catalog, compare_resources

SCHEMA_FILE = Path(__file__).parent / "data" / "infranode_openapi_schemas.json"
STRICT_URI = "urn:infranode-openapi"
RELAXED_URI = "urn:infranode-openapi-relaxed"
# Kinds the replica emits that the contract's CanonicalRecord does not define.
SPEC_GAP_KINDS = frozenset(
    {
        "weather_warning",
        "fire_danger",
        "bathing_water",
        "station_facilities",
        "station_catalog",
        "station_departures",
        "station_arrivals",
        "fuel_price",
        "sharing",
        "indicators",
        "regional_stat",
        "accident",
        "crime_stats",
        "vehicle_registration",
        "power",
        "solar",
        "solar_roofs",
        "land_values",
        "tax_rates",
        "business_registrations",
        "insolvencies",
        "event",
        "population_density",
        "count_station",
        "district_heating",
        "parking",
        "charging_status",
    }
)
# Defined kinds whose source is missing from the contract's source enum.
SPEC_GAP_SOURCES = frozenset(
    {("poi", "denkmal"), ("poi", "baumkataster"), ("road_event", "bremen_baustellen")}
)
CITIES = ("berlin", "muenchen", "bremen", "dresden", "krefeld", "schwerin")
REPLICA = InfraNodeReplica()


def load_doc() -> dict[str, Any]:
    doc = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


def relaxed_doc(doc: dict[str, Any]) -> dict[str, Any]:
    relaxed = copy.deepcopy(doc)
    record = relaxed["$defs"]["CanonicalRecord"]["properties"]
    record["source"] = {"type": "string"}
    record["license_id"] = {"type": "string"}
    record["payload"] = {
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"type": "string"}},
    }
    return relaxed


DOC = load_doc()
REGISTRY: Registry[Any] = Registry().with_resources(
    [
        (STRICT_URI, Resource.from_contents(DOC, default_specification=DRAFT202012)),
        (RELAXED_URI, Resource.from_contents(relaxed_doc(DOC), default_specification=DRAFT202012)),
    ]
)
SPEC_KINDS = {
    schema["properties"]["kind"]["enum"][0]
    for name, schema in DOC["$defs"].items()
    if name.endswith("Payload")
}
RECORD_PROPS = DOC["$defs"]["CanonicalRecord"]["properties"]


def validator(uri: str, pointer: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"{uri}#{pointer}"}, registry=REGISTRY)


def response_pointer(template: str, status: int) -> str:
    escaped = template.replace("~", "~0").replace("/", "~1")
    return "/responses/" + quote(escaped, safe="~") + f"/{status}"


def is_strict(rec: dict[str, Any]) -> bool:
    kind, source = rec["payload"]["kind"], rec["source"]
    return (
        kind in SPEC_KINDS
        and source in RECORD_PROPS["source"]["enum"]
        and rec["license_id"] in RECORD_PROPS["license_id"]["enum"]
    )


def records_in(body: dict[str, Any]) -> list[dict[str, Any]]:
    data = body.get("data")
    if isinstance(data, dict) and "highlights" in data:
        return [h["data"] for h in data["highlights"].values() if h["data"] is not None]
    items = data if isinstance(data, list) else [data]
    out = []
    for item in items:
        if isinstance(item, dict) and "payload" in item:
            out.append(item)
        elif isinstance(item, dict) and isinstance(item.get("data"), dict):
            out.append(item["data"])
    return out


def check_records(body: dict[str, Any]) -> bool:
    """Validate every record; True when all are strictly within the contract."""
    strict = True
    for rec in records_in(body):
        if is_strict(rec):
            validator(STRICT_URI, "/$defs/CanonicalRecord").validate(rec)
            continue
        strict = False
        kind = rec["payload"]["kind"]
        assert kind in SPEC_GAP_KINDS or (kind, rec["source"]) in SPEC_GAP_SOURCES, kind
        validator(RELAXED_URI, "/$defs/CanonicalRecord").validate(rec)
    return strict


def check(template: str, response: ApiResponse) -> None:
    responses = DOC["responses"][template]
    assert str(response.status) in responses, (template, response.status)
    pointer = response_pointer(template, response.status)
    uri = STRICT_URI if check_records(response.body) else RELAXED_URI
    validator(uri, pointer).validate(response.body)


@pytest.mark.parametrize("key", [entry.key for entry in catalog()])
def test_every_catalogue_endpoint_conforms(key: str) -> None:
    for slug in CITIES:
        query = {"type": "hospital"} if key == "pois" else {}
        check(f"/api/v1/cities/{{slug}}/{key}", REPLICA.get(f"/api/v1/cities/{slug}/{key}", query))


@pytest.mark.parametrize("key", ["overview", "parking", "charging-status"])
def test_extra_city_endpoints_conform(key: str) -> None:
    for slug in CITIES:
        check(f"/api/v1/cities/{{slug}}/{key}", REPLICA.get(f"/api/v1/cities/{slug}/{key}"))


def test_collections_conform() -> None:
    check("/api/v1/cities", REPLICA.get("/api/v1/cities"))
    check("/api/v1/cities/{slug}", REPLICA.get("/api/v1/cities/koeln"))
    check("/api/v1/sources", REPLICA.get("/api/v1/sources"))
    check("/api/v1/health", REPLICA.get("/api/v1/health"))
    for resource in compare_resources():
        response = REPLICA.get(
            "/api/v1/compare", {"cities": "berlin,atlantis,kiel", "resource": resource}
        )
        check("/api/v1/compare", response)


def test_station_endpoints_conform() -> None:
    for query in ({}, {"q": "ostkreuz"}, {"q": "nirgendwo"}, {"limit": "3"}):
        check(
            "/api/v1/cities/{slug}/stations", REPLICA.get("/api/v1/cities/berlin/stations", query)
        )
    for eva in ("8011162", "8000105", "1234567", "abc"):
        for direction in ("departures", "arrivals"):
            response = REPLICA.get(f"/api/v1/stations/{eva}/{direction}")
            check(f"/api/v1/stations/{{eva}}/{direction}", response)


@pytest.mark.parametrize(
    ("template", "path", "query", "status"),
    [
        ("/api/v1/cities/{slug}/weather", "/api/v1/cities/atlantis/weather", {}, 404),
        ("/api/v1/cities/{slug}/overview", "/api/v1/cities/Konstanz/overview", {}, 404),
        ("/api/v1/cities/{slug}", "/api/v1/cities/flensburg", {}, 404),
        ("/api/v1/cities/{slug}/pois", "/api/v1/cities/berlin/pois", {"type": "cafe"}, 422),
        ("/api/v1/stations/{eva}/departures", "/api/v1/stations/12/departures", {}, 422),
        ("/api/v1/compare", "/api/v1/compare", {"cities": "berlin", "resource": "x"}, 400),
    ],
)
def test_error_envelopes_conform(
    template: str, path: str, query: dict[str, str], status: int
) -> None:
    response = REPLICA.get(path, query)
    assert response.status == status
    check(template, response)


def test_errors_without_a_documented_status_still_use_the_error_envelope() -> None:
    envelope = validator(STRICT_URI, "/$defs/ErrorEnvelope")
    envelope.validate(REPLICA.get("/api/v1/nowhere").body)
    envelope.validate(REPLICA.get("/api/v1/cities/berlin/stations", {"limit": "0"}).body)
    envelope.validate(REPLICA.get("/api/v1/sources", {"sort": "x"}).body)


def test_strict_records_really_are_checked() -> None:
    rec = REPLICA.get("/api/v1/cities/berlin/weather").body["data"]
    assert is_strict(rec)
    broken = copy.deepcopy(rec)
    broken["payload"]["temperature_c"] = "warm"
    with pytest.raises(Exception, match="warm"):
        validator(STRICT_URI, "/$defs/CanonicalRecord").validate(broken)
