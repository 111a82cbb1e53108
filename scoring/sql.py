"""The score recomputed in SQL from the inputs stored with every score row.

This is what lets anyone check a published score with nothing but the database: Datasette
publishes it as the canned query ``recompute``, and the tests hold it to the Python scoring.
Window functions do the percentiles (``percent_rank()`` gives tied values the lowest rank, as
the design's percentile rule does). Ordering by ``stars`` is ordering by ln(1 + stars): the
logarithm is strictly increasing, so the percentiles are the same and no maths extension is needed.

Every component's SQL is generated from the table in :mod:`scoring.components`, and the score
adds the weighted components in the table's order, as Python does. The rank compares ``tie_key``,
the score times 4·(N − 1) as an exact integer (today 120, 80 and 60 per repo below on stars, forks
and stars per day, plus (N − 1) × (activity points + 40 for an OSI licence)), so scores equal in exact arithmetic tie and stars, then full_name decide, exactly as
:func:`scoring.score.tie_key` does.

Stars per day is ``stars × 86400 / max(age in seconds, 2,592,000)`` (30 days): one division of two
exact integers, as :func:`scoring.score.stars_per_day_of` computes it, so rates equal in exact
arithmetic are equal floats and share a percentile.

``:run_id`` picks a score run; empty means the published one.
"""

from scoring.components import BUCKETS, EXTRA_INPUTS, FLAG, PERCENTILE, TABLE, Component
from scoring.score import INTEGER_WEIGHTS, MIN_AGE_DAYS, SECONDS_PER_DAY

_MIN_AGE_SECONDS = int(MIN_AGE_DAYS * SECONDS_PER_DAY)


def _component_sql(c: Component) -> str:
    """The component from the inputs, as scoring.score.compute_scores computes it."""
    if c.kind == PERCENTILE:
        return (
            "case when count(*) over () = 1 then 100.0\n"
            f"         else 100.0 * percent_rank() over (order by {c.sql_value}) end"
        )
    if c.kind == BUCKETS:
        whens = "".join(f"\n      when {c.sql_value} <= {bound:g} then {points!r}" for bound, points in c.buckets)
        return f"case\n      when {c.sql_value} is null then 0.0{whens}\n      else 0.0\n    end"
    assert c.kind == FLAG
    return f"case when {c.sql_value} then 100.0 else 0.0 end"


_EXTRA = "".join(f"\n    s.{column}," for column in EXTRA_INPUTS)
_COMPONENTS = "".join(f"\n    {_component_sql(c)} as {c.name}," for c in TABLE)
_SMALLER = ",".join(
    f"\n    rank() over (order by {c.sql_value}) - 1 as {c.name}_smaller" for c in TABLE if c.kind == PERCENTILE
)
_SCORE = " + ".join(f"{c.weight!r} * {c.name}" for c in TABLE)
_KEY_SMALLER = " + ".join(f"{INTEGER_WEIGHTS[c.name]} * {c.name}_smaller" for c in TABLE if c.kind == PERCENTILE)
_KEY_POINTS = " + ".join(
    f"{INTEGER_WEIGHTS[c.name]} * cast({c.name} as integer)" for c in TABLE if c.kind != PERCENTILE
)
_TIE_KEY = " + ".join(
    part for part in (_KEY_SMALLER, f"(listed_count - 1) * (({_KEY_POINTS}) / 100)" if _KEY_POINTS else "") if part
)
_FINAL_EXTRA = "".join(f"\n  {column}," for column in EXTRA_INPUTS)
_FINAL_COMPONENTS = "".join(f"\n  {c.name}," for c in TABLE)

RECOMPUTE_SQL = f"""
with inputs as (
  select
    s.repo_id,
    s.full_name,
    s.as_of,
    s.stars,
    s.forks,
    s.license_spdx,
    s.license_osi,{_EXTRA}
    (strftime('%s', s.as_of) - strftime('%s', s.created_at)) / 86400.0 as age_days,
    strftime('%s', s.as_of) - strftime('%s', s.created_at) as age_seconds,
    max(0.0, (strftime('%s', s.as_of) - strftime('%s', s.pushed_at)) / 86400.0) as days_since_push,
    s.score as stored_score,
    s.rank as stored_rank
  from scores s
  where s.run_id = coalesce(nullif(:run_id, ''), (select score_run_id from published where id = 1))
),
components as (
  select
    *,
    stars * 86400.0 / max(age_seconds, {_MIN_AGE_SECONDS}) as stars_per_day,{_COMPONENTS}
    count(*) over () as listed_count,{_SMALLER}
  from inputs
),
scored as (
  select
    *,
    {_SCORE} as score,
    {_TIE_KEY} as tie_key
  from components
)
select
  row_number() over (order by tie_key desc, stars desc, full_name asc, repo_id asc) as rank,
  stored_rank,
  repo_id,
  full_name,
  as_of,
  stars,
  forks,
  round(age_days, 3) as age_days,
  round(days_since_push, 3) as days_since_push,
  license_spdx,{_FINAL_EXTRA}{_FINAL_COMPONENTS}
  score,
  stored_score,
  score - stored_score as difference,
  tie_key
from scored
order by rank
"""
