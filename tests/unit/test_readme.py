"""The README stays true to the code: its first two commands, and its add-a-language example works."""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
from pathlib import Path

import pytest

from monitor.numeric import NumericRules

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_first_two_commands_are_make_run_and_make_test() -> None:
    """The quick start runs the daemon on the embedded default, then the tests."""
    block = re.search(r"```sh\n(.*?)```", README, re.S)
    assert block is not None
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]
    assert commands[:2] == ["make run", "make test"]


def test_the_add_a_language_example_pack_works_without_code(tmp_path: Path) -> None:
    """The German pack shown in the README loads beside the shipped packs and compares quantities."""
    match = re.search(r"```yaml\n(language: de\n.*?)```", README, re.S)
    assert match is not None
    rules = tmp_path / "numeric"
    shutil.copytree(ROOT / "rules" / "numeric", rules)
    (rules / "de.yaml").write_text(match.group(1), encoding="utf-8")
    numeric = NumericRules.load(rules)
    units = {
        (q.unit, int(q.value)) for q in numeric.extract("Erstattung in 5 Werktagen, Rückgabe in 14 Tagen.")
    }
    assert units == {("business_day", 5), ("day", 14)}
    assert not numeric.check("Sie haben sieben Tage.", ["Rückgabe innerhalb von 7 Tagen."]).unsupported
    assert numeric.check("Sie haben 5 Tage.", ["Erstattung in 5 Werktagen."]).unsupported


def test_the_configuration_example_is_valid(tmp_path: Path) -> None:
    """The YAML example under Configuration loads as it is written."""
    from monitor.config import load_settings

    match = re.search(r"```yaml\n(source: kafka://.*?)```", README, re.S)
    assert match is not None
    cfg = tmp_path / "ragmon.yaml"
    cfg.write_text(match.group(1), encoding="utf-8")
    settings = load_settings(cfg, environ={})
    assert settings.kafka.security_protocol == "SASL_SSL" and settings.max_inflight == 512


def _command_lines() -> list[tuple[str, str, bool]]:
    """Every ``ragmon ...`` command in the README and docs/: (doc, command, whole?).

    Lines of shell code blocks are whole commands; inline code spans may name a command with only some
    of its arguments, so only their flags are checked.
    """
    found: list[tuple[str, str, bool]] = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for lang, block in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
            if lang not in ("", "sh", "bash", "console"):
                continue
            for line in block.replace("\\\n", " ").splitlines():
                line = line.split(" #")[0].strip()
                line = line.split(" exec ragmon ", 1)[-1]  # docker compose ... exec ragmon ragmon ...
                if line.startswith("ragmon ") and "|" not in line:
                    found.append((path.name, line, True))
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        spans = re.findall(r"`([^`\n]+)`", prose)
        found.extend(
            (path.name, span.split(" exec ragmon ", 1)[-1], False) for span in spans if "ragmon " in span
        )
    return [(doc, command, whole) for doc, command, whole in found if command.startswith("ragmon ")]


def _concrete(command: str) -> list[str]:
    """A documented command with its placeholders filled: <x> -> x, a|b -> a, [optional] dropped."""
    command = re.sub(r"\[[^\]]*\]", "", command)
    command = re.sub(r"<([^>]+)>", lambda m: m.group(1).replace(" ", "-"), command)
    command = re.sub(r"\b(\w+)\|\w+\b", r"\1", command)
    command = command.replace("...", "").replace("\u2026", "")
    return shlex.split(command)[1:]


def _parser_for(args: list[str]) -> tuple[argparse.ArgumentParser, list[str]]:
    """The (sub)parser a command's words lead to, and the words after it."""
    from monitor.cli import build_parser

    parser: argparse.ArgumentParser = build_parser()
    rest = list(args)
    while rest:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or rest[0] not in subs[0].choices:
            break
        parser = subs[0].choices[rest.pop(0)]
    return parser, rest


COMMANDS = _command_lines()


def test_the_readme_shows_commands() -> None:
    """The scan finds the README's commands (a broken scan would pass every check below)."""
    assert sum(whole for _, _, whole in COMMANDS) > 10
    assert any("review label" in c for _, c, _ in COMMANDS) and any("simulate" in c for _, c, _ in COMMANDS)


@pytest.mark.parametrize(("doc", "command", "whole"), COMMANDS, ids=[f"{d}:{c[:60]}" for d, c, _ in COMMANDS])
def test_every_documented_command_line_parses(doc: str, command: str, whole: bool) -> None:
    """Each command line the docs show is accepted by ragmon's own parser; a command named in prose
    uses only flags its sub-command has."""
    from monitor.cli import build_parser

    args = _concrete(command)
    if whole:
        try:
            build_parser().parse_args(args)
        except SystemExit as exc:
            if exc.code not in (0, None):
                raise AssertionError(f"{doc}: `{command}` is refused by the CLI") from exc
        return
    parser, rest = _parser_for(args)
    known = {option for action in parser._actions for option in action.option_strings}
    flags = [word.split("=")[0] for word in rest if word.startswith("--")]
    assert set(flags) <= known, f"{doc}: `{command}` names {sorted(set(flags) - known)}"
