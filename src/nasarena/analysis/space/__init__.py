"""Search-space analysis: NAS-Bench-101's dataset study (Sec. 3) for a whole benchmark.

Every function here works on whole arrays over the benchmark's table (423,624 NB101 cells
at most), so a full report is a few array passes, not a loop over cells.
"""
