"""The AgentRank Score (method version 1): pure, vectorised functions over repo inputs."""

from scoring.score import METHOD_VERSION, WEIGHTS, ScoreInputs, compute_scores

__all__ = ["METHOD_VERSION", "WEIGHTS", "ScoreInputs", "compute_scores"]
