"""A match's board on Discord: drawn, routed, delivered and delivered again."""
