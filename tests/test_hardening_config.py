"""Issue 13: configuration that cannot work is refused at load time with one line; a crawl that
would delist most of the listing stops before it publishes anything."""

from __future__ import annotations

import json

import pytest

from agentrank.errors import PipelineError
from tests.crawl_helpers import crawl_config, emulated, listed_ids, population, run_crawl


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[github]\nmax_retries = "5"\n', "bad value for 'github.max_retries'"),
        ("[crawl]\nmin_stars = true\n", "bad value for 'crawl.min_stars'"),
        ('[serve]\nport = "8001"\n', "bad value for 'serve.port'"),
        ("[crawl]\ntopics = []\nkeywords = []\n", "topics and keywords are both empty"),
        ('[crawl]\ntopics = [" "]\nkeywords = []\n', "topics and keywords are both empty"),
        # a phrase is no topic: "topic:ai agent" would search topic:ai plus the word agent
        (
            '[crawl]\ntopics = ["ai-agent", "ai agent"]\n',
            "bad value for 'crawl.topics': 'ai agent' is not a GitHub topic",
        ),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        # said in the file's words, not Python's ("instance of GitHubConfig", a regular expression)
        ("github = 5\n", "bad value for 'github': should be a table"),
        ('[serve]\npublic_url = "javascript:alert(1)"\n', "should be an http(s) address, such as https://"),
        ('[crawl]\ntopics = "ai-agents"\n', "bad value for 'crawl.topics': should be a list"),
    ],
)
def test_a_config_that_cannot_work_is_one_line(tmp_path, run_cli, body, message):
    path = tmp_path / "agentrank.toml"
    path.write_text(body)
    result = run_cli("--config", str(path), "score", expect=1)
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_float_setting_still_takes_an_integer(tmp_path, run_cli):
    path = tmp_path / "agentrank.toml"
    path.write_text("[github]\nmin_interval_s = 2\n[crawl]\nmax_delist_share = 1\n")
    result = run_cli("--config", str(path), "export", "--out", str(tmp_path / "x.json"), expect=None)
    # Refused only because there is no database: the settings themselves load.
    assert "bad value" not in result.stderr and "no database at" in result.stderr


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ('# corrections\n\n[exclude]\nrepo = "a/b"\nreason = "spam"\n', 3, "write [[exclude]], not [exclude]"),
        ('\n[[exclude]]\nrepo = "a/b"\nreason = "r"\ndate = 0001-01-01\n', 5, "date:"),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", None, "nested too deeply"),
    ],
)
def test_corrections_errors_name_the_right_line(tmp_path, run_cli, body, line, message):
    corrections = tmp_path / "corrections.toml"
    corrections.write_text(body)
    config = tmp_path / "agentrank.toml"
    config.write_text(f'[corrections]\npath = "{corrections}"\n')
    saved = tmp_path / "items.json"
    saved.write_text("[]")
    result = run_cli("--config", str(config), "refresh", "--from-file", str(saved), expect=1)
    where = f"{corrections}:{line}:" if line else f"{corrections}:"
    assert where in result.stderr and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("kind", ["fifo", "huge"])
def test_a_corrections_file_that_is_a_pipe_or_huge_is_one_line_not_a_hang(tmp_path, kind):
    """A corrections path that names a pipe (or a device) was read for ever: the weekly refresh hung
    before taking its lock, and the scheduler never logged a failure. A huge file was read whole."""
    import os
    import subprocess

    from tests.publish_helpers import agentrank_command

    corrections = tmp_path / "corrections.toml"
    if kind == "fifo":
        os.mkfifo(corrections)
    else:
        with open(corrections, "wb") as f:
            f.truncate(64 * 2**20)  # sparse: no disk used
    config = tmp_path / "agentrank.toml"
    config.write_text(f'[corrections]\npath = "{corrections}"\n')
    saved = tmp_path / "items.json"
    saved.write_text("[]")
    result = subprocess.run(
        agentrank_command(tmp_path / "agentrank.db", "--config", str(config), "refresh", "--from-file", str(saved)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"Error: {corrections}: ") and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "agentrank.db").exists()


def test_a_non_ascii_token_is_one_line_without_the_token(run_cli):
    token = "ghp_caf\u00e9" + "0" * 30
    result = run_cli("crawl", "--api-url", "http://127.0.0.1:9", env={"GITHUB_TOKEN": token}, expect=1)
    assert "GITHUB_TOKEN is not a usable token" in result.stderr and token not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_crawl_that_would_delist_most_of_the_listing_stops(db):
    repos = population(300)
    topic = "ai-agent"
    with emulated(repos) as emulator:
        first = run_crawl(db, emulator, crawl_config(topics=[topic], keywords=[]))
        listed = listed_ids(db)
        assert first.complete and listed
        # A query that matches nothing: complete, but it would delist everything.
        with pytest.raises(PipelineError, match=r"would delist \d+ of \d+ listed repos .*max_delist_share 20%"):
            run_crawl(db, emulator, crawl_config(topics=["no-such-topic-anywhere"], keywords=[]), fresh=True)
    assert listed_ids(db) == listed
    run = db.execute("select status, error from runs order by id desc limit 1").fetchone()
    assert run[0] == "refused" and "max_delist_share" in run[1] and "the next crawl starts afresh" in run[1]


