"""One JSON call to the gateway with time-outs, retries and backoff.

A POST carries an Idempotency-Key made once per call and resent unchanged
on every retry, so a retried create, refund or cancel can never act twice:
the gateway answers the first attempt's stored result."""

from __future__ import annotations

import json
import random
import socket
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional

from ._version import __version__
from .errors import APIError, TransportError, error_for

USER_AGENT = "paygate-python/" + __version__
MAX_RETRY_AFTER = 30.0


@dataclass(frozen=True)
class RetryPolicy:
    """max_retries more attempts after the first, waiting backoff * 2**n
    (with jitter, capped at max_backoff) or the server's Retry-After."""

    max_retries: int = 2
    backoff: float = 0.5
    max_backoff: float = 8.0

    def delay(self, attempt: int, retry_after: Optional[float]) -> float:
        if retry_after is not None:
            return min(retry_after, MAX_RETRY_AFTER)
        base = min(self.max_backoff, self.backoff * (2 ** attempt))
        return base * (0.5 + random.random() / 2)


def _retryable(status: int, kind: str) -> bool:
    return status == 429 or status >= 500 or kind == "idempotency_in_progress"


def _retry_after(headers: Any) -> Optional[float]:
    value = headers.get("Retry-After") if headers is not None else None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


class Transport:
    """Sends requests; tests may swap sleep to run without waiting."""

    def __init__(self, timeout: float, retry: RetryPolicy, user_agent: str = USER_AGENT,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.timeout = timeout
        self.retry = retry
        self.user_agent = user_agent
        self.sleep = sleep

    def call(self, method: str, url: str, body: Optional[Mapping[str, Any]] = None,
             idempotency_key: Optional[str] = None) -> Any:
        """The data member of a success; raises APIError or TransportError."""
        headers = {"User-Agent": self.user_agent, "Accept": "application/json"}
        data = None
        if method == "POST":
            headers["Content-Type"] = "application/json"
            headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
            data = json.dumps(body or {}, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        attempt = 0
        while True:
            try:
                return self._once(method, url, headers, data)
            except APIError as e:
                if attempt >= self.retry.max_retries or not _retryable(e.status, e.kind):
                    raise
                wait = self.retry.delay(attempt, e.retry_after)
            except TransportError:
                if attempt >= self.retry.max_retries:
                    raise
                wait = self.retry.delay(attempt, None)
            attempt += 1
            self.sleep(wait)

    def _once(self, method: str, url: str, headers: Dict[str, str], data: Optional[bytes]) -> Any:
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return _success(resp.status, resp.read())
        except urllib.error.HTTPError as e:
            raw = e.read()
            raise _failure(e.code, raw, _retry_after(e.headers)) from None
        except (urllib.error.URLError, socket.timeout, ConnectionError, TimeoutError) as e:
            raise TransportError("%s %s: %s" % (method, url.split("?")[0], e)) from None


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def _success(status: int, raw: bytes) -> Any:
    doc = _decode(raw)
    if not isinstance(doc, dict) or "data" not in doc:
        raise APIError(status, "invalid_response", "the gateway's answer is not its JSON envelope")
    return doc["data"]


def _failure(status: int, raw: bytes, retry_after: Optional[float]) -> APIError:
    doc = _decode(raw)
    if isinstance(doc, dict) and isinstance(doc.get("error"), str):
        return error_for(status, doc["error"], str(doc.get("msg", "")), retry_after)
    return error_for(status, "http_%d" % status, "the gateway answered HTTP %d" % status, retry_after)
