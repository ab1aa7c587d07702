"""Regression tests of the final-answer defects of issue 21, against the replica directly
(no task ids: each builds the calls it needs and reads the values from the API's answer)."""

from __future__ import annotations

from typing import Any

import pytest

from tooleval.records import Task, ToolCall
from tooleval.suites.infranode.client import execute_tool, make_transport
from tooleval.suites.infranode.episodes.facts import Shown, fact_base
from tooleval.suites.infranode.episodes.german import (
    calendar_dates,
    clock_times,
    normalise,
    quantities,
    sentence_spans,
)
from tooleval.suites.infranode.episodes.goldchain import execute
from tooleval.suites.infranode.episodes.grounding import asked_fields, check_answer
from tooleval.suites.infranode.episodes.scoring import score_episode

REPLICA = make_transport(None)


def payload(name: str, **arguments: Any) -> dict[str, Any]:
    data = execute_tool(REPLICA, name, arguments).body["data"]
    return dict(data["payload"])


def de(value: float, decimals: int = 1) -> str:
    return f"{value:.{decimals}f}".replace(".", ",")


def verdict(question: str, answer: str, *calls: ToolCall, max_chars: int = 4000) -> str:
    """The outcome of an episode that made ``calls`` (the first is the gold) and answered."""
    task = Task("t-001", "routing_named", question, calls[0], "1.0.0")
    gold = execute_tool(REPLICA, calls[0].name, calls[0].arguments)
    return score_episode(task, execute(calls, REPLICA), answer, gold, 2, max_chars).outcome


WEATHER = ToolCall("weather", {"slug": "magdeburg"})


def test_contradicted_weather_fails_although_its_numbers_occur_elsewhere() -> None:
    w = payload("weather", slug="magdeburg")
    swapped = (
        f"In Magdeburg sind es nur {de(w['wind_speed'])} °C bei "
        f"{de(w['temperature_c'])} % Luftfeuchte."
    )
    assert verdict("Wie ist das Wetter in Magdeburg?", swapped, WEATHER) == "contradicted"
    right = (
        f"In Magdeburg sind es {de(w['temperature_c'])} °C bei {de(w['humidity'])} % Luftfeuchte."
    )
    assert verdict("Wie ist das Wetter in Magdeburg?", right, WEATHER) == "success"


def test_the_score_records_each_claim_with_the_fact_it_was_checked_against() -> None:
    """What the report shows per episode: a contradicted value names the fact it disagrees
    with (entity, field, value, unit), a supported one the fact that supports it."""
    w = payload("weather", slug="magdeburg")
    answer = f"In Magdeburg sind es {de(w['wind_speed'])} °C bei {de(w['humidity'])} % Luftfeuchte."
    task = Task("t-001", "routing_named", "Wie ist das Wetter in Magdeburg?", WEATHER, "2.0.0")
    gold = execute_tool(REPLICA, WEATHER.name, WEATHER.arguments)
    score = score_episode(task, execute([WEATHER], REPLICA), answer, gold, 2)
    claims = {c["text"]: c for c in score.to_json()["claims"]}
    assert claims[f"{de(w['wind_speed'])} °C"] == {
        "text": f"{de(w['wind_speed'])} °C", "kind": "number", "verdict": "contradicted",
        "entity": "magdeburg", "field": "temperature_c", "value": w["temperature_c"],
        "unit": "degC", "key": False,
    }  # fmt: skip
    humidity = claims[f"{de(w['humidity'])} %"]
    assert (humidity["verdict"], humidity["field"], humidity["value"]) == (
        "supported", "humidity", w["humidity"]
    )  # fmt: skip
    assert score.outcome == "contradicted" and score.facts_contradicted == 1


def test_wrong_sign_is_a_contradiction() -> None:
    w = payload("weather", slug="magdeburg")
    answer = f"In Magdeburg hat es -{de(w['temperature_c'])} °C."
    assert verdict("Wie warm ist es in Magdeburg?", answer, WEATHER) == "contradicted"


@pytest.mark.parametrize("slug", ["bottrop", "magdeburg", "berlin", "koeln"])
def test_condition_words_and_negations(slug: str) -> None:
    call = ToolCall("weather", {"slug": slug})
    wet = payload("weather", slug=slug)["condition"] in ("rain", "thunderstorm")
    question = f"Regnet es gerade in {slug.title()}?"
    right = "Ja, es regnet." if wet else "Nein, es regnet nicht, es ist trocken."
    wrong = "Nein, es ist trocken, es regnet nicht." if wet else "Ja, es regnet."
    assert verdict(question, right, call) == "success"
    assert verdict(question, wrong, call) == "contradicted"


