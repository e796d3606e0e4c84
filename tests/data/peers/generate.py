#!/usr/bin/env python3
"""Write the peer-tool fixtures of tests/data/peers/ with the tools' own packages.

Run with the peers virtualenv (see README.md for the exact pins):

    /work/venvs/peers/bin/python tests/data/peers/generate.py

Every artifact is built and serialized by the real package of the tool a ragmon user already runs
(Ragas, DeepEval, Langfuse, the OpenTelemetry SDK + OTLP encoder). Nothing here calls an LLM or any
network service: the packages only build and serialize objects. ``expected.json`` is the list of
records a correct importer must yield from each file; it is written from the same RECORDS table.

Output is deterministic: fixed ids, fixed timestamps (the OTel SDK clock is replaced while the
Langfuse SDK runs), and the OTEL_* environment is cleared so Resource.create() sees nothing local.
"""

from __future__ import annotations

import os
import sys

# Ragas' to_jsonl/to_csv open files with the locale's encoding: insist on UTF-8 so the bytes do not
# depend on the machine. Re-exec once in UTF-8 mode when the locale is not UTF-8.
if sys.flags.utf8_mode == 0:
    import locale

    if locale.getpreferredencoding(False).lower().replace("-", "") != "utf8":
        os.environ["PYTHONUTF8"] = "1"
        os.execv(sys.executable, [sys.executable, *sys.argv])  # noqa: S606 (same interpreter, same argv)

for _key in [k for k in os.environ if k.startswith("OTEL_")]:
    del os.environ[_key]
os.environ.update(
    {
        "RAGAS_DO_NOT_TRACK": "true",
        "DEEPEVAL_TELEMETRY_OPT_OUT": "1",
        "DEEPEVAL_UPDATE_WARNING_OPT_IN": "0",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "LANGFUSE_TRACING_ENVIRONMENT": "production",
        "TZ": "UTC",
    }
)
for _key in (
    "LANGFUSE_PUBLIC_KEY",
    "LANGFUSE_SECRET_KEY",
    "LANGFUSE_HOST",
    "LANGFUSE_BASE_URL",
    "LANGFUSE_RELEASE",
):
    os.environ.pop(_key, None)

import base64  # noqa: E402
import contextlib  # noqa: E402
import datetime as dt  # noqa: E402
import gzip  # noqa: E402
import hashlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
from importlib.metadata import version as pkg_version  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

OUT = Path(__file__).resolve().parent

# --------------------------------------------------------------------------------------------------
# The records. R1 is the seed incident (wrong answer: 30 days instead of 7), R2 a correct Vietnamese
# turn, R3 an English turn. Contexts carry their policy section in the text ("DT-1. ...").
# --------------------------------------------------------------------------------------------------

RECORDS: dict[str, dict[str, Any]] = {
    "r1": {
        "question": "Mua áo mặc không vừa thì được trả trong mấy ngày?",
        "contexts": [
            "DT-1. Trong vòng 7 ngày kể từ ngày nhận hàng, khách có thể đổi hoặc trả sản phẩm, "
            "với điều kiện hàng còn nguyên tem, nhãn và hóa đơn.",
            "DT-3. Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày.",
        ],
        "context_ids": ["DT-1", "DT-3"],
        "doc_scores": [0.8312, 0.7954],
        "answer": "Bạn có 30 ngày để đổi trả áo, miễn là hàng còn tem và nhãn.",
        "reference": "Trong 7 ngày kể từ ngày nhận hàng, hàng còn tem, nhãn và hóa đơn.",
        "tokens": (412, 38),
        "cost": (0.0000618, 0.0000228),
        "user_id": "u-88213",
        "session_id": "s-2026-09-28-0412",
        "start": "2026-09-28T02:14:05.120000+00:00",
        "scores": {
            "faithfulness": 0.5,
            "answer_correctness": 0.21,
            "context_precision": 1.0,
            "context_recall": 1.0,
        },
    },
    "r2": {
        "question": "Trả hàng rồi bao lâu thì nhận lại tiền?",
        "contexts": [
            "DT-4. Tiền hoàn được chuyển về phương thức thanh toán ban đầu trong 5 ngày làm việc, "
            "tính từ lúc kho nhận được hàng trả.",
        ],
        "context_ids": ["DT-4"],
        "doc_scores": [0.8877],
        "answer": "Bạn nhận lại tiền trong 5 ngày làm việc sau khi kho nhận hàng trả.",
        "reference": "Trong 5 ngày làm việc sau khi kho nhận hàng trả.",
        "tokens": (356, 29),
        "cost": (0.0000534, 0.0000174),
        "user_id": "u-10457",
        "session_id": "s-2026-09-28-0413",
        "start": "2026-09-28T02:14:05.170000+00:00",
        "scores": {
            "faithfulness": 1.0,
            "answer_correctness": 0.93,
            "context_precision": 1.0,
            "context_recall": 1.0,
        },
    },
    "r3": {
        "question": "I bought a shirt that doesn't fit. How many days do I have to return it?",
        "contexts": [
            "DT-1 (EN). Within 7 days of receiving the order, customers may exchange or return a product, "
            "provided its tags/labels and invoice are intact.",
            "DT-3 (EN). BanHang Plus members' fashion items can be exchanged or returned within 30 days.",
        ],
        "context_ids": ["DT-1", "DT-3"],
        "doc_scores": [0.8049, 0.7611],
        "answer": "You have 7 days from receiving the order to return it, "
        "as long as the tags/labels and invoice are intact.",
        "reference": "Within 7 days of receiving the order, with tags, labels and invoice intact.",
        "tokens": (298, 31),
        "cost": (0.0000447, 0.0000186),
        "user_id": "u-30981",
        "session_id": "s-2026-09-28-0450",
        "start": "2026-09-28T02:51:40.005000+00:00",
        "scores": {
            "faithfulness": 1.0,
            "answer_correctness": 0.88,
            "context_precision": 0.5,
            "context_recall": 1.0,
        },
    },
}
ORDER = ["r1", "r2", "r3"]
REQUEST_MODEL = "gpt-4o-mini"
RESPONSE_MODEL = "gpt-4o-mini-2024-07-18"
SYSTEM_PROMPT = (
    "Bạn là trợ lý chăm sóc khách hàng của BanHang. Chỉ trả lời dựa trên các điều khoản được cung cấp."
)
# DeepEval: R3's second context is a RetrievedContextData (context + source), to show how it serializes.
DEEPEVAL_SOURCE_R3 = "policies/returns-en.md#DT-3"

EXPECTED: dict[str, list[dict[str, Any]]] = {}
WRITTEN: list[str] = []


