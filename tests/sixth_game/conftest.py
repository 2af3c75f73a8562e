"""files/ is the test game as the recipe adds it to a copy of the repository; it is not run
here (its modules import the game's generated code, which exists only in that copy)."""

collect_ignore = ["files"]
