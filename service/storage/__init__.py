"""Redis only, no rules: a table's keys, its read, the commits of a move and a choice (Lua)."""
