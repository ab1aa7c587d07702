"""Payloads for places, mobility and OSM-based data types (deterministic stand-ins)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tooleval.suites.infranode.api.common import district, near, places, scale, street
from tooleval.suites.infranode.api.facts import City
from tooleval.suites.infranode.api.seeded import Dice

Payload = dict[str, Any]
SAMPLE_CAP = 25
POI_NAMES = {
    "hospital": ("Klinikum", "Krankenhaus", "Klinik"),
    "school": ("Grundschule", "Gymnasium", "Gesamtschule", "Realschule"),
    "pharmacy": ("Marien-Apotheke", "Rathaus-Apotheke", "Stern-Apotheke", "Löwen-Apotheke"),
    "restaurant": ("Gasthaus zur Linde", "Ristorante Roma", "Brauhaus", "Zum Goldenen Hirsch"),
    "police": ("Polizeirevier", "Polizeiwache", "Polizeiinspektion"),
    "kindergarten": ("Kita Sonnenschein", "Kindergarten Regenbogen", "Kita Pusteblume"),
}
# Per-100k totals for the POI types and the OSM catalogue keys.
PER_100K = {
    "hospital": 2.0,
    "school": 28.0,
    "pharmacy": 22.0,
    "restaurant": 180.0,
    "police": 3.0,
    "kindergarten": 45.0,
    "playgrounds": 90.0,
    "drinking-water": 8.0,
    "public-toilets": 12.0,
    "markets": 5.0,
    "parcel-lockers": 30.0,
    "post-offices": 9.0,
    "post-boxes": 95.0,
    "public-wifi": 14.0,
    "recycling-centres": 2.0,
    "government-offices": 6.0,
    "education": 80.0,
    "heritage": 450.0,
    "tree-cadastre": 12000.0,
}
OSM_LABELS = {
    "playgrounds": "Spielplatz",
    "drinking-water": "Trinkbrunnen",
    "public-toilets": "WC",
    "markets": "Wochenmarkt",
    "parcel-lockers": "Packstation",
    "post-offices": "Postfiliale",
    "post-boxes": "Briefkasten",
    "public-wifi": "WLAN-Hotspot",
    "recycling-centres": "Wertstoffhof",
    "government-offices": "Bürgeramt",
    "education": "Schule",
    "heritage": "Baudenkmal",
    "tree-cadastre": "Straßenbaum",
}


def poi_payload(
    city: City, dice: Dice, poi_type: str, namer: Callable[[Dice, int], str]
) -> Payload:
    total = max(1, scale(city, PER_100K[poi_type], dice))
    items = places(city, dice, min(total, SAMPLE_CAP), namer)
    return {
        "kind": "poi",
        "poi_type": poi_type,
        "count": len(items),
        "total_available": total,
        "truncated": total > len(items),
        "items": items,
    }


def typed_poi(city: City, dice: Dice, poi_type: str) -> Payload:
    names = POI_NAMES[poi_type]
    return poi_payload(city, dice, poi_type, lambda d, i: f"{d.choice(names)} {district(city, d)}")


def osm_key(key: str) -> Callable[[City, Dice], Payload]:
    def generate(city: City, dice: Dice) -> Payload:
        label = OSM_LABELS[key]
        return poi_payload(city, dice, key, lambda d, i: f"{label} {street(d)}")

    return generate


def charging(city: City, dice: Dice) -> Payload:
    total = scale(city, 180.0, dice)
    stations = []
    for _ in range(min(total, SAMPLE_CAP)):
        lat, lon = near(city, dice)
        stations.append(
            {
                "operator": dice.choice(
                    (f"Stadtwerke {city.name_de}", "EnBW", "E.ON Drive", "Allego", "Ionity")
                ),
                "power_kw": dice.choice((11.0, 22.0, 22.0, 50.0, 150.0, 300.0)),
                "lat": lat,
                "lon": lon,
                "points": dice.integer(1, 6),
                "ort": city.name_de,
            }
        )
    return {"kind": "charging_station", "count": total, "stations": stations}


def fuel_prices(city: City, dice: Dice) -> Payload:
    stations: list[dict[str, Any]] = []
    for _ in range(dice.integer(8, 14)):
        e5 = dice.uniform(1.699, 1.899, 3)
        stations.append(
            {
                "station_id": dice.digits(8),
                "name": f"Tankstelle {street(dice)}",
                "brand": dice.choice(("ARAL", "Shell", "ESSO", "JET", "TotalEnergies", "Star")),
                "e5": e5,
                "e10": round(e5 - 0.06, 3),
                "diesel": round(e5 - dice.uniform(0.08, 0.16, 3), 3),
                "is_open": dice.chance(0.85),
                "dist_km": dice.uniform(0.3, 5.0),
            }
        )
    return {
        "kind": "fuel_price",
        "radius_km": 5.0,
        "station_count": len(stations),
        "open_count": sum(1 for s in stations if s["is_open"]),
        **fuel_aggregates(stations),
        "stations": stations,
    }


def fuel_aggregates(stations: list[dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for fuel in ("e5", "e10", "diesel"):
        prices = [float(s[fuel]) for s in stations]
        out[f"avg_{fuel}"] = round(sum(prices) / len(prices), 3)
        out[f"min_{fuel}"] = min(prices)
    return out


def sharing(city: City, dice: Dice) -> Payload:
    return {
        "kind": "sharing",
        "systems": [{"system_id": f"nextbike_{city.slug}", "operator": "nextbike"}],
        "station_count": scale(city, 40.0, dice),
        "vehicles_available": scale(city, 260.0, dice),
    }


def traffic(city: City, dice: Dice) -> Payload:
    roadworks = [
        {
            "title": f"Baustelle Anschlussstelle {district(city, dice)}",
            "type": "roadworks",
            "since": "2026-07-01",
        }
        for _ in range(dice.integer(1, 4))
    ]
    warnings = [
        {
            "title": f"Stau bei {district(city, dice)}",
            "type": "warning",
            "delay_minutes": dice.integer(5, 25),
        }
        for _ in range(dice.integer(0, 2))
    ]
    return {
        "kind": "traffic_event",
        "station_id": None,
        "roadworks": roadworks,
        "warnings": warnings,
    }


def road_events(city: City, dice: Dice) -> Payload:
    events = [
        {
            "title": f"Baustelle {street(dice)}",
            "district": district(city, dice),
            "start": "2026-07-01",
            "end": dice.choice(("2026-08-15", "2026-09-30", "2026-12-18")),
            "restriction": dice.choice(("Fahrstreifen gesperrt", "Vollsperrung", "Einbahnstraße")),
        }
        for _ in range(dice.integer(3, 9))
    ]
    return {"kind": "road_event", "city_source": f"{city.slug}_baustellen", "events": events}


def events(city: City, dice: Dice) -> Payload:
    items = [
        {
            "title": dice.choice(
                ("Sommerkonzert im Park", "Stadtfest", "Flohmarkt", "Open-Air-Kino", "Lesung")
            ),
            "date": f"2026-07-{dice.integer(22, 31)}",
            "venue": street(dice),
        }
        for _ in range(dice.integer(3, 8))
    ]
    return {"kind": "event", "count": len(items), "events": sorted(items, key=lambda e: e["date"])}


def bike_counts(city: City, dice: Dice) -> Payload:
    stations = [
        {"name": f"Zählstelle {street(dice)}", "count_yesterday": dice.integer(900, 9000)}
        for _ in range(dice.integer(4, 12))
    ]
    return {
        "kind": "count_station",
        "station_count": len(stations),
        "stations": stations,
        "date": "2026-07-21",
    }


def district_heating(city: City, dice: Dice) -> Payload:
    operators = [f"Stadtwerke {city.name_de}", "Vattenfall Wärme", "Energie-Genossenschaft"]
    picked = operators[: dice.integer(1, 3)]
    counts = [dice.integer(3, 40) for _ in picked]
    areas = [dice.uniform(2.0, 90.0, 2) for _ in picked]
    networks = [
        {"operator": op, "area_count": count, "supplied_area_km2": area}
        for op, count, area in zip(picked, counts, areas, strict=True)
    ]
    area_based = city.slug == "berlin"
    return {
        "kind": "district_heating",
        "network_area_count": sum(counts),
        "supplied_area_km2": round(sum(areas), 2) if area_based else None,
        "operator_count": len(networks),
        "operators": picked,
        "house_connections": None if area_based else dice.integer(8000, 20000),
        "network_length_km": None if area_based else dice.uniform(600.0, 1000.0),
        "networks": networks,
        "area_basis": "Netzgebiet einschl. 250 m Puffer" if area_based else "Gebiete mit Wärmenetz",
        "reference_date": "2025-12-31",
    }


def parking(city: City, dice: Dice) -> Payload:
    lots = [
        {
            "name": f"Parkhaus {street(dice)}",
            "total": (cap := dice.integer(150, 900)),
            "free": dice.integer(0, cap),
        }
        for _ in range(dice.integer(4, 12))
    ]
    return {"kind": "parking", "lot_count": len(lots), "lots": lots}


def charging_status(city: City, dice: Dice) -> Payload:
    points = scale(city, 450.0, dice)
    available = round(points * dice.uniform(0.45, 0.75, 3))
    return {
        "kind": "charging_status",
        "points_total": points,
        "points_available": available,
        "points_occupied": points - available,
        "points_omitted": True,
    }


def transit_stops(city: City, dice: Dice) -> list[Payload]:
    prefix = (city.ags or "00000000")[:5]
    names = (
        "Hauptbahnhof",
        "Rathaus",
        "Marktplatz",
        "Universität",
        "Klinikum",
        "Stadion",
        "Friedhof",
        "Schillerplatz",
        "Bahnhofstraße",
        "Theater",
        "Zoo",
        "Messe",
    )
    stops = []
    for name in names:
        stop_id = f"de:{prefix}:{dice.integer(1000, 99999)}"
        stops.append(
            {
                "kind": "transit_stop",
                "stop_id": stop_id,
                "stop_name": f"{city.name_de}, {name}",
                "location_type": 1,
                "parent_station": None,
                "platform_code": None,
                "wheelchair_boarding": dice.choice((0, 1, 1, 2)),
            }
        )
    return stops


def public_tenders(city: City, dice: Dice) -> list[dict[str, Any]]:
    kinds = ("Bauleistung", "Dienstleistung", "Lieferleistung")
    subjects = ("Sanierung Schule", "Straßenbeleuchtung", "IT-Ausstattung", "Grünpflege")
    return [
        {
            "title": f"{dice.choice(kinds)}: {dice.choice(subjects)}",
            "buyer": f"Stadt {city.name_de}",
            "published": f"2026-07-{dice.integer(1, 21):02d}",
            "deadline": f"2026-08-{dice.integer(5, 28):02d}",
            "status": "open",
        }
        for _ in range(dice.integer(2, 7))
    ]


GENERATORS: dict[str, Callable[[City, Dice], Payload]] = {
    "charging": charging,
    "fuel-prices": fuel_prices,
    "sharing": sharing,
    "traffic": traffic,
    "road-events": road_events,
    "events": events,
    "bike-counts": bike_counts,
    "district-heating": district_heating,
    "parking": parking,
    "charging-status": charging_status,
    **{key: osm_key(key) for key in OSM_LABELS},
}
