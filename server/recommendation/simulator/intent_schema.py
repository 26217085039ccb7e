"""The intent schema of the agenda-based user: which intents it needs, which agent intents
each user intent expects next, and which agent intents elicit, recommend or inquire.

A small YAML file (schemas/iard.yaml is the default, UserSimCRS's IARD / ReDial model in
taurec's intents). Labels may be taurec's or IARD's; IARD labels are mapped to taurec's
(taurec.tasks.dialogues.iard), since the agent NLU and the log speak taurec's. A
UserSimCRS interaction model (its `required_intents` keyed INTENT_START, INTENT_LIKE, ...:
redial_v1, inspired_v1, crs_v1, ...) loads as it is: its labels are read by their roles
(taurec.tasks.dialogues.labels) and the schema is that model in taurec's intents.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any, Final

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from taurec.catalog.errors import DataError, from_validation_error
from taurec.tasks.dialogues.iard import from_iard
from taurec.tasks.dialogues.labels import ROLES, from_interaction_model

REQUIRED: Final = (
    "start",
    "stop",
    "item_consumed",
    "like",
    "dislike",
    "neutral",
    "disclose",
    "inquire",
    "dont_know",
    "yes",
    "no",
)


def _user(label: str) -> str:
    intent = from_iard(str(label), "user")
    if intent is None:
        raise ValueError(f"unknown user intent {label!r}")
    return intent


def _agent(label: str) -> str:
    intent = from_iard(str(label), "agent")
    if intent is None:
        raise ValueError(f"unknown agent intent {label!r}")
    return intent


class IntentSchema(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    required_intents: dict[str, str]
    user_intents: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    agent_elicit_intents: tuple[str, ...]
    agent_set_retrieval: tuple[str, ...]
    agent_inquire_intents: tuple[str, ...]

    @field_validator("required_intents")
    @classmethod
    def _required(cls, v: dict[str, str]) -> dict[str, str]:
        missing = [k for k in REQUIRED if k not in v]
        if missing:
            raise ValueError(f"missing {', '.join(missing)}; expected all of {', '.join(REQUIRED)}")
        return {k: _user(label) for k, label in v.items()}

    @field_validator("user_intents", mode="before")
    @classmethod
    def _user_intents(cls, v: Any) -> Any:
        if not isinstance(v, dict):
            return v
        return {_user(k): tuple(_agent(a) for a in (e or ())) for k, e in v.items()}

    @field_validator("agent_elicit_intents", "agent_set_retrieval", "agent_inquire_intents")
    @classmethod
    def _agent_intents(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_agent(a) for a in v)

    def intent(self, role: str) -> str:
        """The taurec intent playing `role` (one of REQUIRED)."""
        return self.required_intents[role]

    def expects(self, user_intent: str, agent_intents: set[str]) -> bool:
        """Whether any of the agent's intents is one `user_intent` expects next."""
        return bool(set(self.user_intents.get(user_intent, ())) & agent_intents)

    @classmethod
    def load(cls, path: Path | None = None) -> IntentSchema:
        """The schema at `path` (None: the default IARD one); DataError naming the file
        and the field otherwise."""
        source: Path | str = path or "schemas/iard.yaml"
        try:
            if path is None:
                text = (
                    files("taurec.server.recommendation.simulator") / "schemas" / "iard.yaml"
                ).read_text()
            else:
                text = path.read_text(encoding="utf-8")
            doc = yaml.safe_load(text)
        except FileNotFoundError:
            raise DataError("no such file", source=source) from None
        except yaml.YAMLError as exc:
            raise DataError(
                f"is not valid YAML ({str(exc).splitlines()[0]})", source=source
            ) from None
        if _is_interaction_model(doc):
            doc = _in_taurec_intents(doc, source)
        try:
            return cls.model_validate(doc)
        except ValidationError as exc:
            raise from_validation_error(exc, source=source, record="intent schema") from None


def _is_interaction_model(doc: Any) -> bool:
    """Whether `doc` is a UserSimCRS interaction model (its roles named INTENT_*)."""
    required = doc.get("required_intents") if isinstance(doc, dict) else None
    return isinstance(required, dict) and any(str(k).startswith("INTENT_") for k in required)


def _in_taurec_intents(doc: dict[str, Any], source: Path | str) -> dict[str, Any]:
    """A UserSimCRS interaction model as this schema's document, in taurec's intents."""
    labels = from_interaction_model(doc, source=source)

    def user(label: Any) -> str:
        return labels.intent(str(label), "user") or "other"

    def agent(label: Any) -> str:
        return labels.intent(str(label), "agent") or "other"

    expects: dict[str, list[str]] = {}
    for label, spec in (doc.get("user_intents") or {}).items():
        wanted = spec.get("expected_agent_intents") if isinstance(spec, dict) else None
        merged = expects.setdefault(user(label), [])
        merged += [a for a in map(agent, wanted or ()) if a not in merged]
    return {
        "name": str(doc.get("name") or Path(str(source)).stem),
        "required_intents": {
            role.removeprefix("INTENT_").lower(): user(label)
            for role, label in doc["required_intents"].items()
            if role in ROLES
        },
        "user_intents": expects,
        **{
            key: list(dict.fromkeys(map(agent, doc.get(key) or ())))
            for key in ("agent_elicit_intents", "agent_set_retrieval", "agent_inquire_intents")
        },
    }
