"""Settings: YAML plus RAGMON_* overrides plus flags, secrets masked, invalid config names the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.cli import main
from monitor.config import load_settings, masked
from monitor.exceptions import ConfigError


def test_environment_overrides_the_file_and_flags_override_both(tmp_path: Path) -> None:
    """Precedence is file < environment < flags, nested sections use ``__``."""
    cfg = tmp_path / "ragmon.yaml"
    cfg.write_text("metrics_port: 9200\nlabel_cap: 7\nkafka:\n  client_id: from-file\n", encoding="utf-8")
    env = {"RAGMON_METRICS_PORT": "9300", "RAGMON_KAFKA__CLIENT_ID": "from-env"}
    settings = load_settings(cfg, {"metrics_port": 9400}, environ=env)
    assert settings.metrics_port == 9400
    assert settings.label_cap == 7
    assert settings.kafka.client_id == "from-env"


def test_judge_key_comes_from_the_environment_and_is_masked() -> None:
    """RAGMON_JUDGE_API_KEY reaches the settings but never their printed form."""
    settings = load_settings(environ={"RAGMON_JUDGE_API_KEY": "sk-very-secret"})
    assert settings.judge.api_key is not None
    assert settings.judge.api_key.get_secret_value() == "sk-very-secret"
    assert "sk-very-secret" not in str(masked(settings))
    assert "sk-very-secret" not in repr(settings)


def test_judge_key_in_a_file_is_refused(tmp_path: Path) -> None:
    """A key written into the config file is an error that points at the environment variable."""
    cfg = tmp_path / "ragmon.yaml"
    cfg.write_text("judge:\n  api_key: sk-oops\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="RAGMON_JUDGE_API_KEY"):
        load_settings(cfg, environ={})


def test_invalid_values_name_the_field() -> None:
    """Every invalid field is named in the error."""
    with pytest.raises(ConfigError) as info:
        load_settings(environ={"RAGMON_METRICS_PORT": "not-a-port", "RAGMON_KAFKA__MAX_POLL_RECORDS": "0"})
    assert "metrics_port" in str(info.value)
    assert "kafka.max_poll_records" in str(info.value)


def test_unknown_field_is_an_error(tmp_path: Path) -> None:
    """A typo in the config file is caught, not ignored."""
    cfg = tmp_path / "ragmon.yaml"
    cfg.write_text("metrics_prot: 9108\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="metrics_prot"):
        load_settings(cfg, environ={})


def test_cli_exits_2_on_invalid_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`ragmon config show` with a bad file exits with code 2 and names the field."""
    cfg = tmp_path / "ragmon.yaml"
    cfg.write_text("max_inflight: -3\n", encoding="utf-8")
    assert main(["config", "show", "--config", str(cfg)]) == 2
    assert "max_inflight" in capsys.readouterr().err


def test_config_show_masks_secrets(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ragmon config show` prints the effective config with secrets masked."""
    monkeypatch.setenv("RAGMON_JUDGE_API_KEY", "sk-live-123")
    monkeypatch.setenv("RAGMON_KAFKA__SASL_PLAIN_PASSWORD", "hunter2")
    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    assert "sk-live-123" not in out and "hunter2" not in out
    assert "'**********'" in out


def test_foreign_ragmon_variables_are_ignored() -> None:
    """Kubernetes service links (RAGMON_PORT, RAGMON_SERVICE_HOST) do not stop the daemon."""
    env = {
        "RAGMON_PORT": "tcp://10.0.0.1:9108",
        "RAGMON_SERVICE_HOST": "10.0.0.1",
        "RAGMON_METRICS_PORT": "9200",
    }
    assert load_settings(environ=env).metrics_port == 9200


def test_store_password_and_judge_headers_are_masked() -> None:
    """The store URL's password and extra judge headers never reach the printed config."""
    env = {
        "RAGMON_STORE": "postgresql://ragmon:hunter2@db:5432/ragmon",
        "RAGMON_JUDGE__EXTRA_HEADERS": '{"x-api-key": "sk-gateway"}',
        "RAGMON_JUDGE__EXTRA_QUERY": '{"api-version": "2024-10-21", "sig": "s3cret"}',
    }
    shown = str(masked(load_settings(environ=env)))
    assert "hunter2" not in shown and "sk-gateway" not in shown and "s3cret" not in shown
    assert "postgresql://ragmon:**********@db:5432/ragmon" in shown and "2024-10-21" in shown
