"""The permission kernel: modes, capabilities, rules, persisted approvals, audit, the engine.

Mechanism only: the kernel knows capabilities, never tool names (the harness in
``shellgate.approval`` maps tools to capabilities). Imports stay light: pyparsing is loaded
only when a rule is parsed, filelock only when the approval store is written.
"""

from __future__ import annotations

from .audit import AuditLog, default_audit_path, read_audit
from .engine import Ask, Engine
from .modes import (
    MATRIX,
    Capability,
    DecisionKind,
    Grant,
    Mode,
    Verdict,
    grant_for,
    matrix_verdict,
    parse_mode,
)
from .redact import redact
from .rules import Rule, RuleAction, RuleError, RuleSet, parse_rule, tool_key
from .store import Approval, Store, default_store_path
from .types import (
    FULL_CHOICES,
    LIMITED_CHOICES,
    Approver,
    Decision,
    Metadata,
    PathAccess,
    PathOp,
    Prompt,
    Request,
)

__all__ = [
    "FULL_CHOICES", "LIMITED_CHOICES", "MATRIX", "Approval", "Approver", "Ask", "AuditLog",
    "Capability", "Decision", "DecisionKind", "Engine", "Grant", "Metadata", "Mode", "PathAccess", "PathOp",
    "Prompt", "Request", "Rule", "RuleAction", "RuleError", "RuleSet", "Store", "Verdict",
    "default_audit_path", "default_store_path", "grant_for", "matrix_verdict", "parse_mode", "parse_rule",
    "read_audit", "redact", "tool_key",
]
