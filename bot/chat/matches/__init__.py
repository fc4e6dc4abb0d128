"""A match on Discord: its commands, buttons, forms, threads and unreachable channels."""
