"""The /v1 JSON facade: a Starlette app whose routes are generated from the proto's google.api.http rules."""
