from pathlib import Path

import pytest

from agentrank.config import ConfigError, load_config


def test_no_file_gives_the_design_defaults():
    config = load_config(None, environ={})
    assert config.github.api_url == "https://api.github.com"
    assert config.github.min_interval_s == 2.0
    assert config.github.secondary_wait_s == 60
    assert config.github.max_retries == 5
    assert config.github.timeout_s == 30
    assert config.crawl.min_stars == 200
    assert config.crawl.keywords == ["autonomous agent"]
    assert "ai-agent" in config.crawl.topics and "multi-agent" in config.crawl.topics


def test_file_values_override_defaults(tmp_path: Path):
    path = tmp_path / "agentrank.toml"
    path.write_text('[crawl]\nmin_stars = 500\ntopics = ["ai-agent"]\n[github]\nmin_interval_s = 3.5\n')
    config = load_config(path, environ={})
    assert config.crawl.min_stars == 500
    assert config.crawl.topics == ["ai-agent"]
    assert config.github.min_interval_s == 3.5
    assert config.github.max_retries == 5


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[crawl]\nmin_star = 100\n", "crawl.min_star"),
        ("[githubb]\napi_url = 'x'\n", "githubb"),
        ("unknown = 1\n", "unknown"),
    ],
)
def test_unknown_keys_are_an_error_naming_the_key(tmp_path: Path, text: str, named: str):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(path, environ={})
    assert f"unknown key '{named}'" in str(error.value)
    assert str(path) in str(error.value)


def test_bad_values_and_bad_toml_are_one_line_errors(tmp_path: Path):
    path = tmp_path / "bad.toml"
    path.write_text("[crawl]\nmin_stars = 'many'\n")
    with pytest.raises(ConfigError, match="crawl.min_stars"):
        load_config(path, environ={})
    path.write_text("[crawl\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path, environ={})
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.toml", environ={})
    # A URL the crawler cannot use fails every command, not only the next crawl.
    path.write_text('[github]\napi_url = "ftp://x"\n')
    with pytest.raises(ConfigError, match=r"github.api_url.*http\(s\) URL"):
        load_config(path, environ={})
    with pytest.raises(ConfigError, match=r"GITHUB_API_URL 'api.github.com': expected an http\(s\) URL"):
        load_config(None, environ={"GITHUB_API_URL": "api.github.com"})


def test_environment_overrides_the_api_url(tmp_path: Path):
    path = tmp_path / "agentrank.toml"
    path.write_text('[github]\napi_url = "https://ghe.example.com/api/v3"\n')
    assert load_config(path, environ={}).github.api_url == "https://ghe.example.com/api/v3"
    config = load_config(path, environ={"GITHUB_API_URL": "http://127.0.0.1:9999"})
    assert config.github.api_url == "http://127.0.0.1:9999"


def test_cli_reports_a_bad_config_in_one_line(tmp_path: Path, run_cli):
    path = tmp_path / "bad.toml"
    path.write_text("[crawl]\nmin_star = 100\n")
    result = run_cli("--config", str(path), "score", expect=1)
    assert "unknown key 'crawl.min_star'" in result.stderr
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1


def test_config_path_from_the_environment(tmp_path: Path, run_cli):
    path = tmp_path / "bad.toml"
    path.write_text("[crawl]\nmin_star = 100\n")
    result = run_cli("score", expect=1, env={"AGENTRANK_CONFIG": str(path)})
    assert "crawl.min_star" in result.stderr
