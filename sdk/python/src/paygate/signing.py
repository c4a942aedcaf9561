"""SPEC.md's MD5 signature of requests and of the paid-order webhook.

Every parameter but sign and sign_type, null values left out (empty strings
kept), sorted by name, joined as name=value with &, values as they are (no URL
encoding), the API key appended with no separator; the MD5 in lower-case hex.
"""

from __future__ import annotations

import decimal
import hashlib
import hmac
from typing import Any, Mapping, Optional

UNSIGNED = ("sign", "sign_type")


def param_value(value: Any) -> Optional[str]:
    """The text a parameter is sent and signed as; None when it is left out.

    A float is refused: 0.1 + 0.2 has no honest two-decimal text, and the
    gateway signs an amount exactly as it was written.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        raise TypeError("money and numbers are sent as str, int or Decimal, not float")
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError("a Decimal parameter must be finite")
        return format(value, "f")
    if isinstance(value, (int, str)):
        return str(value)
    raise TypeError("a parameter is a flat value (str, int, Decimal, bool), got %s" % type(value).__name__)


def sign_base(params: Mapping[str, Any]) -> str:
    """The string the key is appended to (SPEC.md steps 1 to 4)."""
    pairs = []
    for name in sorted(params):
        if name in UNSIGNED:
            continue
        text = param_value(params[name])
        if text is None:
            continue
        pairs.append(name + "=" + text)
    return "&".join(pairs)


def sign(params: Mapping[str, Any], api_key: str) -> str:
    """The sign of params with the merchant's API key."""
    return hashlib.md5((sign_base(params) + api_key).encode("utf-8")).hexdigest()


def verify(params: Mapping[str, Any], api_key: str) -> bool:
    """Whether params carry the right sign, compared in constant time."""
    got = params.get("sign")
    if not isinstance(got, str) or got == "":
        return False
    return hmac.compare_digest(sign(params, api_key).encode("ascii"), got.lower().encode("utf-8"))
