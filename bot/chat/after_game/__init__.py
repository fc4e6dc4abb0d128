"""After the game on Discord: reviews, /history, /replay, records and rating charts."""
