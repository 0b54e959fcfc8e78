"""Which amk gets installed:

- From a tree that scripts/build-wheel.sh staged (amk/_native present): a
  platform wheel that carries amk-opt, the runtime's tools and
  libamk_runtime.
- From the repository's python/ with AMK built (`pip install ./python`;
  the build is $AMK_BUILD_DIR, else the repository's build/): the same
  native parts, staged into the build directory by build-wheel.sh --stage,
  so the install needs no LLVM, MLIR or repository afterwards.
- Otherwise (no build, or AMK_BUILD_DIR=none): pure Python, finding its
  tools through $AMK_OPT, PATH or a repository build at run time.
"""

import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
STAGED = os.path.isdir(os.path.join(HERE, "amk", "_native"))


def amk_build():
    """The AMK build to take the native parts from, or None."""
    build = os.environ.get("AMK_BUILD_DIR", os.path.join(REPO, "build"))
    script = os.path.join(REPO, "scripts", "build-wheel.sh")
    if build == "none" or not os.path.isfile(script):
        return None
    if not os.access(os.path.join(build, "bin", "amk-opt"), os.X_OK):
        return None
    return build


BUILD = None if STAGED else amk_build()
NATIVE = STAGED or BUILD is not None


class BuildWithNative(build_py):
    """build_py, plus the native parts of BUILD staged into the package."""

    def run(self):
        super().run()
        if BUILD is not None:
            subprocess.check_call([os.path.join(REPO, "scripts",
                                                "build-wheel.sh"),
                                   "--stage", self.build_lib, BUILD])


class NativeDistribution(Distribution):
    def has_ext_modules(self):
        return NATIVE


cmdclass = {"build_py": BuildWithNative}
if NATIVE:
    try:
        from setuptools.command.bdist_wheel import bdist_wheel
    except ImportError:  # setuptools < 70.1
        from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        """Any CPython 3: the native parts are programs and a C library
        loaded through ctypes, not extension modules."""

        def get_tag(self):
            _, _, platform = super().get_tag()
            return "py3", "none", platform

    cmdclass["bdist_wheel"] = PlatformWheel

setup(distclass=NativeDistribution, cmdclass=cmdclass,
      package_data={"amk": ["_native/bin/*", "_native/lib/*"]} if STAGED
      else {})
