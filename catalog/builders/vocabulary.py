"""Word banks for the synthetic catalog: people, places, title words, keywords.

Everything here is invented. Surnames and place names are built from syllables that
do not form famous names, so a generated person is nobody real; title words avoid
pairs that make well-known film titles (see `TITLE_BLOCKLIST`, checked at build time).
Banks are tuples so their order, and so every seeded draw, is fixed.
"""

from __future__ import annotations

import re
from itertools import product


def _words(text: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in text.split("|") if w.strip())


def _join(head: str, tail: str) -> str:
    # "Tull" + "ley" reads "Tulley", not "Tullley"
    return re.sub(r"(.)\1\1", r"\1\1", head + tail)


FIRST_NAMES: tuple[str, ...] = _words(
    "Ada|Adrian|Aiko|Alma|Amara|Anika|Ansel|Arlo|Asha|Astrid|Beatrix|Bram|Calla|Cassius|"
    "Celeste|Cillian|Clio|Corin|Dalia|Dario|Delphine|Desmond|Dima|Edie|Elio|Elspeth|Emeka|"
    "Enzo|Esme|Ezra|Fenna|Fergus|Freya|Gideon|Greer|Hana|Hollis|Idris|Ilse|Imogen|Inez|"
    "Ines|Ivo|Jonah|Juno|Kaia|Kasimir|Keiko|Kian|Lark|Leif|Lena|Linnea|Lior|Lucan|Mabel|"
    "Maren|Marisol|Mateo|Mira|Nadia|Nico|Noor|Odile|Olek|Orla|Otto|Paloma|Pavel|Petra|"
    "Quincy|Ravi|Reuben|Rhea|Rosalind|Rowan|Rufus|Saoirse|Selim|Sigrid|Silas|Solveig|"
    "Soren|Tamsin|Tariq|Tessa|Thea|Tobias|Ulla|Vesna|Wren|Xiomara|Yara|Yusuf|Zelda|Zoltan|"
    "Aurelio|Bettina|Caspian|Dagny|Eamon|Florian|Gwendolyn|Halvard|Isolde|Jovan|Katya|"
    "Lazlo|Minna|Nessa|Oskar|Priya|Rosalie|Stellan|Talia|Umberto|Valeria|Wendell|Yannick"
)

# Surnames are prefix + suffix, e.g. "Quorvale", "Dunmarrow": plausible, not famous.
_SURNAME_HEADS = _words(
    "Ash|Bel|Brann|Carr|Cor|Dal|Dun|Elver|Fen|Gal|Hal|Harl|Ives|Kest|Lind|Lorr|Mar|"
    "Morr|Nev|Oak|Orm|Pell|Quor|Rav|Rook|Sel|Stav|Thorn|Tull|Vann|Vel|Wex|Wyn|Yarr"
)
_SURNAME_TAILS = _words(
    "aby|ard|ello|ett|gard|grove|holm|ick|ingham|ley|marrow|mere|ovic|quist|ridge|"
    "sby|stad|strom|ton|vale|vik|well|wick|yard"
)
SURNAMES: tuple[str, ...] = tuple(_join(h, t) for h, t in product(_SURNAME_HEADS, _SURNAME_TAILS))

_PLACE_HEADS = _words(
    "Alder|Brack|Caer|Dornel|Eskar|Fallow|Gresh|Hollin|Isel|Jarro|Kell|Lowen|Merrow|"
    "Norvel|Osk|Pellan|Quill|Rennet|Sorrow|Tamber|Ulm|Verran|Wick|Ystra"
)
_PLACE_TAILS = _words("bury|crest|dale|fell|ford|gate|haven|holt|moor|port|reach|wick")
PLACES: tuple[str, ...] = tuple(_join(h, t) for h, t in product(_PLACE_HEADS, _PLACE_TAILS))

#: Genres in TMDB's spelling, most common first.
GENRES: tuple[str, ...] = (
    "Drama",
    "Comedy",
    "Action",
    "Thriller",
    "Horror",
    "Romance",
    "Science Fiction",
    "Adventure",
    "Crime",
    "Animation",
    "Fantasy",
    "Mystery",
    "Family",
    "Documentary",
    "History",
    "War",
    "Music",
    "Western",
)

