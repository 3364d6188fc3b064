"""Payment links: shareable checkout pages for a product's variants."""
