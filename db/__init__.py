"""The SQLite store: schema and migrations, the ``save_*`` writers and the queries that read it."""

from db.connection import connect, write_transaction
from db.store import open_store

__all__ = ["connect", "open_store", "write_transaction"]
