"""Pages for people: the guide and rules from docs/, problem pages, /play, static files."""
