"""The asset catalogue: the built-in production networks and fiat currencies, plus the networks file."""
