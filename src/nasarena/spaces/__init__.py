"""Search spaces: architectures as immutable values with a canonical identity."""
