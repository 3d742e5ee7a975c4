"""Connect Four: batched bitboard rules (``game``), the exact solver and its command line."""
