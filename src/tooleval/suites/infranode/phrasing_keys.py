"""German question templates per catalogue key: resource_key and not_covered have their own.

Each template asks only for what the key's payload holds (built by the replica's payload
builders under ``api/``): ``holidays`` lists public holidays, not school holidays;
``demographics`` holds households, buildings and average rent from the census; ``indicators``
holds the age structure too, but by its name a reader would look for that in ``demographics``,
so no question asks for it; ``sharing`` is bike sharing; ``markets`` and the other OSM keys
are places, without opening times. Keys the confusables table marks as not askable have no
templates.
"""

from __future__ import annotations

from tooleval.suites.infranode.phrasing import Phrase, bank

RESOURCE_PHRASES: dict[str, tuple[Phrase, ...]] = {
    "weather-warnings": bank(
        formal=(
            "Liegt für {city} derzeit eine amtliche Unwetterwarnung vor?",
            "Welche Unwetterwarnungen hat der Deutsche Wetterdienst für {city} herausgegeben?",
        ),
        colloquial=("Droht in {city} heute ein Unwetter? Gibt's eine Unwetterwarnung?",),
        terse=("Unwetterwarnungen für {city}?",),
    ),
    "pollen-uv": bank(
        formal=("Wie stark ist der Pollenflug in {city} heute und morgen?",),
        colloquial=("Ich hab Heuschnupfen. Wie sieht's mit den Pollen in {city} aus?",),
        terse=("UV-Index in {city}?",),
    ),
    "fire-danger": bank(
        formal=("Welche Waldbrandgefahrenstufe gilt heute für die Gegend um {city}?",),
        colloquial=("Sag mal, wie hoch ist die Waldbrandgefahr gerade bei {city}?",),
        terse=("Waldbrandgefahr rund um {city}?",),
    ),
    "bathing-water": bank(
        formal=("Wie ist die Wasserqualität an den Badestellen in {city} eingestuft?",),
        colloquial=("Kann man in {city} gut baden gehen? Wie sauber sind die Badeseen?",),
        terse=("Badegewässer in {city}: Qualität?",),
    ),
    "station-facilities": bank(
        formal=("Sind am Bahnhof in {city} derzeit Aufzüge oder Rolltreppen außer Betrieb?",),
        colloquial=(
            "Ich bin mit Kinderwagen unterwegs. Funktionieren die Aufzüge am Bahnhof in {city}?",
        ),
        terse=("Rolltreppen und Aufzüge am Bahnhof in {city} in Betrieb?",),
    ),
    "transit": bank(
        formal=("Welche Haltestellen des öffentlichen Nahverkehrs gibt es in {city}?",),
        colloquial=("Zeig mir mal die ÖPNV-Haltestellen in {city}.",),
        terse=("Haltestellen in {city}, bitte.",),
    ),
    "traffic": bank(
        formal=("Wie ist die aktuelle Verkehrslage auf den Autobahnen rund um {city}?",),
        colloquial=("Gibt's auf der Autobahn bei {city} gerade Stau?",),
        terse=("Autobahnbaustellen im Raum {city}?",),
    ),
    "road-events": bank(
        formal=("Welche Straßen im Stadtgebiet von {city} sind derzeit gesperrt?",),
        colloquial=("Wo gibt's in {city} gerade Straßensperrungen?",),
        terse=("Straßenbaustellen in {city}?",),
    ),
    "charging": bank(
        formal=("Wie viele öffentliche Ladesäulen gibt es in {city}?",),
        colloquial=("Wo kann ich in {city} mein Elektroauto aufladen?",),
        terse=("Ladestationen in {city}?",),
    ),
    "fuel-prices": bank(
        formal=("Was kostet ein Liter Diesel derzeit in {city}?",),
        colloquial=("Wo tank ich in {city} gerade am günstigsten?",),
        terse=("Spritpreise in {city}?",),
    ),
    "sharing": bank(
        formal=("Wie viele Leihräder stehen in {city} gerade zur Verfügung?",),
        colloquial=("Gibt's in {city} eigentlich Bikesharing?",),
        terse=("Leihfahrräder in {city}?",),
    ),
    "icu-live": bank(
        formal=("Wie viele Intensivbetten sind in {city} derzeit frei?",),
        colloquial=("Sind die Intensivstationen in {city} gerade voll?",),
        terse=("Freie Intensivbetten in {city}?",),
    ),
    "water-level": bank(
        formal=("Welchen Wasserstand meldet der Pegel in {city} aktuell?",),
        colloquial=("Wie hoch steht der Pegel in {city} gerade?",),
        terse=("Pegelstand in {city}?",),
    ),
    "flood": bank(
        formal=("Gibt es für {city} aktuell Hochwasserwarnungen?",),
        colloquial=("Hat die Hochwasserzentrale für {city} gerade was gemeldet?",),
        terse=("Hochwasserwarnstufen in {city}?",),
    ),
    "demographics": bank(
        formal=("Wie viele Haushalte gibt es in {city} laut Zensus 2022?",),
        colloquial=("Was zahlt man in {city} laut Zensus im Schnitt an Miete?",),
        terse=("Wohngebäude in {city} laut Zensus?",),
    ),
    "indicators": bank(
        formal=("Wie hoch ist die Kaufkraft pro Einwohner in {city}?",),
        colloquial=("Sag mal, wie steht {city} bei der Kaufkraft da?",),
        terse=("Sozioökonomische Indikatoren für {city}?",),
    ),
    "unemployment": bank(
        formal=("Wie hoch ist die Arbeitslosenquote in {city}?",),
        colloquial=("Gibt's in {city} eigentlich viele Arbeitslose?",),
        terse=("Arbeitslosenquote in {city}?",),
    ),
    "tourism": bank(
        formal=("Wie viele Übernachtungen verzeichnete {city} im Jahr 2025?",),
        colloquial=("Kommen viele Touristen nach {city}? Wie viele Übernachtungen gab's zuletzt?",),
        terse=("Touristische Übernachtungen in {city}?",),
    ),
    "construction": bank(
        formal=("Wie viele Baugenehmigungen wurden in {city} zuletzt erteilt?",),
        colloquial=("Wird in {city} viel gebaut? Wie viele Baugenehmigungen gab's?",),
        terse=("Baugenehmigungen in {city}?",),
    ),
    "accidents": bank(
        formal=("Wie viele Verkehrsunfälle wurden 2024 in {city} registriert?",),
        colloquial=("Kracht's in {city} oft? Gibt's Zahlen zu Unfällen mit Radfahrern?",),
        terse=("Tödliche Verkehrsunfälle in {city} 2024?",),
    ),
    "crime-stats": bank(
        formal=("Wie hoch ist die Aufklärungsquote bei Straftaten in {city}?",),
        colloquial=("Ist {city} eigentlich sicher? Was sagt die Kriminalstatistik?",),
        terse=("Straftaten in {city} 2024?",),
    ),
    "vehicle-registrations": bank(
        formal=("Wie viele Pkw und wie viele Elektroautos sind in {city} zugelassen?",),
        colloquial=("Sag mal, wie viele E-Autos sind in {city} zugelassen?",),
        terse=("Pkw-Bestand in {city}?",),
    ),
    "election": bank(
        formal=("Wie hat {city} bei der Bundestagswahl 2025 abgestimmt?",),
        colloquial=("Welche Partei lag in {city} bei der letzten Bundestagswahl vorn?",),
        terse=("Wahlbeteiligung in {city} bei der Bundestagswahl?",),
    ),
    "holidays": bank(
        formal=("Welche gesetzlichen Feiertage gelten 2026 in {city}?",),
        colloquial=("Ist Fronleichnam in {city} eigentlich ein Feiertag?",),
        terse=("Nächster gesetzlicher Feiertag in {city}?",),
    ),
    "energy": bank(
        formal=("Wie viele Windkraftanlagen und Batteriespeicher sind in {city} registriert?",),
        colloquial=("Was für Energieanlagen stehen eigentlich in {city}?",),
        terse=("Energieanlagen in {city}?",),
    ),
    "solar": bank(
        formal=("Wie hoch ist die jährliche Sonneneinstrahlung in {city}?",),
        colloquial=("Welcher Neigungswinkel ist für Solarmodule in {city} ideal?",),
        terse=("Spezifischer Ertrag pro kWp in {city}?",),
    ),
    "solar-roofs": bank(
        formal=("Wie viele Dächer in {city} eignen sich laut Solarkataster für Photovoltaik?",),
        colloquial=("Was könnten die Dächer in {city} im Jahr an Solarstrom liefern?",),
        terse=("Geeignete Dachflächen für Solaranlagen in {city}?",),
    ),
    "land-values": bank(
        formal=("Wie hoch sind die Bodenrichtwerte in {city}?",),
        colloquial=("Was kostet in {city} ungefähr ein Quadratmeter Bauland?",),
        terse=("Bodenrichtwert in {city}?",),
    ),
    "tax-rates": bank(
        formal=("Welchen Gewerbesteuer-Hebesatz hat {city}?",),
        colloquial=("Wie hoch ist in {city} eigentlich der Hebesatz für die Grundsteuer B?",),
        terse=("Hebesätze in {city}?",),
    ),
    "business-registrations": bank(
        formal=("Wie viele Gewerbeanmeldungen gab es 2025 in {city}?",),
        colloquial=("Gab's in {city} zuletzt mehr Gewerbeanmeldungen oder mehr Abmeldungen?",),
        terse=("Gewerbeanmeldungen in {city}?",),
    ),
    "insolvencies": bank(
        formal=("Wie viele Unternehmensinsolvenzen gab es 2025 in {city}?",),
        colloquial=("Gehen in {city} viele Firmen pleite?",),
        terse=("Insolvenzen in {city} 2025?",),
    ),
    "events": bank(
        formal=("Welche Veranstaltungen finden in den nächsten Tagen in {city} statt?",),
        colloquial=("Welche Konzerte und Feste stehen in {city} die nächsten Tage an?",),
        terse=("Veranstaltungen in {city}?",),
    ),
    "playgrounds": bank(
        formal=("Wo gibt es in {city} öffentliche Spielplätze?",),
        colloquial=("Wir sind mit den Kindern in {city}. Wo ist hier ein Spielplatz?",),
        terse=("Spielplätze in {city}?",),
    ),
    "drinking-water": bank(
        formal=("Wo gibt es in {city} öffentliche Trinkbrunnen?",),
        colloquial=("Wo kann ich in {city} unterwegs meine Wasserflasche auffüllen?",),
        terse=("Trinkwasserbrunnen in {city}?",),
    ),
    "public-toilets": bank(
        formal=("Wo befinden sich in {city} öffentliche Toiletten?",),
        colloquial=("Ich muss mal dringend. Wo gibt's in {city} ein öffentliches Klo?",),
        terse=("Öffentliche WCs in {city}?",),
    ),
    "markets": bank(
        formal=("Wo finden in {city} Wochenmärkte statt?",),
        colloquial=("Gibt's in {city} einen Wochenmarkt, wo ich frisches Gemüse kriege?",),
        terse=("Wochenmärkte in {city}?",),
    ),
    "parcel-lockers": bank(
        formal=("Wo gibt es in {city} Packstationen?",),
        colloquial=("Ich will mein Paket an einer Packstation abholen. Welche gibt es in {city}?",),
        terse=("Paketstationen in {city}?",),
    ),
    "post-offices": bank(
        formal=("Wo gibt es in {city} eine Postfiliale?",),
        colloquial=("Ich muss ein Einschreiben aufgeben. Wo find ich in {city} eine Postfiliale?",),
        terse=("Postfilialen in {city}?",),
    ),
    "post-boxes": bank(
        formal=("Wo stehen in {city} Briefkästen?",),
        colloquial=("Ich hab hier einen Brief. Wo ist in {city} ein Briefkasten?",),
        terse=("Briefkästen in {city}?",),
    ),
    "public-wifi": bank(
        formal=("Wo gibt es in {city} öffentliches WLAN?",),
        colloquial=("Gibt's in {city} irgendwo freie WLAN-Hotspots?",),
        terse=("WLAN-Hotspots in {city}?",),
    ),
    "recycling-centres": bank(
        formal=("Wo befinden sich in {city} die Wertstoffhöfe?",),
        colloquial=("Wo kann ich in {city} Sperrmüll abgeben? Gibt's da einen Recyclinghof?",),
        terse=("Recyclinghöfe in {city}?",),
    ),
    "government-offices": bank(
        formal=("Wo sind in {city} die Bürgerämter?",),
        colloquial=("Ich muss in {city} meinen Personalausweis verlängern. Wo ist das Bürgeramt?",),
        terse=("Bürgerbüros in {city}?",),
    ),
    "heritage": bank(
        formal=("Welche Baudenkmäler sind in {city} verzeichnet?",),
        colloquial=("Zeig mir mal die denkmalgeschützten Gebäude in {city}.",),
        terse=("Baudenkmäler in {city}?",),
    ),
    "tree-cadastre": bank(
        formal=("Wie viele Straßenbäume verzeichnet das Baumkataster von {city}?",),
        colloquial=("Stehen in {city} eigentlich viele Bäume an den Straßen?",),
        terse=("Straßenbäume in {city}?",),
    ),
    "public-tenders": bank(
        formal=("Welche öffentlichen Aufträge schreibt die Stadt {city} derzeit aus?",),
        colloquial=("Hat {city} gerade Ausschreibungen laufen? Was wird da vergeben?",),
        terse=("Offene Ausschreibungen in {city}?",),
    ),
    "bike-counts": bank(
        formal=("Wie viele Radfahrer wurden gestern an den Zählstellen in {city} erfasst?",),
        colloquial=("Was zeigen die Fahrradzählstellen in {city} so an?",),
        terse=("Radzählstellen in {city}?",),
    ),
    "district-heating": bank(
        formal=("Welche Unternehmen betreiben in {city} Fernwärmenetze?",),
        colloquial=("Gibt's in {city} eigentlich Fernwärme?",),
        terse=("Wärmenetze in {city}?",),
    ),
}

