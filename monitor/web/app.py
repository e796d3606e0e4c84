"""The review web app: Starlette routes over one ``ReviewStore``, pages rendered by Jinja2.

Every page but ``/login`` and ``/healthz`` needs a logged-in session; an unauthenticated GET is sent
to the login page (and back after it), anything else is refused. Every POST carries the session's
CSRF token and must come from this origin. Templates autoescape everything: trace text is untrusted
(a ``<script>`` in an answer is shown as text), and the Content-Security-Policy forbids scripts anyway.
Store calls run in a worker thread, so a slow PostgreSQL never holds the server's event loop.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import jinja2
import structlog
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from monitor.exceptions import ConfigError
from monitor.flags import FLAG_REASONS, SEVERITY_RANK
from monitor.http import ASGIApp, Message, Receive, Scope, Send
from monitor.numeric import NumericRules
from monitor.review import agreement as agreement_mod
from monitor.review.models import VERDICTS, CaseFilter, CaseNotFound, ReviewError, Status
from monitor.review.promote import PromotionRefused, load_golden, promote, promote_variant
from monitor.review.store import ReviewStore
from monitor.web.security import SESSION_COOKIE, SESSION_TTL_S, Guard, Session, clean_reviewer, safe_next
from monitor.web.views import SEVERITIES, BadQuery, Page, QueueQuery, case_view, parse_cost, parse_sections

log = structlog.get_logger(__name__)
_HERE = Path(__file__).parent
MAX_FIELD_CHARS = 4000  # expected answers and notes; the server bounds the whole body too
LOGIN_FAILURES_PER_MINUTE = 20  # past this, that client's logins are refused for the rest of the minute
LOGIN_CLIENTS_TRACKED = 10_000  # addresses remembered for the lockout; the oldest is forgotten first
_DONE = {
    "labelled": "Label saved.",
    "promoted": "Promoted into the golden file.",
    "muted": "Muted: every replica stops flagging these findings within 30 seconds.",
}
_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        b"frame-ancestors 'none'; base-uri 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


class LoginRequired(Exception):
    """The request has no logged-in session."""


@dataclass(frozen=True, slots=True)
class WebOptions:
    """How the app was started: where promotions go, cookie security, the agreement thresholds."""

    golden: Path | None = None
    secure_cookie: bool = False
    thresholds: Mapping[str, float] | None = None


def _templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_HERE / "templates"),
        autoescape=True,  # every template, whatever its name: all of them are HTML
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pathpart"] = lambda value: quote(str(value), safe="")
    env.filters["score"] = _score
    env.filters["worst"] = _worst
    return Jinja2Templates(env=env)


def _worst(flags: Any) -> str:
    """The most severe severity among a case's flags ('' when none was recorded)."""
    known = [f.severity for f in flags if f.severity in SEVERITY_RANK]
    return min(known, key=SEVERITY_RANK.__getitem__) if known else ""


def _score(value: Any, digits: int = 2) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "–"
    return f"{value:.{digits}f}"


