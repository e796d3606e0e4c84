"""The LLM judge against a real model behind a real OpenAI-compatible server (``make test-llm``).

Not part of ``make test``'s expectations: it needs a running server, e.g. llama-cpp-python's
(docs/judge-endpoints.md, "A real small model"). Point it there with ``RAGMON_TEST_LLM_URL``
(``http://127.0.0.1:8000/v1``) and ``RAGMON_TEST_LLM_MODEL``; without them every test here is skipped.
``judge.json_schema`` stays ``auto``: the client must find the form the server accepts by itself.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from monitor.embeddings import LocalE5Embedder
from monitor.judge.base import JudgeChunk, JudgeInput, JudgeResult
from monitor.judge.client import ChatClient, ChatClientSettings
from monitor.judge.llm import LLMJudge

URL = os.environ.get("RAGMON_TEST_LLM_URL")
MODEL = os.environ.get("RAGMON_TEST_LLM_MODEL", "local-model")
pytestmark = [
    pytest.mark.llm,
    pytest.mark.timeout(900),
    pytest.mark.skipif(not URL, reason="RAGMON_TEST_LLM_URL is not set (make test-llm)"),
]
POLICY = (JudgeChunk("c01", "Khách được đổi trả hàng trong 7 ngày kể từ ngày nhận hàng."),)
RIGHT = JudgeInput(
    "llm-right", "Đổi trả trong bao lâu?", "Bạn được đổi trả trong 7 ngày kể từ ngày nhận hàng.", POLICY, "vi"
)
WRONG = JudgeInput(
    "llm-wrong",
    "Đổi trả trong bao lâu?",
    "Bạn được đổi trả trong 30 ngày kể từ ngày nhận hàng.",
    POLICY,
    "vi",
)
ABSTAIN = JudgeInput(
    "llm-abstain",
    "Shop có bán vé máy bay không?",
    "Xin lỗi, tài liệu không nói về việc bán vé máy bay. Bạn vui lòng liên hệ CSKH.",
    POLICY,
    "vi",
)


def judge_all(items: list[JudgeInput]) -> tuple[list[JudgeResult], str]:
    async def main() -> tuple[list[JudgeResult], str]:
        assert URL is not None
        settings = ChatClientSettings(
            base_url=URL, model=MODEL, timeout_s=300.0, max_retries=1, max_concurrency=1
        )
        async with ChatClient(settings) as client:
            llm = LLMJudge(client, LocalE5Embedder(), MODEL)
            return [await llm.judge(item) for item in items], client.output_mode

    return asyncio.run(main())


def test_a_real_model_judges_right_wrong_and_abstaining_answers() -> None:
    """Auto mode finds a form; the wrong number scores below the right one; the abstention has no claim."""
    (right, wrong, abstain), mode = judge_all([RIGHT, WRONG, ABSTAIN])
    scores = (right.scores.faithfulness, wrong.scores.faithfulness)
    print(f"\noutput mode: {mode}; faithfulness right, wrong: {scores}")
    assert right.scores.faithfulness is not None and wrong.scores.faithfulness is not None
    assert right.scores.faithfulness > wrong.scores.faithfulness
    assert abstain.verdicts.claims == () or abstain.scores.faithfulness is None