# Title words come in four moods; a genre names its mood in `synthetic.GENRE_PROFILES`.
TITLE_ADJECTIVES: dict[str, tuple[str, ...]] = {
    "dark": _words(
        "Hollow|Crimson|Withered|Drowned|Ashen|Buried|Restless|Pale|Sleepless|Rotten|"
        "Hushed|Salt-Stained|Unlit|Bleeding|Nameless|Sunken|Tallow|Cold-Blooded|Splintered|"
        "Murmuring|Feral|Rusted|Veiled|Thirteenth|Starving|Moth-Eaten|Frostbitten|Crooked"
    ),
    "bright": _words(
        "Lucky|Tiny|Borrowed|Second-Hand|Accidental|Sunny|Runaway|Upside-Down|Secondhand|"
        "Marvelous|Wobbly|Giddy|Pocket-Sized|Glittering|Freckled|Mismatched|Unlikely|"
        "Bouncing|Curious|Rambunctious|Sparkling|Dizzy|Honeyed|Peppermint|Polka-Dot|Jolly"
    ),
    "epic": _words(
        "Iron|Burning|Shattered|Distant|Fallen|Silver|Forgotten|Endless|Obsidian|Scarlet|"
        "Thundering|Sunless|Vanguard|Ironclad|Starbound|Sovereign|Howling|Gilded|Ember|"
        "Cobalt|Unbroken|Outer|Seventh|Boundless|Skyward|Molten|Wandering|Tempest"
    ),
    "quiet": _words(
        "Quiet|Ordinary|Long|Small|Tender|Unfinished|Borrowed|Late|Patient|Winter|Paper|"
        "Narrow|Gentle|Faded|Unspoken|Lingering|Humble|Half-Open|Ninth|Unsent|Blue|"
        "Modest|Folded|Weathered|Evening|Careful|Slow|Absent"
    ),
}
TITLE_NOUNS: dict[str, tuple[str, ...]] = {
    "dark": _words(
        "Orchard|Lantern|Cellar|Harbor|Threshold|Ledger|Vigil|Attic|Undertow|Marsh|Hymn|"
        "Cradle|Well|Bell|Chapel|Lullaby|Mirror|Kennel|Thicket|Furnace|Quarry|Asylum|"
        "Tenant|Confession|Hunger|Shiver|Keyhole|Bone Garden"
    ),
    "bright": _words(
        "Summer|Balloon|Neighbors|Cupcake|Parade|Picnic|Sleepover|Jukebox|Scooter|"
        "Treehouse|Carnival|Heist Club|Kite|Bakery|Caravan|Matchmaker|Pancake|Talent Show|"
        "Mixtape|Detour|Lemonade Stand|Pen Pal|Snow Day|Roller Rink|Bumblebee|Lighthouse Keeper"
    ),
    "epic": _words(
        "Frontier|Crown|Horizon|Citadel|Legion|Tide|Dominion|Meridian|Expanse|Vanguard|"
        "Covenant|Rampart|Armada|Outpost|Requiem|Eclipse|Bastion|Spire|Gauntlet|Reckoning|"
        "Exodus|Protocol|Sentinel|Uprising|Dynasty|Colossus|Ascension|Siege"
    ),
    "quiet": _words(
        "Years|Hours|House|River|Letters|Country|Season|Window|Garden|Harvest|Kitchen|"
        "Station|Shoreline|Afternoon|Inheritance|Apprentice|Choir|Ferry|Lodger|Orchestra|"
        "Vineyard|Laundry|Ceremony|Workshop|Boarding House|Waltz|Typewriter|Crossing"
    ),
}
#: Second nouns for "X of the Y" titles, by mood.
TITLE_OBJECTS: dict[str, tuple[str, ...]] = {
    "dark": _words(
        "Drowned|Damned|Marsh|Hollow Men|Night Tide|Last Door|Ninth Floor|Pale Choir|"
        "Grey House|Silent Ward|Burning Fields|Black Well|Lost Hours|Watchers"
    ),
    "bright": _words(
        "Big Top|Backyard|Cul-de-Sac|Lost Socks|Rainy Day|Midnight Snack|Grand Prize|"
        "Open Road|Science Fair|Seven Dwarf Goats|Runaway Piano|Bake-Off|Block Party|Moon"
    ),
    "epic": _words(
        "Ninth Legion|Iron Coast|Fallen Stars|Last Kingdom Road|Ember Throne|Outer Rim|"
        "Seventh Sun|Broken Sky|Sunken Empire|Northern Reach|Glass Moons|Old Gods|Storm Kings"
    ),
    "quiet": _words(
        "Lake House|Late Summer|Small Hours|Blue Coast|Empty Rooms|Second Spring|"
        "Old Country|Long Winter|Paper Birds|River Town|Far Shore|Evening Trains|Orchard Road"
    ),
}
#: Subtitles for "X: Y" titles.
TITLE_SUBTITLES: dict[str, tuple[str, ...]] = {
    "dark": _words("The Awakening|Bloodline|The Last Rite|Nightfall|Below|The Harvest|Descent"),
    "bright": _words(
        "A Very Big Day|Summer Rules|The Great Mix-Up|Road Trip Edition|Holiday Special"
    ),
    "epic": _words("Rise of the Fallen|The Long March|Dawn of Iron|Ashes of Empire|Firstlight"),
    "quiet": _words("A Love Story|Portrait of a Family|The Final Season|A Life|Homecoming"),
}

