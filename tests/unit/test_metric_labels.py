"""Version labels are capped, and the cap's answer for a version never changes once given."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from monitor.metrics import OVERFLOW, UNKNOWN, Metrics


def test_versions_past_the_cap_are_other_and_stay_so() -> None:
    metrics = Metrics(CollectorRegistry(), label_cap=2)
    first = metrics.versions("m1", "p1", "kb-1")
    second = metrics.versions("m2", "p1", "kb-2")
    third = metrics.versions("m3", "p1", "kb-3")
    assert (first.model_id, second.model_id, third.model_id) == ("m1", "m2", OVERFLOW)
    assert third.index_version == OVERFLOW and third.prompt_version == "p1"
    assert metrics.versions("m3", "p1", "kb-3") == third  # remembered, the same answer
    assert metrics.versions("m1", "p1", "kb-2") == metrics.versions("m1", "p1", "kb-2")
    assert metrics.versions("m1", "p1", "kb-2").index_version == "kb-2"
    assert metrics.versions(None, "", "kb-1").model_id == UNKNOWN
