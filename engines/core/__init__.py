"""What every engine shares: the Engine interface, errors, the seeded generator, cards, seats
and scoring helpers."""

from engines.core.engine import Emitted, Engine, Setup
from engines.core.errors import IllegalMove, InvalidOptions, MalformedMove

__all__ = ["Emitted", "Engine", "IllegalMove", "InvalidOptions", "MalformedMove", "Setup"]
