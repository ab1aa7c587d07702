"""The German words that name each result field, its unit, and the qualitative terms.

A field is a result key (``temperature_c``; a ``value`` next to ``dataset``/``measure`` is named
by that sibling, e.g. ``unemployment``). Words are stems matched against the answer's words
after folding (case, ä->ae): a stem matches a word that starts with it, and a stem of six or
more letters also matches inside a compound ("Höchsttemperatur"). Keys not listed here still
support a value stated with a unit or beside a key fact; they only cannot be named.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tooleval.suites.infranode.episodes.german import fold


@dataclass(frozen=True)
class Field:
    words: tuple[str, ...]
    unit: str | None = None  # a dimension of german.UNITS


def _stems(spec: str) -> tuple[str, ...]:
    """Folded stems from a ``|``-separated list."""
    return tuple(fold(word) for word in spec.split("|"))


def _f(words: str, unit: str | None = None) -> Field:
    return Field(_stems(words), unit)


POI_WORDS = (
    "apotheke|schule|gymnasium|kita|kindergärten|kindergarten|restaurant|gaststätte|lokal|"
    "polizei|wache|revier|spielpl|trinkbrunnen|brunnen|toilette|wc|wochenmarkt|märkte|markt|"
    "packstation|postfiliale|filiale|briefkäst|briefkasten|wlan|hotspot|wertstoffh|bürgeramt|"
    "bürgerämter|bürgerbüro|bürgerservice|baudenkm|denkmal|denkmäler|baum|bäume|krankenh|klinik|"
    "einrichtung|standort|"
    "einträge|treffer|orte"
)
FIELDS: dict[str, Field] = {
    "temperature_c": _f(
        "temperatur|grad|warm|wärmer|wärmst|kalt|kälter|kältest|kühl|heiß|celsius", "degC"
    ),
    "humidity": _f("luftfeucht|feuchte|feuchtigkeit", "pct"),
    "wind_speed": _f("wind|böe|windgeschwindigkeit", "kmh"),
    "pm10": _f("pm10|feinstaub|staub", "ugm3"),
    "pm25": _f("pm2|pm25|feinstaub|feinststaub|staub", "ugm3"),
    "no2": _f("no2|stickstoff|stickoxid", "ugm3"),
    "o3": _f("o3|ozon", "ugm3"),
    "so2": _f("so2|schwefel", "ugm3"),
    "max_level": _f("stufe|warnstufe|level|höchste"),
    "level": _f("stufe|warnstufe|gefahrenstufe|level"),
    "scale_max": _f("skala|höchststufe"),
    "uv_index": _f("uv|uvindex|sonnenbrand"),
    "today": _f("heute|heutig"),
    "tomorrow": _f("morgen|morgig"),
    "inactive_count": _f("außer|defekt|gestört|kaputt|ausgefallen|inaktiv"),
    "beds_free": _f("frei|intensivbett|betten", None),
    "beds_occupied": _f("belegt"),
    "water_level": _f("pegel|wasserstand|stand", "cm"),
    "value_cm": _f("pegel|wasserstand", "cm"),
    "annual_irradiation_kwh_m2": _f("einstrahlung|strahlung|sonneneinstrahlung", "kwh_m2"),
    "specific_yield_kwh_kwp": _f("ertrag|spezifisch", "kwh_kwp"),
    "optimal_tilt_deg": _f("neigung|winkel|dachneigung", "degC"),
    "load": _f("netzlast|last|verbrauch|stromlast", "mw"),
    "price": _f("strompreis|preis|börsenpreis", "eur_mwh"),
    "population": _f("einwohner|bevölkerung|menschen|leute|bewohner|leben"),
    "area_km2": _f("fläche|quadratkilometer|groß", "km2"),
    "households": _f("haushalt"),
    "buildings": _f("gebäude|wohngebäude|häuser"),
    "rent_avg": _f("miete|mieten|kaltmiete|mietpreis|mietniveau|quadratmeter", "eur"),
    "kaufkraft_eur_je_einwohner": _f("kaufkraft|einkommen", "eur"),
    "anteil_unter_18_prozent": _f("18|minderjährig|kinder|jugendliche|jüngere", "pct"),
    "anteil_ab_65_prozent": _f("ab|65|senioren|ältere|rentner|hochbetagt", "pct"),
    "wanderungssaldo_je_1000": _f("wanderung|saldo|zuzug|zuwanderung"),
    "unemployment": _f("arbeitslos|erwerbslos|quote", "pct"),
    "tourism": _f("übernachtung|tourismus|touristen|gäste|besucher"),
    "construction": _f("baugenehmigung|genehmigung|bauanträge"),
    "count": _f(
        "anzahl|insgesamt|gesamt|warnung|unfäll|unfall|anlagen|veranstaltung|termine|"
        "ladesäule|ladestation|badestelle|badesee|badegewäss|aufzüg|aufzug|rolltreppe|"
        "ausschreibung|vergabe|vergaben|" + POI_WORDS
    ),
    "total_available": _f("insgesamt|gesamt|verfügbar|" + POI_WORDS),
    "with_bicycle": _f("fahrrad|radfahr|rad"),
    "with_pedestrian": _f("fußgänger"),
    "fatal": _f("tödlich|tote|getötet|todesopfer"),
    "cases": _f("fälle|straftat|delikt|kriminal|taten"),
    "frequency_per_100k": _f("häufigkeit|einwohner|je|pro"),
    "clearance_rate": _f("aufklärung|aufgeklärt", "pct"),
    "passenger_cars": _f("pkw|pkws|auto|personenkraftwagen|fahrzeug|wagen|zugelassen"),
    "electric_cars": _f("elektr|e-auto|bev|batterie|stromer"),
    "hybrid_cars": _f("hybrid"),
    "share": _f("anteil|prozent|stimmen|erreicht|kommt|ergebnis", "pct"),
    "turnout": _f("wahlbeteiligung|beteiligung", "pct"),
    "solar": _f("solar|pv|photovoltaik|sonnen"),
    "wind": _f("wind|windr|windkraft|windenergie"),
    "biomass": _f("biomasse|biogas"),
    "storage": _f("speicher|batteriespeicher"),
    "suitable_roofs": _f("dach|dächer|dachfläch"),
    "potential_mwp": _f("potenzial|potential|leistung", "mwp"),
    "potential_gwh_per_year": _f("potenzial|potential|ertrag|strom", "gwh"),
    "brw_median_eur_m2": _f(
        "bodenrichtwert|median|mittel|durchschnitt|schnitt|bauland|quadratmeter|kostet|preis", "eur"
    ),
    "brw_min_eur_m2": _f("bodenrichtwert|günstig|niedrig|minimum|billig|ab", "eur"),
    "brw_max_eur_m2": _f("bodenrichtwert|teuer|höchst|maximum|bis", "eur"),
    "zone_count": _f("zone|richtwertzone"),
    "grundsteuer_a": _f("grundsteuer", "pct"),
    "grundsteuer_b": _f("grundsteuer", "pct"),
    "gewerbesteuer": _f("gewerbesteuer|hebesatz", "pct"),
    "registrations": _f("anmeldung|gewerbeanmeldung|gründung|angemeldet"),
    "deregistrations": _f("abmeldung|abgemeldet"),
    "company_insolvencies": _f("unternehmen|firmen|unternehmensinsolvenz"),
    "consumer_insolvencies": _f("verbraucher|privat"),
    "station_count": _f("tankstelle|station|zählstelle|bahnhöfe|bahnhof|leihstation"),
    "open_count": _f("geöffnet|offen|geöffnete"),
    "avg_e5": _f("e5|super|benzin|durchschnitt|schnitt|mittel", "eur"),
    "min_e5": _f("e5|super|benzin|günstig|billig|ab", "eur"),
    "avg_e10": _f("e10|durchschnitt|schnitt", "eur"),
    "min_e10": _f("e10|günstig|billig|ab", "eur"),
    "avg_diesel": _f("diesel|durchschnitt|schnitt|mittel", "eur"),
    "min_diesel": _f("diesel|günstig|billig|ab", "eur"),
    "e5": _f("e5|super|benzin", "eur"),
    "e10": _f("e10", "eur"),
    "diesel": _f("diesel", "eur"),
    "dist_km": _f("entfernt|entfernung|weg", "km"),
    "radius_km": _f("umkreis|radius", "km"),
    "power_kw": _f("leistung|kw|schnelllade", "kw"),
    "points": _f("ladepunkt|punkte"),
    "vehicles_available": _f("fahrräder|räder|rad|fahrzeuge|roller|scooter|verfügbar"),
    "delay_minutes": _f("verspät|verzöger|später|stau", "min"),
    "count_yesterday": _f("radfahr|räder|gestern|gezählt|fahrten|durchfahrten"),
    "network_area_count": _f("gebiet|netzgebiet|wärmenetz|netze|netzen"),
    "supplied_area_km2": _f("fläche|versorgt", "km2"),
    "operator_count": _f("betreiber|anbieter|versorger"),
    "house_connections": _f("hausanschl|anschl|haushalte"),
    "network_length_km": _f("länge|netzlänge|lang|kilometer|leitung", "km"),
    "area_count": _f("gebiet"),
    "lot_count": _f("parkhäuser|parkhaus|parkpl"),
    "free": _f("frei"),
    "total": _f("plätze|stellplätze|kapazität"),
    "points_total": _f("ladepunkt|insgesamt"),
    "points_available": _f("frei|verfügbar"),
    "points_occupied": _f("belegt"),
    "departure_count": _f("abfahrten|züge|verbindungen"),
    "arrival_count": _f("ankünfte|züge|verbindungen"),
    "long_distance_count": _f("fernverkehr|fernzüge|ice"),
    "platform": _f("gleis|bahnsteig"),
    "category": _f("kategorie|preisklasse"),
    "data_types_total": _f("datenarten|datentypen|datensätze|insgesamt"),
    "data_types_available": _f("datenarten|datentypen|verfügbar|liefert"),
    "cities_total": _f("städte|städten"),
    "covered_cities_count": _f("städte|städten|stadt|orte|orten|kommunen"),
    "year": _f("jahr|stand|bezugsjahr|saison"),
    "reference_year": _f("jahr|stand|bezugsjahr|zensus"),
    "reference_period": _f("jahr|stand|zeitraum"),
    "season": _f("saison|jahr"),
}


@dataclass(frozen=True)
class Term:
    """A qualitative word for a field, true of a fact value when ``holds(value)``."""

    field: str
    words: tuple[str, ...]
    holds: Callable[[Any], bool]


def _t(field: str, words: str, holds: Callable[[Any], bool]) -> Term:
    return Term(field, _stems(words), holds)


PUNCTUAL = 6
"""Deutsche Bahn counts a train as punctual when it is less than 6 minutes late."""


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


TERMS: tuple[Term, ...] = (
    _t("condition", "trocken|regenfrei|niederschlagsfrei|sonnig|heiter|klar",
       lambda v: v in ("dry", "fog")),
    _t("condition", "regen|regnet|regnerisch|nass|niederschlag|schauer|verregnet|schirm",
       lambda v: v in ("rain", "thunderstorm")),
    _t("condition", "gewitter|gewittrig|blitz|donner", lambda v: v == "thunderstorm"),
    _t("condition", "nebel|neblig|dunst|diesig", lambda v: v == "fog"),
    _t("delay_minutes", "pünktlich|planmäßig|fahrplanmäßig", lambda v: v == 0 or 0 < v < PUNCTUAL),
    _t("delay_minutes", "verspätet|verspätung|verzögert|verzögerung", _positive),
    _t("cancelled", "fällt|ausfall|ausgefallen|gestrichen|entfällt|storniert", lambda v: v is True),
    _t("count", "warnung|gewarnt|unwetterwarnung|warnt|unwetter", _positive),
    _t("is_state_capital", "landeshauptstadt", lambda v: v is True),
)  # fmt: skip
QUALITATIVE_KINDS = {"count": frozenset({"weather_warning"})}
"""A term of a generic field applies only in these payload kinds."""

# not_covered: what the answer says about data (a gap) vs. about the world (a claim)
DATA_NOUNS = _stems(
    "daten|angabe|information|info|wert|messwert|zahl|datensatz|datenart|datentyp|"
    "abdeckung|kataster|register|statistik|verzeichnis|auskunft|erfassung|messung|"
    "datenbasis|datenlage|quelle|abfrage|ergebnis|liste|übersicht|karte"
)
SERVICE_WORDS = _stems(
    "infranode|api|schnittstelle|dienst|datenbank|system|tool|werkzeug|ich|mir|wir|uns"
)
AVAILABILITY = _stems(
    "verfügbar|abgedeckt|abdeck|deckt|erfasst|enthalten|angeboten|bietet|unterstützt|"
    "vorhanden|abrufbar|bereitgestellt|geliefert|liefert|vorliegen|liegen|liegt|fehlen|"
    "fehlt|abfragen|sagen|beantworten|auskunft|nachsehen|finden|gefunden"
)
RESTRICTION = _stems("nur|lediglich|ausschließlich|bisher|derzeit")
RESOURCE_WORDS: dict[str, tuple[str, ...]] = {
    key: _stems(words)
    for key, words in {
        "tree-cadastre": "baum|bäume|straßenbäume|baumkataster",
        "district-heating": "fernwärme|wärmenetz|fernwärmenetz|wärme",
        "flood": "hochwasser|überschwemmung|überflutung|flut|hochwassergefahr",
        "heritage": "denkmal|denkmäler|baudenkm|denkmalgeschützt|denkmalschutz",
        "land-values": "bodenrichtwert|bauland|grundstück|bodenpreis",
        "bike-counts": "radfahr|zählstelle|fahrrad|radverkehr",
        "road-events": "baustelle|sperrung|straßensperr|umleitung",
        "solar-roofs": "solarkataster|dachfläch|solar|dach",
        "water-level": "pegel|wasserstand",
        "icu-live": "intensivbett|intensivstation|betten",
        "bathing-water": "badestelle|badegewässer|wasserqualität",
        "parking": "parkhaus|parkpl",
        "public-tenders": "ausschreibung|vergabe",
        "events": "veranstaltung|event",
        "transit": "haltestelle|öpnv",
        "traffic": "stau|verkehr",
        "station-facilities": "aufzug|aufzüg|rolltreppe",
    }.items()
}


def stem_matches(word: str, stem: str) -> bool:
    """A folded word matches a folded stem: equal for stems of up to three letters, a prefix
    for longer ones, and anywhere inside a compound for stems of six or more letters.
    Hyphenated words are also tried part by part ("UV-Index", "E-Autos")."""
    for part in (word, *word.split("-")):
        if len(stem) <= 3:
            if part == stem:
                return True
        elif part.startswith(stem) or (len(stem) >= 6 and stem in part):
            return True
    return False


def fields_named(word: str) -> set[str]:
    """The fields whose words match one answer word (folded here)."""
    word = fold(word)
    return {
        name for name, field in FIELDS.items() if any(stem_matches(word, s) for s in field.words)
    }
