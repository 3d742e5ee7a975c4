"""Two-player Pig (Neller & Presser 2004): batched rules with chance states (``game``), its
knowledge (``knowledge``: the banked-score heuristic and the exact value-iteration solver of
``solver``) and the ``solve --game pig`` front end (``solve_cli``)."""
