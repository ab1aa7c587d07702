"""The report page without a browser: explorer rows, the inert data block, links, CSP, size.

Results come from fake-backend runs of a tiny suite (``run_suite`` with ``FakeProvider``) or,
for the size bound, from copies of a fake run of the real InfraNode suite.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from conftest import make_mini_suite
from report_results import page_data, summary_cells, summary_links

os.environ.setdefault("MPLCONFIGDIR", str(Path(tempfile.gettempdir()) / "tooleval-mpl"))

from tooleval.providers.base import ErrorClass
from tooleval.providers.fake import FakeProvider, FakeReply
from tooleval.records import Task, ToolCall, ToolSpec
from tooleval.report import build_report, load_runs, write_report
from tooleval.report.explorer import MAX_TEXT_CHARS, differing_arguments, run_rows
from tooleval.report.html import render_html
from tooleval.report.loading import RunData
from tooleval.report.page_data import json_block
from tooleval.runner import RunConfig, run_suite
from tooleval.suites import Suite, load_suite

OBJ = {"type": "object", "properties": {"slug": {"type": "string"}}}
TOOLS = (ToolSpec("weather", "Wetter", OBJ), ToolSpec("get_city_data", "Daten", OBJ))
CITIES = ("berlin", "koeln", "bonn", "kiel")
SUITE = make_mini_suite(
    tuple(
        Task(f"w-{c}", "routing", f"Wetter in {c}?", ToolCall("weather", {"slug": c}), "1")
        for c in CITIES
    )
    + tuple(
        Task(
            f"d-{c}",
            "not_covered",
            f"Ladesäulen in {c}?",
            ToolCall("get_city_data", {"slug": c, "resource": "charging"}),
            "1",
        )
        for c in CITIES
    ),
    TOOLS,
    ("routing", "not_covered"),
)
QUESTIONS = {t.id: t.question for t in SUITE.tasks}
INJECTION = "<script>document.title='x'</script></script><!-- <img src=x onerror=alert(1)> &amp;"


def lookup(name: str) -> Suite | None:
    return SUITE if name == "mini" else None


def reply(task_id: str, text: str) -> FakeReply:
    return FakeReply(text=text, task_id=task_id)


def call_text(name: str, **arguments: Any) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def fake_run(folder: Path, model: str, replies: list[FakeReply], **config: Any) -> Path:
    output = folder / f"{model}.json"
    provider = FakeProvider(replies, questions=QUESTIONS)
    values: dict[str, Any] = {"model": model, "output": output, "concurrency": 1, **config}
    run_suite(RunConfig(backend="fake", **values), provider, suite=SUITE)
    return output


def gold_replies() -> list[FakeReply]:
    return [reply(t.id, call_text(t.gold.name, **t.gold.arguments)) for t in SUITE.tasks]


def mixed_replies() -> list[FakeReply]:
    """koeln: umlaut slug; bonn: prose with markup; kiel (data): the overview first."""
    out = []
    for task in SUITE.tasks:
        slug = task.gold.arguments["slug"]
        if slug == "koeln":
            text = call_text(task.gold.name, **{**task.gold.arguments, "slug": "köln"})
        elif slug == "bonn":
            text = INJECTION
        elif task.id == "d-kiel":
            text = call_text("get_city_overview", slug="kiel")
        else:
            text = call_text(task.gold.name, **task.gold.arguments)
        out.append(reply(task.id, text))
    return out


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("explorer")
    fake_run(folder, "gold", gold_replies())
    fake_run(folder, "mixed", mixed_replies())
    stopped = [FakeReply(error=ErrorClass.QUOTA_EXHAUSTED)]
    fake_run(folder, "stopped", stopped, max_retries=0, stop_after_errors=2)
    return folder


def runs(folder: Path) -> dict[str, RunData]:
    return {r.run_id: r for r in load_runs([folder], lookup).runs}


def page(folder: Path, *compare: tuple[str, str]) -> str:
    return render_html(build_report(load_runs([folder], lookup), compare), {})


# --- rows -------------------------------------------------------------------------------------


def test_every_planned_item_is_a_row_and_gaps_are_not_run(results: Path) -> None:
    stopped = runs(results)["stopped"]
    assert stopped.planned == 8 and len(stopped.items) < 8  # the run stopped early
    rows = run_rows(stopped)
    assert sorted(r["id"] for r in rows) == sorted(QUESTIONS)
    gaps = [r for r in rows if r["err"] == "not_run"]
    assert len(gaps) == 8 - len(stopped.items) > 0
    assert {r["err"] for r in rows} == {"quota_exhausted", "not_run"}


def test_rows_carry_outcomes_gold_diff_and_parser_facts(results: Path) -> None:
    rows = {r["id"]: r for r in run_rows(runs(results)["mixed"])}
    koeln = rows["w-koeln"]
    assert koeln["out"] == {
        "call_match": 0,
        "tool_match": 1,
        "args_match": 0,
        "parsed": 1,
        "format_ok": 1,  # the JSON object asked for, with a wrong slug in it
    }
    assert koeln["diff"] == {"name": False, "args": ["slug"]}
    assert koeln["extractor"] and koeln["calls"][0]["arguments"] == {"slug": "köln"}
    bonn = rows["w-bonn"]
    assert bonn["out"]["parsed"] == 0 and bonn["calls"] == [] and bonn["reason"]
    assert bonn["raw"] == INJECTION and "diff" not in bonn
    assert rows["d-kiel"]["beh"] == "overview_first"
    assert rows["d-berlin"]["beh"] == "direct_gold" and "beh" not in rows["w-berlin"]


def test_optional_fields_appear_only_where_the_file_has_them(results: Path) -> None:
    run = runs(results)["gold"]
    assert run_rows(run)[0]["out"]["format_ok"] == 1  # recorded by every run since it exists
    raw = dict(run.item_json[0])
    raw["score"] = {k: v for k, v in raw["score"].items() if k != "format_ok"}  # an older file
    run = replace(run, item_json=(raw, *run.item_json[1:]))
    plain = run_rows(run)[0]
    assert "format_ok" not in plain["out"] and "exec_match" not in plain["out"]
    assert plain["tok"] == [None, None]
    raw.update(
        score={**raw["score"], "format_ok": 0},
        exec_match=1,
        extractor="pythonic",
        raw_output="x" * (MAX_TEXT_CHARS + 5),
        usage={"input_tokens": 10, "output_tokens": 3},
    )
    row = run_rows(replace(run, item_json=(raw, *run.item_json[1:])))[0]
    assert row["out"]["format_ok"] == 0 and row["out"]["exec_match"] == 1
    assert row["extractor"] == "pythonic" and row["tok"] == [10, 3]
    assert row["raw"].endswith("[5 more characters in the results file]")
    assert "transcript" not in row  # a single call has none (multi-turn rows: see
    # test_report_conversations.py)


def test_runs_of_one_suite_with_different_limits_share_every_question(
    results: Path, tmp_path: Path
) -> None:
    fake_run(tmp_path, "short", gold_replies()[:2], limit=2)  # 100 %: listed first
    fake_run(tmp_path, "long", mixed_replies())
    data = page_data(page(tmp_path))
    assert [r["id"] for r in data["runs"]] == ["short", "long"]
    assert set(data["tasks"]["mini@1"]) == set(QUESTIONS)
    assert data["runs"][0]["tasks"] == data["runs"][1]["tasks"] == "mini@1"


def test_a_repeated_item_is_one_row_as_in_the_rates(results: Path) -> None:
    from dataclasses import replace

    run = runs(results)["mixed"]
    first = dict(run.item_json[1])
    twice = replace(run, item_json=(*run.item_json, first), items=())
    rows = run_rows(twice)
    assert len(rows) == 8 and len({(r["id"], r["rep"]) for r in rows}) == 8


def test_rows_of_a_run_built_in_code_come_from_its_records(results: Path) -> None:
    from dataclasses import replace

    run = runs(results)["mixed"]
    assert run_rows(replace(run, item_json=())) == run_rows(run)


def test_differing_arguments_follow_the_scorer_and_its_alternatives() -> None:
    task = Task(
        "t",
        "c",
        "q",
        ToolCall("stations", {"slug": "berlin", "q": "Ostkreuz"}),
        "1",
        alternatives={"q": ("Berlin Ostkreuz",), "limit": (None, 5)},
    )
    assert (
        differing_arguments(
            task, ToolCall("stations", {"slug": " berlin ", "q": "Berlin Ostkreuz"})
        )
        == []
    )
    assert differing_arguments(task, ToolCall("stations", {"slug": "Berlin", "limit": 9})) == [
        "limit",
        "q",
        "slug",
    ]


# --- the page ---------------------------------------------------------------------------------


def test_the_data_block_is_inert_and_reads_back_exactly() -> None:
    nasty = {"a": INJECTION, "b": "\u2028\u2029", "c": "\ud800", "d": float("nan"), "<k>": 1}
    block = json_block(nasty, "d")
    inner = block[block.index(">") + 1 : block.rindex("</script>")]
    assert "<" not in inner and ">" not in inner and "&" not in inner
    back = json.loads(inner)
    assert back["a"] == INJECTION and back["b"] == "\u2028\u2029" and back["c"] == "\ud800"
    assert back["d"] == "nan" and back["<k>"] == 1


def test_model_markup_never_reaches_the_page_as_markup(results: Path) -> None:
    html = page(results)
    assert html.count("<script") == 2 and html.count("</script>") == 2
    assert "<img src=x" not in html and "<!--" not in html
    rows = page_data(html)["rows"]
    assert INJECTION in [r.get("raw") for r in rows]


def test_every_number_in_the_summary_tables_links_to_its_items(results: Path) -> None:
    html = page(results, ("gold", "mixed"))
    cells = summary_cells(html)
    numbers = [(text, hrefs) for text, hrefs in cells if re.match(r"^[0-9+−-]", text)]
    unlinked = [text for text, hrefs in numbers if not hrefs]
    assert sorted(unlinked) == ["1", "1", "2", "2", "3", "3"]  # the "#" column of both tables
    hrefs = summary_links(html)
    assert "#run=mixed&metric=call_match&cat=routing" in hrefs
    assert "#run=mixed&metric=call_match&cat=%21not_covered" in hrefs
    assert "#run=stopped&err=quota_exhausted" in hrefs and "#run=stopped&err=class" in hrefs
    assert "#run=mixed&cat=not_covered&beh=overview_first" in hrefs
    assert "#view=compare&a=gold&b=mixed&metric=call_match&only=a" in hrefs


def test_odd_run_names_are_escaped_in_links_and_text(results: Path, tmp_path: Path) -> None:
    name = 'a&b"<i>x'
    (tmp_path / f"{name}.json").write_bytes((results / "mixed.json").read_bytes())
    (tmp_path / "gold.json").write_bytes((results / "gold.json").read_bytes())
    html = page(tmp_path, (name, "gold"))
    assert "<i>x" not in html
    hrefs = summary_links(html)
    runs_linked = {parse_qs(h[1:]).get("run", [""])[0] for h in hrefs}
    assert name in runs_linked
    assert name in [r["id"] for r in page_data(html)["runs"]]


def inline(html: str, tag: str) -> str:
    start = html.index(f"<{tag}>") + len(tag) + 2
    return html[start : html.index(f"</{tag}>", start)]


def sha(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_policy_allows_only_the_inlined_script_and_style(results: Path) -> None:
    html = page(results)
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert policy is not None
    rules = dict(r.strip().split(" ", 1) for r in policy.group(1).replace("&#x27;", "'").split(";"))
    assert rules["default-src"] == "'none'" and rules["img-src"] == "data:"
    assert rules["script-src"] == f"'sha256-{sha(inline(html, 'script'))}'"
    assert rules["style-src"] == f"'sha256-{sha(inline(html, 'style'))}'"
    assert not re.search(r"(src|href)=\"(https?:)?//", html)  # nothing to fetch


def test_page_size_for_ten_runs_of_the_whole_suite(tmp_path: Path) -> None:
    """10 runs x 91 items with 640-character outputs (a full 160-token answer) stay < 2 MB."""
    suite = load_suite("infranode")
    questions = {t.id: t.question for t in suite.tasks}
    replies = [
        FakeReply(text=call_text(t.gold.name, **t.gold.arguments), task_id=t.id)
        for t in suite.tasks
    ]
    source = tmp_path / "source.json"
    run_suite(
        RunConfig(backend="fake", model="m", output=source, concurrency=1),
        FakeProvider(replies, questions=questions),
        suite=suite,
    )
    document = json.loads(source.read_text(encoding="utf-8"))
    folder = tmp_path / "ten"
    folder.mkdir()
    for n in range(10):
        for item in document["items"]:
            item["raw_output"] = (f"Run {n}: " + item["raw_output"] + " ") * 8
            item["raw_output"] = item["raw_output"][:640]
        document["config"]["model"] = f"model-{n}"
        (folder / f"model-{n}.json").write_text(json.dumps(document), encoding="utf-8")
    written = {p.name: p for p in write_report(build_report(load_runs([folder])), folder)}
    html = written["report.html"].read_text(encoding="utf-8")
    assert len(page_data(html)["rows"]) == 910
    size = written["report.html"].stat().st_size
    print(f"report.html for 10 runs x 91 items: {size:,} bytes")
    assert size < 2_000_000
