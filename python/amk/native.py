"""The tools and libraries an installed wheel carries.

`scripts/build-wheel.sh` puts amk-opt, amk-tune, amk-bench, amk-device-info
and libamk_runtime (with the LLVM libraries amk-opt needs, found through its
rpath) under amk/_native, so that the package compiles and launches on a
machine with only the CUDA driver. A source checkout has no _native: the
tools are then found as the environment variables, PATH or the repository's
builds say (each lookup documents its order).
"""

import os
import shutil
import stat

NATIVE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "_native")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))


def packaged_tool(name):
    """amk/_native/bin/<name>, made executable if an installer dropped the
    mode bits; None when the package carries no such tool."""
    path = os.path.join(NATIVE_DIR, "bin", name)
    if not os.path.isfile(path):
        return None
    if not os.access(path, os.X_OK):
        try:
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP
                     | stat.S_IXOTH)
        except OSError:
            return None
    return path


def packaged_library(name):
    path = os.path.join(NATIVE_DIR, "lib", name)
    return path if os.path.isfile(path) else None


def find_tool(name, env):
    """A tool: $<env>, the package's own, PATH, then the runtime build of
    scripts/build-runtime.sh and this repository's build; None when none is
    executable."""
    candidates = [os.environ.get(env), packaged_tool(name),
                  shutil.which(name),
                  os.path.join("/tmp/amk-runtime-build/bin", name),
                  os.path.join(REPO, "build", "bin", name)]
    return next((c for c in candidates if c and os.path.isfile(c)
                 and os.access(c, os.X_OK)), None)
