"""Analysis of benchmark results (reads result tables only)."""