def test_a_city_name_is_not_read_as_a_weather_word() -> None:
    """ "Regensburg" holds "regen", but names the city: no rain claim in "In Regensburg"."""
    call = ToolCall("weather", {"slug": "regensburg"})
    w = payload("weather", slug="regensburg")
    answer = f"In Regensburg sind es {de(w['temperature_c'])} °C."
    assert verdict("Wie warm ist es in Regensburg?", answer, call) == "success"


def test_another_citys_value_is_a_contradiction() -> None:
    mannheim = ToolCall("weather", {"slug": "mannheim"})
    munich = ToolCall("weather", {"slug": "muenchen"})
    theirs = payload("weather", slug="muenchen")["temperature_c"]
    ours = payload("weather", slug="mannheim")["temperature_c"]
    assert theirs != ours
    answer = f"In Mannheim sind es {de(theirs)} Grad."
    assert verdict("Wie warm ist es in Mannheim?", answer, mannheim, munich) == "contradicted"
    fine = f"In Mannheim sind es {de(ours)} Grad, in München {de(theirs)} Grad."
    assert verdict("Wie warm ist es in Mannheim?", fine, mannheim, munich) == "success"


def test_compare_with_swapped_cities_fails() -> None:
    call = ToolCall("compare", {"cities": ["cottbus", "ingolstadt"], "resource": "unemployment"})
    rows = execute_tool(REPLICA, call.name, call.arguments).body["data"]
    a, b = (row["data"]["payload"]["value"] for row in rows)
    question = "Wie unterscheiden sich Cottbus und Ingolstadt bei der Arbeitslosigkeit?"
    assert verdict(question, f"Cottbus: {de(b)} %, Ingolstadt: {de(a)} %.", call) == "contradicted"
    right = f"Cottbus: {de(a)} %, Ingolstadt: {de(b)} %, also {de(abs(a - b))} Prozentpunkte."
    assert verdict(question, right, call) == "success"
    assert verdict(question, f"Cottbus liegt bei {de(a)} %.", call) == "ungrounded"


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("In Wolfsburg 0,32 Mio. In Remscheid 0,16 Mio.", 2),
        ("Wolfsburg: 0,32 Mio.. Remscheid: 0,16 Mio..", 2),
        ("Es sind ca. 5 Mio. Einwohner. Gut.", 2),
        ("Am 1. Januar 2026 um 14 Uhr ab Berlin Hbf. Die S6 fährt später.", 2),
    ],
)
def test_an_abbreviation_dot_ends_a_sentence_only_before_a_sentence_opener(
    text: str, sentences: int
) -> None:
    assert len(sentence_spans(text)) == sentences


def test_compared_values_after_an_abbreviation_belong_to_their_own_sentence() -> None:
    call = ToolCall("compare", {"cities": ["wolfsburg", "remscheid"], "resource": "tourism"})
    rows = execute_tool(REPLICA, call.name, call.arguments).body["data"]
    a, b = (row["data"]["payload"]["value"] / 1e6 for row in rows)
    question = "Touristische Übernachtungen: Wolfsburg und Remscheid im Vergleich?"
    answer = f"In Wolfsburg gab es {de(a, 2)} Mio. In Remscheid waren es {de(b, 2)} Mio."
    assert verdict(question, answer, call) == "success"
    swapped = f"In Wolfsburg gab es {de(b, 2)} Mio. In Remscheid waren es {de(a, 2)} Mio."
    assert verdict(question, swapped, call) == "contradicted"


@pytest.mark.parametrize(
    ("question", "fields"),
    [
        ("Ist es in Freiburg (Breisgau) gerade trocken, oder regnet es?", {"condition"}),
        ("Ist die Luft in Essen grad okay?", set()),
        ("Brauch ich in Recklinghausen gerade einen Schirm?", {"condition"}),
        ("Wo ist es gerade am wärmsten: in Magdeburg, Aachen oder Siegen?", {"temperature_c"}),
        ("Touristische Übernachtungen: Wolfsburg und Remscheid im Vergleich?", {"tourism"}),
        ("Wie unterscheiden sich Moers und Cottbus bei der Arbeitslosenquote?", {"unemployment"}),
        ("Wie hoch ist der Anteil der über 65-Jährigen in Ulm?", {"anteil_ab_65_prozent", "share"}),
        ("Muss man in Schwerin und Oldenburg gerade mit Unwetter rechnen?", {"count"}),
    ],
)
def test_the_question_names_its_fields_not_its_cities(question: str, fields: set[str]) -> None:
    assert asked_fields(question) == fields


