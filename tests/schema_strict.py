"""A strictness check of JSON Schemas: the rules of ajv's ``--strict=true`` (strictSchema,
strictTypes, strictRequired, strictTuples), in Python so the tests need neither node nor a network.

Measured against ajv 8 (``ajv compile --spec=draft2020 --strict=true -c ajv-formats``): it rejected
the shipped schemas for a union ``type``, ``contains`` without ``type: array`` and ``required``
names defined only through ``additionalProperties``; this finds the same, and everything it flags
ajv rejects too.
"""

from __future__ import annotations

from typing import Any

KNOWN = {
    "$schema", "$id", "$ref", "$defs", "$comment", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    "type", "enum", "const", "format",
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
    "properties", "patternProperties", "additionalProperties", "propertyNames", "required",
    "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "unevaluatedProperties",
    "items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems", "minContains", "maxContains",
    "unevaluatedItems",
    "minLength", "maxLength", "pattern", "contentEncoding", "contentMediaType",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
}  # fmt: skip
APPLIES_TO = {
    "object": {"properties", "patternProperties", "additionalProperties", "propertyNames", "required",
               "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "unevaluatedProperties"},
    "array": {"items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems", "minContains",
              "maxContains", "unevaluatedItems"},
    "string": {"minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"},
    "number": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
}  # fmt: skip
SAME_PLACE = ("allOf", "anyOf", "oneOf")  # sub-schemas that apply to the same value
SAME_PLACE_ONE = ("not", "if", "then", "else")


def strict_errors(schema: Any) -> list[str]:
    """Every breach of ajv's strict mode in ``schema``, as 'path: what'."""
    errors: list[str] = []
    _walk(schema, "#", set(), set(), errors)
    return errors


def _types(schema: dict[str, Any]) -> set[str]:
    kind = schema.get("type")
    found = {kind} if isinstance(kind, str) else set()
    if "integer" in found:
        found.add("number")
    return found


def _walk(schema: Any, path: str, inherited: set[str], known_props: set[str], errors: list[str]) -> None:
    if not isinstance(schema, dict):
        return
    for key in schema:
        if key not in KNOWN:
            errors.append(f"{path}: unknown keyword {key!r} (strictSchema)")
    if isinstance(schema.get("type"), list):
        errors.append(f"{path}: union type {schema['type']} (strictTypes: use anyOf)")
    types = _types(schema) | inherited
    for kind, keywords in APPLIES_TO.items():
        used = sorted(keywords & set(schema))
        if used and kind not in types:
            errors.append(f"{path}: {', '.join(used)} without type {kind!r} (strictTypes)")
    props = set(schema.get("properties", {})) | known_props
    for name in schema.get("required", []):
        if name not in props:
            errors.append(f"{path}: required {name!r} is not in properties (strictRequired)")
    if "prefixItems" in schema:
        count = len(schema["prefixItems"])
        if schema.get("minItems") != count or not (schema.get("items") is False or schema.get("maxItems") == count):
            errors.append(f"{path}: prefixItems without minItems and items: false / maxItems (strictTuples)")
    # The same value: types and properties declared here hold in these branches.
    for key in SAME_PLACE:
        for i, sub in enumerate(schema.get(key, [])):
            _walk(sub, f"{path}/{key}/{i}", types, props, errors)
    for key in SAME_PLACE_ONE:
        if key in schema:
            _walk(schema[key], f"{path}/{key}", types, props, errors)
    # Other values.
    for name, sub in schema.get("properties", {}).items():
        _walk(sub, f"{path}/properties/{name}", set(), set(), errors)
    for name, sub in schema.get("$defs", {}).items():
        _walk(sub, f"{path}/$defs/{name}", set(), set(), errors)
    for name, sub in schema.get("patternProperties", {}).items():
        _walk(sub, f"{path}/patternProperties/{name}", set(), set(), errors)
    for key in ("additionalProperties", "items", "contains", "propertyNames", "unevaluatedProperties"):
        if isinstance(schema.get(key), dict):
            _walk(schema[key], f"{path}/{key}", set(), set(), errors)
    for i, sub in enumerate(schema.get("prefixItems", [])):
        _walk(sub, f"{path}/prefixItems/{i}", set(), set(), errors)


def described(schema: Any) -> tuple[int, int, list[str]]:
    """(properties with a description, all properties, the paths of those without) in ``schema``,
    following ``$ref`` into ``$defs`` once per definition."""
    total = with_text = 0
    missing: list[str] = []
    root = schema

    def resolve(sub: dict[str, Any]) -> dict[str, Any]:
        ref = sub.get("$ref", "")
        if ref.startswith("#/$defs/"):
            return root["$defs"][ref.removeprefix("#/$defs/")]
        return sub

    def has_text(sub: dict[str, Any]) -> bool:
        return bool(sub.get("description") or resolve(sub).get("description"))

    def walk(sub: Any, path: str) -> None:
        nonlocal total, with_text
        if not isinstance(sub, dict):
            return
        for name, prop in sub.get("properties", {}).items():
            total += 1
            if isinstance(prop, dict) and has_text(prop):
                with_text += 1
            else:
                missing.append(f"{path}/{name}")
            walk(prop, f"{path}/{name}")
        # Not the rules across fields (allOf, if/then/else, not): they restate properties described above.
        for key in ("items", "additionalProperties", "contains"):
            if isinstance(sub.get(key), dict):
                walk(sub[key], f"{path}[{key}]")
        for key in ("anyOf", "oneOf"):
            for i, branch in enumerate(sub.get(key, [])):
                walk(branch, f"{path}[{key}{i}]")

    walk(schema, "")
    for name, definition in schema.get("$defs", {}).items():
        walk(definition, f"$defs/{name}")
    return with_text, total, missing
