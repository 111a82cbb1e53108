"""The score recomputed in SQL from the inputs stored with every score row.

This is what lets anyone check a published score with nothing but the database: Datasette
publishes it as the canned query ``recompute``, and the tests hold it to the Python scoring.
Window functions do the percentiles (``percent_rank()`` gives tied values the lowest rank, as
the design's percentile rule does). Ordering by ``stars`` is ordering by ln(1 + stars): the
logarithm is strictly increasing, so the percentiles are the same and no maths extension is needed.

The rank compares ``tie_key``, the score times 4·(N − 1) as an exact integer (120, 80 and 60 per
repo below on stars, forks and stars per day, plus (N − 1) × (activity points + 40 for an OSI
licence)), so scores equal in exact arithmetic tie and stars, then full_name decide, exactly as
:func:`scoring.score.tie_key` does.

Stars per day is ``stars × 86400 / max(age in seconds, 2,592,000)`` (30 days): one division of two
exact integers, as :func:`scoring.score.stars_per_day_of` computes it, so rates equal in exact
arithmetic are equal floats and share a percentile.

``:run_id`` picks a score run; empty means the published one.
"""

from scoring.score import MIN_AGE_DAYS, SECONDS_PER_DAY

_MIN_AGE_SECONDS = int(MIN_AGE_DAYS * SECONDS_PER_DAY)

RECOMPUTE_SQL = f"""
with inputs as (
  select
    s.repo_id,
    s.full_name,
    s.as_of,
    s.stars,
    s.forks,
    s.license_spdx,
    s.license_osi,
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
    stars * 86400.0 / max(age_seconds, {_MIN_AGE_SECONDS}) as stars_per_day,
    case when count(*) over () = 1 then 100.0
         else 100.0 * percent_rank() over (order by stars) end as popularity,
    case when count(*) over () = 1 then 100.0
         else 100.0 * percent_rank() over (order by forks) end as adoption,
    case
      when days_since_push is null then 0.0
      when days_since_push <= 7 then 100.0
      when days_since_push <= 30 then 85.0
      when days_since_push <= 90 then 60.0
      when days_since_push <= 180 then 35.0
      when days_since_push <= 365 then 15.0
      else 0.0
    end as activity,
    case when count(*) over () = 1 then 100.0
         else 100.0 * percent_rank() over (order by stars * 86400.0 / max(age_seconds, {_MIN_AGE_SECONDS})) end as momentum,
    case when license_osi = 1 then 100.0 else 0.0 end as openness,
    count(*) over () as listed_count,
    rank() over (order by stars) - 1 as stars_smaller,
    rank() over (order by forks) - 1 as forks_smaller,
    rank() over (order by stars * 86400.0 / max(age_seconds, {_MIN_AGE_SECONDS})) - 1 as stars_per_day_smaller
  from inputs
),
scored as (
  select
    *,
    0.30 * popularity + 0.20 * adoption + 0.25 * activity + 0.15 * momentum + 0.10 * openness as score,
    120 * stars_smaller + 80 * forks_smaller + 60 * stars_per_day_smaller
      + (listed_count - 1) * ((100 * cast(activity as integer) + 40 * cast(openness as integer)) / 100) as tie_key
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
  license_spdx,
  popularity,
  adoption,
  activity,
  momentum,
  openness,
  score,
  stored_score,
  score - stored_score as difference,
  tie_key
from scored
order by rank
"""
