"""SASL/SSL settings reach kafka-python unchanged; the Kafka URL is parsed strictly."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from monitor.config import KafkaSettings
from monitor.exceptions import ConfigError
from monitor.sources.kafka import KafkaURL, client_options


def test_sasl_ssl_settings_pass_through() -> None:
    """Security settings map one to one onto kafka-python's options, the password unwrapped only there."""
    settings = KafkaSettings(
        security_protocol="SASL_SSL",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_plain_username="ragmon",
        sasl_plain_password=SecretStr("pw"),
        ssl_cafile="/etc/ragmon/ca.pem",
        ssl_check_hostname=False,
    )
    assert client_options(settings) == {
        "client_id": "ragmon",
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "ragmon",
        "sasl_plain_password": "pw",
        "ssl_cafile": "/etc/ragmon/ca.pem",
        "ssl_check_hostname": False,
    }


def test_plaintext_sends_no_security_extras() -> None:
    """A plaintext consumer gets no SASL or SSL options at all."""
    assert client_options(KafkaSettings()) == {"client_id": "ragmon", "security_protocol": "PLAINTEXT"}


def test_kafka_url() -> None:
    """Several brokers, a topic and a group; the group defaults to ragmon."""
    url = KafkaURL.parse("kafka://k1:9092,k2:9092/rag-traces?group=mon")
    assert url == KafkaURL(("k1:9092", "k2:9092"), "rag-traces", "mon")
    assert KafkaURL.parse("kafka://k1:9092/t").group == "ragmon"


@pytest.mark.parametrize("bad", ["kafka://k1:9092", "kafka:///topic", "http://k1:9092/t"])
def test_bad_kafka_urls_name_the_expected_form(bad: str) -> None:
    """A malformed source URL is a config error that shows the expected form."""
    with pytest.raises(ConfigError, match=r"kafka://host:port"):
        KafkaURL.parse(bad)
