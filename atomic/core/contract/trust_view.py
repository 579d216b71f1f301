"""`engine.trust`: the project trust decision and what it loads, over `ProjectTrust`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atomic.core.contract.state import SkippedResources, TrustStatus
from atomic.core.engine.project_trust import ProjectTrust, TrustChoice
from atomic.core.trust import TrustDecision

if TYPE_CHECKING:
    from atomic.core.project_offer import ProjectOffer


class TrustView:
    """Whether the working folder is trusted, what that leaves out, and the user's answer."""

    def __init__(self, trust: ProjectTrust) -> None:
        self._t = trust

    @property
    def decision(self) -> TrustDecision:
        """The trust decision for the working folder now in effect."""
        return self._t.decision

    def skipped(self) -> ProjectOffer:
        """What the folder brings that was not loaded (empty when trusted)."""
        return self._t.skipped()

    def project_resources(self) -> ProjectOffer:
        """Everything the folder brings, loaded or not (the /trust screen lists it)."""
        return self._t.project_resources()

    def saved_here(self) -> bool:
        """True when trust.json holds a decision for this very folder (so it can be forgotten)."""
        return self._t.saved_here()

    def status(self, with_skipped: bool = False) -> TrustStatus:
        """The decision as a record; `with_skipped` adds what was not loaded."""
        from atomic.core.trust import HOW_TO_TRUST

        trust = self._t.decision
        skipped: tuple[SkippedResources, ...] | None = None
        if with_skipped:
            skipped = tuple(SkippedResources(kind, tuple(items)) for kind, items in self._t.skipped().items())
        return TrustStatus(
            trusted=trust.trusted,
            source=trust.source,
            cwd=trust.cwd,
            decided_by=trust.decided_by,
            undecided=trust.undecided,
            description=trust.describe(),
            skipped=skipped,
            how_to_trust=HOW_TO_TRUST if with_skipped and not trust.trusted else None,
        )

    async def decide(self, choice: TrustChoice) -> TrustDecision:
        """Apply the user's answer: save it (except "once"), then load or stop using what the project
        brings (extensions already loaded stay until restart). Returns the decision now in effect.
        Raises OSError or ValueError: trust.json could not be written (nothing changed)."""
        return await self._t.decide(choice)

    def loaded_extensions(self) -> list[str]:
        """File names of the loaded extensions the project folder brings: they keep running after
        trust is withdrawn, until Atomic restarts."""
        return self._t.loaded_extensions()

    def untrusted_notice(self) -> str | None:
        """The one line a non-interactive frontend prints when the folder was left undecided and
        brings something; None otherwise."""
        return self._t.untrusted_notice()
