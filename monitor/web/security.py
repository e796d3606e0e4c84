"""Login, sessions and CSRF for the review web app: a token from the environment, signed cookies.

The login token (``RAGMON_REVIEW_TOKEN``) is compared with ``hmac.compare_digest``. A session is a
cookie holding a random nonce, the reviewer's name and its issue time, signed with HMAC-SHA256 under a
key derived from the token (so sessions survive a restart and hold across replicas, and rotating the
token ends them all); without a token the key is random per process. Every visitor gets a session, an
anonymous one before login, so even the login form carries a CSRF token; logging in issues a new nonce
(no session fixation). A form's CSRF token is an HMAC of its session's nonce: a page of another origin
can neither read it nor forge it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import SecretStr

SESSION_COOKIE = "ragmon_review_session"
SESSION_TTL_S = 12 * 3600  # a working day; then log in again
MAX_REVIEWER_CHARS = 80
_KEY_LABEL = b"ragmon-review-session-v1"


@dataclass(frozen=True, slots=True)
class Session:
    """One browser's session; ``reviewer`` is ``None`` until it logs in."""

    nonce: str
    reviewer: str | None
    issued: int


class Guard:
    """Checks the login token, signs and reads session cookies, issues and checks CSRF tokens."""

    def __init__(self, token: SecretStr | None, clock: Callable[[], float] = time.time) -> None:
        self._token = token.get_secret_value().encode() if token is not None else None
        if self._token is not None:
            self._key = hmac.new(self._token, _KEY_LABEL, hashlib.sha256).digest()
        else:
            self._key = secrets.token_bytes(32)
        self._clock = clock

    def __repr__(self) -> str:
        return f"Guard(token={'set' if self._token else 'none'})"

    @property
    def requires_token(self) -> bool:
        return self._token is not None

    def token_ok(self, given: str) -> bool:
        """Whether ``given`` is the login token (always true when none is configured)."""
        if self._token is None:
            return True
        # Digests first: compare_digest on the raw values would tell their lengths apart.
        return hmac.compare_digest(
            hashlib.sha256(given.encode()).digest(), hashlib.sha256(self._token).digest()
        )

    def issue(self, reviewer: str | None = None) -> tuple[Session, str]:
        """A fresh session and its cookie value."""
        session = Session(secrets.token_urlsafe(18), reviewer, int(self._clock()))
        payload = json.dumps({"n": session.nonce, "r": reviewer, "t": session.issued}, ensure_ascii=False)
        body = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
        return session, f"{body}.{self._sign(body.encode())}"

    def read(self, cookie: str | None) -> Session | None:
        """The session a cookie holds, or ``None`` when it is absent, forged, malformed or expired."""
        if not cookie or "." not in cookie:
            return None
        body, _, mac = cookie.rpartition(".")
        if not hmac.compare_digest(mac.encode(), self._sign(body.encode()).encode()):
            return None
        try:
            data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
            session = Session(str(data["n"]), data["r"], int(data["t"]))
        except (ValueError, KeyError, TypeError, binascii.Error):
            return None
        if session.reviewer is not None and not isinstance(session.reviewer, str):
            return None
        if not 0 <= self._clock() - session.issued < SESSION_TTL_S:
            return None
        return session

    def csrf(self, session: Session) -> str:
        """The CSRF token of every form rendered for ``session``."""
        return self._sign(b"csrf:" + session.nonce.encode())

    def csrf_ok(self, session: Session | None, given: str | None) -> bool:
        return (
            session is not None
            and bool(given)
            and hmac.compare_digest(str(given).encode(), self.csrf(session).encode())
        )

    def _sign(self, data: bytes) -> str:
        return hmac.new(self._key, data, hashlib.sha256).hexdigest()


def clean_reviewer(name: str) -> str | None:
    """The reviewer name recorded on labels: one line, trimmed, at most 80 characters; ``None`` if empty."""
    flat = " ".join(name.split())[:MAX_REVIEWER_CHARS]
    return flat or None


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine (127.0.0.0/8, ::1, localhost)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def safe_next(target: str | None, default: str = "/cases") -> str:
    """A same-site path to return to after login; anything else (``//evil``, ``https://...``) -> default."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in target):  # browsers drop tabs: "/\t/evil" is "//evil"
        return default
    return target
