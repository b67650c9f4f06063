"""May I?'s own endpoints (a turn's moves, asks and answers) and their schemas."""
