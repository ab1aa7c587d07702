"""German question templates for the InfraNode task generator.

Many phrasings per category (formal, colloquial, terse), so a model cannot learn one template.
Placeholders: ``{city}`` (German city name), ``{cities}`` (an enumeration), ``{station}``.
Catalogue keys that a second tool could also answer (``health``/``pois``, ``education``,
``station-departures``/boards, ``population-density``/``get_city``) have no phrasing here on
purpose: every task must have exactly one defensible gold call.
"""

from __future__ import annotations

OVERVIEW = (
    "Was weißt du alles über {city}?",
    "Gib mir einen Überblick über {city}.",
    "Welche Daten gibt es eigentlich zu {city}?",
    "Ich ziehe bald nach {city}. Was sollte ich über die Stadt wissen?",
    "Erzähl mal, was ist in {city} so los?",
    "Was kannst du mir über {city} alles sagen?",
    "Verschaff mir bitte einen Gesamteindruck von {city}.",
    "Kurzer Rundumblick bitte: {city}.",
    "Welche Informationen hast du insgesamt zu {city}?",
    "Fass mir die wichtigsten Infos zu {city} zusammen.",
    "Wie steht's allgemein um {city}? Ich hätte gern einen Überblick.",
    "Was für Datenarten bietet ihr für {city} an?",
    "Ich plane einen Besuch in {city} – was gibt es dort alles an Infos?",
    "Überblick {city}, bitte.",
)

WEATHER = (
    "Wie warm ist es gerade in {city}?",
    "Regnet es im Moment in {city}?",
    "Wie ist das Wetter jetzt in {city}?",
    "Wie viel Grad hat es aktuell in {city}?",
    "Ist es in {city} gerade windig?",
    "Wie hoch ist die Luftfeuchtigkeit in {city} momentan?",
    "Brauche ich in {city} gerade eine Jacke? Wie ist die Wetterlage?",
    "Sag mal, wie kalt ist's gerade in {city}?",
)

AIR = (
    "Wie ist die Luftqualität in {city}?",
    "Wie hoch ist die Feinstaubbelastung in {city} gerade?",
    "Wie sauber ist die Luft in {city} im Moment?",
    "Wie hoch ist der Ozonwert in {city}?",
    "Welche Stickstoffdioxid-Werte misst das Umweltbundesamt in {city}?",
    "Kann man in {city} heute bedenkenlos draußen joggen, was sagen die Luftmesswerte?",
    "Wie steht's um PM10 und PM2.5 in {city}?",
    "Ist die Luft in {city} gerade belastet?",
)

