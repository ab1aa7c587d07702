"""The report page in a real browser: Debian's chromium, driven through chromium-driver.

The results are made here, all through the real CLI with the shipped fake backend: two
single-call runs of the InfraNode suite (``gold`` answers every gold call; ``mixed`` guesses
resource keys, writes umlaut slugs, answers in prose, loses three items to a quota and once
answers with markup), an InfraNode episodes run and a Cesium scenario run (see
``report_results``).

``TOOLEVAL_BROWSER_RESULTS=DIR`` adds the results files in DIR (e.g. a real local run and a
scripted run) to the page every test drives, and the screenshots then show a report of those
files alone; ``TOOLEVAL_BROWSER_SCREENSHOTS=DIR`` writes the screenshots there (docs/img for
docs/report.md) instead of a temporary folder.

Skipped when chromium or chromedriver is missing, unless ``TOOLEVAL_REQUIRE_BROWSER=1``
(set by .ci/run, which installs both) turns that into a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from report_results import (
    EPISODES_RUN,
    SCENARIOS_RUN,
    episodes_results,
    items,
    scenario_results,
)
from report_results import MARKUP as EPISODE_MARKUP
from tooleval.cli import main as cli
from tooleval.records import Task, ToolCall
from tooleval.suites import load_suite

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    if os.environ.get("TOOLEVAL_REQUIRE_BROWSER") == "1":
        pytest.fail("TOOLEVAL_REQUIRE_BROWSER=1 but chromium/chromedriver are missing")
    pytest.skip("chromium and chromium-driver are not installed", allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.remote.webelement import WebElement  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

WIDTH, HEIGHT = 1280, 1100
SUITE = load_suite("infranode")
MARKUP = (
    "Sicher! <script>document.title='pwned';window.pwned=1</script>"
    '<img src=x onerror="window.pwned=2"></script><b>fett</b>'
)
QUOTA_TASKS = ("poi_type-001", "poi_type-002", "two_step-001")


# --- results ------------------------------------------------------------------------------


def as_text(call: ToolCall) -> str:
    return json.dumps({"name": call.name, "arguments": dict(call.arguments)}, ensure_ascii=False)


def as_pythonic(call: ToolCall) -> str:
    """The call as Llama 3.2 writes it: right, but not the JSON object the prompt asks for."""
    keywords = (f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in call.arguments.items())
    return f"[{call.name}({', '.join(keywords)})]"


def mixed_reply(task: Task, index: int) -> dict[str, Any]:
    gold = task.gold
    if task.id in QUOTA_TASKS:
        return {"error": "quota_exhausted"}
    if task.category == "resource_key" and index % 3 == 0:
        return {"text": as_text(ToolCall(gold.name, {**gold.arguments, "resource": "indicators"}))}
    if task.category == "routing_broad" and index == 1:
        return {"text": MARKUP}
    if task.category == "routing_broad" and index % 4 == 0:
        return {"text": "Dazu kann ich leider nichts sagen."}
    if task.category == "routing_named" and index % 3 == 2:
        return {"text": as_pythonic(gold)}
    return {"text": as_text(gold)}


def write_script(path: Path, reply: Any) -> None:
    seen: dict[str, int] = {}
    lines = []
    for task in SUITE.tasks:
        index = seen.get(task.category, 0)
        seen[task.category] = index + 1
        lines.append(json.dumps({"task_id": task.id, **reply(task, index)}, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def fake_run(folder: Path, model: str, reply: Any) -> None:
    script = folder.parent / f"{model}.jsonl"
    write_script(script, reply)
    argv = ["run", "--backend", "fake", "--model", model, "--script", str(script)]
    code = cli([*argv, "--max-retries", "0", "--output", str(folder / f"{model}.json")])
    assert code in (0, 3)  # 3: incomplete (the quota errors)


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    folder = root / "results"
    folder.mkdir()
    fake_run(folder, "gold", lambda task, _: {"text": as_text(task.gold)})
    fake_run(folder, "mixed", mixed_reply)
    episodes_results(folder)
    scenario_results(folder)
    argv = ["report", str(folder), "--compare", "gold", "mixed"]
    added = added_results()
    for path in added:
        shutil.copy(path, folder / path.name)
    if len(added) >= 2:
        argv += ["--compare", added[0].stem, added[1].stem]
    assert cli(argv) == 0
    return folder


def added_results() -> list[Path]:
    extra = os.environ.get("TOOLEVAL_BROWSER_RESULTS")
    return sorted(Path(extra).glob("*.json")) if extra else []


@pytest.fixture(scope="module")
def screenshot_page(
    report_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str, str, str]:
    """(folder, run, a, b): a report of only the added results when given, else the test's."""
    added = added_results()
    if len(added) < 2:
        return report_dir, "mixed", "gold", "mixed"
    folder = tmp_path_factory.mktemp("docs")
    for path in added:
        shutil.copy(path, folder / path.name)
    assert cli(["report", str(folder), "--compare", added[0].stem, added[1].stem]) == 0
    return folder, added[0].stem, added[0].stem, added[1].stem


