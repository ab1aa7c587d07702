"""Small shared helpers for payload generators: anchors, seeded place lists, German names."""

from __future__ import annotations

from typing import Any

from tooleval.suites.infranode.api.facts import City, stations_by_city
from tooleval.suites.infranode.api.seeded import Dice

STREETS = (
    "Hauptstraße",
    "Bahnhofstraße",
    "Schillerstraße",
    "Goethestraße",
    "Lindenallee",
    "Marktplatz",
    "Kirchstraße",
    "Gartenstraße",
    "Ringstraße",
    "Parkstraße",
    "Rathausplatz",
    "Mühlenweg",
    "Friedrichstraße",
    "Bergstraße",
    "Schulstraße",
)
DISTRICTS = ("Mitte", "Nord", "Süd", "Ost", "West", "Altstadt", "Neustadt", "Innenstadt")


def anchor(city: City) -> tuple[float, float] | None:
    """The city centre, or the first known station's position, or None."""
    if city.geo:
        return city.geo
    for station in stations_by_city().get(city.slug, ()):
        if station.lat is not None and station.lon is not None:
            return (station.lat, station.lon)
    return None


def near(city: City, dice: Dice, spread: float = 0.06) -> tuple[float | None, float | None]:
    centre = anchor(city)
    if centre is None:
        return (None, None)
    lat = round(centre[0] + dice.uniform(-spread, spread, 6), 6)
    lon = round(centre[1] + dice.uniform(-spread * 1.5, spread * 1.5, 6), 6)
    return (lat, lon)


def street(dice: Dice) -> str:
    return f"{dice.choice(STREETS)} {dice.integer(1, 120)}"


def district(city: City, dice: Dice) -> str:
    return f"{city.name_de}-{dice.choice(DISTRICTS)}"


def places(city: City, dice: Dice, count: int, namer: Any) -> list[dict[str, Any]]:
    """``count`` named points near the city; ``namer(dice, index)`` gives the name."""
    items = []
    for index in range(count):
        lat, lon = near(city, dice)
        items.append({"name": namer(dice, index), "lat": lat, "lon": lon})
    return items


def scale(city: City, per_100k: float, dice: Dice, spread: float = 0.25) -> int:
    """A count proportional to population with a seeded +-spread."""
    base = city.population / 100_000 * per_100k
    return max(0, round(base * (1 + dice.uniform(-spread, spread, 3))))
