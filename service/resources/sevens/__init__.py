"""Sevens' own endpoints (a turn: play or pass) and their schemas."""
