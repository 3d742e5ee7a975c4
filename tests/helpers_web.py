"""Requests to the ``play --web`` JSON API (frontends/web/app.py) through a FastAPI ``TestClient``,
checked for the status the API documents (docs/web.md)."""

from __future__ import annotations


def new_session(client, **body) -> dict:
    """``POST /api/sessions`` with ``body``; the new game's JSON (the status must be 201)."""
    answer = client.post("/api/sessions", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def post(client, game: dict, action: str, body: dict | None = None):
    """``POST /api/sessions/<session>/<action>`` with ``body``; the response, unchecked."""
    return client.post(f"/api/sessions/{game['session']}/{action}", json=body)


def get(client, game: dict) -> dict:
    """``GET /api/sessions/<session>``; the game's JSON (the status must be 200)."""
    answer = client.get(f"/api/sessions/{game['session']}")
    assert answer.status_code == 200
    return answer.json()
