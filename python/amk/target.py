"""The GPU a program runs on as an AMK target.

    t = amk.target.from_device()        # "/.../cache/device-0-<uuid>.json" or "h200"

The runtime's `amk-device-info` ($AMK_DEVICE_INFO, the wheel's, PATH, or
the runtime build's bin) reads the device's own properties into the target
JSON that `--amk-target` takes; without it, the preset of the device's name
is used.
One lookup per device and process.
"""

import os
import subprocess

from . import native

_PRESETS = [("H200", "h200"), ("H100", "h100"), ("B200", "b200"),
            ("A100", "a100"), ("L4", "l4"), ("RTX 4060 Ti", "rtx4060ti"),
            ("RTX 5060 Ti", "rtx5060ti")]
_FOUND = {}


def _device_info_tool():
    return native.find_tool("amk-device-info", "AMK_DEVICE_INFO")


def preset_for(name):
    """The preset of a device name ("NVIDIA H200" -> "h200"), or None."""
    return next((p for key, p in _PRESETS if key in name), None)


def from_device(device=None, cache_dir=None):
    """The target of a CUDA device (torch's current one by default): a
    target JSON file from amk-device-info, else the preset of its name;
    raises RuntimeError when neither is there."""
    import torch

    index = torch.device(device).index if device is not None else None
    if index is None:
        index = torch.cuda.current_device()
    if index in _FOUND:
        return _FOUND[index]
    props = torch.cuda.get_device_properties(index)
    tool = _device_info_tool()
    target = None
    if tool:
        from .compiler import _cache_root
        root = _cache_root(cache_dir)
        os.makedirs(root, exist_ok=True)
        uuid = str(getattr(props, "uuid", index))
        path = os.path.join(root, f"device-{index}-{uuid}.json")
        proc = subprocess.run([tool, "--device", str(index), "-o", path],
                              capture_output=True, text=True)
        if proc.returncode == 0 and os.path.isfile(path):
            target = path
    if target is None:
        target = preset_for(props.name)
    if target is None:
        raise RuntimeError(f"no AMK target for {props.name}: build the "
                           f"runtime (amk-device-info) or pass target=")
    _FOUND[index] = target
    return target


class Target:
    """amk.Target.from_device() is amk.target.from_device(): a target is a
    preset name or a target JSON path, not an object of its own."""

    from_device = staticmethod(from_device)
    preset_for = staticmethod(preset_for)
