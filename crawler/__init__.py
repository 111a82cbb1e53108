"""GitHub search: the HTTP client, search planning, item validation and saved-result reading."""
