"""Direct messages: what the bot sends privately, and the answers members type."""