#: Famous real film titles that our patterns could otherwise produce; never emitted.
TITLE_BLOCKLIST: frozenset[str] = frozenset(
    t.casefold()
    for t in (
        "The Lighthouse",
        "Upside Down",
        "The Well",
        "The Crown",
        "Horizon",
        "The Expanse",
        "Eclipse",
        "The Tenant",
        "The Confession",
        "The Hunger",
        "The Mirror",
        "Summer",
        "The Neighbors",
        "Neighbors",
        "The Reckoning",
        "Exodus",
        "The Harvest",
        "Descent",
        "The Descent",
        "Legion",
        "The Sentinel",
        "Dominion",
        "Colossus",
        "The Covenant",
        "Uprising",
        "Dynasty",
        "The Siege",
        "Iron Sky",
        "Silver Linings",
        "The Long Walk",
        "The Hours",
        "The House",
        "The River",
        "Winter Garden",
        "The Station Agent",
        "The Inheritance",
        "The Apprentice",
        "The Choir",
        "The Orchestra",
        "The Garden",
        "The Kitchen",
        "Blue Crush",
        "The Last Kingdom",
        "The Awakening",
        "Nightfall",
        "Firstlight",
        "Below",
        "Homecoming",
        "The Ferry",
        "The Lodger",
        "The Crossing",
        "Paper Moon",
        "Long Shot",
    )
)

#: Occupations heroes hold, by genre (fallback: "any").
OCCUPATIONS: dict[str, tuple[str, ...]] = {
    "any": _words(
        "schoolteacher|night nurse|ferry captain|cartographer|beekeeper|court stenographer|"
        "piano tuner|line cook|archivist|radio host|locksmith|midwife|surveyor|bus driver"
    ),
    "Crime": _words("detective|public defender|getaway driver|forger|crime reporter|bail bondsman"),
    "Thriller": _words("insurance investigator|air-traffic controller|translator|security analyst"),
    "Science Fiction": _words("xenobotanist|orbital engineer|cargo pilot|AI ethicist|terraformer"),
    "Horror": _words("night-shift caretaker|paranormal podcaster|hospice nurse|estate appraiser"),
    "Romance": _words("florist|wedding planner|bookshop owner|sommelier|travel writer"),
    "Comedy": _words("failed magician|substitute teacher|mall Santa|party clown|wedding DJ"),
    "Action": _words("ex-marine|bodyguard|stunt driver|smokejumper|bounty hunter"),
    "Western": _words("sheriff|rancher|stagecoach driver|drifter|homesteader"),
    "War": _words("field medic|radio operator|conscript|resistance courier|sniper"),
    "Fantasy": _words("apprentice mapmaker|hedge witch|exiled prince|dragon keeper|lamplighter"),
    "Music": _words("session drummer|cellist|wedding singer|DJ|choir director"),
    "Family": _words("ten-year-old|new kid in town|scout troop leader|grandmother|zookeeper"),
    "Animation": _words("young fox|clockwork mouse|lost robot|shy dragon|runaway kite"),
    "History": _words("court painter|suffragist|royal clerk|printer's apprentice|ship's surgeon"),
    "Mystery": _words("retired inspector|crossword setter|village postmistress|true-crime writer"),
    "Adventure": _words("treasure diver|bush pilot|mountain guide|smuggler|explorer"),
}

