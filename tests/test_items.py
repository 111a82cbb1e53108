import json

import pytest

from crawler.items import MISSING, ItemRejected, parse_item
from tests.conftest import make_item


def test_a_real_shaped_item_becomes_a_repo_record():
    item = make_item(full_name="acme/agent-kit", stargazers_count=1234, forks_count=56)
    record = parse_item(item)
    assert record["id"] == item["id"]
    assert record["full_name"] == "acme/agent-kit"
    assert record["owner_login"] == "acme"
    assert record["stars"] == 1234 and record["forks"] == 56
    assert json.loads(record["topics"]) == item["topics"]
    assert record["created_at"].endswith("Z")


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"id": None}, "id"),
        ({"id": "123"}, "id"),
        ({"stargazers_count": "1k"}, "stargazers_count"),
        ({"stargazers_count": None}, "stargazers_count"),
        ({"stargazers_count": -1}, "stargazers_count"),
        ({"stargazers_count": float("inf")}, "stargazers_count"),
        ({"stargazers_count": 12.5}, "stargazers_count"),
        ({"forks_count": True}, "forks_count"),
        ({"full_name": "no-slash"}, "full_name"),
        ({"full_name": "a/b/c"}, "full_name"),
        ({"created_at": "2026-02-30T10:00:00Z"}, "created_at"),
        ({"created_at": None}, "created_at"),
        ({"pushed_at": "yesterday"}, "pushed_at"),
        ({"archived": "false"}, "archived"),
    ],
)
def test_wrong_types_are_rejected_with_the_field_named(overrides, field):
    with pytest.raises(ItemRejected) as rejected:
        parse_item(make_item(**overrides))
    assert rejected.value.reason.startswith(field)
    assert "\n" not in rejected.value.reason


def test_missing_id_is_rejected():
    item = make_item()
    del item["id"]
    with pytest.raises(ItemRejected, match="^id: missing"):
        parse_item(item)


def test_not_an_object_is_rejected():
    with pytest.raises(ItemRejected, match="expected a JSON object"):
        parse_item(["not", "an", "item"])


def test_hostile_text_is_kept_as_it_came():
    description = "<script>alert('x')</script>\x00\x1b[31m' OR 1=1; --" + "é" * 900
    record = parse_item(make_item(description=description, homepage="javascript:alert(1)"))
    assert record["description"] == description
    assert record["homepage"] == "javascript:alert(1)"


def test_lone_surrogates_become_replacement_characters():
    raw = json.loads('{"d": "half an emoji \\ud83e here", "t": "\\udc81topic"}')
    record = parse_item(make_item(description=raw["d"], topics=[raw["t"], "ok"]))
    assert record["description"] == "half an emoji \ufffd here"
    assert json.loads(record["topics"]) == ["\ufffdtopic", "ok"]
    # A valid pair is not touched.
    assert parse_item(make_item(description="🤖"))["description"] == "🤖"


def test_topics_keep_strings_of_github_length_only():
    long_topic = "t" * 51
    record = parse_item(make_item(topics=["a", None, 3, long_topic, {"x": 1}, "b" * 50]))
    assert json.loads(record["topics"]) == ["a", "b" * 50]
    # What was dropped, and why, for the command to say (the item is kept).
    too_long = "longer than GitHub's 50 characters"
    assert record["dropped_topics"] == ["not text", "not text", too_long, "not text"]
    many = parse_item(make_item(topics=[f"t{i}" for i in range(22)]))
    assert len(json.loads(many["topics"])) == 20 and many["dropped_topics"] == ["past GitHub's 20 per repo"] * 2
    assert "dropped_topics" not in parse_item(make_item(topics=["a"]))


def test_licences_and_missing_fields():
    assert parse_item(make_item(license=None))["license_spdx"] is None
    other = {"key": "other", "name": "Other", "spdx_id": "NOASSERTION", "url": None, "node_id": "x"}
    assert parse_item(make_item(license=other))["license_spdx"] == "NOASSERTION"
    item = make_item()
    del item["license"], item["topics"], item["description"]
    record = parse_item(item)
    # A key the item does not carry says nothing (GitHub sends each, null when empty): its columns are
    # named, so what is stored stands (tests/test_import.py), and a new repo gets what null gives.
    assert set(record[MISSING]) == {"license_key", "license_name", "license_spdx", "topics", "description"}
    assert record["license_spdx"] is None and record["topics"] == "[]" and record["description"] is None
    # A key given as null is GitHub saying "none".
    given = parse_item(make_item(topics=None, description=None))
    assert (given["topics"], given["description"]) == ("[]", None)


def test_a_padded_or_empty_spdx_id_is_the_licence_or_none():
    padded = {"key": "mit", "name": "MIT License", "spdx_id": " MIT "}
    assert parse_item(make_item(license=padded))["license_spdx"] == "MIT"
    empty = {"key": None, "name": None, "spdx_id": ""}
    assert parse_item(make_item(license=empty))["license_spdx"] is None


def test_timestamps_are_normalised_to_utc():
    record = parse_item(make_item(created_at="2024-05-01T12:00:00", pushed_at="2024-05-02T14:00:00+02:00"))
    assert record["created_at"] == "2024-05-01T12:00:00Z"
    assert record["pushed_at"] == "2024-05-02T12:00:00Z"
    # updated_at is not a score input: an unreadable one is dropped, the item kept.
    assert parse_item(make_item(updated_at="garbage"))["updated_at"] is None


def test_unknown_keys_are_ignored():
    record = parse_item(make_item(foo_bar={"nested": [1, 2]}, weird_new_field=1))
    assert "foo_bar" not in record and "weird_new_field" not in record
