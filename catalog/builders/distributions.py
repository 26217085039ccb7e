"""The joint distributions behind synthetic catalogs: the knobs, in one readable place.

Each genre has a profile (how common it is as a first genre, which genres it pairs
with, how long, how well rated and how mature its titles run); languages and services
have base shares that `synthetic` adjusts per title (Disney+ for family titles, Shudder
for horror, Crunchyroll for Japanese animation, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from taurec.catalog.item import ContentRating

FIRST_RELEASE = date(1970, 1, 1)
LAST_RELEASE = date(2026, 10, 31)
#: The snapshot date the shipped catalog records: the day after the last release.
SNAPSHOT_DATE = date(2026, 11, 1)

CONTENT_RATINGS: tuple[ContentRating, ...] = (
    ContentRating.G,
    ContentRating.PG,
    ContentRating.PG_13,
    ContentRating.R,
    ContentRating.NC_17,
    ContentRating.NR,
)


@dataclass(frozen=True)
class GenreProfile:
    """How one genre shapes a title: popularity, partners, length, score and maturity."""

    weight: float  # share of titles with this as the first genre
    mood: str  # title word bank: dark | bright | epic | quiet
    runtime: tuple[float, float]  # mean, sd in minutes
    rating_offset: float  # added to the N(6.3, 0.9) audience score
    ratings: tuple[float, float, float, float, float, float]  # G, PG, PG-13, R, NC-17, NR
    partners: dict[str, float] = field(default_factory=dict)  # relative chance of each co-genre
    sizes: tuple[float, float, float] = (0.30, 0.45, 0.25)  # P(1, 2, 3 genres)


P = GenreProfile
GENRE_PROFILES: dict[str, GenreProfile] = {
    "Drama": P(0.15, "quiet", (112, 16), 0.30, (0.01, 0.06, 0.30, 0.42, 0.015, 0.195),
               {"Romance": 5, "Crime": 3, "History": 3, "Comedy": 3, "Thriller": 2, "Music": 2,
                "War": 1.5, "Family": 1, "Mystery": 1}),
    "Comedy": P(0.13, "bright", (98, 10), -0.10, (0.03, 0.14, 0.42, 0.30, 0.005, 0.105),
                {"Romance": 5, "Drama": 4, "Family": 2, "Crime": 1.5, "Action": 1.5,
                 "Fantasy": 1, "Music": 1, "Horror": 0.7, "Science Fiction": 0.7}),
    "Action": P(0.11, "epic", (114, 14), -0.10, (0.005, 0.05, 0.50, 0.38, 0.005, 0.06),
                {"Adventure": 5, "Thriller": 5, "Crime": 4, "Science Fiction": 4, "Comedy": 1.5,
                 "Fantasy": 1.5, "War": 1, "Western": 0.7}),
    "Thriller": P(0.09, "dark", (106, 12), -0.15, (0.002, 0.02, 0.33, 0.52, 0.015, 0.113),
                  {"Crime": 5, "Mystery": 5, "Drama": 4, "Action": 3, "Horror": 2,
                   "Science Fiction": 1}),
    "Horror": P(0.09, "dark", (94, 10), -0.55, (0.001, 0.01, 0.17, 0.63, 0.04, 0.149),
                {"Thriller": 6, "Mystery": 4, "Fantasy": 1.5, "Science Fiction": 1.5,
                 "Comedy": 1.2, "Drama": 1}),
    "Romance": P(0.06, "quiet", (106, 12), 0.00, (0.02, 0.10, 0.40, 0.33, 0.01, 0.14),
                 {"Comedy": 6, "Drama": 6, "Music": 1, "Fantasy": 1, "History": 1}),
    "Science Fiction": P(0.06, "epic", (116, 16), -0.05, (0.01, 0.10, 0.50, 0.30, 0.005, 0.085),
                         {"Action": 5, "Adventure": 4, "Thriller": 4, "Mystery": 1.5,
                          "Horror": 1.5, "Drama": 1.5, "Animation": 0.5}),
    "Adventure": P(0.05, "epic", (118, 18), 0.00, (0.05, 0.30, 0.48, 0.10, 0.002, 0.068),
                   {"Action": 5, "Fantasy": 4, "Family": 3, "Comedy": 2, "Science Fiction": 2,
                    "Animation": 1.5, "Western": 1}),
    "Crime": P(0.05, "dark", (116, 15), 0.15, (0.001, 0.01, 0.20, 0.65, 0.03, 0.109),
               {"Thriller": 6, "Drama": 5, "Mystery": 3, "Action": 3, "Comedy": 1.5}),
    "Animation": P(0.05, "bright", (90, 8), 0.35, (0.40, 0.45, 0.09, 0.005, 0.001, 0.054),
                   {"Family": 12, "Adventure": 4, "Comedy": 4, "Fantasy": 3, "Music": 1,
                    "Science Fiction": 1}),
    "Fantasy": P(0.04, "epic", (120, 18), -0.05, (0.04, 0.25, 0.48, 0.16, 0.005, 0.065),
                 {"Adventure": 6, "Action": 3, "Family": 2, "Drama": 1.5, "Romance": 1.5,
                  "Horror": 1, "Animation": 1}),
    "Mystery": P(0.03, "dark", (106, 12), 0.00, (0.005, 0.05, 0.38, 0.42, 0.005, 0.14),
                 {"Thriller": 6, "Crime": 5, "Drama": 3, "Horror": 2, "Comedy": 1}),
    "Family": P(0.03, "bright", (96, 10), -0.05, (0.45, 0.42, 0.07, 0.005, 0.001, 0.054),
                {"Animation": 6, "Comedy": 5, "Adventure": 4, "Fantasy": 3, "Music": 1}),
    "Documentary": P(0.04, "quiet", (94, 14), 0.60, (0.05, 0.10, 0.20, 0.20, 0.002, 0.448),
                     {"Music": 4, "History": 4, "Crime": 2, "War": 1},
                     sizes=(0.75, 0.20, 0.05)),
    "History": P(0.02, "quiet", (134, 20), 0.45, (0.01, 0.08, 0.35, 0.40, 0.005, 0.155),
                 {"Drama": 8, "War": 4, "Romance": 1.5, "Adventure": 1}),
    "War": P(0.015, "epic", (138, 20), 0.45, (0.002, 0.02, 0.25, 0.65, 0.005, 0.073),
             {"Drama": 6, "History": 5, "Action": 4, "Thriller": 1}),
    "Music": P(0.02, "bright", (110, 14), 0.30, (0.03, 0.12, 0.38, 0.32, 0.005, 0.145),
               {"Drama": 6, "Comedy": 3, "Romance": 3, "Documentary": 2}),
    "Western": P(0.015, "epic", (118, 16), 0.20, (0.01, 0.08, 0.30, 0.45, 0.005, 0.155),
                 {"Action": 4, "Drama": 4, "Adventure": 3, "Crime": 1}),
}  # fmt: skip
del P

# (code, share) of original languages; Animation leans Japanese, Documentary/Drama wider.
LANGUAGES: tuple[tuple[str, float], ...] = (
    ("en", 0.78), ("fr", 0.035), ("es", 0.035), ("ja", 0.03), ("ko", 0.03), ("hi", 0.02),
    ("de", 0.02), ("it", 0.015), ("zh", 0.015), ("sv", 0.008), ("da", 0.006), ("pt", 0.006),
)  # fmt: skip

# (canonical service, base weight): names are keys of services.SERVICE_ALIASES.
SERVICES: tuple[tuple[str, float], ...] = (
    ("Netflix", 0.22), ("Amazon Prime Video", 0.18), ("Hulu", 0.13), ("HBO Max", 0.08),
    ("Disney+", 0.025), ("Paramount+", 0.05), ("Peacock", 0.05), ("Apple TV+", 0.035),
    ("Tubi", 0.03), ("Pluto TV", 0.02), ("Starz", 0.02), ("AMC+", 0.015), ("MGM+", 0.015),
    ("Kanopy", 0.01), ("Philo", 0.008), ("Sundance Now", 0.006), ("fuboTV", 0.004),
    ("BritBox", 0.004), ("Shudder", 0.002), ("MUBI", 0.006), ("Criterion Channel", 0.005),
    ("Crunchyroll", 0.0005), ("Angel Studios", 0.001),
)  # fmt: skip
SERVICE_COUNT_P = (0.20, 0.40, 0.27, 0.13)  # P(0, 1, 2, 3 services)
SPONSORED_P = (0.03, 0.065)  # before 2015, from 2015 on: about 5% overall
PROLIFIC_DIRECTORS_PER_GENRE = (3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1)
PROLIFIC_SHARE = 0.35  # chance a title is by one of its first genre's recurring directors
STAR_POOL = 150
STAR_SHARE = 0.25  # chance a cast slot goes to a recurring actor