# Catalogue key -> phrasings. Partial keys (covered for some cities only) are marked in
# PARTIAL_KEYS; the generator uses them for resource_key with a covered city and for
# not_covered with an uncovered one.
RESOURCE_PHRASES: dict[str, tuple[str, ...]] = {
    "charging": (
        "Wo kann ich in {city} mein E-Auto laden?",
        "Wie viele Ladesäulen gibt es in {city}?",
    ),
    "fuel-prices": (
        "Wie hoch sind die Spritpreise in {city}?",
        "Was kostet Diesel gerade in {city}?",
    ),
    "weather-warnings": (
        "Gibt es für {city} aktuell eine Unwetterwarnung?",
        "Warnt der DWD gerade vor Sturm oder Gewitter in {city}?",
    ),
    "pollen-uv": (
        "Wie hoch ist die Pollenbelastung in {city} heute?",
        "Wie stark ist der UV-Index in {city}?",
    ),
    "fire-danger": ("Wie hoch ist die Waldbrandgefahr rund um {city}?",),
    "bathing-water": ("Wie gut ist die Wasserqualität der Badestellen in {city}?",),
    "station-facilities": ("Funktionieren die Aufzüge und Rolltreppen am Bahnhof in {city}?",),
    "transit": ("Welche ÖPNV-Haltestellen gibt es in {city}?",),
    "traffic": ("Gibt es Stau auf den Autobahnen rund um {city}?",),
    "sharing": (
        "Wo finde ich in {city} Leihräder oder E-Scooter?",
        "Welche Sharing-Angebote für Fahrräder gibt es in {city}?",
    ),
    "icu-live": ("Wie viele Intensivbetten sind in {city} gerade frei?",),
    "water-level": ("Wie hoch ist der Pegelstand des Flusses in {city}?",),
    "flood": (
        "Gibt es in {city} gerade eine Hochwasserwarnung?",
        "Droht in {city} Hochwasser?",
    ),
    "geo": ("Wie verlaufen die Stadtgrenzen von {city}? Ich brauche die Geodaten.",),
    "demographics": ("Wie ist die Altersstruktur der Bevölkerung in {city}?",),
    "indicators": ("Welche sozioökonomischen Kennzahlen gibt es für {city}?",),
    "unemployment": (
        "Wie hoch ist die Arbeitslosigkeit in {city}?",
        "Wie viele Arbeitslose hat {city}?",
    ),
    "tourism": ("Wie viele Übernachtungen zählt der Tourismus in {city}?",),
    "construction": ("Wie viele Baugenehmigungen wurden in {city} erteilt?",),
    "accidents": ("Wie viele Verkehrsunfälle gab es in {city}?",),
    "crime-stats": ("Wie hoch ist die Kriminalität in {city}?",),
    "vehicle-registrations": (
        "Wie viele Autos sind in {city} zugelassen, wie viele davon elektrisch?",
    ),
    "election": ("Wie hat {city} bei der letzten Wahl abgestimmt?",),
    "holidays": ("Wann sind in {city} die nächsten Feiertage und Schulferien?",),
    "energy": ("Welche Energieanlagen gibt es in {city}, also Windräder, PV und so?",),
    "power-load": ("Wie hoch ist die Netzlast im Stromnetz für {city} gerade?",),
    "solar": ("Wie viel Sonneneinstrahlung bekommt {city}, was bringt eine Solaranlage dort?",),
    "solar-roofs": ("Gibt es für {city} ein Solarkataster für Dachflächen?",),
    "land-values": (
        "Wie hoch sind die Bodenrichtwerte in {city}?",
        "Was kostet Bauland in {city} laut Bodenrichtwert?",
    ),
    "tax-rates": ("Wie hoch ist der Gewerbesteuer-Hebesatz in {city}?",),
    "business-registrations": ("Wie viele Gewerbeanmeldungen gab es zuletzt in {city}?",),
    "insolvencies": ("Wie viele Insolvenzen gab es in {city}?",),
    "events": ("Welche Veranstaltungen finden demnächst in {city} statt?",),
    "playgrounds": ("Wo sind Spielplätze in {city}?",),
    "drinking-water": ("Wo gibt es in {city} öffentliche Trinkbrunnen?",),
    "public-toilets": ("Wo finde ich in {city} eine öffentliche Toilette?",),
    "markets": ("Wann und wo sind Wochenmärkte in {city}?",),
    "parcel-lockers": ("Wo sind Packstationen in {city}?",),
    "post-offices": ("Wo ist in {city} eine Postfiliale?",),
    "post-boxes": ("Wo steht in {city} ein Briefkasten?",),
    "public-wifi": ("Gibt es in {city} öffentliches WLAN?",),
    "recycling-centres": ("Wo ist der nächste Wertstoffhof in {city}?",),
    "government-offices": ("Wo sind die Bürgerämter in {city}?",),
    "heritage": (
        "Welche Baudenkmäler gibt es in {city}?",
        "Zeig mir die denkmalgeschützten Gebäude in {city}.",
    ),
    "tree-cadastre": ("Wie viele Straßenbäume stehen in {city} laut Baumkataster?",),
    "public-tenders": ("Welche öffentlichen Ausschreibungen hat {city} gerade laufen?",),
    "bike-counts": (
        "Wie viele Radfahrer zählen die Radzählstellen in {city}?",
        "Was messen die Fahrrad-Zählstellen in {city}?",
    ),
    "district-heating": (
        "Gibt es in {city} Fernwärme?",
        "Wie groß ist das Fernwärmenetz in {city}?",
    ),
    "road-events": ("Welche Baustellen gibt es gerade in der Innenstadt von {city}?",),
}

POI_PHRASES: dict[str, tuple[str, ...]] = {
    "pharmacy": (
        "Welche Apotheken gibt es in {city}?",
        "Wo ist in {city} eine Apotheke?",
    ),
    "school": ("Welche Schulen gibt es in {city}?", "Liste mir die Schulen in {city} auf."),
    "restaurant": (
        "Wo kann man in {city} essen gehen? Welche Restaurants gibt es?",
        "Restaurants in {city}?",
    ),
    "police": (
        "Wo sind Polizeiwachen in {city}?",
        "Wo finde ich in {city} eine Polizeidienststelle?",
    ),
    "kindergarten": (
        "Welche Kitas gibt es in {city}?",
        "Wir suchen einen Kindergarten in {city}. Welche gibt es?",
    ),
}

# compare resource -> phrasings with {cities} (an enumeration "A, B und C").
COMPARE_PHRASES: dict[str, tuple[str, ...]] = {
    "weather": (
        "Vergleiche das aktuelle Wetter in {cities}.",
        "Wo ist es gerade wärmer: {cities}?",
    ),
    "air": (
        "Wo ist die Luft gerade besser: {cities}?",
        "Vergleiche die Luftqualität von {cities}.",
    ),
    "unemployment": ("Wie unterscheiden sich {cities} bei der Arbeitslosigkeit?",),
    "tourism": ("Vergleiche die Übernachtungszahlen im Tourismus von {cities}.",),
    "demographics": ("Stell die Bevölkerungsstruktur von {cities} gegenüber.",),
    "weather-warnings": ("Gibt es in {cities} gerade Unwetterwarnungen? Bitte im Vergleich.",),
}

DEPARTURES = (
    "Wann fahren die nächsten Züge ab {station}?",
    "Welche Abfahrten gibt es gleich am Bahnhof {station}?",
    "Ich stehe in {station}. Was fährt als Nächstes?",
)
ARRIVALS = (
    "Welche Züge kommen in der nächsten Zeit in {station} an?",
    "Hat der Zug nach {station} Verspätung? Zeig mir die Ankünfte dort.",
)


def enumerate_de(names: list[str]) -> str:
    """'A', 'A und B', 'A, B und C'."""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " und " + names[-1]
