"""``ragmon review serve`` in a real browser: log in, filter, read a case, label, promote; and its guards.

The server runs as a subprocess on a free loopback port over a SQLite store filled by ``ragmon replay``
of the bundled sample (with the BanHang golden set, so numeric_out_of_source and golden matches are
real), plus one case whose answer holds markup. Headless Debian chromium is driven through selenium
and chromedriver; the CSRF, login and escaping guards are also checked with plain httpx requests.
Set ``RAGMON_SCREENSHOTS=DIR`` to keep screenshots of the queue and a case (docs/img/ comes from it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from monitor.review import open_store
from tests.support.banhang import GOLDEN, POLICY
from tests.support.daemon import ragmon_executable
from tests.support.kafka import free_port

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

TOKEN = "web-test-token-7d1f0c"  # noqa: S105 - a test secret
REVIEWER = "Lan Nguyen"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
WAIT_S = 15
NEW_INDEX = "kb-2026-09-25-chunk800"
XSS_ID = "xss-001"
XSS_ANSWER = (
    "<script>alert('pwned'); document.title = 'pwned';</script>"
    "<img src=x onerror=\"document.title='pwned'\"> Hoàn tiền trong 9 ngày."
)


@dataclass
class Served:
    url: str
    store: str
    golden: Path
    proc: subprocess.Popen[str]
    out: Path


def _seed(tmp: Path) -> str:
    store = str(tmp / "review.db")
    replay = [
        ragmon_executable(),
        "replay",
        "sample",
        "--store",
        store,
        "--golden",
        str(GOLDEN),
        "--golden-sections",
        str(POLICY),
        "--dlq",
        str(tmp / "dlq.jsonl"),
    ]
    subprocess.run(replay, check=True, capture_output=True, timeout=120, cwd=tmp)
    trace = {
        "trace_id": XSS_ID,
        "question": "Hoàn tiền <b>mấy</b> ngày?",
        "answer": XSS_ANSWER,
        "retrieved_chunks": [
            {
                "chunk_id": "c09",
                "sections": ["DT-4"],
                "retrieval_score": 0.7,
                "text": "Hoàn tiền trong 5 ngày.",
            }
        ],
        "index_version": NEW_INDEX,
    }
    result = {
        "trace_id": XSS_ID,
        "flags": [{"reason": "numeric_unsupported", "detail": "answer says 9 ngày", "severity": "critical"}],
    }
    with open_store(store) as opened:
        opened.upsert_case(trace, result, ["numeric_unsupported"])
    return store


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The server on a free loopback port over a seeded store, ended by its pid with SIGTERM."""
    tmp = tmp_path_factory.mktemp("web")
    store = _seed(tmp)
    golden = tmp / "golden.json"
    shutil.copy(GOLDEN, golden)
    out = tmp / "serve.log"
    port = free_port()
    command = [ragmon_executable(), "review", "serve", "--store", store, "--port", str(port)]
    env = {**os.environ, "RAGMON_REVIEW_TOKEN": TOKEN}
    with out.open("w") as log:
        proc = subprocess.Popen(
            [*command, "--golden", str(golden)], stdout=subprocess.PIPE, stderr=log, text=True, env=env
        )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # printed once it listens: waiting on it needs no polling
    assert "listening on" in line, out.read_text()
    try:
        yield Served(f"http://127.0.0.1:{port}", store, golden, proc, out)
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)
        proc.stdout.close()
        assert code == 0, out.read_text()


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """Headless Debian chromium through chromedriver (no driver download: both paths are given)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver: WebDriver) -> WebDriverWait[WebDriver]:
    return WebDriverWait(driver, WAIT_S)


def _login(driver: WebDriver, served: Served, target: str) -> None:
    driver.delete_all_cookies()
    driver.get(served.url + target)
    _wait(driver).until(ec.presence_of_element_located((By.ID, "login-form")))
    driver.find_element(By.ID, "reviewer-name").send_keys(REVIEWER)
    driver.find_element(By.ID, "token").send_keys(TOKEN)
    driver.find_element(By.ID, "login").click()
    _wait(driver).until(ec.text_to_be_present_in_element((By.ID, "reviewer"), REVIEWER))


def _rows(driver: WebDriver) -> list[str]:
    return [
        row.get_attribute("data-trace") or ""
        for row in driver.find_elements(By.CSS_SELECTOR, "#queue tr[data-trace]")
    ]


def _screenshot(driver: WebDriver, name: str) -> None:
    where = os.environ.get("RAGMON_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        driver.set_window_size(1280, int(driver.execute_script("return document.body.scrollHeight")) + 40)
        driver.save_screenshot(str(Path(where) / name))
        driver.set_window_size(1280, 1000)


def test_a_runbook_link_opens_the_filtered_queue_after_login(browser: WebDriver, served: Served) -> None:
    """The alert's link survives the login page; the queue shows only that reason and index, newest first."""
    _login(browser, served, f"/cases?reason=numeric_unsupported&index_version={NEW_INDEX}")
    query = parse_qs(urlsplit(browser.current_url).query)
    assert query == {"reason": ["numeric_unsupported"], "index_version": [NEW_INDEX]}
    assert _rows(browser) == [XSS_ID, "sample-004"]  # the markup case was stored last: newest first
    counts = {
        a.get_attribute("data-reason"): a.find_element(By.XPATH, "following-sibling::span").text
        for a in browser.find_elements(By.CSS_SELECTOR, "#reason-counts a")
    }
    assert counts["numeric_unsupported"] == "2" and counts["numeric_out_of_source"] == "2"
    _screenshot(browser, "review-queue.png")
    if os.environ.get("RAGMON_SCREENSHOTS"):  # seed 000's "30 ngày": stated by a chunk, outside DT-1
        browser.get(served.url + "/cases/sample-002")
        _screenshot(browser, "review-case.png")