def load_report_runs(folder: Path) -> dict[str, list[dict[str, Any]]]:
    return {
        name: items(folder / f"{name}.json")
        for name in ("gold", "mixed", EPISODES_RUN, SCENARIOS_RUN)
    }


# --- the browser ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--force-device-scale-factor=1",
        f"--user-data-dir={profile}",
        f"--window-size={WIDTH},{HEIGHT}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=str(CHROMEDRIVER), log_output=subprocess.DEVNULL)
    driver = webdriver.Chrome(service=service, options=options)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd(
            "Network.emulateNetworkConditions",
            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )
        yield driver
    finally:
        driver.quit()


def open_page(driver: WebDriver, folder: Path, fragment: str = "") -> None:
    driver.get("about:blank")
    driver.get((folder / "report.html").as_uri() + fragment)
    assert driver.find_element(By.CSS_SELECTOR, "#explorer-app .x-results")


def visible_rows(driver: WebDriver) -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, "#explorer-app tr.x-row")


def row_cells(driver: WebDriver) -> list[list[str]]:
    script = (
        "return [...document.querySelectorAll('#explorer-app tr.x-row')]"
        ".map(tr => [...tr.cells].map(td => td.textContent));"
    )
    cells: list[list[str]] = driver.execute_script(script)
    return cells


def choose(driver: WebDriver, key: str, value: str) -> None:
    node = driver.find_element(
        By.CSS_SELECTOR, f"#explorer-app .x-controls:not([hidden]) select[data-key={key}]"
    )
    Select(node).select_by_value(value)


def hash_state(driver: WebDriver) -> dict[str, str]:
    state: dict[str, str] = driver.execute_script(
        "return Object.fromEntries(new URLSearchParams(location.hash.slice(1)));"
    )
    return state


# --- tests ----------------------------------------------------------------------------------


def test_page_opens_offline_and_runs_without_errors(browser: WebDriver, report_dir: Path) -> None:
    browser.get_log("browser")  # drop earlier messages
    open_page(browser, report_dir)
    items = sum(len(v) for v in load_report_runs(report_dir).values())
    assert len(visible_rows(browser)) >= items  # every item of every run (plus added runs)
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []  # no script error, no CSP violation, no failed request
    requested = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
        ".filter(n => !n.startsWith('data:'));"
    )
    assert requested == []
    assert browser.execute_script("return navigator.onLine;") is False  # it really was offline


