"""Surrogate models of architecture performance and the metrics to judge them (NAS-Bench-301)."""
