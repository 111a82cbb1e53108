"""The score's components, written once: everything else about a component is derived from here.

Each :class:`Component` says what it reads, how it is computed (in Python and in SQL), its weight
and the texts people read about it. From this table come the score (:func:`scoring.score.compute_scores`
and its exact :func:`~scoring.score.tie_key`), the SQL recompute (:mod:`scoring.sql`), the
uncertainty model (:mod:`scoring.uncertainty`), the breakdown and "what would move it"
(:mod:`scoring.explain`, ``db/breakdown.py``), the score rows (``db/scores.py``), Datasette's
descriptions and canned queries (``datasette_plugins/metadata.py``), the export schema's
``components`` (``agentrank/exporter.py``) and the tables in README.md and docs/score.md (cog).

A component is one of three kinds:

- ``PERCENTILE``: the percentile of ``value`` among the listed repos (ties share the lowest rank);
  ``value`` names an input column (``stars``, ``forks``, a column in ``extra_inputs``) or a derived
  one (``stars_per_day``), and ``sql`` the expression SQL orders by (default: ``value``);
- ``BUCKETS``: whole points from ``value`` in ``buckets`` (upper bound inclusive, points), 0 above
  the last bound or when the value is missing;
- ``FLAG``: 100 when ``value`` holds, else 0.

The score sums ``weight × component`` in this table's order, in Python and in SQL alike, so both
give the same doubles. ``400 × weight`` must be whole (the exact tie key, see ``scoring.score``).
Adding a component: see "Add a score component" in docs/architecture.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

# The method's version: bump it with any change to the table (a score row keeps the version it was
# computed with).
METHOD_VERSION = "1"

PERCENTILE: Final = "percentile"
BUCKETS: Final = "buckets"
FLAG: Final = "flag"

MIN_AGE_DAYS = 30.0
SECONDS_PER_DAY = 86400.0
_MIN_AGE_SECONDS = int(MIN_AGE_DAYS * SECONDS_PER_DAY)


@dataclass(frozen=True)
class Component:
    name: str
    weight: float
    kind: Literal["percentile", "buckets", "flag"]
    # The input the component is computed from: a column of the score inputs (Python) and of the
    # recompute query's inputs (SQL), stored with every score row.
    value: str
    # How SQL orders by the value (PERCENTILE) or tests it (FLAG); default: the column itself.
    sql: str = ""
    buckets: tuple[tuple[float, float], ...] = ()
    # Stored inputs beyond the base ones (stars, forks, created_at, pushed_at, licence): a column
    # of ``repos`` copied into every score row under the same name, with its description.
    extra_inputs: dict[str, str] = field(default_factory=dict)
    # The input's random move in the uncertainty model: "stars" or "forks" (a week of the repo's
    # own change), or "stars_per_day" (the moved stars over the age); None: known exactly.
    moves_with: str | None = None
    # Texts for people.
    unit: str = ""  # one of the value's units, for advice: "star"
    units: str = ""  # several of them: "stars"
    advice: str = "count"  # the kind of "what would move it": count, rate, push or licence
    log_scale: bool = False  # the percentile of ln(1 + value): explain shows ln(1 + value)
    measure: str = ""  # Datasette's column description: "0-100: ..."
    explain_measure: str = ""  # explain and the maker's page
    doc_measure: str = ""  # docs/score.md's table
    measured_by: str = ""  # a few words: the instance description, README.md's table
    export_description: str = ""  # the export schema

    @property
    def sql_value(self) -> str:
        return self.sql or self.value


ACTIVITY_BUCKETS = ((7.0, 100.0), (30.0, 85.0), (90.0, 60.0), (180.0, 35.0), (365.0, 15.0))
_STARS_PER_DAY_SQL = f"stars * 86400.0 / max(age_seconds, {_MIN_AGE_SECONDS})"
_BUCKET_TEXT = ", ".join(f"≤{bound:g} → {points:g}" for bound, points in ACTIVITY_BUCKETS) + ", else 0"


def _share(what: str) -> str:
    return f"0–100: how many of the other listed repos have fewer {what}"


TABLE: tuple[Component, ...] = (
    Component(
        name="popularity",
        weight=0.30,
        kind=PERCENTILE,
        value="stars",
        moves_with="stars",
        unit="star",
        units="stars",
        log_scale=True,
        measure=_share("stars") + " (ahead of 80 % of them: 80)",
        doc_measure="percentile of ln(1 + stars)",
        measured_by="stars",
        export_description="percentile of ln(1 + stars) among the listed repos, 0-100",
    ),
    Component(
        name="adoption",
        weight=0.20,
        kind=PERCENTILE,
        value="forks",
        moves_with="forks",
        unit="fork",
        units="forks",
        log_scale=True,
        measure=_share("forks"),
        doc_measure="percentile of ln(1 + forks)",
        measured_by="forks",
        export_description="percentile of ln(1 + forks) among the listed repos, 0-100",
    ),
    Component(
        name="activity",
        weight=0.25,
        kind=BUCKETS,
        value="days_since_push",
        buckets=ACTIVITY_BUCKETS,
        advice="push",
        measure=f"0–100 from the days since the last push: {_BUCKET_TEXT}",
        explain_measure="days since the last push, in buckets ("
        + ", ".join(f"≤{b:g}: {p:g}" for b, p in ACTIVITY_BUCKETS)
        + ", else 0)",
        doc_measure="days since the last push: "
        + ", ".join(f"≤ {b:g} → {p:g}" for b, p in ACTIVITY_BUCKETS)
        + ", else 0",
        measured_by="days since the last push",
        export_description="points for the days since the last push, in buckets",
    ),
    Component(
        name="momentum",
        weight=0.15,
        kind=PERCENTILE,
        value="stars_per_day",
        sql=_STARS_PER_DAY_SQL,
        moves_with="stars_per_day",
        units="stars per day",
        advice="rate",
        measure=_share("stars per day of age")
        + f" (a repo younger than {MIN_AGE_DAYS:g} days counts as {MIN_AGE_DAYS:g} days old)",
        explain_measure="how many of the other listed repos have fewer stars per day of age, as a share from 0 "
        f"to 100 (a repo younger than {MIN_AGE_DAYS:g} days counts as {MIN_AGE_DAYS:g} days old)",
        doc_measure=f"percentile of stars / max(age in days, {MIN_AGE_DAYS:g})",
        measured_by="stars per day of age",
        export_description=f"percentile of stars / max(age in days, {MIN_AGE_DAYS:g}) among the listed repos, 0-100",
    ),
    Component(
        name="openness",
        weight=0.10,
        kind=FLAG,
        value="osi",
        sql="license_osi = 1",
        advice="licence",
        measure="100 when the licence is OSI-approved (looked up by its SPDX id), else 0",
        doc_measure="100 if the licence's SPDX id is OSI-approved in the SPDX licence list, else 0",
        measured_by="an OSI-approved licence",
        export_description="100 when the licence is OSI-approved, else 0",
    ),
)

BY_NAME = {c.name: c for c in TABLE}
NAMES = tuple(BY_NAME)
WEIGHTS = {c.name: c.weight for c in TABLE}
assert abs(sum(WEIGHTS.values()) - 1.0) < 1e-9, "the weights must sum to 1"
# The stored inputs some component adds to the base ones, in table order, with their descriptions.
EXTRA_INPUTS = {column: text for c in TABLE for column, text in c.extra_inputs.items()}
# The percentile components' values, which "what would move it" ranks a repo against.
RANKED_VALUES = tuple(dict.fromkeys(c.value for c in TABLE if c.kind == PERCENTILE))


def explain_measure(component: Component) -> str:
    """What explain says a component measures (generated for a plain percentile)."""
    if component.explain_measure:
        return component.explain_measure
    if component.kind != PERCENTILE:  # (a flag or buckets: what its own measure says)
        return component.measure
    return f"how many of the other listed repos have fewer {component.units}, as a share from 0 to 100"


def with_components(schema: dict[str, Any]) -> dict[str, Any]:
    """The export schema ``schema`` with its ``components`` from this table (the exporter's copy and
    the served one; ``make docs`` writes it into the shipped file)."""
    schema["$defs"]["agent"]["properties"]["components"] = schema_components()
    return schema


def schema_components() -> dict[str, object]:
    """The export schema's ``components`` object: one 0-100 figure per component, all required,
    nothing else (``make docs`` writes it into ``agentrank/export.schema.json``)."""
    return {
        "description": "The score's components, each 0-100, before weighting",
        "type": "object",
        "required": [c.name for c in TABLE],
        "properties": {c.name: {"$ref": "#/$defs/percent", "description": c.export_description} for c in TABLE},
        "additionalProperties": False,
    }
