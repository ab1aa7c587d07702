"""German question templates for the InfraNode task generator (all categories but the key banks).

Every template has a register: ``formal`` (complete sentences, "Sie" or neutral), ``colloquial``
(du, particles, contractions) or ``terse`` (elliptic). Placeholders: ``{city}``, ``{station}``,
``{cities_and}`` (an enumeration "A, B und C"), ``{cities_or}`` ("A, B oder C", for either-or
questions), and for POI types ``{plural}`` and ``{one}`` (an indefinite accusative).
The catalogue-key banks are in ``phrasing_keys``. A template asks only for what its tool's
answer holds (the weather tool has no forecast, so no template says "morgen"), and its words
name exactly one tool or key by the confusables table (``data/confusables.json``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

REGISTERS = ("formal", "colloquial", "terse")


@dataclass(frozen=True)
class Phrase:
    """One question template; ``sizes`` limits a compare template to 2 or 3 cities."""

    text: str
    register: str
    sizes: tuple[int, ...] = (2, 3)


def bank(
    formal: Iterable[str] = (), colloquial: Iterable[str] = (), terse: Iterable[str] = ()
) -> tuple[Phrase, ...]:
    """Phrases from texts grouped by register."""
    groups = {"formal": formal, "colloquial": colloquial, "terse": terse}
    return tuple(Phrase(text, register) for register, texts in groups.items() for text in texts)


def sized(size: int, phrases: tuple[Phrase, ...]) -> tuple[Phrase, ...]:
    """The same phrases, usable only for ``size`` cities."""
    return tuple(Phrase(p.text, p.register, (size,)) for p in phrases)


OVERVIEW = bank(
    formal=(
        "Können Sie mir einen Überblick über {city} geben?",
        "Welche Daten liegen Ihnen zu {city} insgesamt vor?",
        "Bitte fassen Sie das Wichtigste zu {city} zusammen.",
        "Welche Datenarten sind für {city} verfügbar?",
        "Könnten Sie mir einen Gesamteindruck von {city} vermitteln?",
        "Für eine Präsentation brauche ich einen Überblick über {city}. Was gibt es alles?",
    ),
    colloquial=(
        "Was weißt du alles über {city}?",
        "Ich zieh bald nach {city}. Was sollte ich über die Stadt wissen?",
        "Erzähl mir mal was über {city}, so im Großen und Ganzen.",
        "Was hast du so an Infos zu {city}?",
        "Schieß los: Was gibt's Wissenswertes über {city}?",
        "Ich plane einen Besuch in {city}. Gibst du mir einen Überblick?",
    ),
    terse=(
        "{city} im Überblick, bitte.",
        "Alles Wichtige zu {city} auf einen Blick?",
        "Das Wichtigste über {city} in Kürze?",
        "Kurzüberblick zu {city}, bitte.",
        "Die wichtigsten Infos zu {city}, bitte.",
        "Überblick über {city}?",
    ),
)

WEATHER = bank(
    formal=(
        "Wie ist die aktuelle Wetterlage in {city}?",
        "Welche Temperatur wird derzeit in {city} gemessen?",
        "Wie hoch ist die Luftfeuchtigkeit in {city} im Moment?",
        "Wie stark weht der Wind derzeit in {city}?",
        "Gibt es in {city} zurzeit Niederschlag?",
    ),
    colloquial=(
        "Sag mal, wie kalt ist's gerade in {city}?",
        "Brauch ich in {city} gerade einen Schirm?",
        "Ist es in {city} grad windig?",
        "Regnet's in {city} im Moment?",
        "Reicht in {city} gerade ein T-Shirt, oder ist es zu kalt?",
    ),
    terse=(
        "Temperatur in {city} jetzt?",
        "Luftfeuchte in {city}, bitte.",
        "Aktuelles Wetter in {city}?",
        "{city}: Ist es gerade neblig?",
    ),
)

AIR = bank(
    formal=(
        "Wie ist die Luftqualität in {city} derzeit?",
        "Welche Feinstaubwerte misst das Umweltbundesamt aktuell in {city}?",
        "Wie hoch ist die Ozonbelastung in {city} im Moment?",
        "Welche Stickstoffdioxid-Konzentration wird in {city} gemessen?",
        "Wie stark ist die Luft in {city} derzeit mit Schadstoffen belastet?",
    ),
    colloquial=(
        "Kann ich in {city} heute bedenkenlos joggen gehen, oder ist die Luft schlecht?",
        "Wie dreckig ist die Luft in {city} gerade?",
        "Sag mal, wie viel Feinstaub hängt in {city} gerade in der Luft?",
        "Ist die Luft in {city} grad okay?",
    ),
    terse=(
        "Luftqualität in {city}?",
        "PM10 und PM2,5 in {city}?",
        "Ozonwerte in {city}?",
        "NO2-Werte in {city}, bitte.",
    ),
)

# slug_resolution: own templates that leave no doubt about the tool, so a wrong slug is the
# only way to fail. The exonym templates quote a foreign speaker ("Munich", "Cologne").
SLUG_WEATHER = bank(
    formal=(
        "Wie ist gerade das Wetter in {city}?",
        "Welche Temperatur herrscht momentan in {city}?",
    ),
    colloquial=(
        "Schau doch mal nach, wie warm es in {city} gerade ist.",
        "Ist es in {city} gerade trocken, oder regnet es?",
    ),
    terse=("Aktuelle Wetterdaten für {city}, bitte.", "Wetter in {city} gerade?"),
)
SLUG_AIR = bank(
    formal=(
        "Wie hoch ist die Feinstaubbelastung derzeit in {city}?",
        "Wie steht es um die Luftqualität in {city}?",
    ),
    colloquial=(
        "Wie sauber ist die Luft gerade in {city}?",
        "Zeig mir mal die Luftmesswerte für {city}.",
    ),
    terse=("Aktuelle Luftqualität in {city}?", "Feinstaub in {city} gerade?"),
)
SLUG_OVERVIEW = bank(
    formal=("Geben Sie mir bitte einen Überblick über {city}.", "Welche Daten gibt es zu {city}?"),
    colloquial=(
        "Was gibt es alles über {city} zu wissen?",
        "Fass mir doch mal das Wichtigste zu {city} zusammen.",
    ),
    terse=("Einen Überblick über {city}, bitte.", "Alles Wissenswerte zu {city}?"),
)
EXONYM_WEATHER = bank(
    formal=(
        "Laut der englischen Einladung findet das Treffen in „{city}“ statt. Wie warm ist es "
        "dort gerade?",
    ),
    colloquial=("Auf meinem Flugticket steht als Ziel „{city}“. Wie ist dort gerade das Wetter?",),
)
EXONYM_AIR = bank(
    formal=("Im englischen Reiseführer steht „{city}“. Wie sauber ist dort gerade die Luft?",),
    colloquial=(
        "Meine Kollegin aus London schreibt, sie sei gerade in „{city}“. Wie ist die "
        "Luftqualität dort?",
    ),
)
EXONYM_OVERVIEW = bank(
    formal=(
        "Ich habe ein Jobangebot aus „{city}“ bekommen, die Anzeige ist auf Englisch. Geben Sie "
        "mir bitte einen Überblick über die Stadt.",
    ),
    colloquial=(
        "Ein Freund aus Sydney zieht nach „{city}“. Was kann ich ihm alles über die Stadt "
        "erzählen?",
    ),
)


@dataclass(frozen=True)
class PoiNouns:
    """The forms a POI type takes in a question (each list is used in turn)."""

    plurals: tuple[str, ...]
    ones: tuple[str, ...]


POI_NOUNS: dict[str, PoiNouns] = {
    "pharmacy": PoiNouns(("Apotheken",), ("eine Apotheke",)),
    "restaurant": PoiNouns(
        ("Restaurants", "Gaststätten", "Lokale"), ("ein Restaurant", "ein Lokal")
    ),
    "police": PoiNouns(
        ("Polizeiwachen", "Polizeireviere", "Polizeidienststellen"),
        ("eine Polizeiwache", "ein Polizeirevier"),
    ),
}
POI_GENERIC = bank(
    formal=(
        "Welche {plural} gibt es in {city}?",
        "Können Sie mir die {plural} in {city} nennen?",
        "Wo gibt es in {city} {plural}?",
    ),
    colloquial=(
        "Ich bin neu in {city} und suche {one}. Wo gibt's da welche?",
        "Welche {plural} kennst du in {city}?",
        "Wo find ich in {city} {one}?",
    ),
    terse=("{plural} in {city}?", "Liste der {plural} in {city}, bitte."),
)
POI_SPECIFIC: dict[str, tuple[Phrase, ...]] = {
    "pharmacy": bank(
        colloquial=(
            "Mir sind die Kopfschmerztabletten ausgegangen. Wo gibt's in {city} eine Apotheke?",
        )
    ),
    "restaurant": bank(formal=("Wo kann man in {city} essen gehen?",)),
    "police": bank(
        formal=("Ich möchte in {city} eine Anzeige erstatten. Wo finde ich eine Polizeiwache?",)
    ),
}

# compare resource -> templates; {cities_or} for either-or questions, {cities_and} for sets.
COMPARE_PHRASES: dict[str, tuple[Phrase, ...]] = {
    "weather": (
        *bank(
            formal=("Vergleichen Sie bitte das aktuelle Wetter in {cities_and}.",),
            terse=("Wetter im Vergleich: {cities_and}?",),
        ),
        *sized(2, bank(colloquial=("Wo ist es gerade wärmer: in {cities_or}?",))),
        *sized(3, bank(colloquial=("Wo ist es gerade am wärmsten: in {cities_or}?",))),
    ),
    "air": (
        *bank(
            formal=("Vergleichen Sie bitte die Luftqualität in {cities_and}.",),
            terse=("Feinstaub im Vergleich: {cities_and}?",),
        ),
        *sized(2, bank(colloquial=("Wo ist die Luft gerade sauberer: in {cities_or}?",))),
        *sized(3, bank(colloquial=("Wo ist die Luft gerade am saubersten: in {cities_or}?",))),
    ),
    "unemployment": (
        *bank(
            formal=("Wie unterscheiden sich {cities_and} bei der Arbeitslosenquote?",),
            terse=("Arbeitslosenquoten in {cities_and} im Vergleich?",),
        ),
        *sized(2, bank(colloquial=("Wo ist die Arbeitslosenquote niedriger: in {cities_or}?",))),
    ),
    "tourism": (
        *bank(
            formal=("Vergleichen Sie die Übernachtungszahlen von {cities_and}.",),
            terse=("Touristische Übernachtungen in {cities_and} im Vergleich?",),
        ),
        *sized(2, bank(colloquial=("Welche Stadt hatte mehr Übernachtungen: {cities_or}?",))),
    ),
    "demographics": (
        *bank(
            formal=(
                "Stellen Sie bitte die Durchschnittsmieten laut Zensus für {cities_and} gegenüber.",
            ),
            terse=("Zensus-Haushaltszahlen in {cities_and} im Vergleich?",),
        ),
        *sized(
            2,
            bank(colloquial=("Wo ist die Durchschnittsmiete laut Zensus höher: in {cities_or}?",)),
        ),
    ),
    "weather-warnings": bank(
        formal=("Für welche der Städte {cities_and} gelten gerade Unwetterwarnungen?",),
        colloquial=("Muss man in {cities_and} gerade mit Unwetter rechnen?",),
        terse=("Unwetterwarnungen im Vergleich: {cities_and}?",),
    ),
    "indicators": (
        *bank(
            formal=("Vergleichen Sie die Kaufkraft pro Einwohner in {cities_and}.",),
            terse=("Kaufkraft pro Einwohner: {cities_and} im Vergleich?",),
        ),
        *sized(2, bank(colloquial=("Wo ist die Kaufkraft höher: in {cities_or}?",))),
    ),
    "charging-status": (
        *bank(
            formal=("Vergleichen Sie bitte die freien Ladepunkte in {cities_and}.",),
            terse=("Freie Ladepunkte in {cities_and} im Vergleich?",),
        ),
        *sized(
            2, bank(colloquial=("In welcher Stadt sind gerade mehr Ladepunkte frei: {cities_or}?",))
        ),
    ),
}

DEPARTURES = bank(
    formal=(
        "Wann fahren die nächsten Züge ab {station}?",
        "Welche Abfahrten stehen in Kürze am Bahnhof {station} an?",
    ),
    colloquial=(
        "Ich steh grad am Bahnhof {station}. Was fährt als Nächstes?",
        "Hat mein Zug ab {station} Verspätung? Zeig mir mal die Abfahrten dort.",
    ),
    terse=("Nächste Abfahrten ab {station}?",),
)
ARRIVALS = bank(
    formal=(
        "Welche Züge kommen in der nächsten Zeit in {station} an?",
        "Welche Ankünfte sind am Bahnhof {station} in Kürze zu erwarten?",
    ),
    colloquial=(
        "Ich hol jemanden in {station} ab. Welche Züge kommen da bald an?",
        "Kommt in {station} bald ein Zug an? Zeig mir mal die Ankünfte.",
    ),
    terse=("Ankünfte in {station}, bitte.",),
)


def enumerate_de(names: list[str], conjunction: str = "und") -> str:
    """'A', 'A und B', 'A, B und C' (or with 'oder' for an either-or question)."""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + f" {conjunction} " + names[-1]


def opening(text: str) -> str:
    """The first word of a question or template, lower-cased ('{city}' and '#' stay as they are)."""
    words = text.split()
    return words[0].strip(",.:;?!„“\"'").casefold() if words else ""
