"""Opaque player ids: a member's page address never holds their Discord id.

A member's id is enciphered with the server's own key (``web_sites.player_key``) by a Feistel
network whose round function is HMAC-SHA-256: a keyed permutation of 64-bit numbers, so the web
process turns an address back into the member without storing a table of ids and without
writing to the database. Without the key an address says nothing about the id, and addresses
from two servers (or from before ``/settings web:off``) cannot be linked.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

ROUNDS = 6
"""Four rounds already make a strong pseudorandom permutation (Luby-Rackoff); six for margin."""
HALF = 32
MASK = (1 << HALF) - 1
LENGTH = 13
"""Characters of an id: 64 bits in base32, without padding."""
LARGEST = 1 << 63
"""Ids at or past this are no Discord id, and too large for the database's BIGINT."""
PATTERN = re.compile(f"[a-z2-7]{{{LENGTH}}}")


def _round(key: bytes, number: int, half: int) -> int:
    digest = hmac.digest(key, bytes([number]) + half.to_bytes(4, "big"), hashlib.sha256)
    return int.from_bytes(digest[:4], "big")


def player_id(key: bytes, user_id: int) -> str:
    """The opaque id of the member with ``user_id`` (a 64-bit snowflake) under ``key``."""
    left, right = user_id >> HALF & MASK, user_id & MASK
    for number in range(ROUNDS):
        left, right = right, left ^ _round(key, number, right)
    packed = (left << HALF | right).to_bytes(8, "big")
    return base64.b32encode(packed).decode().rstrip("=").lower()


def user_id(key: bytes, opaque: str) -> int | None:
    """The member whose opaque id under ``key`` is ``opaque``; None for text that is no id."""
    if not PATTERN.fullmatch(opaque):
        return None
    try:
        packed = base64.b32decode(opaque.upper() + "===")
    except ValueError:
        return None
    if len(packed) != 8:
        return None
    number = int.from_bytes(packed, "big")
    left, right = number >> HALF, number & MASK
    for round_number in reversed(range(ROUNDS)):
        left, right = right ^ _round(key, round_number, left), left
    found = left << HALF | right
    if found >= LARGEST or player_id(key, found) != opaque:
        return None  # no snowflake (they are signed 64-bit numbers), or not this id's spelling
    return found