# not_covered: the key is missing for the city; the direct call stays right. Own wording,
# so the category is not a copy of resource_key.
NOT_COVERED_PHRASES: dict[str, tuple[Phrase, ...]] = {
    "road-events": bank(
        formal=("Welche innerstädtischen Straßensperrungen sind für {city} gemeldet?",),
        colloquial=("Muss ich in der Innenstadt von {city} heute mit Vollsperrungen rechnen?",),
        terse=("Sperrungen im Stadtgebiet von {city}?",),
    ),
    "sharing": bank(
        formal=("Gibt es in {city} ein Bikesharing-Angebot, und wie viele Leihräder sind frei?",),
        colloquial=("Kann ich mir in {city} irgendwo ein Leihrad schnappen?",),
        terse=("Bikesharing-Stationen in {city}?",),
    ),
    "flood": bank(
        formal=("Liegen für {city} derzeit Hochwassermeldungen vor?",),
        colloquial=("Hat die Hochwasserzentrale für {city} grad eine Warnung rausgegeben?",),
        terse=("Hochwasserwarnungen in {city} aktuell?",),
    ),
    "solar-roofs": bank(
        formal=("Gibt es für {city} ein Solarkataster der Hausdächer?",),
        colloquial=("Taugen die Dächer in {city} für Photovoltaik? Was sagt das Solarkataster?",),
        terse=("Solarpotenzial der Dächer in {city}?",),
    ),
    "land-values": bank(
        formal=("Welche Bodenrichtwerte hat der Gutachterausschuss für {city} ermittelt?",),
        colloquial=("Wie teuer ist ein Baugrundstück in {city} so?",),
        terse=("Bodenrichtwerte für {city}, bitte.",),
    ),
    "heritage": bank(
        formal=("Wie viele Kulturdenkmäler sind in {city} eingetragen?",),
        colloquial=("Steht in {city} viel unter Denkmalschutz?",),
        terse=("Denkmalliste von {city}?",),
    ),
    "tree-cadastre": bank(
        formal=("Wie viele Bäume erfasst das Baumkataster in {city}?",),
        colloquial=("Weißt du, wie viele Straßenbäume es in {city} gibt?",),
        terse=("Baumbestand an den Straßen von {city}?",),
    ),
    "bike-counts": bank(
        formal=("Wie viel Radverkehr messen die automatischen Zählstellen in {city}?",),
        colloquial=("Gibt's in {city} eigentlich Fahrradzählstellen? Was messen die?",),
        terse=("Radverkehrszählung in {city}?",),
    ),
    "district-heating": bank(
        formal=("Wer versorgt {city} mit Fernwärme?",),
        colloquial=("Wie gut ist {city} eigentlich mit Wärmenetzen versorgt?",),
        terse=("Fernwärmenetz in {city}: Betreiber?",),
    ),
}
