"""The score recomputed in SQL from the inputs stored with every score row.

This is what lets anyone check a published score with nothing but the database: Datasette
publishes it as the canned query ``recompute``, and the tests hold it to the Python scoring.
Window functions do the percentiles (``percent_rank()`` gives tied values the lowest rank, as
the design's percentile rule does). Ordering by ``stars`` is ordering by ln(1 + stars): the
logarithm is strictly increasing, so the percentiles are the same and no maths extension is needed.

``:run_id`` picks a score run; empty means the published one.
"""

RECOMPUTE_SQL = """
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
    max(0.0, (strftime('%s', s.as_of) - strftime('%s', s.pushed_at)) / 86400.0) as days_since_push,
    s.score as stored_score,
    s.rank as stored_rank
  from scores s
  where s.run_id = coalesce(nullif(:run_id, ''), (select score_run_id from published where id = 1))
),
components as (
  select
    *,
    stars / max(age_days, 30.0) as stars_per_day,
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
         else 100.0 * percent_rank() over (order by stars / max(age_days, 30.0)) end as momentum,
    case when license_osi = 1 then 100.0 else 0.0 end as openness
  from inputs
),
scored as (
  select
    *,
    0.30 * popularity + 0.20 * adoption + 0.25 * activity + 0.15 * momentum + 0.10 * openness as score
  from components
)
select
  row_number() over (order by score desc, stars desc, full_name asc, repo_id asc) as rank,
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
  score - stored_score as difference
from scored
order by rank
"""
