"""The HTTP edge every request passes: tokens, CORS, limits, input bounds, idempotency, problems."""
