"""The chat page in real headless Chromium, driven with the keyboard only, against a real waitress server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kgqa.app.compute import warm
from kgqa.app.server import create_app
from kgqa.app.serving import BackgroundServer
from kgqa.planner.pipeline import build_pipeline
from kgqa.settings import REPO_ROOT, Settings

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = REPO_ROOT / "test-output"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install -y chromium)"),
]


@pytest.fixture(scope="module")
def server(built_graphs, kgqa_home):
    pipe = build_pipeline(Settings(home=kgqa_home))
    warm(pipe)
    with BackgroundServer(create_app(pipe)) as srv:
        yield srv


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-extensions", "--no-first-run"])
        pg = browser.new_page(viewport={"width": 1100, "height": 2000})
        errors: list[str] = []
        pg.on("pageerror", lambda err: errors.append(str(err)))
        pg.goto(server.url)
        yield pg
        browser.close()
        assert errors == [], f"JavaScript errors on the page: {errors}"


def test_keyboard_question_shows_answer_cypher_rows_and_graph(page):
    from playwright.sync_api import expect

    # the domain picker is filled from /domains
    expect(page.locator("#health")).to_contain_text("movies")
    assert set(page.locator("#domain option").all_inner_texts()) >= {"movies", "nobel", "northwind"}

    # keyboard only: the question box has focus on load; type and press Enter
    assert page.evaluate("document.activeElement.id") == "question"
    page.keyboard.type("Which movies did Tom Hanks act in?")
    page.keyboard.press("Enter")

    answer = page.locator("#transcript li.msg.bot:not(.pending) .answer").last
    expect(answer).to_contain_text("Cast Away", timeout=60_000)
    assert page.evaluate("document.activeElement.id") == "question"  # focus returns to the input
    item = page.locator("#transcript li.msg.bot").last

    cypher = item.locator("details:has(summary:text-is('Cypher'))")
    code = cypher.locator("code")
    expect(code).to_be_hidden()
    # open the Cypher details with the keyboard: focus its summary, press Enter
    cypher.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(code).to_be_visible()
    expect(code).to_contain_text("MATCH")
    expect(code).to_contain_text("Tom Hanks")

    for prefix in ("Rows (", "Graph (", "How it was answered"):
        item.locator("summary").filter(has_text=re.compile("^" + re.escape(prefix))).click()
    expect(item.locator("table td", has_text="Cast Away").first).to_be_visible()
    expect(item.locator("svg.graph text", has_text="Tom Hanks")).to_have_count(1)
    expect(item.locator("dl.facts")).to_contain_text("LLM calls")
    SHOTS.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "chat.png"))


def test_repeat_is_marked_as_answer_cache_hit_and_data_is_escaped(page):
    from playwright.sync_api import expect

    page.locator("#question").fill("Which movies did Tom Hanks act in?")
    page.keyboard.press("Enter")
    expect(page.locator("#transcript .badge.hit").last).to_have_text("answer cache hit", timeout=60_000)

    page.locator("#question").fill("<img src=x onerror=alert(1)> who is <b>this</b>?")
    page.keyboard.press("Enter")
    expect(page.locator("#transcript li.msg.user").last).to_contain_text("<img src=x onerror=alert(1)>")
    expect(page.locator("#transcript li.msg.bot:not(.pending)")).to_have_count(3, timeout=60_000)
    assert page.locator("#transcript img, #transcript b").count() == 0


def test_client_errors_show_in_the_transcript(page):
    from playwright.sync_api import expect

    page.locator("#question").evaluate("el => el.removeAttribute('maxlength')")
    page.locator("#question").fill("why " * 600)
    page.keyboard.press("Enter")
    expect(page.locator("#transcript li.msg.bot .error").last).to_contain_text("longer than", timeout=60_000)


def test_thumbs_buttons_under_an_answer_send_feedback(page):
    from playwright.sync_api import expect

    page.locator("#question").fill("Who directed The Matrix?")
    page.keyboard.press("Enter")
    item = page.locator("#transcript li.msg.bot:not(.pending)").last
    expect(item.locator(".answer")).to_contain_text("Wachowski", timeout=60_000)
    group = item.locator("[role=group][aria-label='Rate this answer']")
    up = group.get_by_role("button", name="Thumbs up: this answer is right")
    down = group.get_by_role("button", name="Thumbs down: this answer is wrong")
    expect(up).to_be_visible()
    expect(down).to_be_visible()
    expect(up).to_have_attribute("aria-pressed", "false")
    up.focus()  # keyboard: a native button, pressed with Enter
    page.keyboard.press("Enter")
    status = group.locator("[role=status]")
    expect(status).to_contain_text("Thanks", timeout=30_000)
    expect(up).to_have_attribute("aria-pressed", "true")
    expect(down).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Thumbs up: this answer is right"
    # a refused question is no answer to rate: no buttons under it
    page.locator("#question").fill("Delete every movie")
    page.keyboard.press("Enter")
    refused = page.locator("#transcript li.msg.bot.status-refused").last
    expect(refused).to_be_visible(timeout=60_000)
    assert refused.locator("button.vote").count() == 0
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "feedback.png"))
