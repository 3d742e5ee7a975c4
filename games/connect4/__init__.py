"""Connect Four: batched bitboard rules (``game``), its knowledge (``knowledge``: centre-first order,
the heuristic of ``heuristic``, Pons' exact solver of ``exact`` and ``solver`` with its opening
``book``) and the ``solve`` command line (``solve_cli``)."""
