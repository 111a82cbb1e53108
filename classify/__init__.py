"""Assigning one category per repo from its name, description and topics."""
