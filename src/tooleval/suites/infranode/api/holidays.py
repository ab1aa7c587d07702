"""Public holidays 2026 per state (the statutory calendar; Easter Sunday is 2026-04-05)."""

from __future__ import annotations

from typing import Any

NATIONWIDE = (
    ("2026-01-01", "Neujahr"),
    ("2026-04-03", "Karfreitag"),
    ("2026-04-06", "Ostermontag"),
    ("2026-05-01", "Tag der Arbeit"),
    ("2026-05-14", "Christi Himmelfahrt"),
    ("2026-05-25", "Pfingstmontag"),
    ("2026-10-03", "Tag der Deutschen Einheit"),
    ("2026-12-25", "1. Weihnachtstag"),
    ("2026-12-26", "2. Weihnachtstag"),
)
REGIONAL = (
    ("2026-01-06", "Heilige Drei Könige", ("BW", "BY", "ST")),
    ("2026-03-08", "Internationaler Frauentag", ("BE", "MV")),
    ("2026-06-04", "Fronleichnam", ("BW", "BY", "HE", "NW", "RP", "SL")),
    ("2026-08-15", "Mariä Himmelfahrt", ("SL",)),
    ("2026-09-20", "Weltkindertag", ("TH",)),
    ("2026-10-31", "Reformationstag", ("BB", "HB", "HH", "MV", "NI", "SN", "ST", "SH", "TH")),
    ("2026-11-01", "Allerheiligen", ("BW", "BY", "NW", "RP", "SL")),
    ("2026-11-18", "Buß- und Bettag", ("SN",)),
)


def holidays_2026(state: str) -> list[dict[str, Any]]:
    days = [(date, name) for date, name in NATIONWIDE]
    days += [(date, name) for date, name, states in REGIONAL if state in states]
    return [{"date": date, "name": name} for date, name in sorted(days)]
