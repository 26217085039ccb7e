"""In-process environments over taurec episodes, for trainers and evaluation frameworks:
`TaurecEnv` (reset/step, one episode at a time, any task kind) and `VectorEnv` (G
episodes at once over one loaded suite), both on an `EnvHost` (the server, in process).
Rewards are the evaluator's scores of the episodes' own logs.
"""

from taurec.clients.envs.env import StepResult, TaurecEnv
from taurec.clients.envs.host import EnvHost
from taurec.clients.envs.vector import VectorEnv

__all__ = ["EnvHost", "StepResult", "TaurecEnv", "VectorEnv"]