def test_superlatives_and_compounds_name_the_compared_field() -> None:
    call = ToolCall("compare", {"cities": ["magdeburg", "aachen"], "resource": "weather"})
    rows = execute_tool(REPLICA, call.name, call.arguments).body["data"]
    (m, a) = (row["data"]["payload"] for row in rows)
    question = "Wo ist es gerade am wärmsten: in Magdeburg oder Aachen?"
    temps = f"Magdeburg: {de(m['temperature_c'])} °C, Aachen: {de(a['temperature_c'])} °C."
    humid = f"Magdeburg: {de(m['humidity'])} % Luftfeuchte, Aachen: {de(a['humidity'])} %."
    assert verdict(question, temps, call) == "success"
    assert verdict(question, humid, call) == "ungrounded"  # true, but not what was asked
    rent = ToolCall("compare", {"cities": ["ulm", "chemnitz"], "resource": "demographics"})
    rows = execute_tool(REPLICA, rent.name, rent.arguments).body["data"]
    (u, c) = (row["data"]["payload"] for row in rows)
    question = "Stellen Sie bitte die Durchschnittsmieten für Ulm und Chemnitz gegenüber."
    rents = f"Ulm: {de(u['rent_avg'], 2)} €/m², Chemnitz: {de(c['rent_avg'], 2)} €/m²."
    people = f"Ulm hat {u['population']} Einwohner, Chemnitz hat {c['population']} Einwohner."
    assert verdict(question, rents, rent) == "success"
    assert verdict(question, people, rent) == "ungrounded"


def test_a_storm_is_a_word_for_a_weather_warning() -> None:
    call = ToolCall(
        "compare", {"cities": ["schwerin", "oldenburg"], "resource": "weather-warnings"}
    )
    rows = execute_tool(REPLICA, call.name, call.arguments).body["data"]
    assert all(row["data"]["payload"]["count"] > 0 for row in rows)
    question = "Muss man in Schwerin und Oldenburg gerade mit Unwetter rechnen?"
    calm = "In Schwerin gibt es kein Unwetter, in Oldenburg auch kein Unwetter."
    assert verdict(question, calm, call) == "contradicted"
    warned = "In Schwerin gilt eine Unwetterwarnung, in Oldenburg gibt es 2 Unwetterwarnungen."
    assert verdict(question, warned, call) == "success"


def call_on(slug: str, resource: str) -> ToolCall:
    return ToolCall("get_city_data", {"slug": slug, "resource": resource})


@pytest.mark.parametrize(
    ("call", "question", "field", "said"),
    [
        (call_on("mainz", "public-tenders"), "Hat Mainz gerade Ausschreibungen laufen?",
         "count", "In Mainz laufen gerade {n} Ausschreibungen."),
        (call_on("wuppertal", "government-offices"), "Bürgerbüros in Wuppertal?",
         "total_available", "In Wuppertal gibt es {n} Bürgerbüros."),
        (call_on("berlin", "district-heating"), "Wärmenetze in Berlin?",
         "network_area_count", "Berlin hat {n} Fernwärmenetze mit 3,29 km² versorgter Fläche."),
        (call_on("regensburg", "bathing-water"), "Wie sauber sind die Badeseen in Regensburg?",
         "count", "In Regensburg gibt es {n} Badeseen."),
    ],
)  # fmt: skip
def test_the_words_of_the_2_0_questions_name_their_fields(
    call: ToolCall, question: str, field: str, said: str
) -> None:
    """Suite 2.0.0 asks for tenders, citizens' offices, heating networks and bathing lakes in
    the words a reader uses; an answer in the same words is checked against that field (and a
    body that does not name its city is the asked city's: public tenders)."""
    body = execute_tool(REPLICA, call.name, call.arguments).body["data"]
    value = int((body.get("payload") or body)[field])
    assert verdict(question, said.format(n=value), call) == "success"
    assert verdict(question, said.format(n=value + 3), call) == "contradicted"


