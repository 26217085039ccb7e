"""Builders that make catalogs and their data: the seeded synthetic generator (items and
interactions), the TMDB pipeline, and importers for the τ-Rec release and Amazon products."""
