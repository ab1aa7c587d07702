"""Payloads for register, statistics, energy and land data types (deterministic stand-ins)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tooleval.suites.infranode.api.common import district, scale
from tooleval.suites.infranode.api.facts import City
from tooleval.suites.infranode.api.holidays import holidays_2026
from tooleval.suites.infranode.api.seeded import Dice

Payload = dict[str, Any]
# Documented live example (design note section (j)); other areas are seeded.
DOCUMENTED_AREA_KM2 = {"berlin": 891.12}
PARTIES = ("CDU/CSU", "SPD", "AfD", "GRÜNE", "Die Linke", "FDP", "BSW")


def area_km2(city: City) -> float:
    if city.slug in DOCUMENTED_AREA_KM2:
        return DOCUMENTED_AREA_KM2[city.slug]
    density = Dice(city.slug, "density").uniform(900.0, 3200.0, 0)
    return round(city.population / density, 2)


def base(city: City, dice: Dice) -> Payload:
    return {"kind": "city_base", "population": city.population, "area_km2": area_km2(city)}


def geo(city: City, dice: Dice) -> Payload:
    return {
        "kind": "admin_boundary",
        "ags": city.ags,
        "gen_name": city.name_de,
        "area_km2": area_km2(city),
        "reference_year": 2025,
    }


def demographics(city: City, dice: Dice) -> Payload:
    households = round(city.population / dice.uniform(1.7, 2.1, 2))
    return {
        "kind": "demographics",
        "population": city.population,
        "households": households,
        "buildings": round(households / dice.uniform(3.0, 6.0, 2)),
        "rent_avg": dice.uniform(7.5, 19.5, 2),
        "reference_year": 2022,
        "series": [],
    }


def indicators(city: City, dice: Dice) -> Payload:
    return {
        "kind": "indicators",
        "reference_year": 2023,
        "values": {
            "kaufkraft_eur_je_einwohner": dice.uniform(21000.0, 29000.0, 0),
            "anteil_unter_18_prozent": dice.uniform(14.0, 18.5),
            "anteil_ab_65_prozent": dice.uniform(17.0, 24.0),
            "wanderungssaldo_je_1000": dice.uniform(-2.0, 9.0),
        },
    }


def regional_stat(
    dataset: str, unit: str, low: float, high: float
) -> Callable[[City, Dice], Payload]:
    def generate(city: City, dice: Dice) -> Payload:
        value = (
            dice.uniform(low, high)
            if unit == "%"
            else scale(city, dice.uniform(low, high, 0), dice)
        )
        return {
            "kind": "regional_stat",
            "dataset": dataset,
            "value": value,
            "unit": unit,
            "reference_period": "2025",
        }

    return generate


def accidents(city: City, dice: Dice) -> Payload:
    total = scale(city, 420.0, dice)
    return {
        "kind": "accident",
        "year": 2024,
        "count": total,
        "with_bicycle": round(total * dice.uniform(0.25, 0.4, 2)),
        "with_pedestrian": round(total * dice.uniform(0.1, 0.18, 2)),
        "fatal": dice.integer(0, 14),
    }


def crime_stats(city: City, dice: Dice) -> Payload:
    cases = scale(city, 9500.0, dice)
    return {
        "kind": "crime_stats",
        "year": 2024,
        "cases": cases,
        "frequency_per_100k": round(cases / city.population * 100_000),
        "clearance_rate": dice.uniform(48.0, 66.0),
    }


def vehicle_registrations(city: City, dice: Dice) -> Payload:
    cars = scale(city, 42000.0, dice)
    return {
        "kind": "vehicle_registration",
        "reference_date": "2026-01-01",
        "passenger_cars": cars,
        "electric_cars": round(cars * dice.uniform(0.03, 0.06, 3)),
        "hybrid_cars": round(cars * dice.uniform(0.07, 0.12, 3)),
    }


def election(city: City, dice: Dice) -> Payload:
    shares = [dice.uniform(3.0, 30.0) for _ in PARTIES]
    total = sum(shares)
    results = [
        {"party": party, "share": round(share / total * 100, 1)}
        for party, share in zip(PARTIES, shares, strict=True)
    ]
    turnout = f"{dice.uniform(74.0, 86.0, 4):.4f}".replace(".", ",")
    return {
        "kind": "election_result",
        "election": "Bundestagswahl 2025",
        "granularity": "teilweise",
        "area_name": city.name_de,
        "turnout": turnout,
        "results": sorted(results, key=lambda r: -r["share"]),
    }


def holidays(city: City, dice: Dice) -> Payload:
    return {
        "kind": "holiday",
        "state": city.state,
        "year": 2026,
        "holidays": holidays_2026(city.state),
        "school_holidays": [],
    }


def energy(city: City, dice: Dice) -> Payload:
    by_type = {
        "solar": scale(city, 3500.0, dice),
        "wind": dice.integer(0, 40),
        "biomass": dice.integer(2, 30),
        "storage": scale(city, 900.0, dice),
    }
    return {
        "kind": "energy_asset",
        "count": sum(by_type.values()),
        "by_type": by_type,
        "assets": [],
    }


def solar_roofs(city: City, dice: Dice) -> Payload:
    roofs = scale(city, 21000.0, dice)
    return {
        "kind": "solar_roofs",
        "suitable_roofs": roofs,
        "potential_mwp": round(roofs * dice.uniform(0.012, 0.02, 4)),
        "potential_gwh_per_year": round(roofs * dice.uniform(0.011, 0.018, 4)),
    }


def land_values(city: City, dice: Dice) -> Payload:
    median = dice.uniform(250.0, 1400.0, 0)
    return {
        "kind": "land_values",
        "brw_median_eur_m2": median,
        "brw_min_eur_m2": round(median * dice.uniform(0.1, 0.3, 2)),
        "brw_max_eur_m2": round(median * dice.uniform(4.0, 12.0, 2)),
        "zone_count": scale(city, 180.0, dice),
        "stichtag": "2026-01-01",
        "bbox_radius_deg": 0.08,
    }


def tax_rates(city: City, dice: Dice) -> Payload:
    return {
        "kind": "tax_rates",
        "reference_year": 2025,
        "grundsteuer_a": dice.integer(25, 60) * 10,
        "grundsteuer_b": dice.integer(45, 95) * 10,
        "gewerbesteuer": dice.integer(40, 50) * 10,
    }


def business_registrations(city: City, dice: Dice) -> Payload:
    registrations = scale(city, 1050.0, dice)
    return {
        "kind": "business_registrations",
        "year": 2025,
        "registrations": registrations,
        "deregistrations": round(registrations * dice.uniform(0.8, 1.0, 2)),
    }


def insolvencies(city: City, dice: Dice) -> Payload:
    companies = scale(city, 28.0, dice)
    return {
        "kind": "insolvencies",
        "year": 2025,
        "company_insolvencies": companies,
        "consumer_insolvencies": scale(city, 85.0, dice),
    }


def population_density(city: City, dice: Dice) -> Payload:
    return {
        "kind": "population_density",
        "reference_year": 2022,
        "grid": "1km",
        "inhabitants_per_km2": round(city.population / area_km2(city)),
        "densest_cell": {"name": district(city, dice), "inhabitants": dice.integer(9000, 21000)},
    }


GENERATORS: dict[str, Callable[[City, Dice], Payload]] = {
    "base": base,
    "geo": geo,
    "demographics": demographics,
    "indicators": indicators,
    "unemployment": regional_stat("unemployment", "%", 4.5, 11.5),
    "tourism": regional_stat("tourism", "overnight_stays", 60000.0, 260000.0),
    "construction": regional_stat("construction", "building_permits", 120.0, 260.0),
    "accidents": accidents,
    "crime-stats": crime_stats,
    "vehicle-registrations": vehicle_registrations,
    "election": election,
    "holidays": holidays,
    "energy": energy,
    "solar-roofs": solar_roofs,
    "land-values": land_values,
    "tax-rates": tax_rates,
    "business-registrations": business_registrations,
    "insolvencies": insolvencies,
    "population-density": population_density,
}
