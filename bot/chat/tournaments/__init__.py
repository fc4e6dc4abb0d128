"""Tournaments on Discord: commands, sign-up buttons, posts and the desk that runs them."""
