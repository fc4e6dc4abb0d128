"""One module per game: its command group, its board and its buttons."""
