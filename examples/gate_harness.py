"""Ask a RAG HTTP endpoint every golden question and write the run ``ragmon gate`` scores.

    python examples/gate_harness.py --golden golden.json --endpoint http://127.0.0.1:8000/ask \\
        --out run.jsonl [--header "Authorization: Bearer $TOKEN"] [--set index_version=kb-pr-123]
    python examples/gate_harness.py --golden golden.json --endpoint URL --out - \\
        | ragmon gate - --golden golden.json

Each question is POSTed as ``{"question": "..."}`` (``--question-field`` renames the key, ``--body``
adds fixed fields such as ``{"top_k": 5}``). The endpoint answers with a JSON object in ragmon's trace
shape, or any alias ragmon reads: ``answer`` (or ``output``, ``response``...), ``retrieved_chunks`` (or
``contexts``), each chunk with the ``sections`` it contains, and ``model_id``, ``prompt_version``,
``index_version`` when it knows them (``--set`` fills in the ones it does not report). One trace per
golden entry is written, in golden order, with ``golden_id`` and ``metadata.golden_version`` so the
gate pairs it without guessing and reports which golden set was asked.

Exit codes: 0 every question answered, 1 some failed after retries (the run is still written: the gate
then fails those entries), 2 usage error. Needs ragmon (for the golden-set reader) and httpx.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx

from monitor.exceptions import ConfigError
from monitor.golden import GoldenEntry, GoldenSet

RETRIED = {429, 500, 502, 503, 504}


async def ask(
    client: httpx.AsyncClient, args: argparse.Namespace, entry: GoldenEntry, limit: asyncio.Semaphore
) -> dict[str, Any]:
    """The endpoint's reply to one golden question, retried on 429/5xx and transport errors."""
    body = {**args.body, args.question_field: entry.question}
    async with limit:
        for attempt in range(args.retries + 1):
            try:
                response = await client.post(args.endpoint, json=body)
                if response.status_code not in RETRIED or attempt == args.retries:
                    response.raise_for_status()
                    reply = response.json()
                    if not isinstance(reply, dict):
                        raise ValueError("the endpoint did not answer with a JSON object")
                    return reply
            except httpx.TransportError:
                if attempt == args.retries:
                    raise
            await asyncio.sleep(0.5 * 2**attempt)
    raise AssertionError("unreachable")  # noqa: S101 - the loop returns or raises


def trace(
    reply: dict[str, Any], entry: GoldenEntry, version: str, run_id: str, fixed: dict[str, str]
) -> dict[str, Any]:
    """The reply as a ragmon trace naming its golden entry."""
    given = reply.get("metadata")
    metadata: dict[str, Any] = given if isinstance(given, dict) else {}
    return {
        **{k: v for k, v in fixed.items() if reply.get(k) in (None, "")},
        **reply,
        "trace_id": str(reply.get("trace_id") or f"gate-{run_id}-{entry.id}"),
        "question": entry.question,
        "golden_id": entry.id,
        "metadata": {**metadata, "golden_version": version, "gate_run": run_id},
    }


async def run(args: argparse.Namespace) -> int:
    golden = GoldenSet.load(args.golden, args.golden_sections)
    limit = asyncio.Semaphore(args.concurrency)
    async with httpx.AsyncClient(headers=args.header, timeout=args.timeout) as client:
        replies = await asyncio.gather(*(ask(client, args, e, limit) for e in golden), return_exceptions=True)
    lines = []
    for entry, reply in zip(golden, replies, strict=True):
        if isinstance(reply, BaseException):
            print(f"gate_harness: {entry.id}: {type(reply).__name__}: {reply}", file=sys.stderr)
            continue
        lines.append(
            json.dumps(trace(reply, entry, golden.version, args.run_id, args.set), ensure_ascii=False)
        )
    failed = len(golden) - len(lines)
    text = "".join(line + "\n" for line in lines)
    if str(args.out) == "-":  # piped straight into ``ragmon gate -``
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
    print(
        f"gate_harness: {len(golden) - failed} of {len(golden)} answers written to {args.out}",
        file=sys.stderr,
    )
    return 1 if failed else 0


def _pair(text: str, sep: str) -> tuple[str, str]:
    name, found, value = text.partition(sep)
    if not found or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME{sep}VALUE, got {text!r}")
    return name.strip(), value.strip()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--golden", type=Path, action="append", required=True, help="golden set file (repeatable)")
    p.add_argument("--golden-sections", type=Path, help="section texts (only checked here, used by the gate)")
    p.add_argument("--endpoint", required=True, help="URL to POST each question to")
    p.add_argument("--out", type=Path, required=True, help="the run file to write (JSONL; - for stdout)")
    p.add_argument("--header", action="append", default=[], type=lambda t: _pair(t, ":"), help="NAME: VALUE")
    p.add_argument("--set", action="append", default=[], type=lambda t: _pair(t, "="),
                   help="trace field the endpoint does not report, e.g. index_version=kb-pr-123")  # fmt: skip
    p.add_argument("--question-field", default="question", help="request key for the question")
    p.add_argument("--body", type=json.loads, default={}, help="fixed JSON fields added to every request")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    p.add_argument("--retries", type=int, default=2, help="retries on 429, 5xx and connection errors")
    p.add_argument("--run-id", default=uuid.uuid4().hex[:8], help="names traces without their own id")
    args = p.parse_args(argv)
    if not isinstance(args.body, dict):
        p.error("--body must be a JSON object")
    args.header, args.set = dict(args.header), dict(args.set)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return asyncio.run(run(args))
    except (ConfigError, OSError) as exc:  # an unreadable golden set, an unwritable --out
        print(f"gate_harness: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
