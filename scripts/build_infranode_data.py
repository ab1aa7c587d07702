"""One-off dev script: derive the InfraNode replica's compact data files from reference facts.

Usage:
    python scripts/build_infranode_data.py REFERENCE_DIR [OUT_DIR]

REFERENCE_DIR holds the research notes' JSON facts (cities.json, coverage.json, catalog.json,
poi_types.json, compare_resources.json, stations.json). OUT_DIR defaults to the package data
folder. The package never runs this script; it only reads the files it writes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src/tooleval/suites/infranode/data"

SNAPSHOT = {
    "contract_date": "2026-07-22",
    "coverage_date": "2026-07-22",
    "observed_at": "2026-07-22T12:00:00Z",
    "retrieved_at": "2026-07-22T12:04:31Z",
    "local_time": "2026-07-22T14:00:00",
    "replica_label": "tooleval InfraNode replica (offline; contract and coverage as of 2026-07-22; "
    "values are deterministic stand-ins, not measurements)",
    "api_version": "1.0.0",
}

# Exonyms and short forms beyond the documented ones are marked documented=false.
EXTRA_ALIASES: list[tuple[str, str, bool]] = [
    ("munich", "muenchen", True),
    ("cologne", "koeln", True),
    ("frankfurt", "frankfurt-am-main", True),
    ("nuremberg", "nuernberg", False),
    ("hanover", "hannover", False),
    ("brunswick", "braunschweig", False),
    ("frankfurt (main)", "frankfurt-am-main", False),
    ("frankfurt a.m.", "frankfurt-am-main", False),
    ("frankfurt/main", "frankfurt-am-main", False),
    ("freiburg", "freiburg-im-breisgau", False),
    ("freiburg (breisgau)", "freiburg-im-breisgau", False),
    ("halle", "halle-saale", False),
    ("halle an der saale", "halle-saale", False),
    ("ludwigshafen", "ludwigshafen-am-rhein", False),
    ("offenbach", "offenbach-am-main", False),
    ("mülheim", "muelheim-an-der-ruhr", False),
    ("mülheim (ruhr)", "muelheim-an-der-ruhr", False),
    ("münster (westf)", "muenster", False),
]

# Upstream source id per catalogue key (first listed upstream unless noted).
KEY_SOURCE = {
    "flood": "hochwasser",
    "health": "genesis",
    "events": "destination_one",
    "solar": "pvgis",
    "transit": "delfi",
    "road-events": "berlin_viz",
    "bike-counts": "city_bike_counters",
}

# id: (name, license_id, tier, attribution text, modified)
SOURCES: dict[str, tuple[str, str, str, str, bool]] = {
    "wikidata": ("Wikidata", "cc0", "A", "Wikidata", False),
    "dwd": (
        "DWD via Bright Sky",
        "geonutzv",
        "A",
        "Datenbasis: Deutscher Wetterdienst, eigene Elemente ergänzt",
        True,
    ),
    "dwd_warnings": ("DWD Warnungen", "geonutzv", "A", "Datenbasis: Deutscher Wetterdienst", False),
    "dwd_pollen": (
        "DWD Pollenflug/UV",
        "geonutzv",
        "A",
        "Datenbasis: Deutscher Wetterdienst",
        False,
    ),
    "dwd_fire": (
        "DWD Waldbrandgefahrenindex",
        "geonutzv",
        "A",
        "Datenbasis: Deutscher Wetterdienst",
        False,
    ),
    "eea_bathing": (
        "EEA Badegewässer",
        "cc_by_4_0",
        "A",
        "European Environment Agency (EEA)",
        False,
    ),
    "klinik_atlas": ("Bundes-Klinik-Atlas", "unknown", "C", "Bundes-Klinik-Atlas", False),
    "db_fasta": ("DB FaSta", "cc_by_4_0", "A", "Deutsche Bahn AG", False),
    "uba": ("Umweltbundesamt Luftdaten", "dl_de_by_2_0", "A", "Umweltbundesamt (UBA)", False),
    "delfi": ("DELFI GTFS", "cc_by_4_0", "A", "DELFI e.V.", False),
    "db_timetables": ("DB Timetables", "cc_by_4_0", "A", "Deutsche Bahn AG", True),
    "stada": ("DB StaDa", "cc_by_4_0", "A", "Deutsche Bahn AG", False),
    "autobahn": ("Autobahn API", "dl_de_by_2_0", "A", "Die Autobahn GmbH des Bundes", False),
    "autobahn_webcam": (
        "Autobahn Webcams",
        "dl_de_by_2_0",
        "A",
        "Die Autobahn GmbH des Bundes",
        False,
    ),
    "berlin_viz": ("VIZ Berlin", "dl_de_by_2_0", "A", "Verkehrsinformationszentrale Berlin", False),
    "hamburg_baustellen": (
        "Baustellen Hamburg",
        "dl_de_by_2_0",
        "A",
        "Freie und Hansestadt Hamburg",
        False,
    ),
    "koeln_verkehr": ("Verkehr Köln", "dl_de_zero_2_0", "A", "Stadt Köln", False),
    "muenchen_baustellen": (
        "Baustellen München",
        "dl_de_by_2_0",
        "A",
        "Landeshauptstadt München",
        False,
    ),
    "dortmund_baustellen": ("Baustellen Dortmund", "dl_de_by_2_0", "A", "Stadt Dortmund", False),
    "bremen_baustellen": (
        "Baustellen Bremen",
        "dl_de_by_2_0",
        "A",
        "Freie Hansestadt Bremen",
        False,
    ),
    "mobidata_bw": ("MobiData BW", "dl_de_by_2_0", "A", "MobiData BW", False),
    "sperrinfosys": ("SperrInfoSys", "dl_de_by_2_0", "A", "SperrInfoSys Sachsen", False),
    "bnetza": ("Ladesäulenregister", "cc_by_4_0", "A", "Bundesnetzagentur.de", False),
    "tankerkoenig": (
        "Tankerkönig (MTS-K)",
        "cc_by_4_0",
        "A",
        "Tankerkönig, Daten der MTS-K",
        False,
    ),
    "gbfs": ("Nextbike GBFS", "cc0", "A", "nextbike GmbH (GBFS)", False),
    "osm": ("OpenStreetMap", "odbl", "B", "© OpenStreetMap contributors", False),
    "genesis": ("GENESIS-Online", "dl_de_by_2_0", "A", "Statistisches Bundesamt (Destatis)", False),
    "divi": ("DIVI-Intensivregister", "cc_by_4_0", "A", "DIVI-Intensivregister", False),
    "pegelonline": ("PEGELONLINE", "dl_de_zero_2_0", "A", "WSV, PEGELONLINE", False),
    "hochwasser": (
        "Länderübergreifendes Hochwasserportal",
        "unknown",
        "C",
        "Datenquelle: www.hochwasserzentralen.de",
        False,
    ),
    "bkg": ("BKG Verwaltungsgebiete", "dl_de_by_2_0", "A", "© GeoBasis-DE / BKG", False),
    "inkar": ("INKAR", "dl_de_by_2_0", "A", "BBSR Bonn, INKAR", False),
    "unfallatlas": (
        "Unfallatlas",
        "dl_de_by_2_0",
        "A",
        "Statistische Ämter des Bundes und der Länder",
        False,
    ),
    "bka_pks": ("Polizeiliche Kriminalstatistik", "dl_de_by_2_0", "A", "Bundeskriminalamt", False),
    "kba": ("Kraftfahrt-Bundesamt", "dl_de_by_2_0", "A", "Kraftfahrt-Bundesamt", False),
    "bundeswahl": ("Die Bundeswahlleiterin", "dl_de_by_2_0", "A", "Die Bundeswahlleiterin", False),
    "feiertage": ("Gesetzliche Feiertage", "cc0", "A", "Feiertagsgesetze der Länder", False),
    "mastr": (
        "Marktstammdatenregister",
        "dl_de_by_2_0",
        "A",
        "Marktstammdatenregister der Bundesnetzagentur",
        False,
    ),
    "smard": ("SMARD", "cc_by_4_0", "A", "Bundesnetzagentur | SMARD.de", False),
    "pvgis": ("PVGIS", "cc_by_4_0", "A", "European Commission, PVGIS", False),
    "solar_cadastre": (
        "Solarkataster der Länder",
        "dl_de_by_2_0",
        "A",
        "Solarkataster der Länder",
        False,
    ),
    "boris": (
        "BORIS",
        "dl_de_by_2_0",
        "A",
        "Gutachterausschüsse für Grundstückswerte (BORIS)",
        False,
    ),
    "regionalstatistik": (
        "Regionaldatenbank Deutschland",
        "dl_de_by_2_0",
        "A",
        "Statistische Ämter des Bundes und der Länder",
        False,
    ),
    "destination_one": ("destination.one", "unknown", "C", "destination.one / eT4.META", False),
    "denkmal": ("Denkmal-WFS der Länder", "dl_de_by_2_0", "A", "Landesdenkmalämter", False),
    "baumkataster": (
        "Baumkataster Berlin",
        "dl_de_by_2_0",
        "A",
        "Geoportal Berlin, Baumbestand",
        False,
    ),
    "zensus_grid": (
        "Zensus 2022 Gitter",
        "dl_de_by_2_0",
        "A",
        "Statistische Ämter des Bundes und der Länder, Zensus 2022",
        False,
    ),
    "oeffentlichevergabe": ("oeffentlichevergabe.de", "cc0", "A", "oeffentlichevergabe.de", False),
    "city_bike_counters": (
        "Kommunale Radzählstellen",
        "dl_de_by_2_0",
        "A",
        "Radzählstellen der jeweiligen Stadt",
        False,
    ),
    "district_heating": (
        "Kommunale Wärmeplanung (WFS)",
        "dl_de_by_2_0",
        "A",
        "Kommunale Wärmeplanung der jeweiligen Stadt",
        False,
    ),
    "parkendd": ("ParkenDD", "cc_by_4_0", "A", "ParkenDD", False),
}


def load(ref: Path, name: str) -> dict[str, Any]:
    data = json.loads((ref / name).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise SystemExit(f"{ref / name}: expected a JSON object")
    return data


def cities(ref: Path) -> list[dict[str, Any]]:
    out = []
    for c in load(ref, "cities.json")["cities"]:
        geo = {"lat": c["lat"], "lon": c["lon"]} if c.get("lat") is not None else None
        out.append(
            {
                "slug": c["slug"],
                "name_de": c["name_de"],
                "state": c["state"],
                "population": c["population"],
                "tier": c["coverage_tier"],
                "is_state_capital": c["is_state_capital"],
                "ags": c["ags"],
                "qid": c["wikidata_qid"],
                "osm_relation": c["osm_relation"],
                "geo": geo,
            }
        )
    return out


def coverage(ref: Path) -> dict[str, Any]:
    facts = load(ref, "coverage.json")
    partial = {k: sorted(v) for k, v in facts["coverage"].items() if v != "all"}
    changes = facts["changes_in_spec_2026_07_22"]
    for key in ("road-events", "heritage", "parking", "office-wait-times"):
        partial[key] = sorted(changes[key])
    return {"as_of": "2026-07-22", "partial": dict(sorted(partial.items()))}


def catalog(ref: Path) -> list[dict[str, Any]]:
    out = []
    for e in load(ref, "catalog.json")["data_types"]:
        kind = e["payload_kind"].split(" ")[0]
        source = KEY_SOURCE.get(e["key"], e["upstream_sources"][0])
        if source not in SOURCES:
            raise SystemExit(f"catalog key {e['key']}: no source entry for {source!r}")
        out.append(
            {
                "key": e["key"],
                "label_de": e["label_de"],
                "label_en": e["label_en"],
                "tool": e["mcp_tool_2026_07_01"],
                "kind": kind,
                "source": source,
            }
        )
    return out


def station_entry(name: str, info: dict[str, Any]) -> dict[str, Any]:
    evas = info.get("all_evas") or [info["eva"]]
    return {
        "eva": info["eva"],
        "evas": evas,
        "name": name,
        "category": info.get("category"),
        "lat": info.get("lat"),
        "lon": info.get("lon"),
        "zip": info.get("zip"),
    }


def stations(ref: Path) -> dict[str, Any]:
    facts = load(ref, "stations.json")
    per_city: dict[str, dict[str, dict[str, Any]]] = {}
    for slug, info in facts["main_station_by_city"].items():
        if info is None:
            continue
        per_city.setdefault(slug, {})[info["eva"]] = station_entry(info["name"], info)
    for slug, rows in facts["other_stations_from_stada_copy"].items():
        for row in rows:
            per_city.setdefault(slug, {})[row["eva"]] = station_entry(row["stada_name"], row)
    boards: dict[str, list[str]] = {}
    for slug, rows in facts["city_board_evas_2026_07_01"].items():
        boards[slug] = [row["eva"] for row in rows]
        known = {eva for s in per_city.get(slug, {}).values() for eva in s["evas"]}
        for row in rows:
            if row["eva"] not in known and row.get("stada_name") is None:
                entry = {"eva": row["eva"], "name": row["composed_name"], "category": None}
                per_city.setdefault(slug, {})[row["eva"]] = station_entry(
                    row["composed_name"], entry
                )
    return {
        "eva_pattern": facts["eva_format"]["pattern"],
        "city_boards": boards,
        "stations": {slug: list(rows.values()) for slug, rows in sorted(per_city.items())},
    }


def sources() -> list[dict[str, Any]]:
    return [
        {
            "source": sid,
            "name": n,
            "license_id": lic,
            "license_tier": tier,
            "attribution": text,
            "modified": mod,
        }
        for sid, (n, lic, tier, text, mod) in SOURCES.items()
    ]


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    ref = Path(argv[1])
    out = Path(argv[2]) if len(argv) == 3 else DEFAULT_OUT
    out.mkdir(parents=True, exist_ok=True)
    poi = load(ref, "poi_types.json")
    compare = load(ref, "compare_resources.json")
    files = {
        "snapshot.json": SNAPSHOT,
        "cities.json": {
            "cities": cities(ref),
            "aliases": [{"alias": a, "slug": s, "documented": d} for a, s, d in EXTRA_ALIASES],
        },
        "coverage.json": coverage(ref),
        "catalog.json": {"data_types": catalog(ref)},
        "poi_types.json": {"types": sorted(t["type"] for t in poi["poi_types"])},
        "compare.json": {
            "resources": compare["resources_2026_07_22"],
            "max_cities": compare["max_cities"],
        },
        "stations.json": stations(ref),
        "sources.json": {"sources": sources()},
    }
    for name, payload in files.items():
        text = json.dumps(payload, ensure_ascii=False, indent=1) + "\n"
        (out / name).write_text(text, encoding="utf-8")
        print(f"wrote {out / name} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
