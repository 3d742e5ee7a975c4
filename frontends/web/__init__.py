"""``play --web``: the game in a browser, served from this process (docs/web.md).

* ``frontends.web.sessions``: the games, one per browser tab, with no HTTP in them; a ``Catalogue``
  of the games served;
* ``frontends.web.opponents``: the opponents the page offers per game (alpha-beta, UCT, perfect play);
* ``frontends.web.catalogue``: which games ``play --web`` serves, with which models;
* ``frontends.web.poker``: Kuhn and Leduc hands against a CFR+ policy solved at server start;
* ``frontends.web.app``: the FastAPI app (the page and its JSON API);
* ``frontends.web.server``: binding the socket and running uvicorn;
* ``static/``: the page (HTML, CSS, SVG drawn by a little JavaScript; nothing fetched from elsewhere).
"""
