"""``play --web``: the game in a browser, served from this process (docs/web.md).

* ``arena.web.sessions``: the games, one per browser tab, with no HTTP in them; a ``Catalogue``
  of the games served;
* ``arena.web.opponents``: the opponents the page offers per game (alpha-beta, UCT, perfect play);
* ``arena.web.catalogue``: which games ``play --web`` serves, with which models;
* ``arena.web.app``: the FastAPI app (the page and its JSON API);
* ``arena.web.server``: binding the socket and running uvicorn;
* ``static/``: the page (HTML, CSS, SVG drawn by a little JavaScript; nothing fetched from elsewhere).
"""
