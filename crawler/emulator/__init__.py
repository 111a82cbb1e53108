"""The fake GitHub: a local REST emulator (``server``) and the synthetic population it serves.

For the demo, the tests and the benchmarks only; the crawler's own modules never import it.
``python -m crawler.emulator --size 8000 --port 8765`` serves a population by hand.
"""

from crawler.emulator.population import (
    DEFAULT_REFERENCE,
    SyntheticRepo,
    generate_population,
    pile_on_stars,
    to_search_item,
)
from crawler.emulator.server import (
    Entry,
    Fault,
    GitHubEmulator,
    Query,
    QueryError,
    RequestRecord,
    cut_body,
    duplicate_item,
    error_object,
    error_status,
    hold,
    html_page,
    incomplete,
    lie_total,
    missing_items,
    no_rate_headers,
    parse_query,
    primary_limit,
    raw_answer,
    redirect,
    secondary_limit,
    shift_pages,
    slow,
)

__all__ = [
    "DEFAULT_REFERENCE",
    "Entry",
    "Fault",
    "GitHubEmulator",
    "Query",
    "QueryError",
    "RequestRecord",
    "SyntheticRepo",
    "cut_body",
    "duplicate_item",
    "error_object",
    "error_status",
    "generate_population",
    "hold",
    "html_page",
    "incomplete",
    "lie_total",
    "missing_items",
    "no_rate_headers",
    "parse_query",
    "pile_on_stars",
    "primary_limit",
    "raw_answer",
    "redirect",
    "secondary_limit",
    "shift_pages",
    "slow",
    "to_search_item",
]
