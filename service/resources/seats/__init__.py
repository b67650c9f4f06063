"""Seats: joining and leaving, tokens and codes, the seating rules, the lobby, bots."""
