"""Seat credentials: 192-bit random bearer tokens, stored only as SHA-256 hashes and compared
in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

from service import errors

PREFIX = "cs_"
_TOKEN_BYTES = 24


def new_credential() -> str:
    return PREFIX + secrets.token_urlsafe(_TOKEN_BYTES)


def credential_hash(credential: str) -> bytes:
    return hashlib.sha256(credential.encode()).digest()


def bearer(metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
    """The credential from `authorization: Bearer <credential>`, None when absent."""
    for key, value in metadata or ():
        if key == "authorization":
            text = value.decode(errors="replace") if isinstance(value, bytes) else value
            scheme, _, token = text.partition(" ")
            token = token.strip()
            if scheme.lower() != "bearer" or not token.startswith(PREFIX) or len(token) > 128:
                raise errors.credential_malformed()
            return token
    return None


def seat_of(credential: str, hashes: Sequence[bytes]) -> int:
    """The seat whose credential this is; every hash is compared, in constant time."""
    digest = credential_hash(credential)
    seat = -1
    for index, stored in enumerate(hashes):
        if hmac.compare_digest(digest, stored):
            seat = index
    if seat < 0:
        raise errors.credential_rejected()
    return seat