def test_filters_change_the_visible_rows(browser: WebDriver, report_dir: Path) -> None:
    runs = load_report_runs(report_dir)
    open_page(browser, report_dir)
    choose(browser, "run", "mixed")
    assert len(visible_rows(browser)) == 91
    assert {cells[0] for cells in row_cells(browser)} == {"mixed"}
    choose(browser, "cat", "resource_key")
    assert len(visible_rows(browser)) == 24
    choose(browser, "val", "0")
    misses = [
        i
        for i in runs["mixed"]
        if i["category"] == "resource_key" and (i["score"] is None or not i["score"]["call_match"])
    ]
    assert len(visible_rows(browser)) == len(misses) > 0
    choose(browser, "cat", "")
    choose(browser, "val", "")
    choose(browser, "err", "quota_exhausted")
    assert sorted(c[1] for c in row_cells(browser)) == sorted(QUOTA_TASKS)
    assert hash_state(browser) == {"run": "mixed", "err": "quota_exhausted"}  # shareable
    choose(browser, "err", "")
    header = browser.find_element(By.CSS_SELECTOR, "#explorer-app th[data-sort=id]")
    header.click()
    header = browser.find_element(By.CSS_SELECTOR, "#explorer-app th[data-sort=id]")
    header.click()  # a second click sorts descending
    ids = [c[1] for c in row_cells(browser)]
    assert ids == sorted(ids, reverse=True) and len(ids) == 91
    assert hash_state(browser) == {"run": "mixed", "sort": "id", "dir": "desc"}
    search = browser.find_element(By.CSS_SELECTOR, ".x-controls:not([hidden]) input[data-key=q]")
    search.send_keys("leider nichts")  # text of the prose answers, found in the outputs
    wait_for(browser, lambda: len(visible_rows(browser)) == 3)
    assert {c[1] for c in row_cells(browser)} == {
        "routing_broad-001",
        "routing_broad-005",
        "routing_broad-009",
    }


def wait_for(driver: WebDriver, condition: Any) -> None:
    WebDriverWait(driver, 10, poll_frequency=0.1).until(lambda _: condition())


def test_summary_links_open_the_items_behind_each_number(
    browser: WebDriver, report_dir: Path
) -> None:
    document = json.loads((report_dir / "mixed.json").read_text(encoding="utf-8"))
    shown = f"{100 * document['metrics']['call_match_resource_key']:.1f}"
    open_page(browser, report_dir)
    link = browser.find_element(
        By.CSS_SELECTOR, 'a[href="#run=mixed&metric=call_match&cat=resource_key"]'
    )
    assert link.text == shown  # call_match_resource_key of the mixed run
    link.click()
    wait_for(browser, lambda: len(row_cells(browser)) == 24)  # the hash change renders async
    cells = row_cells(browser)
    assert len(cells) == 24 and {(c[0], c[2]) for c in cells} == {("mixed", "resource_key")}
    hits = sum(1 for c in cells if c[4] == "✓")
    assert f"{100 * hits / 24:.1f}" == shown  # the number is the share of these rows
    errors = browser.find_element(By.CSS_SELECTOR, 'a[href="#run=mixed&err=quota_exhausted"]')
    errors.click()
    wait_for(browser, lambda: len(row_cells(browser)) == len(QUOTA_TASKS))
    assert sorted(c[1] for c in row_cells(browser)) == sorted(QUOTA_TASKS)


def test_comparison_links_open_both_outputs_side_by_side(
    browser: WebDriver, report_dir: Path
) -> None:
    runs = load_report_runs(report_dir)
    gold = {(i["task_id"], i["repeat"]): i for i in runs["gold"]}
    only_gold = [
        i["task_id"]
        for i in runs["mixed"]
        if i["score"] is not None
        and not i["score"]["call_match"]
        and gold[(i["task_id"], i["repeat"])]["score"]["call_match"]
    ]
    open_page(browser, report_dir)
    link = browser.find_element(
        By.CSS_SELECTOR, 'a[href="#view=compare&a=gold&b=mixed&metric=call_match&only=a"]'
    )
    assert link.text == str(len(only_gold))
    link.click()
    pairs = ".x-pair"
    wait_for(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, pairs)) == len(only_gold))
    cards = browser.find_elements(By.CSS_SELECTOR, pairs)
    assert sorted(c.get_attribute("data-item") or "" for c in cards) == sorted(only_gold)
    first = cards[0].find_elements(By.CSS_SELECTOR, ".x-side")
    assert len(first) == 2 and "gold" in first[0].text and "mixed" in first[1].text
    assert first[0].find_element(By.CSS_SELECTOR, "pre.x-raw").text  # both raw outputs shown
    assert first[1].find_element(By.CSS_SELECTOR, "pre.x-raw").text
    open_page(browser, report_dir)
    both = browser.find_element(
        By.CSS_SELECTOR, 'a[href="#view=compare&a=gold&b=mixed&metric=call_match&only=all"]'
    )
    assert both.text == "88"  # 91 items, 3 lost to the quota in the mixed run
    both.click()
    wait_for(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, pairs)) == 88)