def test_a_city_that_is_also_a_word_is_a_city_only_as_a_place() -> None:
    """ "essen gehen", "zum Essen", "in der Halle" name no city; "Essen hat …" does."""
    from tooleval.suites.infranode.episodes.entities import city_spans

    def named(text: str) -> set[str]:
        return {text[a:b] for a, b in city_spans(text)}

    assert named("Essen gehen kann man in Bochum gut.") == {"Bochum"}
    assert named("Zum Essen: in der Halle am Markt, dann siegen wir.") == set()
    assert named("Essen hat 12 Apotheken, Siegen 30, Münster 20.") == {"Essen", "Siegen", "Münster"}
    pois = ToolCall("pois", {"slug": "bochum", "type": "pharmacy"})
    total = int(payload("pois", slug="bochum", type="pharmacy")["total_available"])
    question = "Wo gibt es in Bochum Apotheken?"
    assert verdict(question, f"Nach dem Essen: In Bochum gibt es {total} Apotheken.", pois) == (
        "success"
    )
    assert verdict(question, f"Essen gehen? Egal. {total} Apotheken gibt es.", pois) == "success"
    assert verdict(question, f"Essen hat {total} Apotheken.", pois) == "ungrounded"


def test_an_umbrella_is_a_word_for_rain() -> None:
    call = ToolCall("weather", {"slug": "frankfurt-am-main"})
    assert payload("weather", slug="frankfurt-am-main")["condition"] == "dry"
    question = "Brauch ich in Frankfurt gerade einen Schirm?"
    assert verdict(question, "Nein, einen Schirm brauchst du nicht.", call) == "success"
    assert verdict(question, "Nein.", call) == "success"
    assert verdict(question, "Ja, nimm einen Schirm mit.", call) == "contradicted"


def test_an_unhedged_tie_rounds_half_up_only() -> None:
    call = ToolCall("weather", {"slug": "freiburg-im-breisgau"})
    assert payload("weather", slug="freiburg-im-breisgau")["temperature_c"] == 30.5
    question = "Welche Temperatur hat es in Freiburg?"
    assert verdict(question, "In Freiburg sind es 31 °C.", call) == "success"
    assert verdict(question, "In Freiburg sind es 30 °C.", call) == "contradicted"
    assert verdict(question, "In Freiburg sind es rund 30 °C.", call) == "success"


def board_case() -> tuple[ToolCall, dict[str, Any]]:
    """A departure board and a departure on it that is at least 6 minutes late."""
    for eva in ("8000082", "8000085", "8000105", "8011160"):
        call = ToolCall("station_board_departures", {"eva": eva})
        board = payload(call.name, eva=eva)["departures"]
        for entry in board[:8]:
            if (entry["delay_minutes"] or 0) >= 6:
                return call, entry
    raise AssertionError("no late train on the sampled boards")


def test_a_late_train_reported_punctual_fails() -> None:
    call, entry = board_case()
    clock = entry["planned_time"][11:16]
    question = "Welche Abfahrten gibt es gleich?"
    late = f"Der {entry['line']} um {clock} Uhr ist pünktlich."
    assert verdict(question, late, call) == "contradicted"
    right = f"Der {entry['line']} um {clock} Uhr hat {entry['delay_minutes']} Minuten Verspätung."
    assert verdict(question, right, call) == "success"


def test_substrings_are_not_facts() -> None:
    base = fact_base([Shown(execute_tool(REPLICA, "weather", {"slug": "koeln"}).body, True)], 4000)
    grounding = check_answer("Die Hitze ist enorm.", base, "Wie ist das Wetter?")
    assert grounding.supported == 0 and not grounding.grounded and not grounding.decided


def test_number_words_are_read_and_checked() -> None:
    pois = payload("pois", slug="hanau", type="pharmacy")
    call = ToolCall("pois", {"slug": "hanau", "type": "pharmacy"})
    question = "Welche Apotheken gibt es in Hanau?"
    wrong = pois["total_available"] + 3
    words = {23: "dreiundzwanzig", 12: "zwölf", 9: "neun", 7: "sieben", 13: "dreizehn"}
    if wrong in words:
        assert verdict(question, f"Es gibt {words[wrong]} Apotheken.", call) == "contradicted"
    assert normalise("sechzig Prozent und zwölf Apotheken") == "60 Prozent und 12 Apotheken"