def test_filtering_with_the_form_changes_the_url_and_the_rows(browser: WebDriver, served: Served) -> None:
    """Choosing a reason and a severity in the form gives a linkable URL holding exactly those filters."""
    _login(browser, served, "/cases")
    everything = _rows(browser)
    assert len(everything) > 5
    Select(browser.find_element(By.ID, "f-reason")).select_by_value("numeric_out_of_source")
    Select(browser.find_element(By.ID, "f-severity")).select_by_value("critical")
    browser.find_element(By.ID, "apply").click()
    _wait(browser).until(ec.url_contains("reason=numeric_out_of_source"))
    assert parse_qs(urlsplit(browser.current_url).query)["severity"] == ["critical"]
    assert sorted(_rows(browser)) == ["sample-002", "sample-004"]
    assert "2 cases" in browser.find_element(By.ID, "summary").text


def test_pages_hold_the_queue_newest_first(browser: WebDriver, served: Served) -> None:
    """Two cases a page: following "older" walks the whole queue once, in the order of the store."""
    _login(browser, served, "/cases?per_page=2")
    seen = _rows(browser)
    page = 1
    while browser.find_elements(By.ID, "next"):
        browser.find_element(By.ID, "next").click()
        page += 1
        _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "pages"), f"page {page} of"))
        seen += _rows(browser)
    with open_store(served.store, create=False) as store:
        assert seen == [case.trace_id for case in store.list_cases()]
    assert len(seen) == len(set(seen)) > 4


def test_a_case_shows_the_unsupported_number_then_is_labelled_and_promoted(
    browser: WebDriver, served: Served
) -> None:
    """sample-010: "3 ngày" is marked unsupported; the label and the promoted entry land where they belong."""
    _login(browser, served, "/cases?reason=numeric_unsupported")
    browser.find_element(By.CSS_SELECTOR, "#queue tr[data-trace='sample-010'] a.trace").click()
    _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "trace-id"), "sample-010"))
    marked = browser.find_elements(By.CSS_SELECTOR, "#answer mark.num")
    assert [(m.text, m.get_attribute("data-kind")) for m in marked] == [("3 ngày", "unsupported")]
    assert "no retrieved chunk" in (marked[0].get_attribute("title") or "")
    assert marked[0].value_of_css_property("font-weight") == "700"  # the stylesheet loaded
    sections = [el.text for el in browser.find_elements(By.CSS_SELECTOR, "#chunks .sections code")]
    assert "VC-1" in sections

    browser.find_element(By.ID, "verdict-bad").click()
    browser.find_element(By.ID, "expected-answer").send_keys("Đơn ngoại thành được giao trong 4 ngày.")
    browser.find_element(By.ID, "sections").send_keys("VC-1")
    browser.find_element(By.ID, "note").send_keys("seen from the browser")
    browser.find_element(By.ID, "save-label").click()
    _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "notice"), "Label saved"))
    assert browser.find_element(By.ID, "status").text == "confirmed"
    with open_store(served.store, create=False) as store:
        label = store.require("sample-010").label
    assert label is not None and label.reviewer == REVIEWER and label.sections == ("VC-1",)

    browser.find_element(By.ID, "source").send_keys("su-co-web-1")
    browser.find_element(By.ID, "promote").click()
    _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "notice"), "Promoted"))
    assert "su-co-web-1" in browser.find_element(By.ID, "promotion").text
    assert not browser.find_elements(By.ID, "promote-form")  # a promoted case cannot be promoted again

    golden = json.loads(served.golden.read_text(encoding="utf-8"))
    assert golden["version"] == 2  # seed 000's bare array was version 1
    entry = next(e for e in golden["entries"] if e.get("trace_id") == "sample-010")
    assert entry["reference_answer"] == "Đơn ngoại thành được giao trong 4 ngày."
    assert entry["expected_sections"] == ["VC-1"] and entry["source"] == "su-co-web-1"
    assert entry["question"] == "Giao hàng ngoại thành mất bao lâu?"


