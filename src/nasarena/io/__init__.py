"""File formats: package data with manifests, official benchmark files."""
