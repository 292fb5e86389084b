"""The SQLite library store: connection, schema migrations and queries."""

from .connection import open_connection, open_database
from .schema import SCHEMA_MIGRATIONS, migrate

__all__ = ["SCHEMA_MIGRATIONS", "migrate", "open_connection", "open_database"]
