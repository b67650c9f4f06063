"""Server-sent event streams of a table and a seat, and their schemas."""
