"""Arena: players (baselines, network + MCTS, human), matches, Elo, gating, perfect-play accuracy."""
