"""A /v1 request without a known key is a 401 before its body is read (not a 415 or 422)."""

from __future__ import annotations

import pytest

from tests.conftest import Tenant


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({}, "auth.invalid_key"),
        ({"Authorization": "Bearer not-a-key"}, "auth.invalid_key"),
        ({"Authorization": "Basic abc"}, "auth.invalid_key"),
    ],
)
@pytest.mark.parametrize(
    ("content", "media"),
    [
        (b'{"query": "x", ', "application/json"),  # invalid JSON: was 422 input.invalid
        (b"query=x", "text/plain"),  # not JSON at all: was 415
        (b'{"query": "x", "limit": "ten"}', "application/json"),  # schema error: 401 already
    ],
)
def test_no_known_key_is_401_whatever_the_body(
    tenant: Tenant, headers: dict[str, str], code: str, content: bytes, media: str
) -> None:
    r = tenant.client.post(
        "/v1/recall", content=content, headers={"Content-Type": media, **headers}
    )
    assert r.status_code == 401, r.text
    assert r.json()["code"] == code
    assert r.headers["WWW-Authenticate"] == "Bearer"


def test_a_known_key_still_gets_the_body_errors(tenant: Tenant) -> None:
    r = tenant.post(
        "/v1/recall", content=b'{"query": "x", ', headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["code"] == "input.invalid", r.text
