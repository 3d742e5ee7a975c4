"""Two-player Pig (Neller & Presser 2004): batched rules with chance states (``game``), the exact
value-iteration solver (``solver``) and its ``solve --game pig`` front end (``solve_cli``)."""
