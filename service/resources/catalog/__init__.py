"""The catalog: games, variants and presets, stateless rule checks, health probes."""
