"""The match service: every use case of a match, its stats and ratings. Imports no ``discord``."""
