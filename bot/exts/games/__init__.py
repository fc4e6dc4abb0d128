"""One slash command group per game (``/crown``, ``/claim``, ...), built on ``cog.GameCog``."""
