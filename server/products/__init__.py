"""Products with options, variants and selling plans."""
