"""Traces written by the real OpenTelemetry SDK with OpenInference and GenAI attributes, for tests."""

from __future__ import annotations

import json
from collections.abc import Callable

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

QUESTION = "Mua áo mặc không vừa thì được trả trong mấy ngày?"
ANSWER = "Bạn có 30 ngày để đổi trả áo, miễn là hàng còn tem và nhãn."
DT1 = "DT-1. Trong vòng 7 ngày kể từ ngày nhận hàng, khách có thể đổi hoặc trả sản phẩm."
DT3 = "DT-3. Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày."


def openinference_trace(provider: TracerProvider) -> str:
    """A CHAIN root, a RETRIEVER and an LLM span, attributes as OpenInference instrumentors set them."""
    tracer = provider.get_tracer("openinference.instrumentation.langchain")
    with tracer.start_as_current_span(
        "rag-chain", attributes={"openinference.span.kind": "CHAIN", "input.value": QUESTION}
    ) as root:
        attrs: dict[str, str | float] = {"openinference.span.kind": "RETRIEVER", "input.value": QUESTION}
        for i, (chunk_id, text, score) in enumerate([("dt-1", DT1, 0.83), ("dt-3", DT3, 0.79)]):
            attrs[f"retrieval.documents.{i}.document.id"] = chunk_id
            attrs[f"retrieval.documents.{i}.document.content"] = text
            attrs[f"retrieval.documents.{i}.document.score"] = score
            attrs[f"retrieval.documents.{i}.document.metadata"] = json.dumps({"sections": [chunk_id.upper()]})
        with tracer.start_as_current_span("retrieve", attributes=attrs):
            pass
        with tracer.start_as_current_span(
            "llm",
            attributes={
                "openinference.span.kind": "LLM",
                "llm.model_name": "gpt-4o-mini",
                "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": QUESTION,
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": ANSWER,
                "llm.token_count.prompt": 412,
                "llm.token_count.completion": 38,
            },
        ):
            pass
        root.set_attribute("output.value", ANSWER)
        return format(root.get_span_context().trace_id, "032x")


def genai_trace(provider: TracerProvider) -> str:
    """A GenAI chat span (current conventions: JSON message parts) under a plain root."""
    tracer = provider.get_tracer("opentelemetry.instrumentation.openai_v2")
    with tracer.start_as_current_span("handle-question") as root:
        with tracer.start_as_current_span(
            "chat gpt-4o-mini",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
                "gen_ai.input.messages": json.dumps(
                    [{"role": "user", "parts": [{"type": "text", "content": "How long do refunds take?"}]}]
                ),
                "gen_ai.output.messages": json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [{"type": "text", "content": "Refunds arrive within 5 business days."}],
                        }
                    ]
                ),
                "gen_ai.usage.input_tokens": 356,
                "gen_ai.usage.output_tokens": 29,
            },
        ):
            pass
        return format(root.get_span_context().trace_id, "032x")


def recorded(build: Callable[[TracerProvider], str]) -> tuple[str, list[ReadableSpan]]:
    """Run a trace builder on an in-memory provider: its trace id and its spans, in the order they ended."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "shop-assistant"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace_id = build(provider)
    provider.shutdown()
    return trace_id, list(exporter.get_finished_spans())


def otlp_request(spans: list[ReadableSpan]) -> bytes:
    """The spans as the SDK's OTLP exporters encode them: an ``ExportTraceServiceRequest`` in protobuf."""
    return encode_spans(spans).SerializeToString()
