"""Webhook signing secrets are sealed with the shared SecretBox (server/sealing.py)."""

from server.sealing import DEV_FILE, PREFIX, SecretBox, parse_keys

__all__ = ["DEV_FILE", "PREFIX", "SecretBox", "parse_keys"]