class ReviewApp:
    """The routes and the state they share: the store, the guard, the numeric rules."""

    def __init__(
        self, store: ReviewStore, guard: Guard, options: WebOptions, rules: NumericRules | None = None
    ) -> None:
        self.store, self.guard, self.options = store, guard, options
        self.rules = rules or NumericRules.load()
        self.thresholds = dict(options.thresholds or agreement_mod.DEFAULT_THRESHOLDS)
        self.templates = _templates()
        self._promote_lock = threading.Lock()  # one golden-file rewrite at a time
        self._login_failures: dict[str, deque[float]] = {}  # per client address

    # --- plumbing -------------------------------------------------------------------------------

    def session(self, request: Request) -> tuple[Session, str | None]:
        """The request's session, or a new anonymous one with the cookie to set."""
        found = self.guard.read(request.cookies.get(SESSION_COOKIE))
        if found is not None:
            return found, None
        return self.guard.issue()

    def reviewer(self, request: Request) -> Session:
        found = self.guard.read(request.cookies.get(SESSION_COOKIE))
        if found is None or found.reviewer is None:
            raise LoginRequired
        return found

    def render(
        self,
        request: Request,
        name: str,
        session: Session,
        status: int = 200,
        cookie: str | None = None,
        **context: Any,
    ) -> Response:
        context.update(
            reviewer=session.reviewer,
            csrf=self.guard.csrf(session),
            requires_token=self.guard.requires_token,
            store=self.store.description,
        )
        response = self.templates.TemplateResponse(request, name, context, status_code=status)
        if cookie is not None:
            self.set_cookie(response, cookie)
        return response

    def set_cookie(self, response: Response, value: str) -> None:
        response.set_cookie(
            SESSION_COOKIE,
            value,
            max_age=SESSION_TTL_S,
            path="/",
            httponly=True,
            samesite="strict",
            secure=self.options.secure_cookie,
        )

    async def form(self, request: Request, session: Session | None) -> dict[str, str]:
        """The urlencoded form of a POST from this origin with its session's CSRF token, or 403."""
        if not _same_origin(request):
            raise HTTPException(403, "cross-origin form refused")
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/x-www-form-urlencoded":
            raise HTTPException(415, "forms are sent as application/x-www-form-urlencoded")
        body = (await request.body()).decode("utf-8", errors="replace")
        parsed = parse_qs(body, keep_blank_values=True, max_num_fields=32)
        fields = {key: values[0][:MAX_FIELD_CHARS] for key, values in parsed.items()}
        if not self.guard.csrf_ok(session, fields.get("csrf")):
            raise HTTPException(403, "missing or wrong CSRF token: reload the page and try again")
        return fields

    # --- login ----------------------------------------------------------------------------------

    async def login_page(self, request: Request) -> Response:
        session, cookie = self.session(request)
        nxt = safe_next(request.query_params.get("next"))
        return self.render(request, "login.html", session, cookie=cookie, next=nxt, error=None)

    async def login(self, request: Request) -> Response:
        session = self.guard.read(request.cookies.get(SESSION_COOKIE))
        fields = await self.form(request, session)
        assert session is not None  # noqa: S101 - form() refuses a request without one
        nxt = safe_next(fields.get("next"))
        reviewer = clean_reviewer(fields.get("reviewer", ""))
        error = None
        client = request.client.host if request.client else ""
        if self._locked_out(client):
            error, status = "Too many failed logins: wait a minute.", 429
        elif not self.guard.token_ok(fields.get("token", "")):
            self._failed_login(client)
            log.warning("review_login_failed", client=client or None)
            error, status = "Wrong token.", 401
        elif reviewer is None:
            error, status = "Give your name: it is recorded on every label.", 400
        if error is not None:
            return self.render(request, "login.html", session, status=status, next=nxt, error=error)
        _, cookie = self.guard.issue(reviewer)
        log.info("review_login", reviewer=reviewer)
        response = RedirectResponse(nxt, status_code=303)
        self.set_cookie(response, cookie)
        return response

    def _locked_out(self, client: str) -> bool:
        """Whether this client address failed too often in the last minute (others can still log in)."""
        failures = self._login_failures.get(client)
        if failures is None:
            return False
        now = time.monotonic()
        while failures and now - failures[0] > 60:
            failures.popleft()
        if not failures:
            del self._login_failures[client]
        return len(failures) >= LOGIN_FAILURES_PER_MINUTE

    def _failed_login(self, client: str) -> None:
        if client not in self._login_failures and len(self._login_failures) >= LOGIN_CLIENTS_TRACKED:
            self._login_failures.pop(next(iter(self._login_failures)))  # the longest-tracked address
        self._login_failures.setdefault(client, deque()).append(time.monotonic())

    async def logout(self, request: Request) -> Response:
        await self.form(request, self.guard.read(request.cookies.get(SESSION_COOKIE)))
        _, cookie = self.guard.issue()
        response = RedirectResponse("/login", status_code=303)
        self.set_cookie(response, cookie)
        return response

    # --- pages ----------------------------------------------------------------------------------

    async def cases(self, request: Request) -> Response:
        session = self.reviewer(request)
        query = QueueQuery.parse(request.query_params)
        error = None
        try:
            where = query.to_filter()
        except BadQuery as exc:
            error, query = str(exc), QueueQuery(page=query.page, per_page=query.per_page)
            where = query.to_filter()
        page = await run_in_threadpool(self._page, query, where)
        versions = await run_in_threadpool(self.store.versions)
        for key, values in versions.items():  # a linked version with no case yet stays selected
            chosen = getattr(query, key)
            if chosen and chosen not in values:
                values.insert(0, chosen)
        return self.render(
            request,
            "cases.html",
            session,
            status=400 if error else 200,
            page=page,
            q=query,
            error=error,
            reasons=list(
                dict.fromkeys([*([query.reason] if query.reason else []), *page.reason_counts, *FLAG_REASONS])
            ),
            severities=SEVERITIES,
            statuses=[s.value for s in Status],
            versions=versions,
        )

    def _page(self, query: QueueQuery, where: CaseFilter) -> Page:
        total = self.store.count_cases(where)
        counts = self.store.reason_counts(replace(where, reason=None))
        return Page(self.store.list_cases(where), total, counts, query)

    async def case(self, request: Request) -> Response:
        session = self.reviewer(request)
        trace_id = request.path_params["trace_id"]
        done = _DONE.get(request.query_params.get("done", ""))
        return await self._case_page(request, session, trace_id, notice=done)

    async def _case_page(
        self,
        request: Request,
        session: Session,
        trace_id: str,
        status: int = 200,
        error: str | None = None,
        notice: str | None = None,
        form: Mapping[str, str] | None = None,
    ) -> Response:
        case = await run_in_threadpool(self.store.get, trace_id)
        if case is None:
            return self.render(
                request, "error.html", session, status=404, message=f"No case {trace_id!r} in the store."
            )
        view = case_view(case, self.rules)
        entries, golden_error = await run_in_threadpool(self._golden_entries)
        return self.render(
            request,
            "case.html",
            session,
            status=status,
            v=view,
            c=case,
            error=error or golden_error,
            notice=notice,
            form=dict(form or {}),
            verdicts=VERDICTS,
            golden_path=str(self.options.golden) if self.options.golden else None,
            golden_entries=entries,
        )

    def _golden_entries(self) -> tuple[list[tuple[str, str]], str | None]:
        """(id, question) of the golden file's entries, for "promote as a variant of"; or why not."""
        if self.options.golden is None:
            return [], None
        try:
            golden = load_golden(self.options.golden)
        except ConfigError as exc:
            return [], str(exc)
        entries = []
        for entry in golden.entries:
            question = next((entry[k] for k in ("question", "cau_hoi") if isinstance(entry.get(k), str)), "")
            if entry.get("id") is not None:
                entries.append((str(entry["id"]), " ".join(str(question).split())[:90]))
        return entries, None

    async def label(self, request: Request) -> Response:
        session = self.reviewer(request)
        fields = await self.form(request, session)
        trace_id = request.path_params["trace_id"]
        verdict = next((v for v in VERDICTS if v == fields.get("verdict")), None)
        if verdict is None:
            return await self._case_page(
                request, session, trace_id, 400, "Choose a verdict: bad or ok.", form=fields
            )
        try:
            await run_in_threadpool(
                self.store.label,
                trace_id,
                verdict,
                expected_answer=fields.get("expected_answer", "").strip() or None,
                sections=parse_sections(fields.get("sections", "")),
                note=fields.get("note", "").strip() or None,
                reviewer=session.reviewer,
            )
        except CaseNotFound as exc:
            return self.render(request, "error.html", session, status=404, message=str(exc))
        except ReviewError as exc:
            return await self._case_page(request, session, trace_id, 409, str(exc), form=fields)
        log.info("review_labelled", trace_id=trace_id, verdict=verdict, reviewer=session.reviewer)
        return RedirectResponse(f"/cases/{quote(trace_id, safe='')}?done=labelled", status_code=303)

    async def mute(self, request: Request) -> Response:
        """Mute the case's conditional findings, as ``ragmon review mute`` does (the same guard)."""
        session = self.reviewer(request)
        fields = await self.form(request, session)
        trace_id = request.path_params["trace_id"]
        note = fields.get("mute_note", "").strip() or None
        try:
            muted = await run_in_threadpool(self.store.mute, trace_id, reviewer=session.reviewer, note=note)
        except CaseNotFound as exc:
            return self.render(request, "error.html", session, status=404, message=str(exc))
        except ReviewError as exc:
            return await self._case_page(request, session, trace_id, 409, str(exc), form=fields)
        log.info("review_muted", trace_id=trace_id, findings=len(muted), reviewer=session.reviewer)
        return RedirectResponse(f"/cases/{quote(trace_id, safe='')}?done=muted", status_code=303)

    async def promote(self, request: Request) -> Response:
        session = self.reviewer(request)
        fields = await self.form(request, session)
        trace_id = request.path_params["trace_id"]
        golden = self.options.golden
        if golden is None:
            message = "Promotion is off: start `ragmon review serve` with --golden FILE."
            return await self._case_page(request, session, trace_id, 409, message)
        source = " ".join(fields.get("source", "").split())[:200] or None
        variant_of = fields.get("as_variant", "").strip() or None
        try:
            done = await run_in_threadpool(self._promote, trace_id, golden, source, variant_of)
        except CaseNotFound as exc:
            return self.render(request, "error.html", session, status=404, message=str(exc))
        except PromotionRefused as exc:
            why = "; ".join(exc.reasons.values())
            return await self._case_page(request, session, trace_id, 409, f"Promotion refused: {why}.")
        except (ReviewError, ConfigError) as exc:
            return await self._case_page(request, session, trace_id, 409, str(exc))
        log.info(
            "review_promoted",
            trace_id=trace_id,
            golden_version=done,
            variant_of=variant_of,
            reviewer=session.reviewer,
        )
        return RedirectResponse(f"/cases/{quote(trace_id, safe='')}?done=promoted", status_code=303)

    def _promote(self, trace_id: str, golden: Path, source: str | None, variant_of: str | None) -> int:
        with self._promote_lock:
            if variant_of is not None:
                return promote_variant(self.store, [trace_id], variant_of, golden, source=source).version
            return promote(self.store, [trace_id], golden, source=source).version

    async def agreement(self, request: Request) -> Response:
        session = self.reviewer(request)
        params = request.query_params
        cfp = parse_cost(params.get("cost_false_pass"), agreement_mod.DEFAULT_COST_FALSE_PASS)
        cff = parse_cost(params.get("cost_false_fail"), agreement_mod.DEFAULT_COST_FALSE_FAIL)
        labelled = await run_in_threadpool(self.store.list_cases, None, labelled=True)
        report = agreement_mod.agreement(labelled, self.thresholds, cfp, cff)
        return self.render(request, "agreement.html", session, report=report)

    async def home(self, request: Request) -> Response:
        return RedirectResponse("/cases", status_code=303)

    async def healthz(self, request: Request) -> Response:
        return PlainTextResponse("ok\n")

    # --- errors ---------------------------------------------------------------------------------

    async def login_required(self, request: Request, exc: Exception) -> Response:
        if request.method in ("GET", "HEAD"):
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
        session, cookie = self.session(request)
        return self.render(request, "login.html", session, 401, cookie, next="/cases", error="Log in first.")

    async def http_error(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)  # noqa: S101 - registered for HTTPException only
        session, cookie = self.session(request)
        return self.render(request, "error.html", session, exc.status_code, cookie, message=exc.detail)

    def routes(self) -> list[Route | Mount]:
        return [
            Route("/", self.home),
            Route("/healthz", self.healthz),
            Route("/login", self.login_page, methods=["GET"]),
            Route("/login", self.login, methods=["POST"]),
            Route("/logout", self.logout, methods=["POST"]),
            Route("/cases", self.cases, methods=["GET"]),
            Route("/cases/{trace_id:path}/label", self.label, methods=["POST"]),
            Route("/cases/{trace_id:path}/promote", self.promote, methods=["POST"]),
            Route("/cases/{trace_id:path}/mute", self.mute, methods=["POST"]),
            Route("/cases/{trace_id:path}", self.case, methods=["GET"]),
            Route("/agreement", self.agreement, methods=["GET"]),
            Mount("/static", StaticFiles(directory=_HERE / "static"), name="static"),
        ]


def _same_origin(request: Request) -> bool:
    """No Origin header (older clients, curl) passes; one naming another host is a cross-site form."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == request.headers.get("host", "").lower()


def create_app(
    store: ReviewStore, guard: Guard, options: WebOptions | None = None, rules: NumericRules | None = None
) -> ASGIApp:
    """The review web app as an ASGI callable, security headers on every response."""
    review = ReviewApp(store, guard, options or WebOptions(), rules)
    app = Starlette(
        routes=review.routes(),
        exception_handlers={LoginRequired: review.login_required, HTTPException: review.http_error},
    )
    return _with_headers(app)


def _with_headers(app: ASGIApp) -> ASGIApp:
    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        await app(scope, receive, send_with_headers)

    return wrapped
