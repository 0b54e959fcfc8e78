"""The wheel is pure Python unless scripts/build-wheel.sh staged native
tools under amk/_native; then it is a platform wheel (py3-none-<platform>)
that carries them."""

import os

from setuptools import setup
from setuptools.dist import Distribution

NATIVE = os.path.isdir(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), "amk", "_native"))


class NativeDistribution(Distribution):
    def has_ext_modules(self):
        return NATIVE


cmdclass = {}
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
      package_data={"amk": ["_native/bin/*", "_native/lib/*"]} if NATIVE
      else {})
