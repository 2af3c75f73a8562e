"""High Card's tests, one or more per rule id (docs/games/high_card.md)."""
