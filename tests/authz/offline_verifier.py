"""A tool server's check of a taskgate task token, in a process of its own: PyJWT and the published JWKS, nothing
of taskgate's. Prints the claims (exit 0), or why it refused (exit 1).

    python offline_verifier.py JWKS_URL TOKEN
"""

from __future__ import annotations

import json
import sys

import jwt

TYPE = "taskgate-task-token+jwt"


def verify(jwks_url: str, token: str) -> dict[str, object]:
    key = jwt.PyJWKClient(jwks_url, cache_keys=False).get_signing_key_from_jwt(token)
    if jwt.get_unverified_header(token).get("typ") != TYPE:
        raise jwt.InvalidTokenError("not a task token")
    claims: dict[str, object] = jwt.decode(
        token, key, algorithms=["ES256", "EdDSA"], audience="taskgate-task", issuer="taskgate"
    )
    return claims


def main(argv: list[str]) -> int:
    try:
        print(json.dumps(verify(argv[1], argv[2])))
    except jwt.PyJWTError as exc:
        print(json.dumps({"refused": f"{type(exc).__name__}: {exc}"}))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
