"""Settings: one frozen object built once at start from defaults, a YAML file, the environment and flags.

Precedence, lowest first: defaults, ``--config FILE`` (YAML), ``RAGMON_*`` environment variables
(nested with ``__``, e.g. ``RAGMON_KAFKA__SASL_PLAIN_PASSWORD``), then command-line flags. The judge key is
read from ``RAGMON_JUDGE_API_KEY`` only, never from a file or a flag. No other module reads
``os.environ``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from monitor.exceptions import ConfigError
from monitor.trace import DEFAULT_MAX_MESSAGE_BYTES

ENV_PREFIX = "RAGMON_"
JUDGE_KEY_ENV = "RAGMON_JUDGE_API_KEY"
PII_KEY_ENV = "RAGMON_PII_KEY"  # the key of PII pseudonyms in identifiers; share it between replicas
OTLP_TOKEN_ENV = "RAGMON_OTLP_TOKEN"  # noqa: S105 - the variable's name; the otlp:// receiver's token
OTLP_EXPORT_HEADERS_ENV = "RAGMON_OTLP_EXPORT_HEADERS"  # "name=value,...", as OTEL_EXPORTER_OTLP_HEADERS
REVIEW_TOKEN_ENV = "RAGMON_REVIEW_TOKEN"  # noqa: S105 - the variable's name; `review serve`'s login token
_SECRET_ENVS = (JUDGE_KEY_ENV, PII_KEY_ENV, OTLP_TOKEN_ENV, OTLP_EXPORT_HEADERS_ENV, REVIEW_TOKEN_ENV)
DEFAULT_METRICS_PORT = 9108
DEFAULT_SHUTDOWN_DEADLINE_S = 10.0
DEFAULT_MAX_INFLIGHT = 512
DEFAULT_JUDGE_TIMEOUT_S = 30.0


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class KafkaSettings(_Section):
    """Consumer settings; security options are passed through to kafka-python unchanged."""

    client_id: str = "ragmon"
    auto_offset_reset: Literal["earliest", "latest"] = "earliest"
    max_poll_records: int = Field(default=500, ge=1)
    session_timeout_ms: int = Field(default=10_000, ge=1000)
    heartbeat_interval_ms: int = Field(default=3_000, ge=100)
    max_poll_interval_ms: int = Field(default=300_000, ge=1000)
    commit_interval_s: float = Field(default=1.0, gt=0)
    connect_timeout_s: float = Field(default=30.0, gt=0)  # how long to wait for a broker at start
    dlq_suffix: str = ".dlq"
    security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    sasl_mechanism: str | None = None
    sasl_plain_username: str | None = None
    sasl_plain_password: SecretStr | None = None
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    ssl_check_hostname: bool = True


class JudgeSettings(_Section):
    """Which judge scores sampled traces: the offline local judge, or any OpenAI-compatible API."""

    kind: Literal["local", "openai"] = "local"
    url: str | None = None
    model: str | None = None
    api_key: SecretStr | None = None
    timeout_s: float = Field(default=DEFAULT_JUDGE_TIMEOUT_S, gt=0)
    concurrency: int = Field(default=16, ge=1)
    max_retries: int = Field(default=4, ge=0)
    circuit_failures: int = Field(default=5, ge=1)
    circuit_cooldown_s: float = Field(default=30.0, gt=0)
    json_schema: Literal["auto", "on", "off"] = "auto"  # YAML's bare on/off (booleans) are accepted
    api_key_header: str = "Authorization"  # Azure's classic deployments API wants "api-key"
    temperature: float | None = 0.0  # null for reasoning models that reject a temperature
    extra_headers: dict[str, str] = Field(default_factory=dict)
    extra_query: dict[str, str] = Field(default_factory=dict)
    trace_deadline_s: float = Field(default=120.0, gt=0)
    strict_relevance: bool = False
    embeddings_url: str | None = None
    embeddings_model: str = "multilingual-e5-small"
    embeddings_input: Literal["prefix", "input_type", "raw"] = "prefix"  # see monitor.embeddings

    @field_validator("json_schema", mode="before")
    @classmethod
    def _yaml_boolean(cls, value: Any) -> Any:
        """``json_schema: off`` unquoted is YAML's false: read it as "off" (true as "on")."""
        return {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) else value