def test_new_repos_do_not_dilute_the_delisting_guard_and_a_refused_crawl_is_not_resumed(db):
    topic = "ai-agent"
    config = crawl_config(topics=[topic], keywords=[])
    with emulated(population(300, seed=3)) as emulator:
        run_crawl(db, emulator, config)
    listed = listed_ids(db)
    # GitHub now answers with another population: nearly every listed repo is gone, as many new
    # ones appear. Measured against the listing before the crawl, not after, it is refused.
    with emulated(population(300, seed=4)) as other:
        with pytest.raises(PipelineError, match=r"would delist \d+ of " + str(len(listed)) + " listed repos"):
            run_crawl(db, other, config)
    assert listed_ids(db) >= listed
    # Once GitHub answers as before, the next crawl starts afresh instead of resuming the refused one.
    with emulated(population(300, seed=3)) as emulator:
        again = run_crawl(db, emulator, config)
    assert again.complete and listed_ids(db) == listed
    assert db.execute("select count(*) from runs where kind = 'crawl' and status = 'ok'").fetchone()[0] == 2


def test_a_score_after_a_crawl_that_stopped_is_refused_until_forced(db, tmp_path):
    """A stopped crawl saved what it found page by page: scoring it would list repos no complete crawl
    confirmed, fetched after the as-of the score takes. Refused (nothing written) unless --force."""
    from agentrank.errors import InputRefused
    from agentrank.importer import import_files
    from agentrank.scorer import score
    from crawler.emulator.population import to_search_item

    config = crawl_config(topics=["ai-agent"], keywords=[])
    with emulated(population(300, seed=3)) as emulator:
        run_crawl(db, emulator, config)
    confirmed = len(listed_ids(db))
    assert score(db, check=True).count == confirmed
    runs_before = db.execute("select count(*) from runs").fetchone()[0]
    with emulated(population(300, seed=4)) as other:
        with pytest.raises(PipelineError, match="would delist"):
            run_crawl(db, other, config)
    runs_after_crawl = db.execute("select count(*) from runs").fetchone()[0]
    assert runs_after_crawl == runs_before + 1
    with pytest.raises(InputRefused, match=r"crawl run \d+ was stopped by the delisting guard.*nothing was scored"):
        score(db, check=True)
    assert db.execute("select count(*) from runs").fetchone()[0] == runs_after_crawl  # no score run written
    # Saved results loaded after it do not lift the refusal: they confirm only the repos they hold, and
    # a score would publish the stopped crawl's first-found repos with them.
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps([to_search_item(r) for r in population(300, seed=3)[:5]]))
    import_files(db, [saved], min_stars=200)
    with pytest.raises(InputRefused, match=r"crawl run \d+ was stopped by the delisting guard"):
        score(db, check=True)
    # --force scores what is stored: the stopped crawl's new repos are among them
    assert score(db, check=False).count == len(listed_ids(db)) > confirmed
    with emulated(population(300, seed=3)) as emulator:
        run_crawl(db, emulator, config)
    assert score(db, check=True).count == len(listed_ids(db))


def test_links_follow_the_servers_address_until_a_public_url_is_set():
    from datasette_plugins.settings import ServeConfig

    # Badge snippets, feeds and the export link to the server itself unless told where it is public.
    assert ServeConfig().public_url == "http://127.0.0.1:8001"
    assert ServeConfig().with_overrides({"port": 8140}).public_url == "http://127.0.0.1:8140"
    assert ServeConfig(host="::1", port=9000).public_url == "http://[::1]:9000"
    assert ServeConfig(host="0.0.0.0", port=80).public_url == "http://127.0.0.1:80"
    public = ServeConfig(public_url="https://agentrank.example")
    assert public.with_overrides({"port": 8140}).public_url == "https://agentrank.example"
    assert ServeConfig(port=8140).with_overrides({"host": "10.0.0.2"}).public_url == "http://10.0.0.2:8140"


def test_a_toml_file_starting_with_a_bom_is_read(tmp_path, run_cli):
    # Some Windows editors start a UTF-8 file with a BOM: it was "Invalid statement (line 1, column 1)".
    config = tmp_path / "agentrank.toml"
    config.write_text("\ufeff[crawl]\nmin_stars = 300\n", encoding="utf-8")
    result = run_cli("--config", str(config), "export", "--out", str(tmp_path / "x.json"), expect=None)
    assert "not valid TOML" not in result.stderr and "no database at" in result.stderr
    from agentrank.corrections import load_corrections
    from leaderboard.toml_files import read_toml

    corrections = tmp_path / "corrections.toml"
    corrections.write_text('\ufeff[[exclude]]\nrepo = "a/b"\nreason = "spam"\n', encoding="utf-8")
    assert [c.repo for c in load_corrections(corrections)] == ["a/b"]
    assert read_toml(config, ValueError) == {"crawl": {"min_stars": 300}}


def test_refresh_from_saved_results_finds_corrected_repos_in_them_without_github(tmp_path, run_cli, db_path):
    """`refresh --from-file` reproduces a run from saved data: on a new database a correction of a repo
    the file holds asked GitHub for it (and failed offline)."""
    from tests.conftest import make_item

    items = [make_item(id=9501, full_name="inv/one-agent"), make_item(id=9502, full_name="inv/two-agent", seed=2)]
    saved = tmp_path / "items.json"
    saved.write_text(json.dumps(items))
    corrections = tmp_path / "corrections.toml"
    corrections.write_text('[[category]]\nrepo = "Inv/One-Agent"\ncategory = "voice"\n', encoding="utf-8")
    config = tmp_path / "agentrank.toml"
    config.write_text(f'[corrections]\npath = "{corrections}"\n')
    out = tmp_path / "site.json"
    run_cli(
        "--config",
        str(config),
        "refresh",
        "--api-url",
        "http://127.0.0.1:9",
        "--from-file",
        str(saved),
        "--out",
        str(out),
    )
    agents = {a["full_name"]: a for a in json.loads(out.read_text())["agents"]}
    assert (agents["inv/one-agent"]["category"], agents["inv/one-agent"]["category_source"]) == ("voice", "correction")
