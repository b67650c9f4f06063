"""The OpenAPI side: the Api, its description, shared schemas, per-game unions, links."""
