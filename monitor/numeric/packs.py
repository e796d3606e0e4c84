"""Numeric rule packs: YAML files of unit forms, multipliers and number words, validated on load.

Layout of a rules directory (``rules/numeric`` by default)::

    common/units.yaml     the catalog of canonical unit ids every pack must use
    common/*.yaml         language-neutral packs (symbols such as %, $, €, ¥)
    *.yaml                one pack per language (vi, en, fa, zh, ...)

Adding a language or a unit is a YAML edit; see ``rules/numeric/vi.yaml`` for the annotated format.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from importlib.resources.abc import Traversable
from typing import Annotated, Any, TypeVar

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from monitor.exceptions import ConfigError
from monitor.numeric.text import fold, nfc

CATALOG_FILE = "units.yaml"
COMMON_DIR = "common"
_M = TypeVar("_M", bound=BaseModel)
# Any letter but Chinese and Japanese ones: the word boundary of space-separated scripts ("5 đơn" is not
# "5 đ"); a Latin unit may touch a character of a script without spaces ("100GB国内流量").
LETTER = r"(?:(?![\u3040-\u30ff\u3400-\u9fff])[^\W\d_])"  # a lookahead, not one big class: compiles fast

Form = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Word = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, pattern=r"^\S+$")]
UnitId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_]*$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ComplementModel(_Strict):
    """A unit read as another one's complement: ``value`` of it is ``total - per * value`` of ``unit``
    ("9.5折", 95% of the price paid, is 5% off). A whole number from ``shorthand_from`` up is written
    without its point ("95折" is 9.5折)."""

    unit: UnitId
    total: Decimal
    per: Decimal = Field(gt=0)
    shorthand_from: Decimal | None = None

    def read(self, value: Decimal) -> Decimal:
        """The value in ``unit`` of ``value`` in the complemented unit."""
        if self.shorthand_from is not None and value >= self.shorthand_from and value == int(value):
            value = value / 10
        return self.total - self.per * value


class CatalogModel(_Strict):
    """``common/units.yaml``: canonical unit id -> one-line description; ``kinds``: what each group of
    units measures (a duration, an amount of money), so an answer's "30 ngày" is read as another value
    of the "5 ngày làm việc" it was expected to say; ``complements``: units read as another's
    complement (a Chinese discount "9.5折" is 5% off)."""

    units: dict[UnitId, str] = Field(min_length=1)
    kinds: dict[str, list[UnitId]] = {}
    complements: dict[UnitId, ComplementModel] = {}

    @model_validator(mode="after")
    def _kinds_name_known_units(self) -> CatalogModel:
        for kind, members in self.kinds.items():
            if unknown := [unit for unit in members if unit not in self.units]:
                raise ValueError(f"kinds.{kind}: unknown units {unknown}")
        for unit, complement in self.complements.items():
            if unknown := [u for u in (unit, complement.unit) if u not in self.units]:
                raise ValueError(f"complements.{unit}: unknown units {unknown}")
        return self

    def unit_kinds(self) -> dict[str, str]:
        """Unit id -> the kind of quantity it measures; a unit in no kind is its own."""
        kinds = {unit: unit for unit in self.units}
        kinds.update({unit: kind for kind, members in self.kinds.items() for unit in members})
        return kinds


class MultiplierModel(_Strict):
    """A scale word after a number ("nghìn", "k", "million", "万"); ``unit`` applies when none is written."""

    value: Decimal = Field(gt=0)
    unit: UnitId | None = None


class IgnoreModel(_Strict):
    """Where a candidate is not a quantity (a date, a weekday); every condition given must hold.

    ``before``: words one of which ends just before the candidate (spaces between allowed);
    ``after``: regex that must match just after it; ``behind``: regex that must match text ending
    just before it ("7h30-" before "20h"); ``text``: regex for the whole candidate;
    ``units``: the rule only applies to these units. Case is ignored throughout.
    """

    before: list[Form] = []
    after: Form | None = None
    behind: Form | None = None
    text: Form | None = None
    units: list[UnitId] = []

    @field_validator("after", "behind", "text")
    @classmethod
    def _compiles(cls, pattern: str | None) -> str | None:
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid regex {pattern!r}: {exc}") from exc
        return pattern

    @model_validator(mode="after")
    def _has_condition(self) -> IgnoreModel:
        if not self.before and self.after is None and self.behind is None and self.text is None:
            raise ValueError("needs at least one of before, after, behind, text")
        return self


class PeriodModel(_Strict):
    """How a language writes one rate period beside a quantity: ``after`` it ("per month", "/tháng",
    "一年") or ``before`` it ("mỗi tháng", "每月"); see monitor.numeric.periods."""

    after: list[Form] = []
    before: list[Form] = []


class PackModel(_Strict):
    """One rule pack file, as written."""

    language: Form
    word_boundaries: bool = True
    units: dict[UnitId, list[Form]] = {}
    prefix_units: dict[UnitId, list[Word]] = {}
    multipliers: dict[Word, MultiplierModel] = {}
    number_words: dict[Word, Annotated[Decimal, Field(ge=0)]] = {}
    scales: dict[Word, Annotated[Decimal, Field(gt=0)]] = {}
    continuations: dict[Word, Annotated[Decimal, Field(ge=0)]] = {}
    joiners: list[Word] = []
    decimal_words: list[Word] = []
    fractions: dict[Form, Annotated[Decimal, Field(gt=0, lt=1)]] = {}
    ignore: list[IgnoreModel] = []
    periods: dict[UnitId, PeriodModel] = {}
    # words joining a range's two numbers ("3 đến 5 ngày", "16 to 25 years", "3至5个工作日", "۳ تا ۵ روز"):
    # the first number has the unit written after the second; "-", "–", "~" join in every language
    range_words: list[Form] = []
    # words after which a policy writes an age as a bare number ("the minimum check-in age is 21",
    # "children under 12"): an answer's age in years ("21 سال", "12岁") stands in such a chunk
    age_words: list[Form] = []


def key(form: str) -> str:
    """Return the lookup key of a written form: normalized letters, folded case, single spaces."""
    return " ".join(fold(nfc(form)).split()).casefold()


@dataclass(frozen=True, slots=True)
class Pack:
    """A validated pack: forms are normalized, boundaries resolved to regex classes."""

    source: str
    model: PackModel

    @property
    def letter_class(self) -> str | None:
        """Class of characters a unit form may not touch, or None for scripts without spaces."""
        return LETTER if self.model.word_boundaries else None

    @property
    def word_class(self) -> str:
        """Class of characters a number word may not touch (letters, or the pack's numeral characters)."""
        if self.model.word_boundaries:
            return LETTER
        model = self.model
        words = [*model.number_words, *model.scales, *model.continuations, *model.joiners]
        chars = sorted({char for word in words for char in key(word)})
        return "[" + "".join(re.escape(char) for char in chars) + "]" if chars else r"(?!)"


def _read_yaml(entry: Traversable) -> Any:
    try:
        return yaml.safe_load(entry.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{entry}: cannot read numeric rule pack: {exc}") from exc


def _validate(model: type[_M], entry: Traversable) -> _M:
    try:
        return model.model_validate(_read_yaml(entry))
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise ConfigError(f"{entry}: field {field}: {first['msg']}") from exc


def _pack_files(directory: Traversable) -> Iterator[Traversable]:
    common = directory / COMMON_DIR
    for folder in (directory, common):
        if folder.is_dir():
            yield from sorted(
                (entry for entry in folder.iterdir() if entry.name.endswith((".yaml", ".yml"))),
                key=lambda entry: entry.name,
            )


def load_catalog(directory: Traversable) -> CatalogModel:
    """The unit catalog under ``directory`` (units, kinds, complements), read once; ConfigError if bad."""
    catalog_entry = directory / COMMON_DIR / CATALOG_FILE
    if not catalog_entry.is_file():
        raise ConfigError(f"{catalog_entry}: missing numeric unit catalog")
    return _validate(CatalogModel, catalog_entry)


def load_packs(
    directory: Traversable, catalog_model: CatalogModel | None = None
) -> tuple[frozenset[str], list[Pack]]:
    """Read every pack under ``directory`` and check its units against the unit catalog (read here
    unless given); raise ConfigError naming file and field."""
    catalog = frozenset((catalog_model or load_catalog(directory)).units)
    packs = [
        Pack(str(entry), _validate(PackModel, entry))
        for entry in _pack_files(directory)
        if entry.name != CATALOG_FILE
    ]
    if not packs:
        raise ConfigError(f"{directory}: no numeric rule packs (*.yaml)")
    for pack in packs:
        _check_units(pack, catalog)
    return catalog, packs


def _check_units(pack: Pack, catalog: frozenset[str]) -> None:
    model = pack.model
    named = [(f"units.{unit}", unit) for unit in model.units]
    named += [(f"prefix_units.{unit}", unit) for unit in model.prefix_units]
    named += [(f"multipliers.{word}.unit", m.unit) for word, m in model.multipliers.items() if m.unit]
    named += [
        (f"ignore.{index}.units", unit) for index, rule in enumerate(model.ignore) for unit in rule.units
    ]
    for field, unit in named:
        if unit not in catalog:
            raise ConfigError(
                f"{pack.source}: field {field}: unknown unit {unit!r} (not in common/units.yaml)"
            )
