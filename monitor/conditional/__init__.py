"""The conditional-value check (reference-free, every trace): a value only a condition supports.

Use ``ConditionalRules.load(numeric, packs)`` once, then ``check(question, answer, contexts)`` on every
trace. The condition vocabulary comes from the YAML packs in ``rules/conditional``; see
docs/conditional.md.
"""

from monitor.conditional.check import ConditionalRules
from monitor.conditional.model import FLAG_REASON, KIND, ConditionalFinding, ConditionalReport
from monitor.conditional.mutes import Mute, MuteList

__all__ = [
    "FLAG_REASON",
    "KIND",
    "ConditionalFinding",
    "ConditionalReport",
    "ConditionalRules",
    "Mute",
    "MuteList",
]
