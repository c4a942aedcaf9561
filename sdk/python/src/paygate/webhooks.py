"""Verifying webhooks in both forms the gateway sends.

SPEC.md's form: an application/x-www-form-urlencoded POST whose sign is the
MD5 of the other parameters with the API key. The modern form: the headers
webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks:
space-separated v1,<base64 HMAC-SHA256 of id.timestamp.body> keyed by the
base64-decoded whsec_ secret), on the paid callback and on every event.
Every comparison is constant time."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any, Dict, List, Mapping, Optional, Union
from urllib.parse import parse_qsl

from . import signing
from .errors import WebhookVerificationError
from .types import Event, PaidWebhook, from_json

HEADER_ID = "webhook-id"
HEADER_TIMESTAMP = "webhook-timestamp"
HEADER_SIGNATURE = "webhook-signature"
SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE = 300  # seconds either side of our clock

Body = Union[bytes, str]


def _text(body: Body) -> str:
    if isinstance(body, bytes):
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            raise WebhookVerificationError("the body is not UTF-8") from None
    return body


def _header(headers: Mapping[str, str], name: str) -> str:
    for k, v in headers.items():
        if k.lower() == name:
            return v
    raise WebhookVerificationError("missing header " + name)


def _secret_key(secret: str) -> bytes:
    raw = secret[len(SECRET_PREFIX):] if secret.startswith(SECRET_PREFIX) else secret
    try:
        key = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("the webhook secret is not whsec_ followed by base64") from None
    if not key:
        raise ValueError("the webhook secret is empty")
    return key


def sign_headers(secret: str, msg_id: str, timestamp: int, body: Body) -> str:
    """The v1 signature the gateway puts in webhook-signature for secret."""
    payload = (msg_id + "." + str(timestamp) + "." + _text(body)).encode("utf-8")
    mac = hmac.new(_secret_key(secret), payload, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode("ascii")


def verify_headers(
    body: Body,
    headers: Mapping[str, str],
    secret: str,
    tolerance: int = DEFAULT_TOLERANCE,
    now: Optional[float] = None,
) -> str:
    """Checks the Standard-Webhooks headers over the raw body; returns the
    webhook-id (deduplicate on it). Any of the space-separated v1 signatures
    may match (two during a secret rotation's grace)."""
    msg_id = _header(headers, HEADER_ID)
    stamp = _header(headers, HEADER_TIMESTAMP)
    signatures = _header(headers, HEADER_SIGNATURE)
    if not stamp.isdigit() or not stamp.isascii():
        raise WebhookVerificationError("webhook-timestamp is not unix seconds")
    clock = time.time() if now is None else now
    if abs(clock - int(stamp)) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is too far from our clock")
    want = sign_headers(secret, msg_id, int(stamp), body).encode("ascii")
    for candidate in signatures.split(" "):
        if candidate.startswith("v1,") and hmac.compare_digest(want, candidate.encode("utf-8")):
            return msg_id
    raise WebhookVerificationError("no webhook-signature matches")


def parse_form(body: Body) -> Dict[str, str]:
    """The form body as a dict; a repeated name is refused, since it could
    make the signed and the read value differ."""
    out: Dict[str, str] = {}
    for name, value in parse_qsl(_text(body), keep_blank_values=True, strict_parsing=False):
        if name in out:
            raise WebhookVerificationError("parameter %s appears twice" % name)
        out[name] = value
    return out


def verify_paid(
    body: Body,
    api_key: str,
    headers: Optional[Mapping[str, str]] = None,
    secret: Optional[str] = None,
    tolerance: int = DEFAULT_TOLERANCE,
    now: Optional[float] = None,
) -> PaidWebhook:
    """Verifies SPEC.md's paid-order callback: the MD5 sign with the API key,
    and, when secret is given, the webhook-* headers as well. Answer
    `success` only after this returns."""
    if secret is not None:
        verify_headers(body, headers or {}, secret, tolerance, now)
    params = parse_form(body)
    if not signing.verify(params, api_key):
        raise WebhookVerificationError("sign does not match")
    try:
        return from_json(PaidWebhook, params)
    except ValueError as e:
        raise WebhookVerificationError(str(e)) from None


def parse_event(
    body: Body,
    headers: Mapping[str, str],
    secret: str,
    tolerance: int = DEFAULT_TOLERANCE,
    now: Optional[float] = None,
) -> Event:
    """Verifies an event delivery (webhook endpoints, docs/events.md) and
    parses its envelope {id, type, created_at, version, data}. The envelope's
    id must be the signed webhook-id."""
    msg_id = verify_headers(body, headers, secret, tolerance, now)
    try:
        doc: Any = json.loads(_text(body))
        event = from_json(Event, doc)
    except ValueError as e:
        raise WebhookVerificationError("not an event envelope: %s" % e) from None
    if not hmac.compare_digest(event.id.encode("utf-8"), msg_id.encode("utf-8")):
        raise WebhookVerificationError("the envelope's id is not the webhook-id")
    return event


__all__: List[str] = [
    "HEADER_ID",
    "HEADER_TIMESTAMP",
    "HEADER_SIGNATURE",
    "sign_headers",
    "verify_headers",
    "parse_form",
    "verify_paid",
    "parse_event",
]
