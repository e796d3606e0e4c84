"""Deployment files, checked offline: YAML, Prometheus and Alertmanager configs, alert runbooks,
Grafana dashboards and provisioning, the compose file, the Dockerfile and the Kubernetes manifests.

Validators that may be missing (promtool, amtool, check-jsonschema's vendored compose schema,
kubernetes-validate's schemas) make their test skip with the reason; the structural checks always run.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
GRAFANA = ROOT / "grafana"
RULES = DEPLOY / "prometheus" / "rules"
PROMTOOL_TESTS = DEPLOY / "prometheus" / "tests"
K8S = DEPLOY / "k8s"
ONCALL = ROOT / "docs" / "oncall.md"
RUNBOOK_BASE = "https://github.com/ragmon/ragmon/blob/main/README.md#"
YAML_FILES = sorted([*DEPLOY.rglob("*.yml"), *DEPLOY.rglob("*.yaml"), *GRAFANA.rglob("*.yml")])
DASHBOARD_FILES = sorted((GRAFANA / "dashboards").glob("*.json"))
BUILTIN_VARIABLES = {"__rate_interval", "__interval", "__range", "__all"}
PANEL_TYPES = {"row", "timeseries", "stat", "bargauge", "table", "heatmap", "gauge", "state-timeline"}
VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)")


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _alerts() -> list[dict[str, Any]]:
    return [r for g in _yaml(RULES / "ragmon-alerts.yml")["groups"] for r in g["rules"] if "alert" in r]


def _dashboards() -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in DASHBOARD_FILES]


def _panels(board: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for top in board["panels"] for p in (top, *top.get("panels", []))]


def _manifests() -> dict[str, dict[str, Any]]:
    """Kubernetes objects by kind (one of each kind here)."""
    docs = [
        d
        for p in sorted(K8S.glob("*.yaml"))
        if p.name != "kustomization.yaml"
        for d in yaml.safe_load_all(p.read_text())
    ]
    return {d["kind"]: d for d in docs}


def _github_slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _oncall_sections() -> dict[str, str]:
    """Runbook section text by anchor, for every heading in docs/oncall.md."""
    sections: dict[str, str] = {}
    anchor = ""
    for line in ONCALL.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            anchor = _github_slug(line.lstrip("#"))
            sections[anchor] = ""
        elif anchor:
            sections[anchor] += line + "\n"
    return sections


def _substitute(expr: str, values: dict[str, str]) -> str:
    return VARIABLE.sub(lambda m: values[m.group(1) or m.group(2)], expr)


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_yaml_files_parse(path: Path) -> None:
    """Every YAML file under deploy/ and grafana/ parses and is not empty."""
    docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]
    assert docs


# --- Prometheus and Alertmanager ---------------------------------------------------------------


@pytest.mark.skipif(
    shutil.which("promtool") is None, reason="promtool not installed (Debian package prometheus)"
)
def test_prometheus_config_and_rules_pass_promtool(tmp_path: Path) -> None:
    """promtool accepts the scrape config (rule paths pointed at the repository) and both rule files."""
    config = _yaml(DEPLOY / "prometheus" / "prometheus.yml")
    config["rule_files"] = [str(RULES / Path(p).name) for p in config["rule_files"]]
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = _run(["promtool", "check", "config", str(tmp_path / "prometheus.yml")])
    assert result.returncode == 0, result.stdout + result.stderr
    assert {Path(p).name for p in config["rule_files"]} == {p.name for p in RULES.glob("*.yml")}


@pytest.mark.skipif(
    shutil.which("amtool") is None, reason="amtool not installed (Debian package prometheus-alertmanager)"
)
def test_alertmanager_config_passes_amtool() -> None:
    """amtool accepts the Alertmanager config."""
    result = _run(["amtool", "check-config", str(DEPLOY / "alertmanager" / "alertmanager.yml")])
    assert result.returncode == 0, result.stdout + result.stderr


def test_alertmanager_routes_name_defined_receivers() -> None:
    """Every route points at a receiver that exists, and critical alerts have a route of their own."""
    config = _yaml(DEPLOY / "alertmanager" / "alertmanager.yml")
    receivers = {r["name"] for r in config["receivers"]}
    routes = [config["route"], *config["route"].get("routes", [])]
    assert all(r["receiver"] in receivers for r in routes)
    assert any('severity = "critical"' in m for r in routes for m in r.get("matchers", []))


def test_every_alert_has_summary_severity_runbook_and_dashboard() -> None:
    """Each alert has a summary, a known severity, a README runbook anchor and an existing dashboard."""
    uids = {b["uid"] for b in _dashboards()}
    for alert in _alerts():
        annotations = alert["annotations"]
        assert alert["labels"]["severity"] in {"critical", "warning"}, alert["alert"]
        assert annotations["summary"].strip(), alert["alert"]
        assert annotations["runbook_url"] == RUNBOOK_BASE + f"alert-{alert['alert'].lower()}"
        assert annotations["dashboard"].split("/")[2] in uids, alert["alert"]


def test_runbook_sections_name_a_dashboard_and_a_review_command() -> None:
    """docs/oncall.md has a heading per alert anchor, naming a dashboard and a `ragmon review` command."""
    sections = _oncall_sections()
    for alert in _alerts():
        anchor = alert["annotations"]["runbook_url"].split("#", 1)[1]
        assert anchor in sections, f"docs/oncall.md lacks '### Alert: {alert['alert']}'"
        text = sections[anchor]
        assert "ragmon review" in text, anchor
        assert "**ragmon overview**" in text or "**ragmon operations**" in text, anchor


def test_oncall_walks_from_an_alert_to_review_show() -> None:
    """The on-call page walks from a firing alert through `ragmon review list` to `ragmon review show`."""
    text = ONCALL.read_text(encoding="utf-8")
    walk = text[text.index("### Walkthrough") : text.index("### Alert:")]
    assert (
        walk.index("RagmonGoldenMRRLow") < walk.index("ragmon review list") < walk.index("ragmon review show")
    )


def test_every_alert_has_promtool_tests_firing_and_not_firing() -> None:
    """For each alert, some promtool test expects it firing and some expects it silent."""
    firing: set[str] = set()
    silent: set[str] = set()
    for path in PROMTOOL_TESTS.glob("*.yml"):
        for case in _yaml(path)["tests"]:
            for check in case.get("alert_rule_test", []):
                (firing if check.get("exp_alerts") else silent).add(check["alertname"])
    names = {a["alert"] for a in _alerts()}
    assert names - firing == set(), "no firing test"
    assert names - silent == set(), "no not-firing test"


def test_prometheus_rule_crd_equals_the_rule_files() -> None:
    """deploy/k8s/prometheusrule.yaml holds exactly the groups of deploy/prometheus/rules/*.yml."""
    groups = [g for p in sorted(RULES.glob("*.yml")) for g in _yaml(p)["groups"]]
    assert _manifests()["PrometheusRule"]["spec"]["groups"] == groups


# --- Grafana -----------------------------------------------------------------------------------


def test_dashboards_have_unique_uids_and_valid_layout() -> None:
    """Dashboards have uid, title, schemaVersion; panel ids are unique and panels fit the 24-column grid."""
    boards = _dashboards()
    assert len({b["uid"] for b in boards}) == len(boards) == 2
    for board in boards:
        assert board["title"] and board["schemaVersion"] >= 36
        panels = _panels(board)
        assert len({p["id"] for p in panels}) == len(panels)
        cells: set[tuple[int, int]] = set()
        for p in panels:
            g = p["gridPos"]
            assert p["type"] in PANEL_TYPES and g["x"] >= 0 and g["w"] > 0 and g["x"] + g["w"] <= 24, p[
                "title"
            ]
            area = {(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])}
            assert not cells & area, f"{board['uid']}: '{p['title']}' overlaps another panel"
            cells |= area


def test_dashboard_panels_query_prometheus_through_the_datasource_variable() -> None:
    """Every non-row panel has targets with unique refIds and PromQL, on the ${datasource} variable."""
    for board in _dashboards():
        names = {v["name"] for v in board["templating"]["list"]}
        assert {"datasource"} <= names
        for p in _panels(board):
            if p["type"] == "row":
                continue
            assert p["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, p["title"]
            refs = [t["refId"] for t in p["targets"]]
            assert refs and len(set(refs)) == len(refs) and all(t["expr"].strip() for t in p["targets"])


def test_dashboard_variables_are_defined_where_used() -> None:
    """Every $variable in a query or title is a dashboard variable or a Grafana built-in."""
    for board in _dashboards():
        defined = {v["name"] for v in board["templating"]["list"]} | BUILTIN_VARIABLES
        text = json.dumps([(p["title"], [t["expr"] for t in p.get("targets", [])]) for p in _panels(board)])
        used = {a or b for a, b in VARIABLE.findall(text)}
        assert used <= defined, used - defined


def test_overview_has_version_variables_and_random_apart_from_targeted() -> None:
    """The overview filters by model/prompt/index version and shows sample="random" apart from targeted."""
    overview = next(b for b in _dashboards() if b["uid"] == "ragmon-overview")
    names = {v["name"] for v in overview["templating"]["list"]}
    assert {"model_id", "prompt_version", "index_version", "judge"} <= names
    exprs = [t["expr"] for p in _panels(overview) for t in p.get("targets", [])]
    for metric in ("faithfulness", "answer_relevance", "context_relevance", "context_precision"):
        for sample in ("random", "targeted"):
            assert any(f'ragmon_{metric}_sum{{sample="{sample}"' in e for e in exprs), (metric, sample)
    operations = next(b for b in _dashboards() if b["uid"] == "ragmon-operations")
    assert "price_per_1k" in {v["name"] for v in operations["templating"]["list"]}


@pytest.mark.skipif(
    shutil.which("promtool") is None, reason="promtool not installed (Debian package prometheus)"
)
def test_every_panel_query_parses_as_promql(tmp_path: Path) -> None:
    """Each panel query, variables substituted, passes promtool's PromQL parser (as a recording rule)."""
    rules: list[dict[str, str]] = []
    for board in _dashboards():
        values: dict[str, str] = {
            v["name"]: str(v.get("allValue") or v.get("current", {}).get("value", ""))
            for v in board["templating"]["list"]
        }
        values |= {"__rate_interval": "1m", "__interval": "15s", "__range": "1h"}
        for p in _panels(board):
            for t in p.get("targets", []):
                expr = _substitute(t["expr"], values)
                rules.append({"record": f"panel:query:{len(rules)}", "expr": expr})
    (tmp_path / "panels.yml").write_text(yaml.safe_dump({"groups": [{"name": "panels", "rules": rules}]}))
    result = _run(["promtool", "check", "rules", str(tmp_path / "panels.yml")])
    assert result.returncode == 0, result.stdout + result.stderr


def test_grafana_provisioning_matches_compose_mounts_and_dashboards() -> None:
    """The datasource uid is the dashboards' default and its URL a compose service; dashboards are mounted."""
    datasource = _yaml(GRAFANA / "provisioning" / "datasources" / "prometheus.yml")["datasources"][0]
    provider = _yaml(GRAFANA / "provisioning" / "dashboards" / "ragmon.yml")["providers"][0]
    compose = _yaml(DEPLOY / "docker-compose.yml")
    grafana_mounts = dict(v.split(":")[:2] for v in compose["services"]["grafana"]["volumes"])
    assert grafana_mounts["../grafana/dashboards"] == provider["options"]["path"]
    assert grafana_mounts["../grafana/provisioning"] == "/etc/grafana/provisioning"
    assert datasource["type"] == "prometheus" and "prometheus:9090" in datasource["url"]
    for board in _dashboards():
        var = next(v for v in board["templating"]["list"] if v["name"] == "datasource")
        assert var["current"]["value"] == datasource["uid"]


# --- compose and Dockerfile --------------------------------------------------------------------


def test_compose_file_matches_the_compose_spec() -> None:
    """docker-compose.yml validates against the compose-spec JSON schema vendored by check-jsonschema."""
    check_jsonschema = pytest.importorskip("check_jsonschema", reason="check-jsonschema not installed")
    jsonschema = pytest.importorskip("jsonschema")
    schema_path = Path(check_jsonschema.__file__).parent / "builtin_schemas" / "vendor" / "compose-spec.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    jsonschema.validate(_yaml(DEPLOY / "docker-compose.yml"), schema)


def test_compose_wires_the_stack_and_the_incident_replay() -> None:
    """All services exist, dependencies resolve, mounted files exist, the simulator feeds ragmon's topic."""
    services = _yaml(DEPLOY / "docker-compose.yml")["services"]
    assert {"kafka", "ragmon", "postgres", "prometheus", "alertmanager", "grafana", "simulator"} <= set(
        services
    )
    for name, svc in services.items():
        assert set(svc.get("depends_on", {})) <= set(services), name
        for volume in svc.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name}: {source}"
    topic = services["ragmon"]["environment"]["RAGMON_SOURCE"].split("/")[-1].split("?")[0]
    sim = " ".join(services["simulator"]["command"])
    assert f"--kafka=kafka://kafka:9092/{topic}" in sim and "--bad-deploy-at=" in sim
    assert services["ragmon"]["environment"]["RAGMON_METRICS_HOST"] == "0.0.0.0"


def test_dockerfile_is_slim_non_root_with_healthz_healthcheck() -> None:
    """The image is python slim, runs as a non-root uid, exposes 9108 and health-checks /healthz there."""
    lines = [line.strip() for line in (DEPLOY / "Dockerfile").read_text().splitlines()]
    froms = [line for line in lines if line.startswith("FROM ")]
    assert froms and all("-slim" in line for line in froms)
    user = next(line for line in lines if line.startswith("USER ")).split()[1].split(":")[0]
    assert user not in {"root", "0"}
    text = "\n".join(lines)
    assert "EXPOSE 9108" in text and re.search(r"HEALTHCHECK .*\n?.*127\.0\.0\.1:9108/healthz", text)
    for line in lines:
        if line.startswith("COPY ") and "--from" not in line:
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), source


# --- Kubernetes --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["Deployment", "Service", "PodDisruptionBudget", "ConfigMap"])
def test_core_manifests_match_the_kubernetes_schema(kind: str) -> None:
    """The core objects validate (strictly) against Kubernetes' OpenAPI schemas, offline."""
    kubernetes_validate = pytest.importorskip(
        "kubernetes_validate", reason="kubernetes-validate not installed"
    )
    kubernetes_validate.validate(_manifests()[kind], "1.30.0", strict=True)


def test_kustomization_lists_every_manifest() -> None:
    """kustomization.yaml names every manifest in deploy/k8s and nothing else."""
    listed = set(_yaml(K8S / "kustomization.yaml")["resources"])
    assert listed == {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}


def test_deployment_probes_resources_grace_and_secret() -> None:
    """Liveness /healthz, readiness /readyz, resources, grace above the shutdown deadline, Secret key."""
    pod = _manifests()["Deployment"]["spec"]["template"]["spec"]
    container = next(c for c in pod["containers"] if c["name"] == "ragmon")
    env = {e["name"]: e for e in container["env"]}
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["resources"]["requests"] and container["resources"]["limits"]["memory"]
    assert pod["terminationGracePeriodSeconds"] > float(env["RAGMON_SHUTDOWN_DEADLINE_S"]["value"])
    assert env["RAGMON_JUDGE_API_KEY"]["valueFrom"]["secretKeyRef"]["name"]
    assert pod["securityContext"]["runAsNonRoot"] is True


def test_service_monitor_and_pdb_select_the_deployment_pods() -> None:
    """Service, ServiceMonitor and PodDisruptionBudget select the pods; ports line up on 'metrics'."""
    m = _manifests()
    pod_labels = m["Deployment"]["spec"]["template"]["metadata"]["labels"]
    service = m["Service"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert m["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    assert (
        m["ServiceMonitor"]["spec"]["selector"]["matchLabels"].items()
        <= service["metadata"]["labels"].items()
    )
    ports = {p["name"] for c in m["Deployment"]["spec"]["template"]["spec"]["containers"] for p in c["ports"]}
    assert {
        service["spec"]["ports"][0]["targetPort"],
        m["ServiceMonitor"]["spec"]["endpoints"][0]["port"],
    } <= ports
    # The Service name becomes the job label RagmonDown watches.
    assert service["metadata"]["name"] == "ragmon"


def test_rule_pack_configmap_overrides_packaged_packs_with_the_same_keys() -> None:
    """Each ConfigMap pack replaces a packaged top-level pack and keeps its top-level keys."""
    for name, text in _manifests()["ConfigMap"]["data"].items():
        packaged = ROOT / "rules" / name
        assert packaged.is_file(), name
        assert set(yaml.safe_load(text)) == set(_yaml(packaged)), name


def test_rule_pack_configmap_packs_validate_like_the_packaged_ones(tmp_path: Path) -> None:
    """The ConfigMap's flag and sampling packs load with ragmon's own pack models."""
    from monitor.flags import FlagRules
    from monitor.rulepacks import RulePacks
    from monitor.sampling import SamplingPolicy

    for name, text in _manifests()["ConfigMap"]["data"].items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    packs = RulePacks(tmp_path)
    assert FlagRules.load(packs).thresholds()["faithfulness"] == 0.8
    assert SamplingPolicy.load(packs).salt