def hexid(label: str, nbytes: int) -> str:
    """A fixed, random-looking id: the first nbytes of sha256(label), as hex."""
    return hashlib.sha256(f"ragmon-peers/{label}".encode()).hexdigest()[: nbytes * 2]


def trace_id_hex(key: str, style: str) -> str:
    return hexid(f"{style}/{key}/trace", 16)


def span_id_hex(key: str, style: str, name: str) -> str:
    return hexid(f"{style}/{key}/{name}", 8)


def ts(key: str, offset_ms: float = 0.0) -> dt.datetime:
    return dt.datetime.fromisoformat(RECORDS[key]["start"]) + dt.timedelta(milliseconds=offset_ms)


def ns(key: str, offset_ms: float = 0.0) -> int:
    base = dt.datetime.fromisoformat(RECORDS[key]["start"])
    epoch_us = (base - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(microseconds=1)
    return epoch_us * 1000 + int(round(offset_ms * 1_000_000))


def expect(
    filename: str,
    key: str,
    *,
    trace_id: str | None,
    contexts: list[str] | None = None,
    reference: bool = True,
) -> None:
    rec = RECORDS[key]
    EXPECTED.setdefault(filename, []).append(
        {
            "trace_id": trace_id,
            "question": rec["question"],
            "answer": rec["answer"],
            "contexts": list(rec["contexts"]) if contexts is None else contexts,
            "reference": rec["reference"] if reference else None,
        }
    )


def wrote(*names: str) -> None:
    WRITTEN.extend(names)


def chat_messages(key: str) -> list[dict[str, str]]:
    rec = RECORDS[key]
    context_block = "\n".join(rec["contexts"])
    return [
        {"role": "system", "content": f"{SYSTEM_PROMPT}\n\nĐiều khoản:\n{context_block}"},
        {"role": "user", "content": rec["question"]},
    ]


# --------------------------------------------------------------------------------------------------
# 1. Ragas
# --------------------------------------------------------------------------------------------------


def ragas_artifacts() -> None:
    from ragas import EvaluationDataset, SingleTurnSample
    from ragas.callbacks import ChainRun
    from ragas.dataset_schema import EvaluationResult

    samples = []
    for key in ORDER:
        rec = RECORDS[key]
        kwargs: dict[str, Any] = {
            "user_input": rec["question"],
            "retrieved_contexts": rec["contexts"],
            "response": rec["answer"],
            "reference": rec["reference"],
        }
        # R3 carries no retrieved_context_ids: Ragas drops None fields (to_dict(exclude_none=True)),
        # so the dataset's rows do not all have the same keys.
        if key != "r3":
            kwargs["retrieved_context_ids"] = rec["context_ids"]
        samples.append(SingleTurnSample(**kwargs))
    ds = EvaluationDataset(samples=samples)

    ds.to_jsonl(OUT / "ragas_evaluation_dataset.jsonl")
    wrote("ragas_evaluation_dataset.jsonl")

    with open(OUT / "ragas_single_turn_samples.jsonl", "w", encoding="utf-8") as fh:
        for sample in samples:
            fh.write(sample.model_dump_json() + "\n")
    wrote("ragas_single_turn_samples.jsonl")

    df = ds.to_pandas()
    text = df.to_json(orient="records")  # pandas' defaults: force_ascii=True, escapes "/"
    (OUT / "ragas_to_pandas_records.json").write_text(text, encoding="utf-8")
    text = df.to_json(orient="records", indent=2)
    (OUT / "ragas_to_pandas_records_indent2.json").write_text(text, encoding="utf-8")
    wrote("ragas_to_pandas_records.json", "ragas_to_pandas_records_indent2.json")

    import datasets

    datasets.disable_progress_bars()
    hf = ds.to_hf_dataset()
    hf.to_json(str(OUT / "ragas_to_hf_dataset.jsonl"))
    wrote("ragas_to_hf_dataset.jsonl")

    ds.to_csv(OUT / "ragas_evaluation_dataset.csv")
    wrote("ragas_evaluation_dataset.csv")

    # EvaluationResult is what ragas.evaluate() returns; built here directly with hand-set scores
    # (no metric was run: no LLM is called). to_pandas() = dataset columns + one column per metric.
    # __post_init__ parses the run's callback traces and needs one root ChainRun, as evaluate() leaves.
    root_run = ChainRun(
        run_id="00000000-0000-4000-8000-000000000000",
        parent_run_id=None,
        name="ragas evaluation",
        inputs={},
        metadata={},
    )
    result = EvaluationResult(
        scores=[RECORDS[k]["scores"] for k in ORDER], dataset=ds, ragas_traces={root_run.run_id: root_run}
    )
    rdf = result.to_pandas()
    (OUT / "ragas_evaluation_result.json").write_text(rdf.to_json(orient="records"), encoding="utf-8")
    rdf.to_csv(OUT / "ragas_evaluation_result.csv", index=False)
    wrote("ragas_evaluation_result.json", "ragas_evaluation_result.csv")

    for name in (
        "ragas_evaluation_dataset.jsonl",
        "ragas_single_turn_samples.jsonl",
        "ragas_to_pandas_records.json",
        "ragas_to_pandas_records_indent2.json",
        "ragas_to_hf_dataset.jsonl",
        "ragas_evaluation_dataset.csv",
        "ragas_evaluation_result.json",
        "ragas_evaluation_result.csv",
    ):
        for key in ORDER:
            expect(name, key, trace_id=None)


# --------------------------------------------------------------------------------------------------
# 2. DeepEval
# --------------------------------------------------------------------------------------------------


def deepeval_artifacts(workdir: Path) -> None:
    from deepeval.dataset import EvaluationDataset, Golden
    from deepeval.test_case import LLMTestCase
    from deepeval.test_case.llm_test_case import RetrievedContextData

    def retrieval_context(key: str) -> list[Any]:
        ctx: list[Any] = list(RECORDS[key]["contexts"])
        if key == "r3":
            ctx[1] = RetrievedContextData(context=ctx[1], source=DEEPEVAL_SOURCE_R3)
        return ctx

    def flattened(key: str) -> list[str]:
        """What RetrievedContextData's model_serializer makes of R3's second context."""
        ctx = list(RECORDS[key]["contexts"])
        if key == "r3":
            ctx[1] = f"{DEEPEVAL_SOURCE_R3}: {ctx[1]}"
        return ctx

    test_cases = []
    goldens = []
    for i, key in enumerate(ORDER, start=1):
        rec = RECORDS[key]
        common = dict(
            input=rec["question"],
            actual_output=rec["answer"],
            expected_output=rec["reference"],
            retrieval_context=retrieval_context(key),
            token_cost=round(rec["cost"][0] + rec["cost"][1], 7),
            input_token_count=rec["tokens"][0],
            output_token_count=rec["tokens"][1],
        )
        test_cases.append(
            LLMTestCase(
                **common,
                completion_time=1.71 if key == "r1" else 1.24,
                name=f"banhang-q0{i}",
                tags=["banhang", "returns"],
                metadata={"model": RESPONSE_MODEL, "session_id": rec["session_id"]},
            )
        )
        goldens.append(
            Golden(
                **common,
                name=f"banhang-q0{i}",
                additional_metadata={"model": RESPONSE_MODEL, "session_id": rec["session_id"]},
            )
        )

    with open(OUT / "deepeval_llm_test_case_model_dump.jsonl", "w", encoding="utf-8") as fh:
        for tc in test_cases:
            fh.write(json.dumps(tc.model_dump(), ensure_ascii=False) + "\n")
    with open(OUT / "deepeval_llm_test_case_by_alias.jsonl", "w", encoding="utf-8") as fh:
        for tc in test_cases:
            fh.write(json.dumps(tc.model_dump(by_alias=True), ensure_ascii=False) + "\n")
    wrote("deepeval_llm_test_case_model_dump.jsonl", "deepeval_llm_test_case_by_alias.jsonl")
    for name in ("deepeval_llm_test_case_model_dump.jsonl", "deepeval_llm_test_case_by_alias.jsonl"):
        for key in ORDER:
            expect(name, key, trace_id=None, contexts=flattened(key))

    # save_as() writes into a directory and prints a line; capture the print, copy the files out.
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        gold = EvaluationDataset(goldens=goldens)
        for ftype in ("jsonl", "json", "csv"):
            path = gold.save_as(ftype, str(workdir), file_name="deepeval_dataset_goldens")
            shutil.copyfile(path, OUT / f"deepeval_dataset_goldens.{ftype}")
            wrote(f"deepeval_dataset_goldens.{ftype}")

        tcs = EvaluationDataset(goldens=[])
        for tc in test_cases:
            tcs.add_test_case(tc)
        path = tcs.save_as(
            "jsonl", str(workdir), file_name="deepeval_dataset_test_cases", include_test_cases=True
        )
        shutil.copyfile(path, OUT / "deepeval_dataset_test_cases.jsonl")
        wrote("deepeval_dataset_test_cases.jsonl")
    for ftype in ("jsonl", "json", "csv"):
        for key in ORDER:
            expect(f"deepeval_dataset_goldens.{ftype}", key, trace_id=None)
    for key in ORDER:
        expect("deepeval_dataset_test_cases.jsonl", key, trace_id=None)


# --------------------------------------------------------------------------------------------------
# 3. Langfuse (API models of langfuse 5.x: ObservationV2 / ObservationsV2Response)
# --------------------------------------------------------------------------------------------------

LANGFUSE_PROJECT = "cm1banhangprod0000fixture"


def langchain_documents(key: str) -> Any:
    """The retriever output as the Langfuse SDK serializes LangChain Documents (EventSerializer)."""
    from langchain_core.documents import Document
    from langfuse._utils.serializer import EventSerializer

    rec = RECORDS[key]
    docs = [
        Document(
            page_content=text,
            metadata={
                "doc_id": doc_id,
                "sections": [doc_id],
                "source": "banhang/chinh-sach-doi-tra.md",
                "score": score,
            },
        )
        for text, doc_id, score in zip(rec["contexts"], rec["context_ids"], rec["doc_scores"], strict=True)
    ]
    return json.loads(json.dumps(docs, cls=EventSerializer, ensure_ascii=False))


def langfuse_observations(key: str, *, raw_io: bool = False) -> list[Any]:
    """Three observations of one trace. raw_io=False: input/output as parsed JSON values.
    raw_io=True: as the v2 API returns them ("Input/output fields are always returned as raw
    strings"), i.e. the string the SDK put in langfuse.observation.input/output (its _serialize:
    str as is, anything else json.dumps(cls=EventSerializer), ASCII-escaped)."""
    from langfuse._client.attributes import _serialize
    from langfuse.api import ObservationLevel, ObservationV2

    def io(value: Any) -> Any:
        return _serialize(value) if raw_io else value

    rec = RECORDS[key]
    trace_id = trace_id_hex(key, "langfuse")
    root_id = span_id_hex(key, "langfuse", "root")
    common = dict(
        trace_id=trace_id,
        project_id=LANGFUSE_PROJECT,
        level=ObservationLevel.DEFAULT,
        status_message=None,
        version=None,
        environment="production",
        user_id=rec["user_id"],
        session_id=rec["session_id"],
        trace_name="banhang-chat",
        tags=["banhang", "returns"],
        release="2026.09.3",
    )
    in_tok, out_tok = rec["tokens"]
    in_cost, out_cost = rec["cost"]
    # Root input/output: R1 and R3 plain strings, R2 dicts (both happen: @observe captures kwargs).
    root_input: Any = rec["question"] if key != "r2" else {"question": rec["question"]}
    root_output: Any = rec["answer"] if key != "r2" else {"answer": rec["answer"]}
    root = ObservationV2(
        id=root_id,
        start_time=ts(key, 0),
        end_time=ts(key, 1840),
        parent_observation_id=None,
        type="SPAN",
        is_root_observation=True,
        name="banhang-chat",
        input=io(root_input),
        output=io(root_output),
        metadata={"channel": "web"},
        latency=1.84,
        **common,
    )
    retriever = ObservationV2(
        id=span_id_hex(key, "langfuse", "retriever"),
        start_time=ts(key, 15),
        end_time=ts(key, 95),
        parent_observation_id=root_id,
        type="RETRIEVER",
        is_root_observation=False,
        name="retrieve-policies",
        input=io({"query": rec["question"], "top_k": 4}),
        output=io(langchain_documents(key)),
        metadata={"index": "banhang-policies-v7"},
        latency=0.08,
        **common,
    )
    generation = ObservationV2(
        id=span_id_hex(key, "langfuse", "generation"),
        start_time=ts(key, 110),
        end_time=ts(key, 1820),
        completion_start_time=ts(key, 540),
        parent_observation_id=root_id,
        type="GENERATION",
        is_root_observation=False,
        name="answer",
        input=io(chat_messages(key)),
        output=io({"role": "assistant", "content": rec["answer"]}),
        metadata={"finish_reason": "stop"},
        model=RESPONSE_MODEL,
        model_parameters={"temperature": 0.2, "max_tokens": 512},
        usage_details={"input": in_tok, "output": out_tok, "total": in_tok + out_tok},
        cost_details={"input": in_cost, "output": out_cost, "total": round(in_cost + out_cost, 10)},
        total_cost=round(in_cost + out_cost, 10),
        latency=1.71,
        time_to_first_token=0.43,
        **common,
    )
    return [root, retriever, generation]


def langfuse_artifacts() -> None:
    from langfuse.api import ObservationsV2Meta, ObservationsV2Response

    observations = [obs for key in ORDER for obs in langfuse_observations(key)]
    # Interleave: the API orders by start time; R1 and R2 overlap in time, so their observations mix.
    observations.sort(key=lambda o: (o.start_time, o.id))
    with open(OUT / "langfuse_observations.jsonl", "w", encoding="utf-8") as fh:
        for obs in observations:
            fh.write(obs.json() + "\n")  # UniversalBaseModel.json(): by_alias=True, exclude_unset=True
    wrote("langfuse_observations.jsonl")

    raw = [obs for key in ORDER for obs in langfuse_observations(key, raw_io=True)]
    raw.sort(key=lambda o: (o.start_time, o.id))
    page = ObservationsV2Response(data=raw, meta=ObservationsV2Meta())
    (OUT / "langfuse_observations_v2_response.json").write_text(
        json.dumps(json.loads(page.json()), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    wrote("langfuse_observations_v2_response.json")
    # Order of the expected records = order of first appearance of each trace in the file.
    for name in ("langfuse_observations.jsonl", "langfuse_observations_v2_response.json"):
        for key in ORDER:
            expect(name, key, trace_id=trace_id_hex(key, "langfuse"), reference=False)


# --------------------------------------------------------------------------------------------------
# 4. OpenTelemetry (OpenInference, GenAI current, GenAI legacy) + the OTLP encoder
# --------------------------------------------------------------------------------------------------


class CaptureExporter:
    """A SpanExporter that keeps the ReadableSpans it is given, in export order."""

    def __init__(self) -> None:
        self.spans: list[Any] = []

    def export(self, spans):  # noqa: ANN001
        from opentelemetry.sdk.trace.export import SpanExportResult

        self.spans.extend(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def make_id_generator():
    from opentelemetry.sdk.trace.id_generator import IdGenerator

    class FixedIdGenerator(IdGenerator):
        """Hands out the ids queued by the caller, so every run writes the same ids."""

        def __init__(self) -> None:
            self.trace_ids: list[int] = []
            self.span_ids: list[int] = []

        def queue(self, trace_hex: str | None, *span_hex: str) -> None:
            if trace_hex is not None:
                self.trace_ids.append(int(trace_hex, 16))
            self.span_ids.extend(int(s, 16) for s in span_hex)

        def generate_trace_id(self) -> int:
            return self.trace_ids.pop(0)

        def generate_span_id(self) -> int:
            return self.span_ids.pop(0)

    return FixedIdGenerator()


def make_provider(service: str, idgen, exporter):  # noqa: ANN001
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    resource = Resource.create(
        {
            "service.name": service,
            "service.version": "1.4.0",
            "deployment.environment.name": "production",
            # SDK 1.45 adds a random UUID4 service.instance.id to every Resource.create(): pin it.
            "service.instance.id": hexid(f"instance/{service}", 16),
        }
    )
    provider = TracerProvider(resource=resource, id_generator=idgen)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def oi_trace(tracer, idgen, key: str) -> None:  # noqa: ANN001
    """OpenInference: CHAIN root, RETRIEVER child, LLM child."""
    from openinference.semconv.trace import (
        DocumentAttributes,
        MessageAttributes,
        OpenInferenceMimeTypeValues,
        OpenInferenceSpanKindValues,
        SpanAttributes,
    )
    from opentelemetry import trace as trace_api
    from opentelemetry.trace import Status, StatusCode

    rec = RECORDS[key]
    style = "oi"
    idgen.queue(
        trace_id_hex(key, style),
        span_id_hex(key, style, "chain"),
        span_id_hex(key, style, "retriever"),
        span_id_hex(key, style, "llm"),
    )
    kind = SpanAttributes.OPENINFERENCE_SPAN_KIND
    root = tracer.start_span(
        "banhang_rag",
        start_time=ns(key, 0),
        attributes={
            kind: OpenInferenceSpanKindValues.CHAIN.value,
            SpanAttributes.INPUT_VALUE: rec["question"],
            SpanAttributes.INPUT_MIME_TYPE: OpenInferenceMimeTypeValues.TEXT.value,
            SpanAttributes.SESSION_ID: rec["session_id"],
            SpanAttributes.USER_ID: rec["user_id"],
            SpanAttributes.METADATA: json.dumps({"channel": "web"}),
        },
    )
    ctx = trace_api.set_span_in_context(root)
    docs_prefix = SpanAttributes.RETRIEVAL_DOCUMENTS
    retr_attrs: dict[str, Any] = {
        kind: OpenInferenceSpanKindValues.RETRIEVER.value,
        SpanAttributes.INPUT_VALUE: rec["question"],
        SpanAttributes.INPUT_MIME_TYPE: OpenInferenceMimeTypeValues.TEXT.value,
    }
    for i, (text, doc_id, score) in enumerate(
        zip(rec["contexts"], rec["context_ids"], rec["doc_scores"], strict=True)
    ):
        p = f"{docs_prefix}.{i}."
        retr_attrs[p + DocumentAttributes.DOCUMENT_ID] = f"{doc_id.lower()}-chunk-0"
        retr_attrs[p + DocumentAttributes.DOCUMENT_SCORE] = score
        retr_attrs[p + DocumentAttributes.DOCUMENT_CONTENT] = text
        retr_attrs[p + DocumentAttributes.DOCUMENT_METADATA] = json.dumps(
            {"sections": [doc_id], "source": "banhang/chinh-sach-doi-tra.md"}, ensure_ascii=False
        )
    retr = tracer.start_span("retrieve", context=ctx, start_time=ns(key, 15), attributes=retr_attrs)
    retr.set_status(Status(StatusCode.OK))
    retr.end(end_time=ns(key, 95))

    in_tok, out_tok = rec["tokens"]
    llm_attrs: dict[str, Any] = {
        kind: OpenInferenceSpanKindValues.LLM.value,
        SpanAttributes.LLM_MODEL_NAME: RESPONSE_MODEL,
        SpanAttributes.LLM_PROVIDER: "openai",
        SpanAttributes.LLM_SYSTEM: "openai",
        SpanAttributes.LLM_INVOCATION_PARAMETERS: json.dumps({"model": REQUEST_MODEL, "temperature": 0.2}),
        SpanAttributes.LLM_TOKEN_COUNT_PROMPT: in_tok,
        SpanAttributes.LLM_TOKEN_COUNT_COMPLETION: out_tok,
        SpanAttributes.LLM_TOKEN_COUNT_TOTAL: in_tok + out_tok,
        SpanAttributes.INPUT_VALUE: json.dumps({"messages": chat_messages(key)}, ensure_ascii=False),
        SpanAttributes.INPUT_MIME_TYPE: OpenInferenceMimeTypeValues.JSON.value,
        SpanAttributes.OUTPUT_VALUE: rec["answer"],
        SpanAttributes.OUTPUT_MIME_TYPE: OpenInferenceMimeTypeValues.TEXT.value,
    }
    for i, msg in enumerate(chat_messages(key)):
        p = f"{SpanAttributes.LLM_INPUT_MESSAGES}.{i}."
        llm_attrs[p + MessageAttributes.MESSAGE_ROLE] = msg["role"]
        llm_attrs[p + MessageAttributes.MESSAGE_CONTENT] = msg["content"]
    p = f"{SpanAttributes.LLM_OUTPUT_MESSAGES}.0."
    llm_attrs[p + MessageAttributes.MESSAGE_ROLE] = "assistant"
    llm_attrs[p + MessageAttributes.MESSAGE_CONTENT] = rec["answer"]
    llm = tracer.start_span("ChatCompletion", context=ctx, start_time=ns(key, 110), attributes=llm_attrs)
    llm.set_status(Status(StatusCode.OK))
    llm.end(end_time=ns(key, 1820))

    root.set_attribute(SpanAttributes.OUTPUT_VALUE, rec["answer"])
    root.set_attribute(SpanAttributes.OUTPUT_MIME_TYPE, OpenInferenceMimeTypeValues.TEXT.value)
    root.set_status(Status(StatusCode.OK))
    root.end(end_time=ns(key, 1840))


def genai_retrieval_span(tracer, ctx, key: str, style: str):  # noqa: ANN001
    """GenAI semconv retrieval span (gen_ai.operation.name=retrieval, gen_ai.retrieval.documents)."""
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as G

    rec = RECORDS[key]
    documents = [
        {
            "id": f"{doc_id.lower()}-chunk-0",
            "score": score,
            "content": text,
            "metadata": {"sections": [doc_id]},
        }
        for text, doc_id, score in zip(rec["contexts"], rec["context_ids"], rec["doc_scores"], strict=True)
    ]
    span = tracer.start_span(
        f"{G.GenAiOperationNameValues.RETRIEVAL.value} banhang-policies",
        context=ctx,
        start_time=ns(key, 15),
        attributes={
            G.GEN_AI_OPERATION_NAME: G.GenAiOperationNameValues.RETRIEVAL.value,
            G.GEN_AI_DATA_SOURCE_ID: "banhang-policies",
            G.GEN_AI_RETRIEVAL_QUERY_TEXT: rec["question"],
            G.GEN_AI_RETRIEVAL_DOCUMENTS: json.dumps(documents, ensure_ascii=False),
        },
    )
    span.end(end_time=ns(key, 95))


def genai_trace(tracer, idgen, key: str) -> None:  # noqa: ANN001
    """GenAI semconv (current): an HTTP root, a retrieval span and a chat span with JSON messages."""
    from opentelemetry import trace as trace_api
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as G
    from opentelemetry.trace import SpanKind

    rec = RECORDS[key]
    style = "genai"
    idgen.queue(
        trace_id_hex(key, style),
        span_id_hex(key, style, "http"),
        span_id_hex(key, style, "retrieval"),
        span_id_hex(key, style, "chat"),
    )
    root = tracer.start_span(
        "POST /api/chat",
        kind=SpanKind.SERVER,
        start_time=ns(key, 0),
        attributes={
            "http.request.method": "POST",
            "http.route": "/api/chat",
            "url.path": "/api/chat",
            "user.id": rec["user_id"],
            "session.id": rec["session_id"],
        },
    )
    ctx = trace_api.set_span_in_context(root)
    genai_retrieval_span(tracer, ctx, key, style)
    messages = chat_messages(key)
    input_messages = [
        {"role": m["role"], "parts": [{"type": "text", "content": m["content"]}]} for m in messages
    ]
    output_messages = [
        {"role": "assistant", "parts": [{"type": "text", "content": rec["answer"]}], "finish_reason": "stop"}
    ]
    in_tok, out_tok = rec["tokens"]
    chat = tracer.start_span(
        f"{G.GenAiOperationNameValues.CHAT.value} {REQUEST_MODEL}",
        context=ctx,
        kind=SpanKind.CLIENT,
        start_time=ns(key, 110),
        attributes={
            G.GEN_AI_OPERATION_NAME: G.GenAiOperationNameValues.CHAT.value,
            G.GEN_AI_PROVIDER_NAME: "openai",
            G.GEN_AI_REQUEST_MODEL: REQUEST_MODEL,
            G.GEN_AI_REQUEST_TEMPERATURE: 0.2,
            G.GEN_AI_REQUEST_MAX_TOKENS: 512,
            G.GEN_AI_INPUT_MESSAGES: json.dumps(input_messages, ensure_ascii=False),
        },
    )
    chat.set_attributes(
        {
            G.GEN_AI_RESPONSE_MODEL: RESPONSE_MODEL,
            G.GEN_AI_RESPONSE_ID: "chatcmpl-" + hexid(f"{key}/response", 12),
            G.GEN_AI_RESPONSE_FINISH_REASONS: ["stop"],
            G.GEN_AI_USAGE_INPUT_TOKENS: in_tok,
            G.GEN_AI_USAGE_OUTPUT_TOKENS: out_tok,
            G.GEN_AI_OUTPUT_MESSAGES: json.dumps(output_messages, ensure_ascii=False),
        }
    )
    chat.end(end_time=ns(key, 1820))
    root.set_attribute("http.response.status_code", 200)
    root.end(end_time=ns(key, 1840))


def legacy_trace(tracer, oi_tracer, idgen, key: str, form: str) -> None:  # noqa: ANN001
    """Older GenAI styles. form="indexed": gen_ai.prompt.N.role/content + gen_ai.completion.N.* span
    attributes (as OpenLLMetry writes them). form="events": semconv 1.26-1.27 span events
    gen_ai.content.prompt / gen_ai.content.completion carrying gen_ai.prompt / gen_ai.completion
    JSON strings. Retrieval: an OpenInference RETRIEVER span (those conventions had none)."""
    from openinference.semconv.trace import DocumentAttributes, OpenInferenceSpanKindValues, SpanAttributes
    from opentelemetry import trace as trace_api
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as G
    from opentelemetry.trace import SpanKind

    rec = RECORDS[key]
    style = f"legacy-{form}"
    idgen.queue(
        trace_id_hex(key, style),
        span_id_hex(key, style, "workflow"),
        span_id_hex(key, style, "retriever"),
        span_id_hex(key, style, "chat"),
    )
    root = tracer.start_span(
        "banhang_rag.workflow",
        start_time=ns(key, 0),
        attributes={"traceloop.span.kind": "workflow", "traceloop.workflow.name": "banhang_rag"},
    )
    ctx = trace_api.set_span_in_context(root)
    retr_attrs: dict[str, Any] = {
        SpanAttributes.OPENINFERENCE_SPAN_KIND: OpenInferenceSpanKindValues.RETRIEVER.value,
        SpanAttributes.INPUT_VALUE: rec["question"],
    }
    for i, (text, doc_id, score) in enumerate(
        zip(rec["contexts"], rec["context_ids"], rec["doc_scores"], strict=True)
    ):
        p = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{i}."
        retr_attrs[p + DocumentAttributes.DOCUMENT_ID] = f"{doc_id.lower()}-chunk-0"
        retr_attrs[p + DocumentAttributes.DOCUMENT_SCORE] = score
        retr_attrs[p + DocumentAttributes.DOCUMENT_CONTENT] = text
        retr_attrs[p + DocumentAttributes.DOCUMENT_METADATA] = json.dumps({"sections": [doc_id]})
    retr = oi_tracer.start_span("retrieve", context=ctx, start_time=ns(key, 15), attributes=retr_attrs)
    retr.end(end_time=ns(key, 95))

    in_tok, out_tok = rec["tokens"]
    attrs: dict[str, Any] = {
        G.GEN_AI_SYSTEM: "openai",
        "llm.request.type": "chat",
        G.GEN_AI_REQUEST_MODEL: REQUEST_MODEL,
        G.GEN_AI_RESPONSE_MODEL: RESPONSE_MODEL,
        G.GEN_AI_USAGE_PROMPT_TOKENS: in_tok,
        G.GEN_AI_USAGE_COMPLETION_TOKENS: out_tok,
        "llm.usage.total_tokens": in_tok + out_tok,
    }
    messages = chat_messages(key)
    if form == "indexed":
        for i, m in enumerate(messages):
            attrs[f"{G.GEN_AI_PROMPT}.{i}.role"] = m["role"]
            attrs[f"{G.GEN_AI_PROMPT}.{i}.content"] = m["content"]
        attrs[f"{G.GEN_AI_COMPLETION}.0.role"] = "assistant"
        attrs[f"{G.GEN_AI_COMPLETION}.0.content"] = rec["answer"]
        attrs[f"{G.GEN_AI_COMPLETION}.0.finish_reason"] = "stop"
    chat = tracer.start_span(
        "openai.chat", context=ctx, kind=SpanKind.CLIENT, start_time=ns(key, 110), attributes=attrs
    )
    if form == "events":
        chat.add_event(
            "gen_ai.content.prompt",
            {G.GEN_AI_PROMPT: json.dumps(messages, ensure_ascii=False)},
            timestamp=ns(key, 110),
        )
        chat.add_event(
            "gen_ai.content.completion",
            {
                G.GEN_AI_COMPLETION: json.dumps(
                    [{"role": "assistant", "content": rec["answer"]}], ensure_ascii=False
                )
            },
            timestamp=ns(key, 1820),
        )
    chat.end(end_time=ns(key, 1820))
    root.end(end_time=ns(key, 1840))


def otlp_to_json_dict(request) -> dict[str, Any]:  # noqa: ANN001
    """protobuf's MessageToDict (camelCase, integer enums, int64 as strings), then trace/span ids
    converted from base64 (protobuf's JSON mapping for bytes) to lowercase hex (the OTLP/JSON rule)."""
    from google.protobuf import json_format

    d = json_format.MessageToDict(request, use_integers_for_enums=True)

    def fix(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in list(node.items()):
                if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str):
                    node[k] = base64.b64decode(v).hex()
                else:
                    fix(v)
        elif isinstance(node, list):
            for item in node:
                fix(item)

    fix(d)
    return d


def write_otlp(stem: str, spans: list[Any], *, jsonl_groups: list[list[Any]] | None = None) -> None:
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    request = encode_spans(spans)
    data = request.SerializeToString(deterministic=True)
    (OUT / f"{stem}.pb").write_bytes(data)
    (OUT / f"{stem}.json").write_text(
        json.dumps(otlp_to_json_dict(request), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    wrote(f"{stem}.pb", f"{stem}.json")
    if jsonl_groups is not None:
        with open(OUT / f"{stem}.jsonl", "w", encoding="utf-8") as fh:
            for group in jsonl_groups:
                line = json.dumps(
                    otlp_to_json_dict(encode_spans(group)), ensure_ascii=False, separators=(",", ":")
                )
                fh.write(line + "\n")
        with open(OUT / f"{stem}.pb.gz", "wb") as raw:
            # mtime=0 and no file name in the header: the same bytes on every run.
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                gz.write(data)
        wrote(f"{stem}.jsonl", f"{stem}.pb.gz")


def otel_artifacts() -> None:
    idgen = make_id_generator()
    exporter = CaptureExporter()
    oi_provider = make_provider("banhang-chat", idgen, exporter)
    genai_provider = make_provider("banhang-chat-genai", idgen, exporter)
    legacy_provider = make_provider("banhang-chat-legacy", idgen, exporter)
    oi_tracer = oi_provider.get_tracer("banhang.rag.openinference", "1.4.0")
    genai_tracer = genai_provider.get_tracer(
        "banhang.rag.genai", "1.4.0", schema_url="https://opentelemetry.io/schemas/1.37.0"
    )
    legacy_tracer = legacy_provider.get_tracer("banhang.rag.genai_legacy", "0.9.2")
    legacy_oi_tracer = legacy_provider.get_tracer("banhang.rag.openinference", "0.9.2")

    traces: list[tuple[str, str, list[Any]]] = []  # (key, trace id hex, spans)

    def run(key: str, style: str, fn) -> None:  # noqa: ANN001
        start = len(exporter.spans)
        fn()
        traces.append((key, trace_id_hex(key, style), exporter.spans[start:]))

    for key in ORDER:
        run(key, "oi", lambda k=key: oi_trace(oi_tracer, idgen, k))
    for key in ("r1", "r3"):
        run(key, "genai", lambda k=key: genai_trace(genai_tracer, idgen, k))
    run("r2", "legacy-indexed", lambda: legacy_trace(legacy_tracer, legacy_oi_tracer, idgen, "r2", "indexed"))
    run("r1", "legacy-events", lambda: legacy_trace(legacy_tracer, legacy_oi_tracer, idgen, "r1", "events"))
    for p in (oi_provider, genai_provider, legacy_provider):
        p.shutdown()

    all_spans = [s for _, _, spans in traces for s in spans]
    write_otlp("otlp_traces", all_spans, jsonl_groups=[spans for _, _, spans in traces])
    # encode_spans groups by resource, then scope: the request's trace order is by resource first.
    for name in ("otlp_traces.pb", "otlp_traces.json", "otlp_traces.pb.gz", "otlp_traces.jsonl"):
        for key, tid, _ in traces:
            expect(name, key, trace_id=tid, reference=False)

    # Split: R1's OpenInference trace, its spans over two requests in the order a batch processor
    # exports them (children end first: RETRIEVER + LLM, then the CHAIN root in a later batch).
    key, tid, spans = traces[0]
    children = [s for s in spans if s.parent is not None]
    roots = [s for s in spans if s.parent is None]
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    (OUT / "otlp_split_1.pb").write_bytes(encode_spans(children).SerializeToString(deterministic=True))
    (OUT / "otlp_split_2.pb").write_bytes(encode_spans(roots).SerializeToString(deterministic=True))
    wrote("otlp_split_1.pb", "otlp_split_2.pb")
    expect("otlp_split_1.pb+otlp_split_2.pb", key, trace_id=tid, reference=False)


# --------------------------------------------------------------------------------------------------
# 5. Langfuse SDK 5.x itself, as an OTel producer: the spans it would POST to /api/public/otel
# --------------------------------------------------------------------------------------------------


def langfuse_sdk_otlp_artifacts() -> None:
    import opentelemetry.sdk.trace as sdk_trace
    from langfuse import Langfuse, propagate_attributes
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider

    # A fake clock for the SDK (Langfuse's API takes no start/end times): 1 ms per reading, from R1's start.
    clock = {"now": ns("r1", 0)}

    def fake_time_ns() -> int:
        clock["now"] += 1_000_000
        return clock["now"]

    real_time_ns = sdk_trace.time_ns
    sdk_trace.time_ns = fake_time_ns
    try:
        idgen = make_id_generator()
        exporter = CaptureExporter()
        provider = TracerProvider(
            resource=Resource.create(
                {
                    "service.name": "banhang-chat",
                    "service.version": "1.4.0",
                    "service.instance.id": hexid("instance/langfuse-sdk", 16),
                }
            ),
            id_generator=idgen,
        )
        lf = Langfuse(
            public_key="pk-lf-00000000-fixture",
            secret_key="sk-lf-00000000-fixture",
            base_url="http://127.0.0.1:9",  # never contacted: span_exporter below replaces the OTLP exporter
            tracer_provider=provider,
            span_exporter=exporter,
            environment="production",
            release="2026.09.3",
            flush_at=1000,
        )
        keys = ["r1", "r2"]
        for key in keys:
            rec = RECORDS[key]
            idgen.queue(
                trace_id_hex(key, "langfuse-sdk"),
                span_id_hex(key, "langfuse-sdk", "root"),
                span_id_hex(key, "langfuse-sdk", "retriever"),
                span_id_hex(key, "langfuse-sdk", "generation"),
            )
            in_tok, out_tok = rec["tokens"]
            clock["now"] = ns(key, 0)
            with (
                lf.start_as_current_observation(
                    name="banhang-chat", as_type="span", input=rec["question"]
                ) as root,
                propagate_attributes(
                    user_id=rec["user_id"],
                    session_id=rec["session_id"],
                    tags=["banhang", "returns"],
                    trace_name="banhang-chat",
                ),
            ):
                with lf.start_as_current_observation(
                    name="retrieve-policies",
                    as_type="retriever",
                    input={"query": rec["question"], "top_k": 4},
                ) as retr:
                    retr.update(output=langchain_documents(key))
                with lf.start_as_current_observation(
                    name="answer",
                    as_type="generation",
                    model=RESPONSE_MODEL,
                    input=chat_messages(key),
                    model_parameters={"temperature": 0.2, "max_tokens": 512},
                ) as gen:
                    gen.update(
                        output={"role": "assistant", "content": rec["answer"]},
                        usage_details={"input": in_tok, "output": out_tok, "total": in_tok + out_tok},
                        cost_details={"input": rec["cost"][0], "output": rec["cost"][1]},
                    )
                root.update(output=rec["answer"])
        lf.flush()
        lf.shutdown()
    finally:
        sdk_trace.time_ns = real_time_ns

    write_otlp("langfuse_sdk_otlp", exporter.spans)
    for name in ("langfuse_sdk_otlp.pb", "langfuse_sdk_otlp.json"):
        for key in ["r1", "r2"]:
            expect(name, key, trace_id=trace_id_hex(key, "langfuse-sdk"), reference=False)


# --------------------------------------------------------------------------------------------------
# 6. Langfuse 4.18.0 TraceWithFullDetails (GET /api/public/traces/{id}); the model is gone in 5.x,
#    so this part runs in a second venv (PEERS_LANGFUSE4_PYTHON) as `generate.py --langfuse4`.
# --------------------------------------------------------------------------------------------------

LANGFUSE4_PIN = "4.18.0"
LANGFUSE4_PYTHON = os.environ.get("PEERS_LANGFUSE4_PYTHON", "/work/venvs/peers-langfuse4/bin/python")
LANGFUSE4_FILE = "langfuse4_traces_with_full_details.jsonl"


def langfuse4_trace_artifacts() -> None:
    """Only needs langfuse==4.18.0 (+ langchain-core). One TraceWithFullDetails per line, .json()."""
    import langfuse
    from langfuse.api import (
        ObservationLevel,
        ObservationsView,
        ScoreSource,
        ScoreV1_Numeric,
        TraceWithFullDetails,
        Usage,
    )

    installed = pkg_version("langfuse")
    if installed != LANGFUSE4_PIN:
        raise SystemExit(
            f"--langfuse4 wants langfuse=={LANGFUSE4_PIN}, found {installed} ({langfuse.__file__})"
        )
    with open(OUT / LANGFUSE4_FILE, "w", encoding="utf-8") as fh:
        for key in ORDER:
            rec = RECORDS[key]
            style = "langfuse4"
            tid = trace_id_hex(key, style)
            root_id = span_id_hex(key, style, "root")
            in_tok, out_tok = rec["tokens"]
            in_cost, out_cost = rec["cost"]
            total_cost = round(in_cost + out_cost, 10)
            common = dict(
                trace_id=tid,
                level=ObservationLevel.DEFAULT,
                status_message=None,
                version=None,
                environment="production",
                prompt_id=None,
            )
            no_usage = dict(
                usage=Usage(input=0, output=0, total=0, unit="TOKENS"), usage_details={}, cost_details={}
            )
            observations = [
                ObservationsView(
                    id=root_id,
                    type="SPAN",
                    name="banhang-chat",
                    start_time=ts(key, 0),
                    end_time=ts(key, 1840),
                    parent_observation_id=None,
                    input=rec["question"],
                    output=rec["answer"],
                    metadata={"channel": "web"},
                    model=None,
                    model_parameters=None,
                    completion_start_time=None,
                    latency=1.84,
                    **no_usage,
                    **common,
                ),
                ObservationsView(
                    id=span_id_hex(key, style, "retriever"),
                    type="RETRIEVER",
                    name="retrieve-policies",
                    start_time=ts(key, 15),
                    end_time=ts(key, 95),
                    parent_observation_id=root_id,
                    input={"query": rec["question"], "top_k": 4},
                    output=langchain_documents(key),
                    metadata={"index": "banhang-policies-v7"},
                    model=None,
                    model_parameters=None,
                    completion_start_time=None,
                    latency=0.08,
                    **no_usage,
                    **common,
                ),
                ObservationsView(
                    id=span_id_hex(key, style, "generation"),
                    type="GENERATION",
                    name="answer",
                    start_time=ts(key, 110),
                    end_time=ts(key, 1820),
                    completion_start_time=ts(key, 540),
                    parent_observation_id=root_id,
                    input=chat_messages(key),
                    output={"role": "assistant", "content": rec["answer"]},
                    metadata={"finish_reason": "stop"},
                    model=RESPONSE_MODEL,
                    model_parameters={"temperature": 0.2, "max_tokens": 512},
                    usage=Usage(
                        input=in_tok,
                        output=out_tok,
                        total=in_tok + out_tok,
                        unit="TOKENS",
                        input_cost=in_cost,
                        output_cost=out_cost,
                        total_cost=total_cost,
                    ),
                    usage_details={"input": in_tok, "output": out_tok, "total": in_tok + out_tok},
                    cost_details={"input": in_cost, "output": out_cost, "total": total_cost},
                    model_id="clx-gpt-4o-mini-2024-07-18",
                    input_price=1.5e-07,
                    output_price=6e-07,
                    calculated_input_cost=in_cost,
                    calculated_output_cost=out_cost,
                    calculated_total_cost=total_cost,
                    latency=1.71,
                    time_to_first_token=0.43,
                    prompt_name=None,
                    prompt_version=None,
                    **common,
                ),
            ]
            scores = [
                ScoreV1_Numeric(
                    id=hexid(f"{style}/{key}/score/{name}", 16),
                    trace_id=tid,
                    name=name,
                    value=value,
                    source=ScoreSource.EVAL,
                    observation_id=None,
                    timestamp=ts(key, 60_000),
                    created_at=ts(key, 60_000),
                    updated_at=ts(key, 60_000),
                    author_user_id=None,
                    comment=None,
                    config_id=None,
                    queue_id=None,
                    environment="production",
                )
                for name, value in sorted(rec["scores"].items())
            ]
            trace = TraceWithFullDetails(
                id=tid,
                timestamp=ts(key, 0),
                name="banhang-chat",
                input=rec["question"],
                output=rec["answer"],
                session_id=rec["session_id"],
                release="2026.09.3",
                version=None,
                user_id=rec["user_id"],
                metadata={"channel": "web"},
                tags=["banhang", "returns"],
                public=False,
                environment="production",
                html_path=f"/project/{LANGFUSE_PROJECT}/traces/{tid}",
                latency=1.84,
                total_cost=total_cost,
                observations=observations,
                scores=scores,
            )
            fh.write(trace.json() + "\n")
    print(f"wrote tests/data/peers/{LANGFUSE4_FILE} (langfuse {installed})")


def run_langfuse4_part() -> None:
    import subprocess

    if not Path(LANGFUSE4_PYTHON).exists():
        print(
            f"warning: {LANGFUSE4_PYTHON} missing: kept the committed {LANGFUSE4_FILE} as it is "
            f"(python3.11 -m venv /work/venvs/peers-langfuse4 && .../pip install langfuse=={LANGFUSE4_PIN})",
            file=sys.stderr,
        )
    else:
        subprocess.run([LANGFUSE4_PYTHON, str(Path(__file__).resolve()), "--langfuse4"], check=True)
    for key in ORDER:
        expect(LANGFUSE4_FILE, key, trace_id=trace_id_hex(key, "langfuse4"), reference=False)


# --------------------------------------------------------------------------------------------------


def main() -> None:
    if sys.argv[1:] == ["--langfuse4"]:
        langfuse4_trace_artifacts()
        return
    versions = {
        p: pkg_version(p)
        for p in (
            "ragas",
            "deepeval",
            "langfuse",
            "opentelemetry-sdk",
            "opentelemetry-api",
            "opentelemetry-exporter-otlp-proto-common",
            "opentelemetry-exporter-otlp-proto-http",
            "opentelemetry-proto",
            "opentelemetry-semantic-conventions",
            "openinference-semantic-conventions",
            "protobuf",
            "pandas",
            "datasets",
            "pydantic",
            "langchain-core",
        )
    }
    with tempfile.TemporaryDirectory(prefix="ragmon-peers-") as tmp:
        # DeepEval and friends may drop dot-folders into the working directory: keep them out of the repo.
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            ragas_artifacts()
            deepeval_artifacts(Path(tmp) / "deepeval")
            langfuse_artifacts()
            otel_artifacts()
            langfuse_sdk_otlp_artifacts()
            run_langfuse4_part()
        finally:
            os.chdir(cwd)
    (OUT / "expected.json").write_text(
        json.dumps(EXPECTED, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    versions[f"langfuse (only {LANGFUSE4_FILE}, second venv)"] = LANGFUSE4_PIN
    (OUT / "versions.json").write_text(json.dumps(versions, indent=2) + "\n", encoding="utf-8")
    for name in sorted(set(WRITTEN)):
        print(f"wrote tests/data/peers/{name}")
    print("wrote tests/data/peers/expected.json, tests/data/peers/versions.json")


if __name__ == "__main__":
    main()