class OtlpSettings(_Section):
    """OpenTelemetry: the ``otlp://`` receiver, OTLP on Kafka, and evaluation results out."""

    token: SecretStr | None = None  # from RAGMON_OTLP_TOKEN only; when set, requests need "Bearer <token>"
    max_request_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)  # a request body, before inflating
    queue_requests: int = Field(default=64, ge=1)  # requests waiting for the loop; past it: 503, retry
    settle_s: float = Field(default=5.0, gt=0)  # a trace whose root span never comes is handed on after
    export_url: str | None = None  # OTLP/HTTP endpoint for gen_ai.evaluation.result events (base or full)
    export_signal: Literal["spans", "logs"] = "spans"  # span events on a child span, or OTel log events
    export_headers: dict[str, SecretStr] = Field(default_factory=dict)  # from RAGMON_OTLP_EXPORT_HEADERS
    export_timeout_s: float = Field(default=10.0, gt=0)
    export_every: Literal["judged", "flagged", "all"] = "judged"  # which traces' results are exported

    @field_validator("export_url")
    @classmethod
    def _export_url_is_http(cls, value: str | None) -> str | None:
        if value is not None and urlsplit(value).scheme not in ("http", "https"):
            raise ValueError("must be an http(s):// URL, e.g. http://collector:4318")
        return value


class Settings(BaseSettings):
    """Everything the daemon, replay and review commands need; frozen after start."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_nested_delimiter="__", frozen=True, extra="forbid", case_sensitive=False
    )

    source: str = "sample"
    follow: bool = False
    dlq: str | None = None
    metrics_host: str = "127.0.0.1"
    metrics_port: int = Field(default=DEFAULT_METRICS_PORT, ge=0, le=65535)
    max_message_bytes: int = Field(default=DEFAULT_MAX_MESSAGE_BYTES, ge=1024)
    max_inflight: int = Field(default=DEFAULT_MAX_INFLIGHT, ge=1)
    shutdown_deadline_s: float = Field(default=DEFAULT_SHUTDOWN_DEADLINE_S, gt=0)
    label_cap: int = Field(default=20, ge=1)
    rules_dir: Path | None = None
    golden: tuple[Path, ...] = ()
    golden_sections: Path | None = None
    golden_threshold: float | None = Field(default=None, ge=0, le=1)  # None: the matcher's fitted default
    golden_margin: float | None = Field(default=None, ge=0, le=1)  # lead required over the second-best entry
    golden_k: int = Field(default=5, ge=1, le=50)  # the k of hit@k, recall@k and MRR@k
    golden_semantic: bool = False  # blend e5 into golden matching (docs/golden-matching.md)
    store: str | None = None
    results: Path | None = None
    dead_letter_raw: bool = False  # keep the exact bytes of rejected messages (they may hold PII)
    pii_key: SecretStr | None = None  # from RAGMON_PII_KEY only
    sample_all: bool = False
    feedback_window: int = Field(default=100_000, ge=0)
    feedback_window_bytes: int = Field(default=64 * 1024 * 1024, ge=0)
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_format: Literal["auto", "json", "console"] = "auto"
    kafka: KafkaSettings = KafkaSettings()
    judge: JudgeSettings = JudgeSettings()
    otlp: OtlpSettings = OtlpSettings()

    @model_validator(mode="after")
    def _sections_need_golden(self) -> Settings:
        if self.golden_sections is not None and not self.golden:
            raise ValueError("golden_sections: given without golden; name the golden file(s) too (--golden)")
        return self

    @field_validator("source")
    @classmethod
    def _source_not_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must name a file, '-', 'sample', a kafka:// or an otlp:// URL")
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Flags (init) win over the environment; the YAML file is merged under both in load_settings.
        return init_settings, env_settings


def load_settings(
    config_file: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Build the settings; raise ConfigError naming the offending field when anything is invalid."""
    environ = os.environ if environ is None else environ
    file_values = _read_yaml(config_file) if config_file else {}
    env_values = _env_values(environ)
    merged = _deep_merge(_deep_merge(file_values, env_values), dict(overrides or {}))
    key = environ.get(JUDGE_KEY_ENV)
    if key:
        merged["judge"] = {**merged.get("judge", {}), "api_key": key}
    pii_key = environ.get(PII_KEY_ENV)
    if pii_key:
        merged["pii_key"] = pii_key
    otlp_secrets = _otlp_secrets(environ)
    if otlp_secrets:
        merged["otlp"] = {**merged.get("otlp", {}), **otlp_secrets}
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, config_file)) from exc


def review_token(environ: Mapping[str, str] | None = None) -> SecretStr | None:
    """The login token of ``ragmon review serve``, from RAGMON_REVIEW_TOKEN only (a flag shows in ps)."""
    value = (os.environ if environ is None else environ).get(REVIEW_TOKEN_ENV, "").strip()
    return SecretStr(value) if value else None


def _otlp_secrets(environ: Mapping[str, str]) -> dict[str, Any]:
    """The receiver's token and the exporter's headers, from their environment variables only."""
    out: dict[str, Any] = {}
    if environ.get(OTLP_TOKEN_ENV):
        out["token"] = environ[OTLP_TOKEN_ENV]
    headers = environ.get(OTLP_EXPORT_HEADERS_ENV, "")
    pairs = [item.partition("=") for item in headers.split(",") if item.strip()]
    if any(not sep or not name.strip() for name, sep, _ in pairs):
        raise ConfigError(
            f"{OTLP_EXPORT_HEADERS_ENV}: expected name=value[,name=value], e.g. Authorization=Basic ..."
        )
    if pairs:
        out["export_headers"] = {name.strip(): value.strip() for name, _, value in pairs}
    return out


