"""What a display name may hold: the one rule of CreateGame's `display_names` and JoinGame's
`display_name` (docs/api.md, "Display names").

A display name is text that people read, in any script: emoji sequences joined by U+200D (a
family, a rainbow flag), Persian words with U+200C, variation selectors and any kind of space
are all part of writing it, so `str.isprintable()` (which refuses every format character and
every space but ASCII's) is too strict. Refused are only the characters that break what is
shown around the name: control characters (line breaks and tabs among them) and the line and
paragraph separators, which break a line or a log; the bidi embeddings, overrides and isolates,
which reorder the text after the name on the page that shows it; and code points that are no
characters (unassigned, noncharacters, surrogates). Nothing is trimmed: a name is stored and
shown as it was sent.
"""

from __future__ import annotations

import unicodedata

from croupier.service.application import errors

MAX_DISPLAY_NAME = 64  # characters (code points), as Python counts them

# Cc: controls; Zl, Zp: line and paragraph separators; Cn: unassigned code points and
# noncharacters; Cs: surrogates (never valid UTF-8, so the protobuf decoder refuses them first).
_REFUSED_CATEGORIES = frozenset({"Cc", "Zl", "Zp", "Cn", "Cs"})
# LRE, RLE, PDF, LRO, RLO and LRI, RLI, FSI, PDI: an unclosed one carries its direction to the
# text that follows the name. The marks (U+200E, U+200F, U+061C) stay allowed: they set the
# direction of the characters next to them only.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def allowed(name: str) -> bool:
    """Whether `name` is a display name this service accepts (its length aside)."""
    # Most names are printable: isprintable() allows a subset of what is allowed here, at C
    # speed; only the others are read character by character.
    if name.isprintable():
        return True
    category = unicodedata.category
    return not any(c in _BIDI_CONTROLS or category(c) in _REFUSED_CATEGORIES for c in name)


def check(name: str, field: str) -> None:
    """Refuse, as INVALID_ARGUMENT `INVALID_DISPLAY_NAMES` on `field`, a name that is too long
    or holds a refused character."""
    if len(name) <= MAX_DISPLAY_NAME and allowed(name):
        return
    raise errors.invalid_argument(
        errors.Reason.INVALID_DISPLAY_NAMES,
        field,
        f"a display name is at most {MAX_DISPLAY_NAME} characters, without control characters,"
        " line or paragraph separators, bidi embeddings, overrides or isolates (U+202A to"
        " U+202E, U+2066 to U+2069) or unassigned code points",
    )
