"""The README stays true to the code: its first two commands, and its add-a-language example works."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

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
