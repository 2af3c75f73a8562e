"""What every engine shares: the Engine interface, errors, the seeded generator, cards, seats
and scoring helpers."""

from croupier.engines.core.engine import Emitted, Engine, Setup
from croupier.engines.core.errors import IllegalMove, InvalidOptions, MalformedMove

__all__ = ["Emitted", "Engine", "IllegalMove", "InvalidOptions", "MalformedMove", "Setup"]
