"""kafka-python, imported once with its import-time DeprecationWarning silenced (pytest errors on warnings).

kafka-python 3.0 loads its protocol schemas with ``importlib.resources.read_text``, deprecated since
Python 3.11. Importing it here first, under ``catch_warnings``, lets every later ``import kafka`` (ours
and ``monitor.sources.kafka``) hit the module cache.
"""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="(read|open)_text is deprecated", category=DeprecationWarning)
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.errors import KafkaError
    from kafka.structs import OffsetAndMetadata

from monitor.sources import kafka_sockets  # noqa: F401,E402 - the test clients close failed sockets too

__all__ = [
    "KafkaAdminClient",
    "KafkaConsumer",
    "KafkaError",
    "KafkaProducer",
    "OffsetAndMetadata",
    "TopicPartition",
]