def expand(driver: WebDriver, task_id: str, run: str) -> WebElement:
    for row in visible_rows(driver):
        cells = row.find_elements(By.TAG_NAME, "td")
        if cells[0].text == run and cells[1].text == task_id:
            row.click()
            detail: WebElement = row.find_element(By.XPATH, "following-sibling::tr[1]")
            return detail
    raise AssertionError(f"no row {run}/{task_id}")


def test_script_in_a_model_output_stays_text(browser: WebDriver, report_dir: Path) -> None:
    open_page(browser, report_dir, "#run=mixed&q=pwned")
    assert len(visible_rows(browser)) == 1
    detail = expand(browser, "routing_broad-002", "mixed")
    raw = detail.find_element(By.CSS_SELECTOR, "pre.x-raw")
    assert raw.get_attribute("textContent") == MARKUP  # shown verbatim, as text
    assert browser.title == "tooleval report"
    assert browser.execute_script("return window.pwned;") is None
    assert detail.find_elements(By.TAG_NAME, "img") == []
    assert detail.find_elements(By.TAG_NAME, "b") == []
    assert len(browser.find_elements(By.TAG_NAME, "script")) == 2  # data block and our script


def test_expanded_row_highlights_the_differing_argument(
    browser: WebDriver, report_dir: Path
) -> None:
    open_page(browser, report_dir, "#run=mixed&cat=resource_key&val=0")
    task_id = row_cells(browser)[0][1]
    detail = expand(browser, task_id, "mixed")
    gold = SUITE.tasks[[t.id for t in SUITE.tasks].index(task_id)].gold
    differing = detail.find_elements(By.CSS_SELECTOR, ".x-args tr.x-diff")
    assert [d.find_element(By.TAG_NAME, "th").text for d in differing] == ["resource"]
    assert json.dumps(gold.arguments["resource"]) in differing[0].text  # the gold value beside
    assert '"indicators"' in differing[0].text
    assert "read by extractor" in detail.text
    assert detail.find_element(By.CSS_SELECTOR, ".x-gold").text.startswith(gold.name)


def column(driver: WebDriver, key: str) -> int:
    keys: list[str] = driver.execute_script(
        "return [...document.querySelectorAll('#explorer-app th')].map(th => th.dataset.sort);"
    )
    return keys.index(key)


def test_format_column_tells_a_right_call_in_another_dialect(
    browser: WebDriver, report_dir: Path
) -> None:
    """A pythonic answer is a hit for call_match and a miss for format_ok, side by side."""
    recorded = [
        i for i in load_report_runs(report_dir)["mixed"] if i["category"] == "routing_named"
    ]
    pythonic = sorted(i["task_id"] for i in recorded if i["parsed"]["extractor"] == "pythonic")
    assert len(pythonic) == 4
    open_page(browser, report_dir, "#run=mixed&cat=routing_named&metric=format_ok&val=0")
    format_ok, call_match = column(browser, "format_ok"), column(browser, "call_match")
    cells = row_cells(browser)
    assert sorted(c[1] for c in cells) == pythonic  # every other answer was the JSON asked for
    assert {(c[call_match], c[format_ok]) for c in cells} == {("✓", "✗")}
    detail = expand(browser, pythonic[0], "mixed")
    assert "format_ok no" in detail.text and "read by extractor pythonic" in detail.text


