"""Proofs: the next deal's commitment, seats' seeds, checks, and finished rounds' records."""
