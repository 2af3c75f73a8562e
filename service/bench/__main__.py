"""`python -m croupier.service.bench`: the same as `croupier-bench`."""

from croupier.service.bench.cli import main

main()
