"""Sentence banks for synthetic overviews: a setup, a turn and the stakes, per genre.

An overview is setup(first genre) + turn(second genre, or the first) + stakes(first
genre), so a Horror-Comedy reads like a horror film with a comic twist. Slots:
{hero} full name, {first} the hero's first name, {job} an occupation ({a_job} / {A_job}
with its article), {place}, {other} a second character's first name.
"""

from __future__ import annotations

from taurec.catalog.builders.plot_bank import PlotBank

PLOTS: dict[str, PlotBank] = {
    "Drama": PlotBank(
        """
        After twenty years away, {hero}, {a_job}, comes home to {place} to care for an ailing
            father.
        {hero}, {a_job} in {place}, loses the one job that held a fragile family together.
        When {hero} finds a box of unsent letters in the attic, a quiet life in {place} comes apart.
        {hero}, a widowed {job}, agrees to share a cramped flat in {place} with a stranger.
        """,
        """
        Old wounds reopen when {other} turns up at the door with a secret of their own.
        A single mistake at work sets off a chain of consequences no one in {place} can ignore.
        The more {first} learns about the past, the less certain the present becomes.
        An unlikely friendship with {other} forces {first} to look honestly at the years behind.
        """,
        """
        What remains is the question of what a family owes to each other.
        By winter, {first} must decide whether to stay, forgive, or finally let go.
        It is a story about the small choices that quietly shape a life.
        """,
    ),
    "Comedy": PlotBank(
        """
        {hero}, {a_job} with a talent for bad timing, is mistaken for a celebrity in {place}.
        When {hero}, {a_job}, accidentally RSVPs to the wrong wedding, there is no backing out.
        {hero} swears off lying for one week, which is a problem for {a_job} in {place}.
        Broke and newly dumped, {hero} moves back in with three eccentric aunts in {place}.
        """,
        """
        Every attempt to fix things only makes the chaos louder, and {other} is keeping score.
        A rivalry with {other} escalates from petty pranks to a full-blown neighbourhood war.
        Things spiral when {first} is roped into a talent contest no one is qualified for.
        The plan works perfectly until {other} starts improvising.
        """,
        """
        Somewhere between the disasters, {first} might just figure out what matters.
        If the truth comes out before Sunday, {first} will never live it down.
        It is loud, kind-hearted and a little ridiculous.
        """,
    ),
    "Action": PlotBank(
        """
        {hero}, a former {job}, is pulled back for one last job on the docks of {place}.
        When a convoy carrying a stolen prototype is ambushed outside {place}, {hero} is the
            only survivor.
        {hero}, {a_job} with a past, has twelve hours to get a witness across {place} alive.
        A routine assignment in {place} turns deadly when {hero}, {a_job}, is framed for murder.
        """,
        """
        Every ally turns out to have a price, and {other} is the most expensive of all.
        The chase tears through rooftops, rail yards and a collapsing dam.
        What began as a rescue becomes a war against the people who trained {first}.
        With {other} at the wheel, the only way out is straight through.
        """,
        """
        If {first} fails, the city burns by dawn.
        There is no backup, no extraction and no second chance.
        The final confrontation leaves nobody unscarred.
        """,
    ),
    "Thriller": PlotBank(
        """
        {hero}, {a_job} in {place}, starts receiving photographs taken inside the family home.
        When a client vanishes mid-session, {hero}, {a_job}, becomes the last person to have
            seen her.
        {hero}, a meticulous {job}, notices a pattern in {place} that no one else can see.
        A wrong number late at night drags {hero}, {a_job}, into a plot far bigger than one town.
        """,
        """
        Trust becomes a liability once {first} realises {other} has been lying from the start.
        Each answer points closer to home, and someone is always one step ahead.
        The police close the case too quickly, so {first} keeps digging alone.
        A second disappearance turns suspicion toward {first}.
        """,
        """
        Time is running out, and the person watching knows it.
        Before the week ends, {first} must expose the truth or become its next victim.
        Nothing in {place} is quite what it seems.
        """,
    ),
    "Horror": PlotBank(
        """
        When {hero}, {a_job}, inherits a crumbling house outside {place}, the locals stop
            making eye contact.
        {hero}, {a_job}, takes a night job in {place} that comes with one rule: never open the
            cellar.
        {hero}, {a_job}, moves the family to {place} for a fresh start, and the youngest begins
            talking to someone in the walls.
        {hero}, {a_job}, returns to the lakeside camp in {place} where five friends once
            disappeared.
        """,
        """
        The whispers grow louder each night, and {other} swears they are calling {first} by name.
        Old photographs show the same figure standing behind every family that lived there.
        A ritual meant to end it only opens the door wider.
        The town has kept its bargain for a century, and it is time to pay again.
        """,
        """
        By the time {first} understands what it wants, it may already be too late.
        Some doors should stay closed.
        Not everyone will see the morning.
        """,
    ),
    "Romance": PlotBank(
        """
        {hero}, {a_job} in {place}, swore off love, until a delayed train and a shared umbrella.
        {hero}, {a_job} in {place}, is forced to share one tiny storefront with a rival for a
            summer.
        {hero}, {a_job}, agrees to pose as {other}'s partner at a family wedding in {place}.
        Years after a missed goodbye, {hero} and {other} meet again on the same ferry to {place}.
        """,
        """
        What starts as a convenient arrangement with {other} becomes something neither planned.
        Letters, missed calls and bad timing keep pulling them apart and back together.
        The fake relationship becomes alarmingly real by the second weekend.
        A job offer on the other side of the world forces the question neither wants to ask.
        """,
        """
        Love, it turns out, is mostly a matter of showing up.
        Before the season ends, {first} has to choose between safety and the heart.
        It is warm, funny and unhurried.
        """,
    ),
    "Science Fiction": PlotBank(
        """
        Aboard the colony ship bound for {place}, {hero}, {a_job}, wakes decades too early.
        In {place}, year 2187, {hero}, {a_job}, discovers that memories can be bought and sold.
        {hero}, {a_job} at a remote research station, detects a signal repeating her own voice.
        When the sun over {place} fails to rise, {hero}, {a_job}, is the only one who remembers why.
        """,
        """
        The ship's intelligence insists nothing is wrong, but {other} has found the missing logs.
        Every jump through the rift costs {first} another day of the past.
        Contact with the visitors changes everyone who hears them, including {other}.
        The truth about the colony was buried by the people who built it.
        """,
        """
        The future of humanity may rest on a single decision made in the dark.
        If {first} is right, nothing about the world is real.
        What comes next will not look like anything we know.
        """,
    ),
    "Adventure": PlotBank(
        """
        {hero}, {a_job}, finds a hand-drawn map hidden in the binding of a library book in {place}.
        A storm strands {hero}, {a_job}, and a bickering crew on an island missing from every chart.
        {hero}, {a_job}, joins an expedition to find a city swallowed by the jungle beyond {place}.
        After her mentor vanishes, {hero}, {a_job}, follows his trail across three continents.
        """,
        """
        Rivals, rockfalls and {other}'s questionable sense of direction stand in the way.
        Each clue leads deeper into territory no one has returned from.
        The treasure is real, and so is the crew hunting {first} for it.
        An uneasy alliance with {other} is the only way through the mountains.
        """,
        """
        The greatest discovery may be who {first} becomes along the way.
        Getting in was the easy part.
        It is a journey of wonder, danger and good company.
        """,
    ),
    "Crime": PlotBank(
        """
        {hero}, {a_job} in {place}, is offered a fortune to look the other way for one night.
        A botched robbery in {place} leaves {hero}, {a_job}, holding a bag that belongs to the
            wrong people.
        {hero}, {a_job}, reopens a twenty-year-old murder that made {place} famous.
        When a body turns up in the harbor of {place}, {hero}, {a_job}, recognises the tattoo.
        """,
        """
        The deeper {first} digs, the more the trail leads back to the precinct.
        {other}, an old partner, has switched sides, or maybe never picked one.
        Every favour owed comes due at once.
        A witness talks, then disappears.
        """,
        """
        In {place}, justice and the law rarely meet.
        Walking away is no longer an option.
        Someone has to pay, and {first} is running out of people to blame.
        """,
    ),
    "Animation": PlotBank(
        """
        {first}, {a_job} who has never left the hedgerows of {place}, sets out to find the edge
            of the world.
        In the toy-sized town of {place}, {a_job} named {first} dreams of joining the great
            autumn parade.
        When the moon gets stuck behind the mountains above {place}, {a_job} named {first}
            volunteers to free it.
        {A_job} named {first} is the smallest creature in {place}, and the bravest nobody has
            noticed.
        """,
        """
        Along the way, {first} befriends {other}, a grumpy companion with a big secret.
        Nothing goes to plan, and every detour brings a new friend and a new song.
        A storm scatters the travellers, and {first} must lead the way home.
        The rival with the biggest mouth turns out to need help most of all.
        """,
        """
        It is a story about courage, friendship and where home really is.
        The whole family will want to go along for the ride.
        Big adventures can start with very small steps.
        """,
    ),
    "Fantasy": PlotBank(
        """
        In the drowned kingdom of {place}, {hero}, {a_job}, discovers she can hear the old gods.
        {hero}, {a_job}, steals a crown that was never supposed to leave the vault of {place}.
        When the last dragon of {place} hatches in a barn, {hero}, {a_job}, must hide it from
            the crown.
        A curse turns every mirror in {place} into a door, and {hero}, {a_job}, walks through one.
        """,
        """
        A prophecy, a talking raven and {other}'s reluctant sword are all the help {first} gets.
        Magic always has a price, and {first} has already begun to pay it.
        The enchanted forest remembers every traveller who broke its rules.
        An ancient enemy stirs beneath the mountains as the seasons turn.
        """,
        """
        The fate of two worlds hangs on a choice {first} is not ready to make.
        Legends are made of smaller heroes than this.
        Nothing that is broken by magic mends the same way twice.
        """,
    ),
    "Mystery": PlotBank(
        """
        A snowstorm traps {hero}, {a_job}, and seven other guests at a manor outside {place};
            by breakfast one is dead.
        {hero}, {a_job}, notices that the obituaries in {place} keep predicting deaths a day early.
        When a reclusive painter vanishes from {place}, {hero}, {a_job}, is hired to find him.
        {hero}, {a_job}, wakes in {place} with no memory and a stranger's key in her pocket.
        """,
        """
        Every suspect has an alibi, and every alibi has a hole.
        {other} knows more than she lets on, and so does the housekeeper.
        The clues point to a crime committed decades ago.
        A coded message in the church registers changes everything.
        """,
        """
        The answer has been hiding in plain sight all along.
        Before the roads reopen, {first} must name the killer.
        Nobody in {place} is entirely innocent.
        """,
    ),
    "Family": PlotBank(
        """
        {A_job} named {first} finds a runaway dog with a very important collar in {place}.
        When the town fair in {place} is cancelled, {hero}, {a_job}, decides to run it with a
            few friends.
        {hero}'s family road trip to {place} goes wrong in the best possible way.
        {first}, {a_job} in {place}, discovers that the new neighbour's garden is full of
            impossible things.
        """,
        """
        With help from {other} and a very determined grandmother, the plan starts to work.
        Sibling squabbles, a missing map and one stubborn goat complicate things.
        The whole neighbourhood gets involved, for better and for worse.
        A secret shared with {other} turns into the summer's greatest adventure.
        """,
        """
        It is a warm story about sticking together.
        Home, it turns out, is wherever your people are.
        There is room for everyone in this one.
        """,
    ),
    "Documentary": PlotBank(
        """
        Filmed over six years in {place}, this documentary follows {hero}, {a_job}, through a
            changing town.
        Told through {hero}, {a_job}, this documentary looks at the rise and fall of the
            factory that built {place}.
        Through archival footage and an interview with {hero}, {a_job}, the film revisits the
            flood that reshaped {place}.
        The film follows {hero}, {a_job}, on a year-long effort to save a disappearing craft.
        """,
        """
        Interviews with {other} and dozens of neighbours reveal what the headlines missed.
        Rare footage and personal letters tell a story rarely seen on screen.
        Along the way, the filmmakers uncover a decades-old cover-up.
        The camera stays close as plans fail, begin again and sometimes succeed.
        """,
        """
        It is an intimate portrait of a place and the people who refuse to leave it.
        The result is clear-eyed, humane and quietly urgent.
        What it finds will change how you see the everyday.
        """,
    ),
    "History": PlotBank(
        """
        In 1848, {hero}, {a_job} in {place}, smuggles pamphlets that could topple a king.
        Based on forgotten records, this is the story of {hero}, {a_job} at the court of {place}.
        As the old empire crumbles, {hero}, {a_job}, is ordered to catalogue its treasures.
        In the winter of 1921, {hero}, {a_job}, takes on the most powerful family in {place}.
        """,
        """
        Loyalties are tested when {other} is arrested for treason.
        Every act of defiance is recorded, and every record can hang a person.
        The politics of the palace prove deadlier than any battlefield.
        A single letter could rewrite the history books, if it survives.
        """,
        """
        It is the untold story behind a turning point in history.
        History remembers the victors; this film remembers {first}.
        What one person did in those years still echoes today.
        """,
    ),
    "War": PlotBank(
        """
        In the final winter of the war, {hero}, {a_job}, is ordered to hold a bridge outside
            {place}.
        {hero}, {a_job}, is left behind enemy lines after the evacuation of {place}.
        Seven conscripts and {a_job} named {hero} must cross forty miles of occupied country.
        {hero}, {a_job} in {place}, hides a downed airman in the family mill.
        """,
        """
        Orders stop arriving, and the unit must decide for itself what duty means.
        {other}, a frightened boy from the next village, becomes the unit's responsibility.
        Every mile costs something that cannot be replaced.
        The enemy is closer than the maps say.
        """,
        """
        Survival is not the same as coming home.
        It is a story of courage, brotherhood and the price of both.
        Not all of them will make it back.
        """,
    ),
    "Music": PlotBank(
        """
        {hero}, {a_job} in {place}, gets one shot at the audition that could change everything.
        {hero}, {a_job}, reunites a washed-up band from {place} for a tour no one asked for.
        {hero}, {a_job}, hears a street busker in {place} and knows she has found her missing voice.
        The last jazz club in {place} has one month to save itself, and {hero}, {a_job}, has a plan.
        """,
        """
        Old rivalries, cheap motels and {other}'s stage fright threaten the whole thing.
        The music comes easily; everything else does not.
        A viral video changes their lives overnight, for better and for worse.
        Creative differences with {other} become personal.
        """,
        """
        Some songs are worth every sacrifice.
        The show must go on, even if the band does not.
        It is a love letter to the people who make music for a living.
        """,
    ),
    "Western": PlotBank(
        """
        {hero}, {a_job}, rides into {place} with a wanted poster and a grudge.
        When the railroad comes to {place}, {hero}, {a_job}, refuses to sell.
        {hero}, {a_job} who swore off the gun, is asked to defend a town that once ran him out.
        For {hero}, {a_job}, a cattle drive to {place} becomes a fight for survival when the
            water runs dry.
        """,
        """
        {other}, an old partner turned outlaw, is waiting at the end of the trail.
        The law in {place} is bought and paid for.
        A stranger's arrival shifts the balance of power in a town on the edge.
        Every bullet fired has a name on it.
        """,
        """
        On the frontier, mercy is the rarest thing of all.
        It will end at high noon, one way or another.
        The land remembers every debt.
        """,
    ),
}
