"""A real Prometheus scraping a real ``ragmon run`` fed simulated Kafka traffic with seed 000's bad deploy.

Every Grafana panel query (variables substituted as Grafana would with "All" selected) must return
data, and every recording and alert rule must evaluate with health "ok". The traffic comes from
``ragmon simulate``'s library through its Kafka sink, so the simulator's producer path is exercised too.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from monitor.simulate import KafkaSink, SimConfig, emit, generate, write_golden, write_sections
from tests.support.daemon import FAST_KAFKA_ENV, Daemon, http_status, start_daemon, wait_until
from tests.support.kafka import Broker, free_port

pytestmark = [pytest.mark.integration, pytest.mark.timeout(150)]

ROOT = Path(__file__).resolve().parents[2]
DASHBOARDS = sorted((ROOT / "grafana" / "dashboards").glob("*.json"))
RULE_FILES = sorted((ROOT / "deploy" / "prometheus" / "rules").glob("*.yml"))
PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
TRACES = 600
BAD_DEPLOY_AT = 300
RATE_PER_S = 100.0
GOOD_INDEX, BAD_INDEX = "kb-2026-09-chunk200", "kb-2026-09-25-chunk800"
# What Grafana puts in place of its built-in variables; rate windows must span a few 1 s scrapes.
BUILTINS = {"__rate_interval": "1m", "__interval": "15s", "__range": "1h"}
VARIABLE = re.compile(r"\$\{(\w+)\}|\$(\w+)")


@dataclass
class Stack:
    """The running Prometheus (its HTTP API) and the daemon it scrapes."""

    api: str
    daemon: Daemon
    started: float

    def query(self, expr: str) -> dict[str, Any]:
        response = httpx.get(f"{self.api}/api/v1/query", params={"query": expr}, timeout=10.0)
        body: dict[str, Any] = response.json()
        assert body.get("status") == "success", f"{expr}: {body.get('error')}"
        return body["data"]  # type: ignore[no-any-return]

    def vector(self, expr: str) -> dict[str, float]:
        """An instant vector as {index_version or '': value}."""
        return {
            s["metric"].get("index_version", ""): float(s["value"][1]) for s in self.query(expr)["result"]
        }


def _variables(dashboard: dict[str, Any]) -> dict[str, str]:
    """The value each dashboard variable takes with its default selection ("All" = the allValue)."""
    values = dict(BUILTINS)
    for var in dashboard["templating"]["list"]:
        if var["type"] == "query":
            values[var["name"]] = var["allValue"]
        elif var["type"] in ("custom", "textbox", "constant"):
            values[var["name"]] = str(var["current"]["value"])
    return values


def _substitute(expr: str, values: dict[str, str]) -> str:
    return VARIABLE.sub(lambda m: values[m.group(1) or m.group(2)], expr)


def _panel_queries() -> list[tuple[str, str, str]]:
    """(dashboard uid, panel title, PromQL) for every target of every panel."""
    out = []
    for path in DASHBOARDS:
        board = json.loads(path.read_text(encoding="utf-8"))
        values = _variables(board)
        for panel in board["panels"]:
            for target in panel.get("targets", []):
                out.append((board["uid"], panel["title"], _substitute(target["expr"], values)))
    return out


def _rules_dir(tmp: Path) -> Path:
    """The packaged rule packs, with a larger random baseline and no budget: both samples in a short run."""
    rules = tmp / "rules"
    shutil.copytree(ROOT / "rules", rules)
    sampling = rules / "sampling.yaml"
    data = yaml.safe_load(sampling.read_text(encoding="utf-8"))
    data["reasons"]["random"]["probability"] = 0.3
    data["budget"]["traces_per_minute"] = None
    data["budget"]["tokens_per_hour"] = None
    sampling.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return rules


def _ready(daemon: Daemon) -> bool:
    daemon.assert_running()
    return daemon.status("/readyz") == 200


def _start_prometheus(tmp: Path, target_port: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    config = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s", "scrape_timeout": "900ms"},
        "rule_files": [str(p) for p in RULE_FILES],
        "scrape_configs": [
            {"job_name": "ragmon", "static_configs": [{"targets": [f"127.0.0.1:{target_port}"]}]}
        ],
    }
    (tmp / "prometheus.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    argv = [
        PROMETHEUS,
        f"--config.file={tmp / 'prometheus.yml'}",
        f"--storage.tsdb.path={tmp / 'tsdb'}",
        f"--web.listen-address=127.0.0.1:{port}",
        "--log.level=warn",
    ]
    with (tmp / "prometheus.log").open("wb") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    api = f"http://127.0.0.1:{port}"
    wait_until(lambda: http_status(f"{api}/-/ready") == 200, 30, "Prometheus ready")
    return proc, api


@pytest.fixture(scope="module")
def stack(broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Tansu topic -> ragmon run -> Prometheus (1 s scrapes, ragmon rules), fed simulated traffic."""
    tmp = tmp_path_factory.mktemp("prometheus-stack")
    topic = broker.create_topic(3)
    write_golden(tmp / "golden.json")
    write_sections(tmp / "sections.json")
    source = broker.url(topic, f"ragmon-prom-{uuid.uuid4().hex[:8]}")
    args = [
        "--source",
        source,
        "--golden",
        str(tmp / "golden.json"),
        "--golden-sections",
        str(tmp / "sections.json"),
        "--rules-dir",
        str(_rules_dir(tmp)),
        "--store",
        str(tmp / "review.db"),
    ]
    daemon = start_daemon(args, free_port(), tmp / "ragmon.log", env=FAST_KAFKA_ENV, cwd=tmp)
    prometheus, api = _start_prometheus(tmp, daemon.port)
    try:
        wait_until(lambda: _ready(daemon), 60, "ragmon ready")
        config = SimConfig(
            count=TRACES, seed=28, bad_deploy_at=BAD_DEPLOY_AT, invalid=0.02, late_feedback=0.05
        )
        sink = KafkaSink(f"kafka://{broker.bootstrap}/{topic}")
        try:
            emit(generate(config), sink, rate=RATE_PER_S)
        finally:
            sink.close()
        daemon.wait_metric("ragmon_traces_total", TRACES, 60, outcome="ok")
        running = Stack(api, daemon, time.time())
        wait_until(
            lambda: running.vector('sum(ragmon_traces_total{outcome="ok"})').get("") == TRACES,
            20,
            "Prometheus to scrape every trace",
        )
        time.sleep(3)  # a few more scrapes and rule evaluations on the final counts
        yield running
    finally:
        prometheus.send_signal(signal.SIGTERM)
        prometheus.wait(timeout=20)
        daemon.stop()


