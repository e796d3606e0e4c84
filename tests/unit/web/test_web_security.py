"""Login token, session cookies and CSRF tokens of the review web app."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from monitor.web.security import SESSION_TTL_S, Guard, clean_reviewer, is_loopback, safe_next


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_token_is_checked_and_never_shown() -> None:
    """Only the configured token passes; the guard's repr does not hold it."""
    guard = Guard(SecretStr("s3cret-token"))
    assert guard.requires_token and guard.token_ok("s3cret-token")
    assert not guard.token_ok("s3cret-tokem") and not guard.token_ok("")
    assert "s3cret" not in repr(guard)
    assert Guard(None).token_ok("anything") and not Guard(None).requires_token


def test_a_session_cookie_reads_back_and_a_tampered_one_does_not() -> None:
    """A signed cookie returns its reviewer; any change to it, or another key, gives no session."""
    guard = Guard(SecretStr("k"))
    session, cookie = guard.issue("Lan")
    assert guard.read(cookie) == session
    body, _, mac = cookie.rpartition(".")
    forged_body = body[:-2] + ("AA" if body[-2:] != "AA" else "BB")
    assert guard.read(f"{forged_body}.{mac}") is None
    assert guard.read(cookie[:-1] + ("0" if cookie[-1] != "0" else "1")) is None
    assert Guard(SecretStr("other")).read(cookie) is None
    assert guard.read(None) is None and guard.read("garbage") is None and guard.read(".") is None


def test_the_same_token_reads_sessions_across_restarts_and_sessions_expire() -> None:
    """The key derives from the token (replicas and restarts agree); a session ends after its TTL."""
    clock = Clock()
    _, cookie = Guard(SecretStr("k"), clock).issue("Lan")
    later = Guard(SecretStr("k"), clock)
    assert later.read(cookie) is not None
    clock.now += SESSION_TTL_S
    assert later.read(cookie) is None


def test_csrf_token_is_bound_to_its_session() -> None:
    """A form's token works with its own session only; missing or foreign tokens fail."""
    guard = Guard(SecretStr("k"))
    mine, _ = guard.issue()
    other, _ = guard.issue()
    assert guard.csrf_ok(mine, guard.csrf(mine))
    assert not guard.csrf_ok(mine, guard.csrf(other))
    assert not guard.csrf_ok(mine, None) and not guard.csrf_ok(mine, "") and not guard.csrf_ok(None, "x")


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("10.0.0.5", False),
        ("review.internal", False),
        ("::", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    """Only addresses of this machine count as loopback: a name that resolves elsewhere does not."""
    assert is_loopback(host) is loopback


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/cases?reason=x", "/cases?reason=x"),
        ("//evil.example/x", "/cases"),
        ("https://evil.example", "/cases"),
        ("/\\evil.example", "/cases"),
        ("/\t/evil.example", "/cases"),
        ("/cases\r\nSet-Cookie: x=1", "/cases"),
        ("", "/cases"),
        (None, "/cases"),
    ],
)
def test_return_path_after_login_stays_on_site(target: str | None, expected: str) -> None:
    """The next= parameter only returns to a path of this site (no open redirect)."""
    assert safe_next(target) == expected


def test_reviewer_names_are_one_trimmed_line() -> None:
    """Names are flattened and capped; an empty one is refused."""
    assert clean_reviewer("  Lan \n Nguyen ") == "Lan Nguyen"
    assert clean_reviewer("   ") is None
    assert len(clean_reviewer("x" * 500) or "") == 80


def test_a_login_lockout_holds_one_client_address_only(tmp_path: Path) -> None:
    """Wrong tokens from one address lock that address out for the minute; another still logs in,
    so nobody can lock every reviewer out by guessing."""
    from monitor.review import open_store
    from monitor.web.app import LOGIN_FAILURES_PER_MINUTE, ReviewApp, WebOptions

    with open_store(str(tmp_path / "r.db")) as store:
        app = ReviewApp(store, Guard(SecretStr("t0ken-for-tests")), WebOptions())
        for _ in range(LOGIN_FAILURES_PER_MINUTE):
            assert not app._locked_out("203.0.113.9")  # noqa: SLF001
            app._failed_login("203.0.113.9")  # noqa: SLF001
        assert app._locked_out("203.0.113.9")  # noqa: SLF001
        assert not app._locked_out("198.51.100.4")  # noqa: SLF001
