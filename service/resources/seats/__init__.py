"""Seats: joining and leaving, tokens and join codes, the lobby of open seats, bots in seats."""
