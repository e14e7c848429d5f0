"""The step engine: the Step contract, plan compilation and the executor.

It knows nothing of HTTP or of taskgate's rooms; steps talk through keys.
"""

from .errors import Halt, PlanError, StepFailed
from .executor import Execution, execute
from .plan import Plan, compile_plan
from .types import Condition, Derive, Failure, Inputs, Outcome, Runnable, StepRecord, StepSpec

__all__ = [
    "Condition",
    "Derive",
    "Execution",
    "Failure",
    "Halt",
    "Inputs",
    "Outcome",
    "Plan",
    "PlanError",
    "Runnable",
    "StepFailed",
    "StepRecord",
    "StepSpec",
    "compile_plan",
    "execute",
]