@pytest.mark.parametrize(
    "answer",
    [
        "Rund {k:.0f}.000 Pkw, davon etwa {e_round:,} elektrisch.",
        "{cars_space} Pkw, davon {e} Elektroautos ({share} %), Stichtag 01.01.2026.",
        "Es sind {m} Mio. Pkw zugelassen, elektrisch etwa {e_round:,}.",
    ],
)
def test_german_formats_of_correct_answers(answer: str) -> None:
    p = payload("get_city_data", slug="pforzheim", resource="vehicle-registrations")
    cars, electric = p["passenger_cars"], p["electric_cars"]
    text = (
        answer.format(
            k=cars / 1000,
            e=f"{electric:,}".replace(",", "."),
            e_round=round(electric, -2),
            cars_space=f"{cars:,}".replace(",", " "),
            share=de(electric / cars * 100),
            m=de(cars / 1e6, 2),
        )
        .replace(",", ".")
        .replace(". davon", ", davon")
        .replace(". elektrisch", ", elektrisch")
    )
    text = text.replace(
        f"{de(electric / cars * 100).replace(',', '.')} %", f"{de(electric / cars * 100)} %"
    )
    text = text.replace(f"{de(cars / 1e6, 2).replace(',', '.')} Mio", f"{de(cars / 1e6, 2)} Mio")
    call = ToolCall("get_city_data", {"slug": "pforzheim", "resource": "vehicle-registrations"})
    question = "Wie viele Autos sind in Pforzheim zugelassen, wie viele davon elektrisch?"
    assert verdict(question, text, call) == "success", text


def test_dates_times_and_zones() -> None:
    text = normalise(
        "Stichtag 01.01.2026, am 3. Oktober 2026 um 14.09 Uhr. 16:00 bis 23:00 Uhr (MESZ)"
    )
    assert [(d.year, d.month, d.day) for d in calendar_dates(text)] == [(2026, 1, 1), (2026, 10, 3)]
    assert [
        (t.hour, t.minute, t.zone) for t in sorted(clock_times(text), key=lambda t: t.start)
    ] == [(14, 9, None), (16, 0, "local"), (23, 0, "local")]
    call = ToolCall("get_city_data", {"slug": "reutlingen", "resource": "weather-warnings"})
    warning = payload(call.name, **call.arguments)["warnings"][0]
    end = int(warning["end"][11:13])  # UTC; Berlin is two hours ahead in July
    question = "Gibt es für Reutlingen aktuell eine Unwetterwarnung?"
    assert verdict(question, f"Ja, eine Warnung bis {end + 2}:00 Uhr (MESZ).", call) == "success"
    assert verdict(question, f"Ja, eine Warnung bis {end}:00 Uhr MESZ.", call) == "ungrounded"
    assert verdict(question, f"Ja, eine Warnung bis {end}:00 Uhr UTC.", call) == "success"


def test_cents_and_euros() -> None:
    p = payload("get_city_data", slug="hanau", resource="fuel-prices")
    call = ToolCall("get_city_data", {"slug": "hanau", "resource": "fuel-prices"})
    cents = de(p["avg_diesel"] * 100)
    assert verdict("Was kostet Diesel in Hanau?", f"Diesel: {cents} Cent.", call) == "success"
    dearer = de(p["avg_diesel"] * 100 + 20)
    assert verdict("Was kostet Diesel in Hanau?", f"Diesel: {dearer} Cent.", call) == "contradicted"
    quantity = quantities(normalise("165,4 Cent"))[0]
    assert quantity.unit == "eur" and abs(quantity.readings[0].value - 1.654) < 1e-9


def test_only_what_the_model_was_shown_counts() -> None:
    body = execute_tool(REPLICA, "get_city_overview", {"slug": "hannover"}).body
    population = body["data"]["city"]["population"]
    answer = f"Hannover hat {population:,} Einwohner.".replace(",", ".")
    call = ToolCall("get_city_overview", {"slug": "hannover"})
    assert verdict("Überblick Hannover?", answer, call) == "success"
    assert verdict("Überblick Hannover?", answer, call, max_chars=100) == "ungrounded"


def test_random_integers_rarely_pass() -> None:
    call = ToolCall("get_city_overview", {"slug": "hannover"})
    question = "Überblick über Hannover?"
    passing = [n for n in range(1, 101) if verdict(question, f"Hannover: {n}.", call) == "success"]
    assert len(passing) <= 1
