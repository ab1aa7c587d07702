"""Semantics of the InfraNode replica: statuses, coverage, compare, stations, boards."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tooleval.suites.infranode.api import (
    ApiResponse,
    InfraNodeReplica,
    board_evas,
    off_board_stations,
    station_catalog,
)
from tooleval.suites.infranode.api.facts import catalog, cities, partial_coverage
from tooleval.suites.infranode.client import (
    HttpTransport,
    ReplicaTransport,
    execute_tool,
    make_transport,
    tool_request,
)

REPLICA = InfraNodeReplica()


def get(path: str, **query: str) -> ApiResponse:
    return REPLICA.get(path, query)


def status_of(response: ApiResponse) -> str:
    return str(response.body["meta"]["source_status"])


def test_city_list_has_84_entries_core_first() -> None:
    body = get("/api/v1/cities").body
    slugs = [row["slug"] for row in body["data"]]
    assert len(slugs) == 84
    assert slugs[:5] == ["berlin", "hamburg", "muenchen", "koeln", "frankfurt-am-main"]
    assert slugs[27] == "schwerin"
    assert slugs[28:] == sorted(slugs[28:])
    assert "source_status" not in body["meta"]


@pytest.mark.parametrize(
    ("slug", "key"),
    [
        ("muenchen", "district-heating"),
        ("stuttgart", "flood"),
        ("muenchen", "land-values"),
        ("leipzig", "solar-roofs"),
        ("essen", "sharing"),
        ("koeln", "bike-counts"),
        ("hamburg", "tree-cadastre"),
        ("muenchen", "heritage"),
        ("nuernberg", "road-events"),
    ],
)
def test_partial_keys_answer_not_covered_with_sorted_covered_cities(slug: str, key: str) -> None:
    response = get(f"/api/v1/cities/{slug}/{key}")
    assert response.status == 200
    assert response.body["data"] is None
    meta = response.body["meta"]
    assert meta["source_status"] == "not_covered"
    assert meta["covered_cities"] == sorted(meta["covered_cities"])
    assert slug not in meta["covered_cities"]
    assert meta["covered_cities"] == list(partial_coverage()[key])


def test_district_heating_is_ok_for_covered_cities_only() -> None:
    assert get("/api/v1/cities/muenchen/district-heating").body["meta"]["covered_cities"] == [
        "berlin",
        "hamburg",
    ]
    berlin = get("/api/v1/cities/berlin/district-heating").body
    assert berlin["meta"]["source_status"] == "ok"
    assert berlin["data"]["payload"]["kind"] == "district_heating"


def test_every_catalogue_key_answers_for_every_city() -> None:
    allowed = {"ok", "not_covered", "disabled", "no_data"}
    for city in cities():
        for entry in catalog():
            query = {"type": "school"} if entry.key == "pois" else {}
            response = REPLICA.get(f"/api/v1/cities/{city.slug}/{entry.key}", query)
            assert response.status == 200, (city.slug, entry.key)
            assert status_of(response) in allowed
            assert (response.body["data"] is None) == (status_of(response) != "ok")


def test_documented_permanent_states() -> None:
    assert status_of(get("/api/v1/cities/berlin/hospitals-atlas")) == "disabled"
    assert status_of(get("/api/v1/cities/berlin/webcams")) == "no_data"
    assert status_of(get("/api/v1/cities/berlin/weather")) == "ok"


def test_documented_weather_example_values() -> None:
    payload = get("/api/v1/cities/berlin/weather").body["data"]["payload"]
    assert (payload["station_id"], payload["temperature_c"], payload["humidity"]) == (
        "00433",
        19.4,
        54.0,
    )


def test_overview_lists_catalogue_with_availability() -> None:
    data = get("/api/v1/cities/muenchen/overview").body["data"]
    assert [item["type"] for item in data["data_types"]] == [e.key for e in catalog()]
    heating = next(i for i in data["data_types"] if i["type"] == "district-heating")
    assert heating["available"] is False
    assert heating["covered_cities"] == ["berlin", "hamburg"]
    assert data["summary"]["data_types_total"] == 63
    assert data["summary"]["data_types_available"] == 59
    assert data["summary"]["cities_total"] == 84
    assert set(data["highlights"]) == {"weather", "air", "departures"}
    assert data["highlights"]["weather"]["source_status"] == "ok"


def test_compare_reports_per_city_status_including_not_found() -> None:
    body = get("/api/v1/compare", cities="berlin, koeln,atlantis,,München", resource="weather").body
    rows = {row["city"]: row for row in body["data"]}
    assert list(rows) == ["berlin", "koeln", "atlantis", "muenchen"]
    assert rows["berlin"]["source_status"] == "ok"
    assert rows["berlin"]["data"]["payload"]["kind"] == "weather"
    assert rows["atlantis"] == {"city": "atlantis", "data": None, "source_status": "not_found"}
    assert body["meta"]["resource"] == "weather"
    assert body["meta"]["total"] == 4


def test_compare_air_uses_the_uba_record() -> None:
    row = get("/api/v1/compare", cities="berlin,koeln", resource="air").body["data"][0]
    assert row["data"] == get("/api/v1/cities/berlin/air-uba").body["data"]


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ({"cities": "berlin,koeln", "resource": "pollen"}, "invalid_request"),
        ({"cities": " , ", "resource": "weather"}, "invalid_request"),
        ({"resource": "weather"}, "invalid_request"),
        ({"cities": "berlin", "resource": "weather", "sort": "temperature"}, "invalid_request"),
    ],
)
def test_compare_bad_queries_give_400(query: dict[str, str], code: str) -> None:
    response = REPLICA.get("/api/v1/compare", query)
    assert response.status == 400
    assert response.body["error"]["code"] == code


def test_compare_cuts_to_28_cities() -> None:
    names = ",".join(city.slug for city in cities()[:40])
    assert len(get("/api/v1/compare", cities=names, resource="air").body["data"]) == 28


def test_stations_full_list_and_filters() -> None:
    full = get("/api/v1/cities/berlin/stations").body["data"]["payload"]
    names = [s["name"] for s in full["stations"]]
    assert full["station_count"] == len(names) == len(station_catalog("berlin"))
    assert names[:4] == [
        "Berlin Gesundbrunnen",
        "Berlin Hauptbahnhof",
        "Berlin Ostbahnhof",
        "Berlin Südkreuz",
    ]
    assert "Berlin Ostkreuz" in names
    categories = [s["category"] for s in full["stations"]]
    assert categories == sorted(categories)
    hit = get("/api/v1/cities/muenchen/stations", q="munchen hbf").body["data"]["payload"]
    assert [s["eva"] for s in hit["stations"]] == ["8000261"]
    assert (
        len(get("/api/v1/cities/berlin/stations", limit="2").body["data"]["payload"]["stations"])
        == 2
    )
    assert status_of(get("/api/v1/cities/berlin/stations", q="Marienplatz")) == "no_data"


@pytest.mark.parametrize("limit", ["0", "-3", "abc", "1.5"])
def test_stations_bad_limit_is_422(limit: str) -> None:
    response = get("/api/v1/cities/berlin/stations", limit=limit)
    assert response.status == 422
    assert response.body["error"]["code"] == "unprocessable"


def test_stations_limit_is_clamped_to_100() -> None:
    assert get("/api/v1/cities/berlin/stations", limit="5000").status == 200


def test_board_evas_follow_fixed_lists_and_exclude_ostkreuz() -> None:
    assert board_evas("berlin") == frozenset(
        {"8098160", "8089021", "8011113", "8011102", "8010404", "8010255"}
    )
    assert "8011162" not in board_evas("berlin")
    assert board_evas("duisburg") == frozenset({"8000086"})
    assert board_evas("krefeld") == frozenset()


def test_city_board_merges_its_stations() -> None:
    payload = get("/api/v1/cities/berlin/station-departures").body["data"]["payload"]
    stations = {entry["station"] for entry in payload["departures"]}
    assert "Berlin Ostkreuz" not in stations
    assert payload["departure_count"] == len(payload["departures"]) <= 40
    times = [entry["planned_time"] for entry in payload["departures"]]
    assert times == sorted(times)


def test_station_board_by_eva() -> None:
    body = get("/api/v1/stations/8011162/departures").body
    payload = body["data"]["payload"]
    assert body["data"]["city_slug"] == "8011162"
    assert body["data"]["ags"] is None and body["data"]["geo"] is None
    assert {entry["station"] for entry in payload["departures"]} == {"Berlin Ostkreuz"}
    assert all("destination" in entry for entry in payload["departures"])
    arrivals = get("/api/v1/stations/8000105/arrivals").body["data"]["payload"]
    assert arrivals["kind"] == "station_arrivals"
    assert all("origin" in entry for entry in arrivals["arrivals"])


def test_station_board_bad_and_unknown_eva() -> None:
    bad = get("/api/v1/stations/80111x/departures")
    assert bad.status == 422
    assert bad.body["error"]["code"] == "unprocessable"
    assert status_of(get("/api/v1/stations/1234567/departures")) == "no_data"


def test_pois_allowlist_and_422() -> None:
    ok = get("/api/v1/cities/dresden/pois", type="pharmacy").body["data"]["payload"]
    assert ok["poi_type"] == "pharmacy"
    assert ok["count"] == len(ok["items"]) <= ok["total_available"]
    bad = get("/api/v1/cities/dresden/pois", type="playgrounds")
    assert bad.status == 422
    assert (
        "hospital, kindergarten, pharmacy, police, restaurant, school" in bad.body["error"]["hint"]
    )
    assert get("/api/v1/cities/dresden/pois").status == 422
    assert get("/api/v1/cities/atlantis/pois", type="pharmacy").status == 404


def test_sources_are_paged() -> None:
    body = get("/api/v1/sources", limit="5", page="2").body
    assert len(body["data"]) == 5
    assert body["meta"]["page"] == 2
    assert body["meta"]["total"] > 40
    assert get("/api/v1/sources", sort="colour").status == 400


def test_unknown_paths_are_404_envelopes() -> None:
    for path in ("/api/v1/nope", "/api/v1/cities/berlin/parking-lots", "/v2/cities", "/"):
        response = get(path)
        assert response.status == 404
        assert response.body["error"]["code"] == "not_found"


def test_responses_are_byte_identical_across_replicas() -> None:
    for path, query in [
        ("/api/v1/cities/hamburg/overview", {}),
        ("/api/v1/cities/bonn/charging", {}),
        ("/api/v1/compare", {"cities": "berlin,koeln", "resource": "tourism"}),
        ("/api/v1/stations/8000261/arrivals", {}),
    ]:
        first = json.dumps(InfraNodeReplica().get(path, query).body, sort_keys=True)
        second = json.dumps(InfraNodeReplica().get(path, query).body, sort_keys=True)
        assert first == second
    meta = get("/api/v1/cities/bonn/charging").body["meta"]
    assert meta["replica"] is True and meta["snapshot_date"] == "2026-07-22"


def test_values_differ_between_cities() -> None:
    bonn = get("/api/v1/cities/bonn/weather").body["data"]["payload"]
    kiel = get("/api/v1/cities/kiel/weather").body["data"]["payload"]
    assert bonn != kiel


# --- client ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("list_cities", {}, ("/api/v1/cities", {})),
        ("get_city_overview", {"slug": "leipzig"}, ("/api/v1/cities/leipzig/overview", {})),
        ("get_city", {"slug": "berlin"}, ("/api/v1/cities/berlin/base", {})),
        ("weather", {"slug": "hamburg"}, ("/api/v1/cities/hamburg/weather", {})),
        ("air_quality", {"slug": "stuttgart"}, ("/api/v1/cities/stuttgart/air-uba", {})),
        (
            "get_city_data",
            {"slug": "bonn", "resource": "charging"},
            ("/api/v1/cities/bonn/charging", {}),
        ),
        (
            "pois",
            {"slug": "dresden", "type": "pharmacy"},
            ("/api/v1/cities/dresden/pois", {"type": "pharmacy"}),
        ),
        (
            "compare",
            {"cities": ["berlin", "koeln"], "resource": "weather"},
            ("/api/v1/compare", {"cities": "berlin,koeln", "resource": "weather"}),
        ),
        (
            "compare",
            {"cities": "berlin,koeln", "resource": "air"},
            ("/api/v1/compare", {"cities": "berlin,koeln", "resource": "air"}),
        ),
        (
            "stations",
            {"slug": "berlin", "q": "Ostkreuz", "limit": 5},
            ("/api/v1/cities/berlin/stations", {"q": "Ostkreuz", "limit": "5"}),
        ),
        ("stations", {"slug": "berlin"}, ("/api/v1/cities/berlin/stations", {})),
        (
            "station_board_departures",
            {"eva": "8011162"},
            ("/api/v1/stations/8011162/departures", {}),
        ),
        ("station_board_arrivals", {"eva": "8000105"}, ("/api/v1/stations/8000105/arrivals", {})),
        ("sources", {}, ("/api/v1/sources", {})),
        ("weather", {"slug": "München"}, ("/api/v1/cities/M%C3%BCnchen/weather", {})),
        ("weather", {"slug": "a/b"}, ("/api/v1/cities/a%2Fb/weather", {})),
    ],
)
def test_tool_request_maps_each_tool(
    name: str, arguments: dict[str, object], expected: tuple[str, dict[str, str]]
) -> None:
    assert tool_request(name, arguments) == expected


def test_tool_request_rejects_unknown_tool_and_missing_argument() -> None:
    with pytest.raises(ValueError, match="'get_weather'"):
        tool_request("get_weather", {"slug": "berlin"})
    with pytest.raises(ValueError, match="'resource'"):
        tool_request("get_city_data", {"slug": "berlin"})
    with pytest.raises(ValueError, match="'cities'"):
        tool_request("compare", {"resource": "air"})
    with pytest.raises(ValueError, match="'eva'"):
        tool_request("station_board_departures", {})


def test_execute_tool_through_the_in_process_transport() -> None:
    transport = make_transport(None)
    assert isinstance(transport, ReplicaTransport)
    response = execute_tool(
        transport, "get_city_data", {"slug": "muenchen", "resource": "district-heating"}
    )
    assert response.body["meta"]["source_status"] == "not_covered"
    alias = execute_tool(transport, "weather", {"slug": "München"})
    assert alias.status == 200 and alias.body["data"]["city_slug"] == "muenchen"
    slash = execute_tool(transport, "weather", {"slug": "frankfurt/main"})
    assert slash.status == 200 and slash.body["data"]["city_slug"] == "frankfurt-am-main"


def test_make_transport_with_url_builds_http_transport() -> None:
    transport = make_transport("http://127.0.0.1:9/")
    assert isinstance(transport, HttpTransport)
    assert transport.base_url == "http://127.0.0.1:9"


def test_off_board_stations_are_the_two_step_candidates() -> None:
    berlin = {station.eva for station in off_board_stations("berlin")}
    assert "8011162" in berlin
    assert berlin.isdisjoint(board_evas("berlin"))
    assert "8011160" not in berlin  # Berlin Hbf: its level EVAs are on the board
    assert off_board_stations("muenchen") == ()


def test_answers_do_not_depend_on_the_process_hash_seed() -> None:
    script = (
        "import hashlib, json;"
        "from tooleval.suites.infranode.api import InfraNodeReplica as R;"
        "b = [R().get(p).body for p in ('/api/v1/cities/essen/fuel-prices',"
        " '/api/v1/cities/Köln/overview', '/api/v1/stations/8002549/departures')];"
        "print(hashlib.sha256(json.dumps(b, sort_keys=True).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1


def test_every_board_station_shows_up_on_its_city_board() -> None:
    for city in cities():
        evas = board_evas(city.slug)
        if not evas:
            continue
        wanted = {s.name for s in station_catalog(city.slug) if not evas.isdisjoint(s.evas)}
        for direction in ("departures", "arrivals"):
            body = get(f"/api/v1/cities/{city.slug}/station-{direction}").body
            shown = {entry["station"] for entry in body["data"]["payload"][direction]}
            assert shown == wanted, (city.slug, direction)