def test_a_paraphrase_is_promoted_as_a_variant_of_its_golden_entry(
    browser: WebDriver, served: Served
) -> None:
    """sample-004 asks golden q03's question in other words: labelled, it becomes one of q03's variants."""
    version = json.loads(served.golden.read_text(encoding="utf-8")).get("version", 1)
    _login(browser, served, "/cases/sample-004")
    browser.find_element(By.ID, "verdict-bad").click()
    browser.find_element(By.ID, "save-label").click()
    _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "notice"), "Label saved"))
    Select(browser.find_element(By.ID, "as-variant")).select_by_value("q03")
    browser.find_element(By.ID, "promote").click()
    _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "notice"), "Promoted"))
    golden = json.loads(served.golden.read_text(encoding="utf-8"))
    q03 = next(e for e in golden["entries"] if e["id"] == "q03")
    assert golden["version"] == version + 1
    assert q03["variants"] == ["Trả hàng rồi bao lâu thì nhận lại tiền vậy shop?"]
    assert q03["variant_trace_ids"] == ["sample-004"]
    assert not any(e.get("trace_id") == "sample-004" for e in golden["entries"])


def test_promotion_without_an_expected_answer_is_refused_as_in_the_cli(
    browser: WebDriver, served: Served
) -> None:
    """An unlabelled case is not promoted: the page says why and the golden file is untouched."""
    before = served.golden.read_bytes()
    _login(browser, served, "/cases/sample-016")
    browser.find_element(By.ID, "promote").click()
    _wait(browser).until(ec.presence_of_element_located((By.ID, "error")))
    assert "no human-confirmed expected answer" in browser.find_element(By.ID, "error").text
    assert served.golden.read_bytes() == before


def test_a_misread_condition_is_muted_from_the_case_page(browser: WebDriver, served: Served) -> None:
    """sample-017's warning ("14 days" bound to "if they are unused") is muted from the page: the store
    holds the mute with the reviewer and note, as `ragmon review mute` would."""
    _login(browser, served, "/cases/sample-017")
    rows = browser.find_elements(By.CSS_SELECTOR, "#conditional-findings tbody tr")
    assert [r.text for r in rows] == ["14 days if they are unused warning"]
    browser.find_element(By.ID, "mute-note").send_keys("the 14 days hold for every unused voucher")
    browser.find_element(By.ID, "mute").click()
    _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "notice"), "Muted"))
    with open_store(served.store, create=False) as store:
        mutes = store.mutes()
    assert [(m.mute.unit, m.trace_id, m.reviewer, m.note) for m in mutes] == [
        ("day", "sample-017", REVIEWER, "the 14 days hold for every unused voucher")
    ]
    _login(browser, served, "/cases/sample-010")  # no conditional finding: no mute form
    assert not browser.find_elements(By.ID, "mute-form")


def test_markup_in_an_answer_is_shown_as_text_and_never_runs(browser: WebDriver, served: Served) -> None:
    """A stored answer's <script> and onerror handler are text on the page: no alert, no title change."""
    _login(browser, served, f"/cases/{XSS_ID}")
    _wait(browser).until(ec.text_to_be_present_in_element((By.ID, "trace-id"), XSS_ID))
    answer = browser.find_element(By.ID, "answer")
    assert "<script>alert('pwned'); document.title = 'pwned';</script>" in answer.text
    assert "<img src=x onerror=\"document.title='pwned'\">" in answer.text
    assert not answer.find_elements(By.CSS_SELECTOR, "script, img")
    assert "pwned" not in browser.title
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018 - reading it is the check
    assert [m.text for m in answer.find_elements(By.CSS_SELECTOR, "mark.num.unsupported")] == ["9 ngày"]
    browser.get(served.url + "/cases?reason=numeric_unsupported")
    row = browser.find_element(By.CSS_SELECTOR, f"#queue tr[data-trace='{XSS_ID}'] td.question")
    assert row.text == "Hoàn tiền <b>mấy</b> ngày?" and not row.find_elements(By.TAG_NAME, "b")


# --- the same guards, request by request ----------------------------------------------------------