def test_an_episode_row_expands_to_the_whole_conversation(
    browser: WebDriver, report_dir: Path
) -> None:
    recorded = {i["task_id"]: i for i in items(report_dir / f"{EPISODES_RUN}.json")}
    item = recorded["resource_key-001"]
    open_page(browser, report_dir, f"#run={EPISODES_RUN}&cat=resource_key")
    detail = expand(browser, "resource_key-001", EPISODES_RUN)
    messages = detail.find_elements(By.CSS_SELECTOR, ".x-msg")
    roles = [
        m.find_element(By.CSS_SELECTOR, ".x-role").get_attribute("textContent") for m in messages
    ]
    expected = [
        " · ".join(p for p in (m["role"], m.get("name"), m.get("tool_call_id")) if p)
        for m in item["transcript"]
    ]
    assert roles == expected  # system, user, assistant, tool, assistant, tool, assistant
    tool_result = item["transcript"][3]["content"]
    assert tool_result[:200] in (messages[3].get_attribute("textContent") or "")
    assert EPISODE_MARKUP in detail.text  # the final answer, as text
    assert browser.execute_script("return window.pwned;") is None
    assert detail.find_elements(By.TAG_NAME, "img") == []
    assert f"outcome {item['outcome']} · ending answered" in detail.text
    executed = detail.find_elements(By.CSS_SELECTOR, "table.x-exec tr")
    assert len(executed) == 1 + len(item["calls"])
    differing = detail.find_elements(By.CSS_SELECTOR, ".x-args tr.x-diff th")
    assert [d.text for d in differing] == ["resource"]  # the first call against the gold call
    check = detail.find_element(By.CSS_SELECTOR, "table.x-checks")  # the final-answer check
    for claim in item["score"]["claims"]:
        assert claim["text"] in check.text and claim["verdict"] in check.text
    bad = {e.text for e in check.find_elements(By.CSS_SELECTOR, ".bad")}
    assert bad == {c["verdict"] for c in item["score"]["claims"]} - {"supported", "neutral"}
    open_page(browser, report_dir, f"#run={EPISODES_RUN}&end=max_rounds")
    (only,) = row_cells(browser)
    assert only[1] == "two_step-001" and only[column(browser, "cls")] == "incomplete"


def test_a_scenario_row_shows_the_checks_and_call_kinds(
    browser: WebDriver, report_dir: Path
) -> None:
    open_page(browser, report_dir, f"#run={SCENARIOS_RUN}")
    detail = expand(browser, "layer-basemap-en", SCENARIOS_RUN)
    checks = detail.find_element(By.CSS_SELECTOR, "table.x-checks")
    assert "setBasemap" in checks.text and "value_mismatch" in checks.text
    problems = detail.find_element(By.CSS_SELECTOR, ".x-problems").text
    assert problems.startswith("value_mismatch: step 1 (setBasemap)")
    assert "outcome value_mismatch" in detail.text
    assert 'setBasemap {"basemap":"dark"}' in detail.find_element(By.CSS_SELECTOR, ".x-exec").text
    detail = expand(browser, "view-instant-en", SCENARIOS_RUN)
    calls = detail.find_element(By.CSS_SELECTOR, "table.x-exec").text
    assert "teleport" in calls and "hallucinated" in calls and "not_offered" in calls
    assert "missing" in detail.find_element(By.CSS_SELECTOR, "table.x-checks").text


def multi_turn_links(driver: WebDriver) -> list[tuple[str, str]]:
    links: list[tuple[str, str]] = driver.execute_script(
        "const h = [...document.querySelectorAll('h2')].find(e => e.textContent === "
        "'Multi-turn runs');"
        "let t = h.nextElementSibling; while (t.tagName !== 'TABLE') t = t.nextElementSibling;"
        "return [...t.querySelectorAll('a')].map(a => [a.textContent, a.getAttribute('href')]);"
    )
    return links


