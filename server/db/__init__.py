"""Storage: SQLModel tables over SQLite (WAL) or PostgreSQL, and short transactions."""

from server.db.engine import Database, async_url, sync_url

__all__ = ["Database", "async_url", "sync_url"]
