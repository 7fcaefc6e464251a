"""Who is asking: the operator (``KGQA_ADMIN_TOKEN``) or an anonymous client (a hashed key of its address).

Reading is open. Changing what every user gets (reloading the registry, a vote applied for everyone) needs the
operator: :func:`operator` compares the request's ``Authorization: Bearer`` token with the configured one in
constant time; with no token configured those endpoints are off. Anonymous clients are told apart by
:func:`client_key`, an HMAC of the peer address under a secret kept in the state folder, so the vote ledger
holds no address. ``X-Forwarded-For`` is not read: a client cannot name itself someone else.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

SALT_FILE = "client_key.secret"


class Forbidden(Exception):
    """An operator-only request without a valid token: ``status`` 403 (off: no token configured) or 401."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.message, self.status = message, status


def bearer(header: str | None) -> str | None:
    """Returns the token of an ``Authorization: Bearer TOKEN`` header, or None."""
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


def is_operator(configured: str, given: str | None) -> bool:
    """Returns whether ``given`` is the configured operator token (constant-time; never with none configured)."""
    if not configured or given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), configured.encode("utf-8"))


def operator(configured: str, given: str | None, what: str) -> None:
    """Returns when ``given`` is the operator token; raises :class:`Forbidden` naming ``what`` otherwise."""
    if not configured:
        raise Forbidden(f"{what} is off: it changes what every user gets; set KGQA_ADMIN_TOKEN on the server "
                        "and send it as 'Authorization: Bearer TOKEN'", 403)
    if not is_operator(configured, given):
        raise Forbidden(f"{what} needs the operator's token ('Authorization: Bearer TOKEN')", 401)


def load_salt(state_dir: Path) -> bytes:
    """Returns the secret that keys :func:`client_key`, made once per state folder (shared by every worker)."""
    path = Path(state_dir) / SALT_FILE
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another worker made it first
        return path.read_bytes()
    with os.fdopen(fd, "wb") as fh:
        fh.write(secrets.token_bytes(32))
    return path.read_bytes()


def client_key(salt: bytes, address: str | None) -> str:
    """Returns the hashed key of a client's address (16 hex digits); the address itself is never stored."""
    return hmac.new(salt, (address or "unknown").encode(), hashlib.sha256).hexdigest()[:16]