def _env_values(environ: Mapping[str, str]) -> dict[str, Any]:
    """RAGMON_* variables naming a setting, as a nested dict (``__`` separates levels).

    Other RAGMON_* names are not ours to reject: Kubernetes injects RAGMON_PORT, RAGMON_SERVICE_HOST...
    for a Service named ragmon. The judge key is handled apart.
    """
    values: dict[str, Any] = {}
    for name, raw in environ.items():
        upper = name.upper()
        if not upper.startswith(ENV_PREFIX) or upper in _SECRET_ENVS:
            continue
        path = upper[len(ENV_PREFIX) :].lower().split("__")
        if path[0] not in Settings.model_fields:
            continue
        node = values
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = _env_scalar(path[-1], raw)
    return values


def _env_scalar(field: str, raw: str) -> Any:
    if field == "golden":
        return [p for p in raw.split(os.pathsep) if p]
    if raw.startswith(("{", "[")):
        return yaml.safe_load(raw)
    return raw


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path} is not valid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping at the top level")
    if "judge" in data and isinstance(data["judge"], dict) and "api_key" in data["judge"]:
        raise ConfigError(f"{path}: judge.api_key must not be in a file; set {JUDGE_KEY_ENV} instead")
    if "pii_key" in data:
        raise ConfigError(f"{path}: pii_key must not be in a file; set {PII_KEY_ENV} instead")
    otlp = data.get("otlp")
    if isinstance(otlp, dict) and "token" in otlp:
        raise ConfigError(f"{path}: otlp.token must not be in a file; set {OTLP_TOKEN_ENV} instead")
    if isinstance(otlp, dict) and "export_headers" in otlp:
        raise ConfigError(f"{path}: otlp.export_headers must not be in a file; set {OTLP_EXPORT_HEADERS_ENV}")
    return data


def _deep_merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _describe(exc: ValidationError, config_file: Path | None) -> str:
    """One line per invalid setting, each naming it (one line in all for the usual single mistake)."""
    where = f" (config file {config_file})" if config_file else ""
    lines = []
    for err in exc.errors(include_url=False):
        message = str(err["msg"]).removeprefix("Value error, ")
        field = ".".join(str(p) for p in err["loc"])
        lines.append(f"{field}: {message}" if field else message)
    if len(lines) == 1:
        return f"invalid configuration{where}: {lines[0]}"
    return "\n  ".join([f"invalid configuration{where}:", *lines])


def config_summary(settings: Settings) -> dict[str, Any]:
    """What a start-up log line needs to say: where traces come from and go, and who judges them."""
    judge = settings.judge
    return {
        "source": mask_url_password(settings.source),
        "judge": judge.kind
        if judge.kind == "local"
        else f"{judge.kind} {judge.model} at {mask_url_password(judge.url or '')}",
        "golden": [str(p) for p in settings.golden] or None,
        "store": mask_url_password(settings.store) if settings.store else "ragmon-review.db",
        "results": str(settings.results) if settings.results else None,
        "rules_dir": str(settings.rules_dir) if settings.rules_dir else "packaged",
    }


MASK = "**********"
_SECRET_QUERY_WORDS = ("key", "token", "secret", "password", "sig")


def masked(settings: Settings) -> dict[str, Any]:
    """The effective settings as plain data, with every secret replaced by ``**********``.

    Besides the SecretStr fields: the store URL's password, every extra judge header (gateways put keys
    there) and extra query parameters whose name looks secret.
    """
    data = settings.model_dump(mode="json")
    if data["store"]:
        data["store"] = mask_url_password(data["store"])
    judge = data["judge"]
    judge["extra_headers"] = {name: MASK for name in judge["extra_headers"]}
    judge["extra_query"] = {
        name: MASK if any(w in name.lower() for w in _SECRET_QUERY_WORDS) else value
        for name, value in judge["extra_query"].items()
    }
    for url in ("url", "embeddings_url"):
        if judge[url]:
            judge[url] = mask_url_password(judge[url])
    otlp = data["otlp"]
    otlp["export_headers"] = {name: MASK for name in otlp["export_headers"]}
    if otlp["export_url"]:
        otlp["export_url"] = mask_url_password(otlp["export_url"])
    return data


def mask_url_password(url: str) -> str:
    """``postgresql://user:secret@host/db`` -> ``postgresql://user:**********@host/db``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", f":{MASK}@", 1)
    return urlunsplit(parts._replace(netloc=netloc))
