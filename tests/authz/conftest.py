"""Real keys and real JWTs: an RSA and an EC key pair on disk (PEM and JWKS), an HMAC secret in the environment."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

ISSUER = "https://idp.example"
AUDIENCE = "taskgate"
HS_SECRET = "an-hmac-secret-of-at-least-thirty-two-chars"
TASK_SECRET = "taskgate-task-signing-secret-0123456789"


@dataclass
class Keys:
    rsa: Any
    ec: Any
    rsa_pem: Path
    jwks: Path

    def token(self, alg: str = "RS256", kid: str | None = "rsa-1", key: Any = None, **claims: Any) -> str:
        now = int(time.time())
        body = {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "tenant": "acme", "iat": now, "exp": now + 300}
        body.update(claims)
        body = {k: v for k, v in body.items() if v is not None}
        if key is None:
            key = {"RS256": self.rsa, "ES256": self.ec, "HS256": HS_SECRET}[alg]
        headers = {"kid": kid} if kid else None
        return jwt.encode(body, key, algorithm=alg, headers=headers)


def _public_pem(private: Any) -> bytes:
    pem: bytes = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return pem


@pytest.fixture(scope="session")
def key_pairs() -> tuple[Any, Any]:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048), ec.generate_private_key(ec.SECP256R1())


@pytest.fixture
def keys(tmp_path: Path, key_pairs: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch) -> Keys:
    rsa_key, ec_key = key_pairs
    monkeypatch.setenv("IDP_HS_SECRET", HS_SECRET)
    monkeypatch.setenv("TASKGATE_TASK_KEY", TASK_SECRET)
    pem = tmp_path / "rsa.pem"
    pem.write_bytes(_public_pem(rsa_key))
    ec_jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(ec_key.public_key()))
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [{**ec_jwk, "kid": "ec-1", "alg": "ES256", "use": "sig"}]}))
    return Keys(rsa_key, ec_key, pem, jwks)


def jwt_section(keys: Keys) -> dict[str, Any]:
    return {
        "issuer": ISSUER,
        "audience": AUDIENCE,
        "algorithms": ["RS256", "ES256", "HS256"],
        "keys": [
            {"kid": "rsa-1", "algorithm": "RS256", "public_key_file": str(keys.rsa_pem)},
            {"kid": "hs-1", "algorithm": "HS256", "secret_env": "IDP_HS_SECRET"},
        ],
        "jwks_file": str(keys.jwks),
    }
