"""taskgate's own signing keys: each with a kid, kept in rings, the public halves published as one JWKS.

A ring holds every key a kind of token taskgate signs may be verified with;
one of them signs. Task tokens have a ring of their own (several keys during
a rotation), per-task assertions a ring of one. ES256 (EC P-256) and EdDSA
(Ed25519) keys are published at /.well-known/jwks.json, so tool servers and
sub-agents can check a token offline; an HS256 secret is never published, so
only taskgate can check what it signs. A token is checked only with the key
its header names, for that key's own algorithm, and only if its `typ` is the
ring's: a per-task assertion is never taken for a task token.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from jwt.algorithms import ECAlgorithm, OKPAlgorithm

SigningAlgorithm = Literal["ES256", "EdDSA", "HS256"]
_THUMBPRINTED = {"EC": ("crv", "kty", "x", "y"), "OKP": ("crv", "kty", "x")}


class UnknownKey(jwt.InvalidTokenError):
    """The token names no key of the ring (never one, or one since removed)."""


@dataclass(frozen=True, slots=True)
class SigningKey:
    """One key: its kid and algorithm, what verifies, what signs (None: it only verifies), its public JWK."""

    kid: str
    algorithm: str
    verifier: Any  # a public key, or the HMAC secret
    signer: Any | None  # a private key, or the HMAC secret; None for a key kept to verify old tokens
    jwk: Mapping[str, Any] | None  # published; None for an HMAC secret


def load_private(pem: bytes, algorithm: str) -> Any:
    """A PEM private key of the algorithm's kind; ValueError saying which kind it must be."""
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"not a PEM private key without a password ({exc})") from None
    _check_kind(key.public_key(), algorithm)
    return key


def load_public(pem: bytes, algorithm: str) -> Any:
    try:
        key = serialization.load_pem_public_key(pem)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"not a PEM public key ({exc})") from None
    _check_kind(key, algorithm)
    return key


def _check_kind(public: Any, algorithm: str) -> None:
    p256 = isinstance(public, ec.EllipticCurvePublicKey) and public.curve.name == "secp256r1"
    if algorithm == "ES256" and not p256:
        raise ValueError("an ES256 key must be an EC P-256 (secp256r1) key")
    if algorithm == "EdDSA" and not isinstance(public, ed25519.Ed25519PublicKey):
        raise ValueError("an EdDSA key must be an Ed25519 key")


def asymmetric(kid: str | None, algorithm: str, private: Any = None, public: Any = None) -> SigningKey:
    """A key from its private half (it signs) or its public half only (it verifies); kid None: its thumbprint."""
    public = private.public_key() if private is not None else public
    codec = ECAlgorithm if algorithm == "ES256" else OKPAlgorithm
    members: dict[str, Any] = codec.to_jwk(public, as_dict=True)
    kid = kid or thumbprint(members)
    return SigningKey(kid, algorithm, public, private, {**members, "kid": kid, "alg": algorithm, "use": "sig"})


def secret(kid: str, value: bytes) -> SigningKey:
    return SigningKey(kid, "HS256", value, value, None)


def generated(algorithm: str = "ES256") -> SigningKey:
    """A key made now: for one process only (a replica cannot check what another signed)."""
    private = ec.generate_private_key(ec.SECP256R1()) if algorithm == "ES256" else ed25519.Ed25519PrivateKey.generate()
    return asymmetric(None, algorithm, private)


def thumbprint(jwk: Mapping[str, Any]) -> str:
    """RFC 7638: the SHA-256 of the key's required members, base64url."""
    members = {name: jwk[name] for name in _THUMBPRINTED[str(jwk["kty"])]}
    digest = hashlib.sha256(json.dumps(members, separators=(",", ":"), sort_keys=True).encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class KeyRing:
    """The keys one kind of token is verified with, by kid; `signer` signs new ones."""

    def __init__(self, keys: Sequence[SigningKey], signer: str, typ: str):
        self._keys = {key.kid: key for key in keys}
        self.signer = self._keys[signer]
        if self.signer.signer is None:
            raise ValueError(f"key {signer!r} has no private part, so it cannot sign")
        self._private: Any = self.signer.signer
        self.typ = typ

    def sign(self, claims: Mapping[str, Any]) -> str:
        key = self.signer
        return jwt.encode(
            dict(claims), self._private, algorithm=key.algorithm, headers={"kid": key.kid, "typ": self.typ}
        )

    def decode(self, token: str, audience: str, issuer: str, require: list[str]) -> dict[str, Any]:
        """The verified claims; a PyJWT error (UnknownKey for a kid the ring lacks) when the token does not hold."""
        header = jwt.get_unverified_header(token)
        if header.get("typ") != self.typ:
            raise jwt.InvalidTokenError(f"typ is not {self.typ}")
        key = self._keys.get(str(header.get("kid")))
        if key is None:
            raise UnknownKey("signed by a key taskgate does not hold")
        claims: dict[str, Any] = jwt.decode(
            token, key.verifier, algorithms=[key.algorithm], audience=audience, issuer=issuer,
            options={"require": require},
        )  # fmt: skip
        return claims

    def public(self) -> list[Mapping[str, Any]]:
        return [key.jwk for key in self._keys.values() if key.jwk is not None]


def published(rings: Iterable[KeyRing]) -> dict[str, Any]:
    """One JWKS of every ring's public keys; a kid two different keys claim is refused (a verifier could not tell)."""
    found: dict[str, Mapping[str, Any]] = {}
    for ring in rings:
        for jwk in ring.public():
            kid = str(jwk["kid"])
            if kid in found and found[kid] != jwk:
                raise ValueError(f"two different keys have the kid {kid!r}; give each key its own kid")
            found[kid] = jwk
    return {"keys": list(found.values())}