#: Keyword banks by genre; an item draws most of its keywords from its first genre.
KEYWORDS: dict[str, tuple[str, ...]] = {
    "Drama": _words(
        "family secrets|grief|coming of age|small town|addiction|redemption|estrangement|"
        "class divide|illness|second chance|working class|inheritance|divorce|memory"
    ),
    "Comedy": _words(
        "mistaken identity|road trip|wedding|buddy comedy|fish out of water|slapstick|"
        "workplace comedy|satire|dysfunctional family|prank|reunion|odd couple"
    ),
    "Action": _words(
        "heist|car chase|martial arts|hostage|revenge|bodyguard|one-man army|conspiracy|"
        "shootout|rescue mission|mercenary|double cross"
    ),
    "Thriller": _words(
        "conspiracy|stalker|cat and mouse|paranoia|kidnapping|blackmail|whistleblower|"
        "unreliable narrator|home invasion|race against time|cover-up|surveillance"
    ),
    "Horror": _words(
        "haunted house|possession|creature feature|cult|slasher|folk horror|curse|"
        "body horror|isolation|supernatural|found footage|zombie|ritual"
    ),
    "Romance": _words(
        "enemies to lovers|second chance romance|long-distance relationship|wedding|"
        "forbidden love|first love|love triangle|summer romance|pen pals|matchmaking"
    ),
    "Science Fiction": _words(
        "space travel|artificial intelligence|time travel|dystopia|alien contact|clone|"
        "colony ship|virtual reality|post-apocalyptic|robot|parallel universe|cyberpunk"
    ),
    "Adventure": _words(
        "treasure hunt|expedition|jungle|shipwreck|quest|lost city|survival|map|"
        "mountain climbing|island|sea voyage|ancient ruins"
    ),
    "Crime": _words(
        "heist|police procedural|organized crime|serial killer|corruption|drug trade|"
        "detective|prison|money laundering|undercover cop|con artist|murder investigation"
    ),
    "Animation": _words(
        "talking animals|friendship|coming of age|magic|hand-drawn|stop motion|"
        "anthropomorphism|musical numbers|robot|underdog|fairy tale|toys"
    ),
    "Fantasy": _words(
        "dragon|magic|chosen one|enchanted forest|witch|prophecy|sword and sorcery|"
        "fairy tale|curse|mythical creature|portal|kingdom"
    ),
    "Mystery": _words(
        "whodunit|amateur sleuth|locked room|missing person|secret society|cold case|"
        "small town|red herring|disappearance|puzzle|manor house|amnesia"
    ),
    "Family": _words(
        "friendship|pets|holiday|siblings|summer camp|dog|grandparents|school|"
        "coming of age|moving house|talent show|adoption"
    ),
    "Documentary": _words(
        "biography|nature|true crime|politics|music history|sports|climate change|"
        "investigative journalism|archival footage|food|art|science"
    ),
    "History": _words(
        "biography|19th century|royalty|revolution|ancient rome|world war ii|"
        "based on true story|colonialism|medieval|cold war|court intrigue|period piece"
    ),
    "War": _words(
        "world war ii|world war i|resistance|soldier|battlefield|prisoner of war|"
        "military|siege|trench warfare|homefront|veteran|survival"
    ),
    "Music": _words(
        "band|concert|singer|jazz|rock and roll|musician|songwriting|hip hop|"
        "orchestra|talent competition|tour|comeback"
    ),
    "Western": _words(
        "frontier|outlaw|gunslinger|ranch|sheriff|gold rush|revenge|cattle drive|"
        "train robbery|desert|bounty hunter|homestead"
    ),
}
