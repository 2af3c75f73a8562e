"""Seat credentials: 192-bit random bearer tokens, stored only as SHA-256 hashes and compared in
constant time; operator keys; the store's names of request ids. The call wrapper reads a call's
token (service/croupier/service/transport/calls.py: `bearer`); what it may do in a game is decided
here and in service/croupier/service/application/callers.py."""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from collections.abc import Sequence

from croupier.service.application import errors

PREFIX = "cs_"
_TOKEN_BYTES = 24


def new_credential() -> str:
    return PREFIX + secrets.token_urlsafe(_TOKEN_BYTES)


def credential_hash(credential: str) -> bytes:
    return hashlib.sha256(credential.encode()).digest()


# The credentials of the seats playing now, hashed once each: a seat sends its credential with
# every move. (The tokens are in this process's memory anyway: they key the rate limits.)
_seat_credential_hash = functools.lru_cache(maxsize=4096)(credential_hash)


def seat_of(credential: str, hashes: Sequence[bytes]) -> int:
    """The seat whose credential this is; every hash is compared, in constant time."""
    if not credential.startswith(PREFIX):
        raise errors.credential_malformed()
    digest = _seat_credential_hash(credential)
    seat = -1
    for index, stored in enumerate(hashes):
        if hmac.compare_digest(digest, stored):
            seat = index
    if seat < 0:
        raise errors.credential_rejected()
    return seat


def check_operator(token: str | None, key_hashes: Sequence[bytes]) -> None:
    """Let the call through only with one of the operator keys (none configured: anyone)."""
    if not key_hashes:
        return
    if token is None:
        raise errors.operator_key_missing()
    digest = credential_hash(token)
    if not any([hmac.compare_digest(digest, key) for key in key_hashes]):  # noqa: C419 (all compared)
        raise errors.operator_key_rejected()


def is_operator(token: str, key_hashes: Sequence[bytes]) -> bool:
    digest = credential_hash(token)
    return any([hmac.compare_digest(digest, key) for key in key_hashes])  # noqa: C419 (all compared)


JOIN_CODE_PREFIX = "jc_"


def new_join_code() -> str:
    """A game's join code: a secret of its own (a seat credential is never a join code)."""
    return JOIN_CODE_PREFIX + secrets.token_urlsafe(_TOKEN_BYTES)


def scoped_request_id(token: str | None, request_id: str) -> str:
    """The store's name for a request id: the id under a short one-way name of the credential
    that sent it ("anon" without one), so that a request id is only ever answered to the caller
    that used it first: a seat's for ApplyMove (each credential is one seat's), an operator
    key's for CreateGame. The hash is of its own (a prefix, not the stored credential hash)."""
    if token is None:
        return f"anon:{request_id}"
    return f"{_request_scope(token)}:{request_id}"


# Memoized like _seat_credential_hash: every ApplyMove with a request id asks for its seat's.
@functools.lru_cache(maxsize=4096)
def _request_scope(token: str) -> str:
    return hashlib.sha256(b"croupier request scope\0" + token.encode()).hexdigest()[:16]
