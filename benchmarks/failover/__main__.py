"""``python -m benchmarks.failover [--quick]``."""

from .bench import main

main()
