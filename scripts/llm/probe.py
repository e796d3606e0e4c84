#!/usr/bin/env python3
"""Probe a running llama-cpp-python OpenAI-compatible server; write every request and response to Markdown.

    python scripts/llm/probe.py --base-url http://127.0.0.1:18080/v1 --out /work/llm/probe-transcript.md \
        [--server-log /work/llm/models/llama-server-18080.log] [--ragmon]

Needs httpx. With --ragmon (run it with ragmon's venv python from the repo root) it also drives
ragmon's own ChatClient against the server, with judge.json_schema "auto" and "off".
--server-log lets it quote llama.cpp's own timings (llama_perf lines) for each call.
Each probe is bounded (max_tokens set, 300 s timeout); nothing is sent anywhere but --base-url.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import httpx

OUT: list[str] = []
FAILURES: list[str] = []
SERVER_LOG: Path | None = None
PERF = re.compile(r"llama_perf_context_print:\s+(prompt eval time|eval time)\s+=\s+([\d.]+) ms /\s+(\d+)")

VI_QUESTION = "Mua áo mặc không vừa thì được trả trong mấy ngày?"
VI_CHUNKS = [
    "Trong vòng 7 ngày kể từ ngày nhận hàng, khách có thể đổi hoặc trả sản phẩm.",
    "Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày.",
    "Tiền hoàn được chuyển trong 5 ngày làm việc.",
]
VI_ANSWER = "Bạn có 30 ngày để đổi trả áo."

EN_QUESTION = "How long is the warranty on the X200 headphones, and what do I need to claim it?"
EN_CHUNKS = [
    "The X200 headphones come with a 12-month limited warranty from the date of purchase.",
    "Warranty claims must include the original receipt or order number.",
    "Premium members get free return shipping on all orders.",
]
EN_ANSWER = (
    "The X200 headphones have a 2-year warranty. To make a claim you need the original receipt or "
    "order number, and shipping for the return is free for everyone."
)

CLAIMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "claims": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "supported": {"type": "boolean"},
                    "chunk_ids": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["text", "supported", "chunk_ids"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["claims"],
    "additionalProperties": False,
}

JUDGE_SYSTEM = (
    "You are a strict fact checker for a retrieval assistant. Split the ANSWER into its factual claims "
    "(keep the answer's language). For each claim decide whether the numbered CONTEXT chunks state it: "
    "supported is true only if a chunk says exactly that, without extra conditions; chunk_ids lists the "
    "numbers of the chunks that state it (empty if unsupported). Reply with only a JSON object: "
    '{"claims":[{"text": string, "supported": true|false, "chunk_ids": [int]}]}'
)


def judge_user(question: str, chunks: list[str], answer: str) -> str:
    ctx = "\n".join(f"[{i}] {c}" for i, c in enumerate(chunks, start=1))
    return f"QUESTION: {question}\n\nCONTEXT:\n{ctx}\n\nANSWER: {answer}"


def md(s: str = "") -> None:
    OUT.append(s)


def block(obj: Any, lang: str = "json", limit: int = 6000) -> None:
    text = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False, indent=2)
    if len(text) > limit:
        text = text[:limit] + f"\n... [{len(text) - limit} more characters cut]"
    md(f"```{lang}\n{text}\n```")


def log_size() -> int:
    return SERVER_LOG.stat().st_size if SERVER_LOG and SERVER_LOG.exists() else 0


def perf_since(offset: int) -> str:
    if not SERVER_LOG:
        return ""
    with SERVER_LOG.open("rb") as f:
        f.seek(offset)
        text = f.read().decode("utf-8", "replace")
    parts = []
    for kind, ms, n in PERF.findall(text):
        n_i, ms_f = int(n), float(ms)
        rate = n_i / (ms_f / 1000) if ms_f else 0.0
        parts.append(f"{kind}: {n_i} tokens in {ms_f / 1000:.2f}s ({rate:.1f} tok/s)")
    return "; ".join(parts)


def call(
    client: httpx.Client,
    title: str,
    body: dict[str, Any] | None,
    *,
    method: str = "POST",
    path: str = "chat/completions",
    raw: bytes | None = None,
    show_request: Any = None,
    note: str = "",
) -> tuple[httpx.Response, float]:
    md(f"### {title}")
    if note:
        md(note)
        md()
    md(f"Request: `{method} /v1/{path}`")
    if raw is not None:
        block(raw.decode("utf-8", "replace"), "text")
    elif body is not None:
        block(show_request if show_request is not None else body)
    off = log_size()
    t0 = time.perf_counter()
    if method == "GET":
        r = client.get(path)
    elif raw is not None:
        r = client.post(path, content=raw, headers={"content-type": "application/json"})
    else:
        r = client.post(path, json=body)
    dt = time.perf_counter() - t0
    time.sleep(0.2)  # let the server flush its perf lines
    md(
        f"Response: HTTP {r.status_code} in {dt:.2f}s (openai-processing-ms: {r.headers.get('openai-processing-ms')})"
    )
    perf = perf_since(off)
    if perf:
        md(f"Server timings: {perf}")
    try:
        block(r.json())
    except ValueError:
        block(r.text, "text")
    md()
    return r, dt


def content(r: httpx.Response) -> str:
    try:
        return str(r.json()["choices"][0]["message"]["content"])
    except (ValueError, KeyError, IndexError, TypeError):
        return ""


def check_json(text: str, schema_keys: list[str] | None = None) -> str:
    fenced = text.strip().startswith("```")
    try:
        obj = json.loads(text)
    except ValueError as exc:
        return f"not bare JSON ({exc}); starts with a fence: {fenced}"
    msg = f"parses as JSON ({type(obj).__name__})"
    if schema_keys is not None and isinstance(obj, dict):
        msg += f"; keys {sorted(obj)} vs schema {sorted(schema_keys)}"
    return msg


def probes(client: httpx.Client) -> None:
    base = {"model": "qwen2.5-coder-1.5b-instruct-q4_k_m"}

    md("## Models")
    call(client, "GET /v1/models", None, method="GET", path="models")

    md("## Plain chat completions")
    r, _ = call(
        client,
        "Short answer, temperature 0",
        {
            **base,
            "messages": [
                {"role": "user", "content": "What is the capital of France? Answer in one sentence."}
            ],
            "temperature": 0,
            "max_tokens": 64,
        },
    )
    call(
        client,
        "Longer generation (tokens/s), temperature 0",
        {
            **base,
            "messages": [
                {
                    "role": "user",
                    "content": "Explain in about 150 words what a retrieval-augmented generation system is.",
                }
            ],
            "temperature": 0,
            "max_tokens": 256,
        },
    )
    call(
        client,
        "The `model` field: an unknown name",
        {
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "Say OK."}],
            "temperature": 0,
            "max_tokens": 8,
        },
        note="The server has one model; does it reject or ignore another name?",
    )
    call(
        client,
        "The `model` field: absent",
        {
            "messages": [{"role": "user", "content": "Say OK."}],
            "temperature": 0,
            "max_tokens": 8,
        },
    )

    md("## response_format")
    person_schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "country": {"type": "string"},
            "population_millions": {"type": "number"},
            "is_capital": {"type": "boolean"},
        },
        "required": ["city", "country", "population_millions", "is_capital"],
        "additionalProperties": False,
    }
    prompt = [{"role": "user", "content": "Tell me about Paris."}]
    call(
        client,
        "OpenAI form: type json_schema (strict)",
        {
            **base,
            "messages": prompt,
            "temperature": 0,
            "max_tokens": 128,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "x", "schema": person_schema, "strict": True},
            },
        },
    )
    r, _ = call(
        client,
        "llama-cpp-python form: type json_object with schema (prompt does not mention JSON)",
        {
            **base,
            "messages": prompt,
            "temperature": 0,
            "max_tokens": 128,
            "response_format": {"type": "json_object", "schema": person_schema},
        },
    )
    md(f"Check: {check_json(content(r), list(person_schema['properties']))}")
    md()
    verdict_schema = {
        "type": "object",
        "properties": {"verdict": {"type": "string", "enum": ["PASS", "FAIL"]}, "score": {"type": "integer"}},
        "required": ["verdict", "score"],
        "additionalProperties": False,
    }
    r, _ = call(
        client,
        "type json_object with a schema the prompt has nothing to do with (enum + integer)",
        {
            **base,
            "messages": [{"role": "user", "content": "Write a haiku about autumn."}],
            "temperature": 0,
            "max_tokens": 64,
            "response_format": {"type": "json_object", "schema": verdict_schema},
        },
        note="If the grammar constrains decoding, a haiku request still yields {verdict, score}.",
    )
    md(f"Check: {check_json(content(r), list(verdict_schema['properties']))}")
    md()
    r, _ = call(
        client,
        "type json_object without schema (prompt does not mention JSON)",
        {
            **base,
            "messages": prompt,
            "temperature": 0,
            "max_tokens": 128,
            "response_format": {"type": "json_object"},
        },
    )
    md(f"Check: {check_json(content(r))}")
    md()
    r, _ = call(
        client,
        "type json_object with schema, max_tokens too small for the object",
        {
            **base,
            "messages": prompt,
            "temperature": 0,
            "max_tokens": 12,
            "response_format": {"type": "json_object", "schema": person_schema},
        },
        note="A grammar cannot close the object when generation is cut: the reply is truncated JSON.",
    )
    md(f"Check: {check_json(content(r))}")
    md()
    r, _ = call(
        client,
        "No response_format, prompt asks for JSON",
        {
            **base,
            "temperature": 0,
            "max_tokens": 128,
            "messages": [
                {
                    "role": "user",
                    "content": "Give me a JSON object with keys city, country, population_millions and is_capital for Paris.",
                }
            ],
        },
    )
    md(f"Check: {check_json(content(r))}")
    md()
    call(
        client,
        "response_format type text",
        {
            **base,
            "messages": [{"role": "user", "content": "Say OK."}],
            "temperature": 0,
            "max_tokens": 8,
            "response_format": {"type": "text"},
        },
    )

    md("## Determinism: temperature, seed")
    story = [{"role": "user", "content": "Invent a one-sentence story about a cat."}]
    outs = {}
    for label, extra in [
        ("temperature 0, call 1", {"temperature": 0}),
        ("temperature 0, call 2", {"temperature": 0}),
        ("temperature 1.0, seed 42, call 1", {"temperature": 1.0, "seed": 42}),
        ("temperature 1.0, seed 42, call 2", {"temperature": 1.0, "seed": 42}),
        ("temperature 1.0, seed 7", {"temperature": 1.0, "seed": 7}),
        ("temperature 1.0, no seed, call 1", {"temperature": 1.0}),
        ("temperature 1.0, no seed, call 2", {"temperature": 1.0}),
    ]:
        r, _ = call(client, label, {**base, "messages": story, "max_tokens": 48, **extra})
        outs[label] = content(r)
    md("Summary:")
    for k, v in outs.items():
        md(f"- {k}: {v!r}")
    md()

    md("## max_tokens and usage")
    call(
        client,
        "max_tokens 5",
        {
            **base,
            "messages": [{"role": "user", "content": "Count from 1 to 20."}],
            "temperature": 0,
            "max_tokens": 5,
        },
    )

    md("## Errors")
    call(client, "Malformed JSON body", None, raw=b'{"messages": [', note="")
    call(client, "messages missing", {**base, "temperature": 0})
    call(client, "Invalid role", {**base, "messages": [{"role": "judge", "content": "hi"}], "max_tokens": 8})
    call(
        client,
        "temperature of the wrong type",
        {**base, "messages": [{"role": "user", "content": "hi"}], "temperature": "hot"},
    )
    call(
        client,
        "max_tokens negative",
        {**base, "messages": [{"role": "user", "content": "hi"}], "max_tokens": -3},
    )
    big = "lorem ipsum dolor sit amet " * 1200  # ~6k tokens > n_ctx 4096
    call(
        client,
        "Context overflow: prompt longer than n_ctx",
        {
            **base,
            "messages": [{"role": "user", "content": big}],
            "max_tokens": 16,
        },
        show_request={
            **base,
            "messages": [{"role": "user", "content": "<'lorem ipsum dolor sit amet ' x 1200, ~6k tokens>"}],
            "max_tokens": 16,
        },
    )
    mid = "lorem ipsum dolor sit amet " * 500  # ~3k tokens
    call(
        client,
        "Context overflow: prompt fits but prompt + max_tokens does not",
        {
            **base,
            "messages": [{"role": "user", "content": mid}],
            "max_tokens": 2000,
        },
        show_request={
            **base,
            "messages": [{"role": "user", "content": "<'lorem ipsum dolor sit amet ' x 500, ~3k tokens>"}],
            "max_tokens": 2000,
        },
    )
    call(client, "Unknown path", None, method="GET", path="nope")

    md("## Judge prompt: claims with support (json_object + schema, the grammar-constrained form)")
    for lang, (q, ch, a) in {
        "vi": (VI_QUESTION, VI_CHUNKS, VI_ANSWER),
        "en": (EN_QUESTION, EN_CHUNKS, EN_ANSWER),
    }.items():
        msgs = [
            {"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": judge_user(q, ch, a)},
        ]
        r, _ = call(
            client,
            f"{lang}: json_object + schema",
            {
                **base,
                "messages": msgs,
                "temperature": 0,
                "max_tokens": 400,
                "response_format": {"type": "json_object", "schema": CLAIMS_SCHEMA},
            },
        )
        md(f"Check: {check_json(content(r), ['claims'])}")
        md()
        r, _ = call(
            client,
            f"{lang}: no response_format (instructions only)",
            {
                **base,
                "messages": msgs,
                "temperature": 0,
                "max_tokens": 400,
            },
        )
        md(f"Check: {check_json(content(r), ['claims'])}")
        md()

    md("## A ~2k-token judge prompt (latency)")
    filler_vi = (
        "Chính sách đổi trả áp dụng cho sản phẩm còn nguyên tem mác, chưa qua sử dụng và có hóa đơn mua hàng. "
        "Khách hàng liên hệ tổng đài hoặc gửi yêu cầu trên ứng dụng, nhân viên sẽ xác nhận trong 24 giờ. "
    )
    chunks = [
        VI_CHUNKS[0] + " " + filler_vi * 3,
        VI_CHUNKS[1] + " " + filler_vi * 3,
        VI_CHUNKS[2] + " " + filler_vi * 3,
        filler_vi * 4,
        filler_vi * 4,
    ]
    msgs = [
        {"role": "system", "content": JUDGE_SYSTEM},
        {"role": "user", "content": judge_user(VI_QUESTION, chunks, VI_ANSWER)},
    ]
    call(
        client,
        "5 Vietnamese chunks, json_object + schema",
        {
            **base,
            "messages": msgs,
            "temperature": 0,
            "max_tokens": 400,
            "response_format": {"type": "json_object", "schema": CLAIMS_SCHEMA},
        },
        show_request={
            **base,
            "messages": [msgs[0], {"role": "user", "content": msgs[1]["content"][:600] + " ..."}],
            "temperature": 0,
            "max_tokens": 400,
            "response_format": {"type": "json_object", "schema": "<CLAIMS_SCHEMA>"},
        },
    )


def concurrency(base_url: str) -> None:
    md("## Two requests at once")
    body = {
        "messages": [{"role": "user", "content": "Count from 1 to 30, comma separated."}],
        "temperature": 0,
        "max_tokens": 120,
    }

    async def one(c: httpx.AsyncClient, i: int) -> tuple[int, float, float, int]:
        t0 = time.perf_counter()
        r = await c.post("chat/completions", json=body)
        return i, t0, time.perf_counter(), r.status_code

    async def main() -> list[tuple[int, float, float, int]]:
        async with httpx.AsyncClient(base_url=base_url.rstrip("/") + "/", timeout=300) as c:
            return await asyncio.gather(*(one(c, i) for i in range(2)))

    t = time.perf_counter()
    res = asyncio.run(main())
    block(body)
    for i, _t0, t1, st in res:
        md(f"- request {i}: HTTP {st}, finished {t1 - t:.2f}s after start")
    md()


def ragmon_client(base_url: str) -> None:
    """ragmon's own ChatClient against this server (needs the repo on sys.path and its venv)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from monitor.judge.base import JudgeChunk, JudgeInput  # noqa: PLC0415
    from monitor.judge.client import ChatClient, ChatClientSettings, parse_output, strict_schema  # noqa: PLC0415
    from monitor.judge.prompts import GroundingOut, grounding_messages, new_boundary  # noqa: PLC0415

    md("## ragmon's ChatClient (monitor/judge/client.py) against this server")
    md(
        "The real grounding prompt (monitor/judge/prompts.py) through the client the daemon uses "
        "(timeout 120 s and max_retries 1 for the probe; the daemon's defaults are 30 s and 4)."
    )
    md()

    async def run(mode: str, lang: str, q: str, chunks: list[str], a: str) -> None:
        s = ChatClientSettings(
            base_url=base_url,
            model="qwen2.5-coder-1.5b-instruct-q4_k_m",
            json_schema=mode,  # type: ignore[arg-type]
            timeout_s=120,
            max_retries=1,
            backoff_base_s=0.1,
        )
        item = JudgeInput(
            trace_id="probe",
            question=q,
            answer=a,
            chunks=tuple(JudgeChunk(chunk_id=f"c{i}", text=t) for i, t in enumerate(chunks, start=1)),
        )
        msgs = grounding_messages(item, new_boundary([q, a, *chunks]))
        t0 = time.perf_counter()
        try:
            async with ChatClient(s) as c:
                out, usage = await c.complete(msgs, GroundingOut)
            md(
                f"- {lang}, json_schema={mode!r}: OK in {time.perf_counter() - t0:.1f}s, {usage}: `{out.model_dump_json()}`"
            )
        except Exception as exc:  # noqa: BLE001 - report whatever happens
            md(
                f"- {lang}, json_schema={mode!r}: {type(exc).__name__}: {exc} (after {time.perf_counter() - t0:.1f}s)"
            )
            if mode == "off":  # "auto" is expected to fail against llama-cpp-python (HTTP 500)
                FAILURES.append(f"{lang}/{mode}")

    md(
        "Same prompt sent by hand with llama-cpp-python's own schema form, "
        '`response_format: {"type": "json_object", "schema": strict_schema(GroundingOut)}`, '
        "checked with ragmon's parse_output:"
    )
    md()
    with httpx.Client(base_url=base_url.rstrip("/") + "/", timeout=300) as client:
        for lang, (q, ch, a) in {
            "vi": (VI_QUESTION, VI_CHUNKS, VI_ANSWER),
            "en": (EN_QUESTION, EN_CHUNKS, EN_ANSWER),
        }.items():
            item = JudgeInput(
                trace_id="probe",
                question=q,
                answer=a,
                chunks=tuple(JudgeChunk(chunk_id=f"c{i}", text=t) for i, t in enumerate(ch, start=1)),
            )
            msgs = grounding_messages(item, new_boundary([q, a, *ch]))
            r, _ = call(
                client,
                f"{lang}: ragmon grounding prompt, json_object + strict_schema(GroundingOut)",
                {
                    "model": "qwen2.5-coder-1.5b-instruct-q4_k_m",
                    "messages": msgs,
                    "temperature": 0,
                    "max_tokens": 600,
                    "response_format": {"type": "json_object", "schema": strict_schema(GroundingOut)},
                },
            )
            try:
                md(
                    f"Check: validates as GroundingOut: `{parse_output(content(r), GroundingOut).model_dump_json()}`"
                )
            except ValueError as exc:
                md(f"Check: does not validate: {exc}")
            md()
    md("Through ChatClient:")
    md()
    asyncio.run(run("auto", "vi", VI_QUESTION, VI_CHUNKS, VI_ANSWER))
    asyncio.run(run("off", "vi", VI_QUESTION, VI_CHUNKS, VI_ANSWER))
    asyncio.run(run("off", "en", EN_QUESTION, EN_CHUNKS, EN_ANSWER))
    md()


def main() -> int:
    global SERVER_LOG
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", default="http://127.0.0.1:18080/v1")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--server-log", type=Path)
    ap.add_argument(
        "--ragmon", action="store_true", help="also run ragmon's ChatClient (needs ragmon importable)"
    )
    ap.add_argument("--only-ragmon", action="store_true")
    args = ap.parse_args()
    SERVER_LOG = args.server_log
    md(f"# Probe transcript: {args.base_url} ({time.strftime('%Y-%m-%d %H:%M:%S %Z')})")
    md()
    if not args.only_ragmon:
        with httpx.Client(base_url=args.base_url.rstrip("/") + "/", timeout=300) as client:
            probes(client)
        concurrency(args.base_url)
    if args.ragmon or args.only_ragmon:
        ragmon_client(args.base_url)
    args.out.write_text("\n".join(OUT) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    if FAILURES:
        print(f"ragmon ChatClient failed with json_schema off: {FAILURES}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
