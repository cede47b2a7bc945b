"""What the validation scripts against third-party kernels share
(deepgemm_validate.py, flashmla_validate.py): finding the CUDA tools and
ptxsim, checking the checkouts the user fetched, and the work folder,
which must lie outside this repository (nothing built from third-party
code is ever committed)."""

import os
import shutil
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Skip(Exception):
    """Something outside the project is missing: the script says what and
    prints "skipped" (exit status 0)."""


def find_tool(name, given):
    if given:
        return given if os.path.isfile(given) and os.access(given, os.X_OK) else None
    for p in (f'/usr/local/cuda/bin/{name}',):
        if os.access(p, os.X_OK):
            return p
    return shutil.which(name)


def require_checkouts(checkouts):
    """checkouts: (option, folder given, a file that must exist in it, what
    the file shows) for each; raises Skip naming the first that is missing."""
    for option, folder, marker in checkouts:
        if not folder or not os.path.isfile(os.path.join(folder, marker)):
            raise Skip(f'{option} does not name a checkout with {marker}')


def require_ptxsim(path):
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise Skip(f'ptxsim not found at {path}')


def work_folder(given, prefix):
    """The folder for generated files, or None when it would be inside the
    repository."""
    work = given or tempfile.mkdtemp(prefix=prefix)
    if os.path.realpath(work).startswith(os.path.realpath(REPO) + os.sep):
        return None
    os.makedirs(work, exist_ok=True)
    return work
