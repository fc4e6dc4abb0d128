"""The quick-pair queue on Discord."""