def test_every_dashboard_panel_query_returns_data(stack: Stack) -> None:
    """Each panel target of both dashboards, variables substituted, returns at least one series."""
    queries = _panel_queries()
    assert len(queries) > 40
    empty = [f"{uid} / {title}: {expr}" for uid, title, expr in queries if not stack.query(expr)["result"]]
    assert not empty, "panel queries without data:\n" + "\n".join(empty)


def test_every_rule_evaluates_with_health_ok(stack: Stack) -> None:
    """Every recording and alert rule loaded by Prometheus has been evaluated with health ok."""
    groups = httpx.get(f"{stack.api}/api/v1/rules", timeout=10.0).json()["data"]["groups"]
    rules = [rule for group in groups for rule in group["rules"]]
    expected = sum(len(g["rules"]) for f in RULE_FILES for g in yaml.safe_load(f.read_text())["groups"])
    assert len(rules) == expected
    bad = [f"{r['name']}: {r['health']} {r.get('lastError', '')}" for r in rules if r["health"] != "ok"]
    assert not bad, "\n".join(bad)
    assert all(not r["lastEvaluation"].startswith("0001-") for r in rules)


def test_live_golden_mrr_separates_the_bad_deploy(stack: Stack) -> None:
    """Recorded live MRR: over the configured floor for chunk 200, under it for chunk 800 (seed 000)."""
    mrr = stack.vector("ragmon:golden_mrr:mean1h")
    floor = stack.vector("ragmon:golden_mrr_floor:threshold")[""]
    assert mrr[GOOD_INDEX] > floor > mrr[BAD_INDEX]
    under = "ragmon:golden_mrr:mean1h < on () group_left () ragmon:golden_mrr_floor:threshold"
    firing = stack.vector(f"{under} and ragmon:golden_matched:count1h >= 10")
    assert set(firing) == {BAD_INDEX}
