"""The discord.py side: the client, its commands, buttons and forms, and how boards are drawn."""
