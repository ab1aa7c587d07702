"""Payloads for environment, weather and health data types (deterministic stand-ins)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tooleval.suites.infranode.api.common import near, places, scale
from tooleval.suites.infranode.api.facts import City, local_features, snapshot
from tooleval.suites.infranode.api.seeded import Dice

Payload = dict[str, Any]
CONDITIONS = ("dry",) * 7 + ("rain", "rain", "thunderstorm", "fog")
# Documented live examples (design note section (j)); other cities are seeded.
DOCUMENTED_WEATHER = {
    "berlin": ("00433", 19.4, 54.0, "dry"),
    "koeln": ("02667", 30.4, 43.0, "dry"),
}
WARNING_EVENTS = (
    ("GEWITTER", 1),
    ("STARKREGEN", 2),
    ("STURMBÖEN", 2),
    ("HITZE", 1),
    ("STARKES GEWITTER", 2),
)


def weather(city: City, dice: Dice) -> Payload:
    station, temp, humidity, condition = DOCUMENTED_WEATHER.get(
        city.slug,
        (
            dice.digits(5),
            dice.uniform(17.0, 31.0),
            dice.uniform(35.0, 80.0),
            dice.choice(CONDITIONS),
        ),
    )
    return {
        "kind": "weather",
        "station_id": station,
        "temperature_c": temp,
        "humidity": humidity,
        "wind_speed": dice.uniform(3.0, 24.0),
        "condition": condition,
    }


def air_quality(city: City, dice: Dice) -> Payload:
    return {
        "kind": "air_quality",
        "station_id": str(dice.integer(100, 1900)),
        "pm10": dice.uniform(8.0, 32.0),
        "pm25": dice.uniform(4.0, 18.0),
        "no2": dice.uniform(8.0, 42.0),
        "o3": dice.uniform(40.0, 110.0),
        "so2": dice.uniform(1.0, 4.0) if dice.chance(0.3) else None,
    }


def weather_warnings(city: City, dice: Dice) -> Payload:
    day = snapshot().contract_date
    warnings = []
    levels = []
    for event, level in dice.sample(WARNING_EVENTS, dice.integer(1, 2)):
        levels.append(level)
        warnings.append(
            {
                "event": event,
                "level": level,
                "headline": f"Amtliche WARNUNG vor {event}",
                "start": f"{day}T14:00:00Z",
                "end": f"{day}T21:00:00Z",
            }
        )
    return {
        "kind": "weather_warning",
        "count": len(warnings),
        "max_level": max(levels),
        "warnings": warnings,
        "special_warnings": [],
    }


def pollen_uv(city: City, dice: Dice) -> Payload:
    levels = ("0", "0-1", "1", "1-2", "2", "2-3", "3")
    pollen = {
        name: {"today": dice.choice(levels), "tomorrow": dice.choice(levels)}
        for name in ("Graeser", "Roggen", "Beifuss", "Ambrosia", "Birke")
    }
    return {
        "kind": "pollen_uv",
        "region_id": dice.integer(10, 120),
        "region_name": f"Region {city.name_de}",
        "pollen": pollen,
        "uv_index": dice.uniform(4.0, 8.0),
    }


def fire_danger(city: City, dice: Dice) -> Payload:
    level = dice.integer(1, 4)
    return {
        "kind": "fire_danger",
        "level": level,
        "scale_max": 5,
        "station_id": dice.digits(5),
        "forecast_day": snapshot().contract_date,
    }


def bathing_water(city: City, dice: Dice) -> Payload:
    sites = places(
        city,
        dice,
        dice.integer(0, 4),
        lambda d, i: f"Badestelle {d.choice(('See', 'Strandbad', 'Weiher'))} {i + 1}",
    )
    for site in sites:
        site["quality"] = dice.choice(("ausgezeichnet", "ausgezeichnet", "gut", "ausreichend"))
    return {"kind": "bathing_water", "count": len(sites), "season": 2026, "sites": sites}


def station_facilities(city: City, dice: Dice) -> Payload:
    count = dice.integer(4, 30)
    inactive = dice.integer(0, max(1, count // 6))
    facilities = [
        {
            "type": dice.choice(("ELEVATOR", "ESCALATOR")),
            "state": "INACTIVE" if i < inactive else "ACTIVE",
            "description": f"zu Gleis {i + 1}",
        }
        for i in range(count)
    ]
    return {
        "kind": "station_facilities",
        "count": count,
        "inactive_count": inactive,
        "facilities": facilities,
    }


def health(city: City, dice: Dice) -> Payload:
    kinds = ("Klinikum", "Krankenhaus", "St.-Marien-Krankenhaus", "Evangelisches Krankenhaus")
    hospitals = places(
        city, dice, min(5, scale(city, 2.5, dice)), lambda d, i: f"{d.choice(kinds)} {city.name_de}"
    )
    return {
        "kind": "hospital",
        "count": scale(city, 2.5, dice) or 1,
        "hospitals": hospitals,
        "reference_date": "2024-12-31",
    }


def icu_live(city: City, dice: Dice) -> Payload:
    free = scale(city, 9.0, dice)
    return {
        "kind": "icu_capacity",
        "kreis_id": (city.ags or dice.digits(8))[:5],
        "kreis_name": city.name_de,
        "beds_free": free,
        "beds_occupied": scale(city, 38.0, dice),
        "hospitals": [],
        "datum": snapshot().contract_date,
    }


def water_level(city: City, dice: Dice) -> Payload:
    return {
        "kind": "water_level",
        "station": f"Pegel {city.name_de}",
        "water": local_features().get("water-level", {}).get(city.slug),
        "value": dice.uniform(120.0, 420.0, 0),
        "unit": "cm",
    }


def flood(city: City, dice: Dice) -> Payload:
    gauges = [
        {
            "gauge": f"{city.name_de} {i + 1}",
            "level": 0,
            "level_text": "kein Hochwasser",
            "value_cm": dice.uniform(90.0, 300.0, 0),
        }
        for i in range(dice.integer(1, 3))
    ]
    return {"kind": "flood_warning", "warnings": gauges, "stand": snapshot().observed_at}


def solar(city: City, dice: Dice) -> Payload:
    lat, _ = near(city, dice, 0.0)
    irradiation = dice.uniform(1050.0, 1250.0, 0)
    return {
        "kind": "solar",
        "lat": lat,
        "annual_irradiation_kwh_m2": irradiation,
        "specific_yield_kwh_kwp": round(irradiation * 0.86),
        "optimal_tilt_deg": 36,
        "reference": "PVGIS-SARAH3 2005-2023",
    }


def power(measure: str) -> Callable[[City, Dice], Payload]:
    def generate(city: City, dice: Dice) -> Payload:
        # Nationwide values: seeded by measure only, so every city sees the same number.
        national = Dice("power", measure)
        value = (
            national.uniform(48000.0, 62000.0, 0)
            if measure == "load"
            else national.uniform(70.0, 130.0, 2)
        )
        unit = "MW" if measure == "load" else "EUR/MWh"
        return {
            "kind": "power",
            "measure": measure,
            "value": value,
            "unit": unit,
            "area": "DE-LU",
            "timestamp": snapshot().observed_at,
        }

    return generate


GENERATORS: dict[str, Callable[[City, Dice], Payload]] = {
    "weather": weather,
    "air": air_quality,
    "air-uba": air_quality,
    "weather-warnings": weather_warnings,
    "pollen-uv": pollen_uv,
    "fire-danger": fire_danger,
    "bathing-water": bathing_water,
    "station-facilities": station_facilities,
    "health": health,
    "icu-live": icu_live,
    "water-level": water_level,
    "flood": flood,
    "solar": solar,
    "power-load": power("load"),
    "power-price": power("price"),
}
