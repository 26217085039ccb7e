"""INSPIRED in its published layout (`data/dialog_data/{train,dev,test}.tsv`: one row per
utterance, with `dialog_id`, `speaker` (SEEKER or RECOMMENDER), `text`, and the `movies`
and `genres` it names, ";"-separated) as annotated dialogues.

As UserSimCRS converts it, the seeker is the user, the recommender the agent, and
consecutive rows of one speaker are merged into one utterance. INSPIRED carries no
dialogue acts and no verdicts on recommendations (its labels are social strategies); the
acts are read off its columns: a recommender utterance naming movies is a `recommend` of
them, one asking a question an `elicit`, any other `other`; the seeker's first utterance
is a `start`, and each genre or movie a seeker utterance names a `disclose` of it. Whether
the seeker took the recommendation is the dialogue's outcome, from INSPIRED's own case
label (its README's `case`, the published files' `fine_label` column: accept_rating_good,
accept_rating_mod, accept_uninterested, accept_others: it took it; reject: it did not); the utterances carry no verdict, so SRRR and RDL on INSPIRED
need the verdicts annotated (an LLM NLU, as UserSimCRS does, or by hand).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from taurec.catalog.errors import DataError
from taurec.tasks.dialogues.files import tsv_rows
from taurec.tasks.dialogues.format import AnnotatedDialogue, AnnotatedUtterance, DialogueOutcome
from taurec.tasks.trajectory.dialogue_acts import DialogueAct

COLUMNS = ("dialog_id", "speaker", "text")
EXPECTED = "INSPIRED's dialog TSV (columns dialog_id, speaker, text, movies, genres, ...)"
_SPEAKERS = {"SEEKER": "user", "RECOMMENDER": "agent"}


@dataclass
class _Turn:
    """Consecutive rows of one speaker: their texts, movies and genres, in order."""

    who: str
    texts: list[str] = field(default_factory=list)
    movies: list[str] = field(default_factory=list)
    genres: list[str] = field(default_factory=list)

    def add(self, text: str, movies: list[str], genres: list[str]) -> None:
        if text:
            self.texts.append(text)
        self.movies += movies
        self.genres += genres

    @property
    def text(self) -> str:
        return " ".join(self.texts)


def _split(cell: str | None) -> list[str]:
    return [v.strip() for v in (cell or "").split(";") if v.strip()]


def _acts(
    who: str, text: str, movies: list[str], genres: list[str], first: bool
) -> list[DialogueAct]:
    if who == "agent":
        if movies:
            return [DialogueAct(intent="recommend", items=tuple(dict.fromkeys(movies)))]
        return [DialogueAct(intent="elicit" if "?" in text else "other")]
    acts = [DialogueAct(intent="start")] if first else []
    acts += [DialogueAct(intent="disclose", slot="genres", value=g) for g in dict.fromkeys(genres)]
    acts += [
        DialogueAct(intent="disclose", slot="title", value=m, items=(m,))
        for m in dict.fromkeys(movies)
    ]
    return acts or [DialogueAct(intent="other")]


def read_inspired(path: Path) -> list[AnnotatedDialogue]:
    """The dialogues of an INSPIRED TSV file; DataError naming the file and the row.
    Consecutive rows of one speaker are gathered, then joined once: linear in the rows."""
    with tsv_rows(path, EXPECTED) as rows:
        missing = [c for c in COLUMNS if c not in (rows.fieldnames or [])]
        if missing:
            raise DataError(
                f"has no {', '.join(missing)} column; expected INSPIRED's dialog TSV "
                f"(columns {', '.join(COLUMNS)}, movies, genres, ...)",
                source=path,
            )
        turns: dict[str, list[_Turn]] = {}
        cases: dict[str, str] = {}
        for n, row in enumerate(rows, 2):
            who = _SPEAKERS.get(str(row.get("speaker", "")).strip().upper())
            if who is None:
                raise DataError(f"row {n}: speaker must be SEEKER or RECOMMENDER", source=path)
            dialogue = turns.setdefault(str(row["dialog_id"]), [])
            case = str(row.get("case") or row.get("fine_label") or "").strip()
            if case and case.lower() != "nan":
                cases.setdefault(str(row["dialog_id"]), case)
            text = str(row.get("text") or "").strip()
            movies, genres = _split(row.get("movies")), _split(row.get("genres"))
            if not dialogue or dialogue[-1].who != who:
                dialogue.append(_Turn(who))
            dialogue[-1].add(text, movies, genres)
    out = []
    for ident, dialogue in turns.items():
        utterances = []
        for k, turn in enumerate(dialogue):
            who, text, movies, genres = turn.who, turn.text, turn.movies, turn.genres
            acts = _acts(who, text, movies, genres, k == 0 and who == "user")
            utterances.append(
                AnnotatedUtterance(
                    participant=who,
                    intents=tuple(a.intent for a in acts),
                    text=text,
                    acts=tuple(acts),
                )
            )
        out.append(
            AnnotatedDialogue(
                utterances=tuple(utterances),
                id=ident,
                metadata={"source": "inspired", "agent_id": "RECOMMENDER", "user_id": "SEEKER"},
                outcome=_outcome(cases.get(ident)),
            )
        )
    return out


def _outcome(case: str | None) -> DialogueOutcome | None:
    """The dialogue's outcome from its `case` label (None when the row carries none)."""
    if not case:
        return None
    return DialogueOutcome(accepted=case.lower().startswith("accept"), source=f"INSPIRED {case}")
