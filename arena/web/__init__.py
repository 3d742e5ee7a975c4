"""``play --web``: the game in a browser, served from this process (docs/web.md).

* ``arena.web.sessions``: the games, one per browser tab, with no HTTP in them;
* ``arena.web.app``: the FastAPI app (the page and its JSON API);
* ``arena.web.server``: binding the socket and running uvicorn;
* ``static/``: the page (HTML, CSS, SVG drawn by a little JavaScript; nothing fetched from elsewhere).
"""
