"""`python -m croupier.bench`: the same as `croupier-bench`."""

from croupier.bench.cli import main

main()