def test_every_number_of_the_multi_turn_table_opens_its_conversations(
    browser: WebDriver, report_dir: Path
) -> None:
    """Each count opens exactly that many conversations; success is the share of them."""
    open_page(browser, report_dir)
    links = multi_turn_links(browser)
    assert len(links) >= 16
    checked = 0
    for text, href in links:
        open_page(browser, report_dir, href)
        cells = row_cells(browser)
        counted = re.fullmatch(r"(?:[a-z_]+ )?(\d+)", text)
        if counted:
            assert len(cells) == int(counted.group(1)), (text, href)
            checked += 1
        elif "metric=success" in href:  # the headline, over the scored conversations
            index = column(browser, "success")
            share = sum(1 for c in cells if c[index] == "✓") / len(cells)
            assert text.startswith(f"{100 * share:.1f} ["), (text, href)
            checked += 1
        elif "metric=passed" in href:  # the original's rule, over every conversation
            index = column(browser, "passed")
            share = sum(1 for c in cells if c[index] == "✓") / len(cells)
            assert text == f"scenarioPassRate {100 * share:.1f}", (text, href)
            checked += 1
        else:  # model or setup: the run's conversations
            planned = len(items(report_dir / f"{dict(hash_state(browser))['run']}.json"))
            assert len(cells) == planned
    assert checked >= 12


def no_horizontal_scroll(driver: WebDriver) -> bool:
    fits: bool = driver.execute_script(
        "return document.documentElement.scrollWidth <= window.innerWidth;"
    )
    return fits


def test_page_fits_1280_pixels_light_and_dark(browser: WebDriver, report_dir: Path) -> None:
    assert browser.execute_script("return window.innerWidth;") <= WIDTH
    open_page(browser, report_dir, "#run=mixed&cat=resource_key&val=0")
    assert no_horizontal_scroll(browser)
    expand(browser, row_cells(browser)[0][1], "mixed")
    assert no_horizontal_scroll(browser)
    open_page(browser, report_dir, f"#run={EPISODES_RUN}&cat=resource_key")
    expand(browser, "resource_key-001", EPISODES_RUN)
    assert no_horizontal_scroll(browser)
    open_page(browser, report_dir, "#view=compare&a=gold&b=mixed")
    assert no_horizontal_scroll(browser)
    background = "return getComputedStyle(document.body).backgroundColor;"
    assert browser.execute_script(background) == "rgb(255, 255, 255)"
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
    )
    try:
        assert browser.execute_script(background) == "rgb(23, 23, 26)"
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_screenshots_for_the_docs(
    browser: WebDriver,
    screenshot_page: tuple[Path, str, str, str],
    report_dir: Path,
    tmp_path: Path,
) -> None:
    """The summary, the explorer and the side-by-side view of the page the docs show, and a
    conversation of the scripted episodes run (always part of this test's report)."""
    target = Path(os.environ.get("TOOLEVAL_BROWSER_SCREENSHOTS") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    page_dir, run, a, b = screenshot_page
    shots = {}
    open_page(browser, page_dir)
    browser.execute_script("window.scrollTo(0, 0);")
    shots["report-summary.png"] = browser.get_screenshot_as_png()
    open_page(browser, page_dir, f"#run={run}&cat=resource_key&val=0")
    expand(browser, row_cells(browser)[0][1], run)
    browser.execute_script("document.getElementById('explorer').scrollIntoView();")
    shots["report-explorer.png"] = browser.get_screenshot_as_png()
    open_page(browser, page_dir, f"#view=compare&a={a}&b={b}")
    assert browser.find_elements(By.CSS_SELECTOR, ".x-pair")
    shots["report-compare.png"] = browser.get_screenshot_as_png()
    open_page(browser, report_dir, f"#run={EPISODES_RUN}&cat=resource_key")
    expand(browser, "resource_key-001", EPISODES_RUN)
    browser.execute_script("document.getElementById('explorer').scrollIntoView();")
    shots["report-conversation.png"] = browser.get_screenshot_as_png()
    for name, data in shots.items():
        width, height = png_size(data)
        assert width == WIDTH and height > 800
        (target / name).write_bytes(data)
