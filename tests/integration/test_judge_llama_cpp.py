"""The LLM judge against a llama-cpp-python-like server (scripted, loopback): structured output detected
once per endpoint, the server's words in errors, YAML booleans for json_schema, abstentions not claims."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from monitor.config import load_settings
from monitor.embeddings import LocalE5Embedder
from monitor.exceptions import JudgeUnavailable
from monitor.judge.base import JudgeChunk, JudgeInput, JudgeResult
from monitor.judge.client import ChatClient, ChatClientSettings
from monitor.judge.llm import LLMJudge
from monitor.judge.prompts import GROUNDING_SYSTEM
from tests.support.scripted_llm import Recorded, Reply, ScriptedLLM, grounding_json, relevance_json

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

# llama-cpp-python 0.3.x answers response_format {"type": "json_schema"} with this HTTP 500.
REFUSAL = json.dumps(
    {
        "error": {
            "message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
            "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]",
            "type": "internal_server_error",
        }
    }
).encode()
ITEM = JudgeInput(
    "t-1",
    "Đổi trả trong bao nhiêu ngày?",
    "Bạn được đổi trả trong 7 ngày.",
    (JudgeChunk("c01", "Khách được đổi trả trong 7 ngày kể từ ngày nhận hàng."),),
    "vi",
)
ABSTAINED = JudgeInput(
    "t-2",
    "Shop có bán vé máy bay không?",
    "Xin lỗi, tài liệu không nói về việc bán vé máy bay. Bạn vui lòng liên hệ CSKH.",
    (JudgeChunk("c01", "Khách được đổi trả trong 7 ngày kể từ ngày nhận hàng."),),
    "vi",
)


def llama_cpp(grounding: dict[str, Any], fenced: bool = True) -> Any:
    """A responder that refuses json_schema like llama-cpp-python and fences its JSON like small models."""

    def reply(request: Recorded) -> Reply:
        fmt = request.body.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            return Reply(status=500, raw=REFUSAL)
        content = grounding if GROUNDING_SYSTEM in request.system else relevance_json(["Đổi trả mấy ngày?"])
        text = json.dumps(content, ensure_ascii=False)
        return Reply(content=f"```json\n{text}\n```" if fenced else text)

    return reply


def judge(server: ScriptedLLM, items: list[JudgeInput], **overrides: Any) -> tuple[list[JudgeResult], str]:
    async def main() -> tuple[list[JudgeResult], str]:
        settings = ChatClientSettings(
            base_url=server.base_url, model="qwen2.5-coder-1.5b", max_retries=1, backoff_base_s=0.01,
            circuit_failures=1, **overrides,
        )  # fmt: skip
        async with ChatClient(settings) as client:
            llm = LLMJudge(client, LocalE5Embedder(), "qwen2.5-coder-1.5b")
            results = [await llm.judge(item) for item in items]
            return results, client.output_mode

    return asyncio.run(main())


def test_auto_mode_detects_json_object_with_schema_once_and_keeps_it() -> None:
    """json_schema refused once per endpoint, then llama-cpp's json_object+schema; fenced replies parsed."""
    with ScriptedLLM(
        default=llama_cpp(grounding_json([("Đổi trả trong 7 ngày.", True, [1])], [1]))
    ) as server:
        results, mode = judge(server, [ITEM, replace(ITEM, trace_id="t-3", answer="Đổi trả trong 7 ngày.")])
        again, _ = judge(server, [ITEM])
    assert mode == "json_object_schema"
    assert all(r.scores.faithfulness == 1.0 for r in [*results, *again])
    kinds = [(r.body.get("response_format") or {}).get("type") for r in server.requests]
    assert kinds.count("json_schema") == 2  # the grounding and relevance calls of the first trace, at once
    # the two calls run concurrently: their requests interleave, so the forms are checked as a set
    later = [
        r.body["response_format"]
        for r in server.requests
        if r.body["response_format"]["type"] != "json_schema"
    ]
    assert len(later) == len(server.requests) - 2
    assert all(f == {"type": "json_object", "schema": f["schema"]} and f["schema"] for f in later)


def test_a_server_error_names_what_the_server_said() -> None:
    """json_schema 'on' does not fall back: the 500's message reaches the error."""
    with (
        ScriptedLLM(default=llama_cpp({})) as server,
        pytest.raises(JudgeUnavailable, match="Input should be 'text' or 'json_object'"),
    ):
        judge(server, [ITEM], json_schema="on")


def test_an_honest_abstention_is_not_scored_as_claims() -> None:
    """The model lists the abstention and the CSKH pointer as unsupported claims: neither counts."""
    claims = [
        ("Tài liệu không nói về việc bán vé máy bay", False, []),
        ("Bạn vui lòng liên hệ CSKH", False, []),
    ]
    with ScriptedLLM(default=llama_cpp(grounding_json(claims, [], abstained=True))) as server:
        (result,), _ = judge(server, [ABSTAINED])
    assert result.verdicts.abstained and result.verdicts.claims == ()
    assert result.scores.faithfulness is None


@pytest.mark.parametrize(("raw", "mode"), [("off", "off"), ("on", "on"), ("'off'", "off"), ("auto", "auto")])
def test_json_schema_accepts_yaml_booleans(tmp_path: Path, raw: str, mode: str) -> None:
    """``json_schema: off`` unquoted is YAML's false; it means "off", as ``on`` means "on"."""
    config = tmp_path / "ragmon.yaml"
    config.write_text(f"judge:\n  json_schema: {raw}\n", encoding="utf-8")
    assert load_settings(config, environ={}).judge.json_schema == mode


def test_eval_judge_runs_the_openai_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``ragmon eval judge --judge openai`` judges each labelled trace through the endpoint."""
    from monitor.cli import main

    rows = [
        {**_row(ITEM), "faithful": True},
        {**_row(replace(ITEM, trace_id="t-9", answer="Bạn được đổi trả trong 30 ngày.")), "faithful": False},
    ]
    path = tmp_path / "labelled.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")

    def verdict(request: Recorded) -> Reply:
        if GROUNDING_SYSTEM not in request.system:
            return Reply.json(relevance_json(["Đổi trả mấy ngày?"]))
        right = "7 ngày" in request.user and "30 ngày" not in request.user
        return Reply.json(grounding_json([("Đổi trả trong vài ngày.", right, [1] if right else [])], [1]))

    with ScriptedLLM(default=verdict) as server:
        argv = ["eval", "judge", str(path), "--judge", "openai", "--judge-url", server.base_url]
        assert main([*argv, "--judge-model", "m", "--format", "jsonl", "--resamples", "20"]) == 0
    (line,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert (line["judge"], line["errors"], line["traces"]) == ("openai", 0, 2)
    assert line["faithfulness"]["auroc"] == 1.0


def _row(item: JudgeInput) -> dict[str, Any]:
    chunks = [{"chunk_id": c.chunk_id, "text": c.text} for c in item.chunks]
    return {"trace_id": item.trace_id, "question": item.question, "answer": item.answer,
            "retrieved_chunks": chunks, "language": item.language}  # fmt: skip
