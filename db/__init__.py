"""The SQLite store: schema and migrations, the ``save_*`` writers and the queries that read it."""

from db.connection import open_db, write_transaction

__all__ = ["open_db", "write_transaction"]