def _csrf(html: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match is not None
    return match.group(1)


@contextmanager
def _logged_in(served: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, timeout=10) as client:
        page = client.get("/login")
        form = {"csrf": _csrf(page.text), "token": TOKEN, "reviewer": "Minh", "next": "/cases"}
        done = client.post("/login", data=form)
        assert done.status_code == 303 and done.headers["location"] == "/cases"
        yield client


@pytest.mark.parametrize(
    "path", ["/cases", "/cases/sample-010", "/agreement", f"/cases?index_version={NEW_INDEX}"]
)
def test_unauthenticated_requests_get_the_login_page(served: Served, path: str) -> None:
    """Without a session every page leads to the login form, which returns to the page asked for."""
    with httpx.Client(base_url=served.url, timeout=10) as client:
        first = client.get(path)
        assert first.status_code == 303
        assert parse_qs(urlsplit(first.headers["location"]).query)["next"] == [path]
        page = client.get(path, follow_redirects=True)
    assert page.status_code == 200 and 'id="login-form"' in page.text and 'name="token"' in page.text
    assert "review.db" not in page.text  # where the store lives is for logged-in reviewers only
    assert "sample-010" not in page.text.replace(f'value="{path}"', "")


def test_an_unauthenticated_post_is_refused(served: Served) -> None:
    """A label POST without a session is answered by the login page (401) and changes nothing."""
    with httpx.Client(base_url=served.url, timeout=10) as client:
        refused = client.post("/cases/sample-014/label", data={"verdict": "ok"})
    assert refused.status_code == 401 and 'id="login-form"' in refused.text
    with open_store(served.store, create=False) as store:
        assert store.require("sample-014").label is None


@pytest.mark.parametrize(
    ("csrf", "headers"),
    [(None, {}), ("0" * 64, {}), ("valid", {"origin": "http://evil.example"})],
    ids=["no-token", "wrong-token", "cross-origin"],
)
def test_a_post_without_the_right_csrf_token_is_refused(
    served: Served, csrf: str | None, headers: dict[str, str]
) -> None:
    """A logged-in session's label POST is refused (403) without its CSRF token, or from another origin."""
    with _logged_in(served) as client:
        form = {"verdict": "bad", "expected_answer": "x"}
        if csrf is not None:
            form["csrf"] = _csrf(client.get("/cases/sample-014").text) if csrf == "valid" else csrf
        refused = client.post("/cases/sample-014/label", data=form, headers=headers)
    assert refused.status_code == 403
    with open_store(served.store, create=False) as store:
        assert store.require("sample-014").label is None


def test_a_wrong_token_gets_no_session(served: Served) -> None:
    """A wrong token is refused (401) and the session stays anonymous; the token never reaches the log."""
    with httpx.Client(base_url=served.url, timeout=10) as client:
        page = client.get("/login")
        refused = client.post("/login", data={"csrf": _csrf(page.text), "token": "guess", "reviewer": "x"})
        assert refused.status_code == 401 and "Wrong token" in refused.text
        assert client.get("/cases").status_code == 303
    assert TOKEN not in served.out.read_text()


def test_cookie_and_headers_are_locked_down(served: Served) -> None:
    """The session cookie is HttpOnly and SameSite=Strict; pages forbid scripts and framing."""
    with httpx.Client(base_url=served.url, timeout=10) as client:
        page = client.get("/login")
    cookie = page.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "secure" not in cookie  # loopback
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"


def test_agreement_page_reports_kappa_per_metric(served: Served) -> None:
    """The agreement page lists every judged metric with its threshold and the cost-minimizing one."""
    with _logged_in(served) as client:
        page = client.get("/agreement?cost_false_pass=5&cost_false_fail=1")
    assert page.status_code == 200
    for metric in ("faithfulness", "answer_relevance", "context_relevance"):
        assert f'data-metric="{metric}"' in page.text


def test_serve_refuses_a_public_host_without_a_token(tmp_path: Path) -> None:
    """On a non-loopback address without RAGMON_REVIEW_TOKEN the server does not start: one line, exit 2."""
    env = {k: v for k, v in os.environ.items() if k != "RAGMON_REVIEW_TOKEN"}
    done = subprocess.run(
        [ragmon_executable(), "review", "serve", "--host", "0.0.0.0", "--store", str(tmp_path / "x.db")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "RAGMON_REVIEW_TOKEN" in done.stderr


def test_a_linked_filter_without_cases_stays_selected(served: Served) -> None:
    """An alert's index version with no flagged case yet shows an empty queue, the filter still chosen."""
    with _logged_in(served) as client:
        page = client.get("/cases", params={"index_version": "kb-not-yet", "reason": "should_abstain"})
    assert page.status_code == 200 and "No case matches." in page.text
    assert '<option value="kb-not-yet" selected>' in page.text
    assert '<option value="should_abstain" selected>' in page.text


def test_a_bad_filter_is_named_and_the_queue_still_shows(served: Served) -> None:
    """since=yesterday is refused by name (400) and the page lists the unfiltered queue."""
    with _logged_in(served) as client:
        page = client.get("/cases", params={"since": "yesterday"})
    assert page.status_code == 400 and "since: " in page.text and 'data-trace="sample-002"' in page.text
